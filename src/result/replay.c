/* A replay's paths: replay {...} and summary.classes[]. */
#include "result/result_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

static void put(json_t *o, const char *key, json_t *v)
{
    json_object_set_new(o, key, v ? v : json_null());
}

static void put_count(json_t *o, const char *key, uint64_t v)
{
    put(o, key, json_integer((json_int_t)v));
}

static void put_num(json_t *o, const char *key, double v)
{
    put(o, key, isfinite(v) ? json_real(v) : json_null());
}

static json_t *classes_json(const struct result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->summary.n_classes; i++) {
        const struct result_script_figures *c = &r->summary.classes[i];
        json_t *o = json_object();
        put(o, "class", json_string(c->name ? c->name : ""));
        put_count(o, "count", c->transactions);
        put_count(o, "failed", c->failed);
        put(o, "latency_us", result_part_latency_json(&c->latency_us));
        put(o, "histogram", result_hist_to_json(&c->histogram));
        json_array_append_new(a, o);
    }
    return a;
}

int result_lag_known(const struct result_lag *l)
{
    return l->hist.count > 0 || l->max_us > 0;
}

static json_t *lag_json(const struct result_lag *l)
{
    json_t *o = json_object();
    put_num(o, "p50", l->p50_us);
    put_num(o, "p99", l->p99_us);
    put_num(o, "max", l->max_us);
    if (l->hist.count > 0)
        put(o, "histogram", result_hist_to_json(&l->hist));
    return o;
}

void result_replay_json(const struct result *r, json_t *root, json_t *summary)
{
    const struct result_replay *p = &r->replay;
    if (!p->present)
        return;
    json_t *o = json_object(), *skipped = json_object(), *div = json_object();
    json_t *top = json_array();
    put(o, "capture", json_string(p->capture ? p->capture : ""));
    put(o, "speed", p->speed > 0 ? json_real(p->speed) : json_string("max"));
    put_count(o, "sessions", p->sessions);
    put_count(o, "statements", p->statements);
    put_count(o, "transactions", p->transactions);
    put_count(o, "sent", p->sent);
    put_count(skipped, "copy", p->skipped_copy);
    put_count(skipped, "unsupported", p->skipped_unsupported);
    put_count(skipped, "read_only", p->skipped_read_only);
    put_count(skipped, "secret", p->skipped_secret);
    put(o, "skipped", skipped);
    put_count(div, "failed_now", p->failed_now);
    put_count(div, "succeeded_now", p->succeeded_now);
    for (size_t i = 0; i < p->n_top; i++) {
        json_t *t = json_object();
        put(t, "reason", json_string(p->top[i].reason ? p->top[i].reason : ""));
        put_count(t, "count", p->top[i].count);
        json_array_append_new(top, t);
    }
    put(div, "top", top);
    put(o, "diverged", div);
    put_count(o, "sessions_failed", p->sessions_failed);
    put(o, "lag_us", lag_json(&p->lag));
    if (result_lag_known(&p->client_lag))
        put(o, "client_lag_us", lag_json(&p->client_lag));
    if (p->as_of_s > 0)
        put_num(o, "as_of_s", p->as_of_s);
    put(root, "replay", o);
    if (summary)
        put(summary, "classes", classes_json(r));
}

static uint64_t get_count(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v > 0 ? (uint64_t)v : 0;
}

static double get_num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* A lag object, absent in files written before it: all zero. */
static int lag_read(const json_t *o, struct result_lag *l)
{
    if (!o)
        return 0;
    l->p50_us = get_num(o, "p50");
    l->p99_us = get_num(o, "p99");
    l->max_us = get_num(o, "max");
    const json_t *h = json_object_get(o, "histogram");
    return h && result_hist_from_json(h, &l->hist) < 0 ? -1 : 0;
}

static int read_classes(const json_t *a, struct result *r)
{
    if (!a)
        return 0;
    if (!json_is_array(a))
        return -1;
    r->summary.classes = xcalloc(json_array_size(a) + 1, sizeof *r->summary.classes);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *o = json_array_get(a, i);
        const char *name = json_string_value(json_object_get(o, "class"));
        if (!json_is_object(o) || !name)
            return -1;
        struct result_script_figures *c = &r->summary.classes[r->summary.n_classes++];
        c->name = xstrdup(name);
        c->transactions = get_count(o, "count");
        c->failed = get_count(o, "failed");
        result_latency_from_json(json_object_get(o, "latency_us"), &c->latency_us);
        const json_t *h = json_object_get(o, "histogram");
        if (h && result_hist_from_json(h, &c->histogram) < 0)
            return -1;
    }
    return 0;
}

int result_replay_read(const json_t *root, struct result *r)
{
    const json_t *o = json_object_get(root, "replay");
    if (!o)
        return 0;
    if (!json_is_object(o))
        return -1;
    struct result_replay *p = &r->replay;
    p->present = 1;
    const char *cap = json_string_value(json_object_get(o, "capture"));
    p->capture = cap ? xstrdup(cap) : NULL;
    p->speed = json_is_number(json_object_get(o, "speed")) ? get_num(o, "speed") : 0;
    p->sessions = get_count(o, "sessions");
    p->statements = get_count(o, "statements");
    p->transactions = get_count(o, "transactions");
    p->sent = get_count(o, "sent");
    const json_t *s = json_object_get(o, "skipped"), *d = json_object_get(o, "diverged");
    p->skipped_copy = get_count(s, "copy");
    p->skipped_unsupported = get_count(s, "unsupported");
    p->skipped_read_only = get_count(s, "read_only");
    p->skipped_secret = get_count(s, "secret");
    p->failed_now = get_count(d, "failed_now");
    p->succeeded_now = get_count(d, "succeeded_now");
    const json_t *top = json_object_get(d, "top");
    p->top = xcalloc(json_array_size(top) + 1, sizeof *p->top);
    for (size_t i = 0; i < json_array_size(top); i++) {
        const json_t *t = json_array_get(top, i);
        const char *why = json_string_value(json_object_get(t, "reason"));
        p->top[p->n_top].reason = xstrdup(why ? why : "");
        p->top[p->n_top++].count = get_count(t, "count");
    }
    p->sessions_failed = get_count(o, "sessions_failed");
    if (lag_read(json_object_get(o, "lag_us"), &p->lag) < 0 ||
        lag_read(json_object_get(o, "client_lag_us"), &p->client_lag) < 0)
        return -1;
    p->as_of_s = json_is_number(json_object_get(o, "as_of_s")) ? get_num(o, "as_of_s") : 0;
    return read_classes(json_object_get(json_object_get(root, "summary"), "classes"), r);
}

void result_replay_free(struct result *r)
{
    for (size_t i = 0; i < r->summary.n_classes; i++) {
        free(r->summary.classes[i].name);
        hist_sparse_free(&r->summary.classes[i].histogram);
    }
    free(r->summary.classes);
    r->summary.classes = NULL;
    r->summary.n_classes = 0;
    free(r->replay.capture);
    for (size_t i = 0; i < r->replay.n_top; i++)
        free(r->replay.top[i].reason);
    free(r->replay.top);
    hist_sparse_free(&r->replay.lag.hist);
    hist_sparse_free(&r->replay.client_lag.hist);
    memset(&r->replay, 0, sizeof r->replay);
}
