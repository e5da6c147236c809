/* A replay's section of the result file, replay {...}: its JSON, fields and operations. */
#include "workload/replay/replay_result.h"

#include <math.h>
#include <stdio.h>
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

static json_t *replay_json(const void *data, json_t *summary)
{
    (void)summary;
    const struct replay_result *p = data;
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
    json_t *kinds = json_array();
    for (int k = 0; k < CAPTURE_UNSUP__COUNT; k++) {
        if (!p->unsupported[k].count)
            continue;
        json_t *kind = json_object();
        put(kind, "kind", json_string(capture_unsupported_names[k]));
        put_count(kind, "count", p->unsupported[k].count);
        put(kind, "example", json_string(p->unsupported[k].example));
        json_array_append_new(kinds, kind);
    }
    if (json_array_size(kinds))
        put(o, "unsupported", kinds);
    else
        json_decref(kinds);
    if (p->copy_from)
        put_count(o, "copy_loaded", p->copy_loaded);
    if (p->copy_recorded)
        put_count(o, "copy_recorded", p->copy_recorded);
    if (p->values_mapped)
        put_count(o, "values_mapped", p->values_mapped);
    if (p->copy_empty)
        put_count(o, "copy_empty", p->copy_empty);
    if (p->prepared)
        put_count(o, "prepared", p->prepared);
    if (p->portal_fetches)
        put_count(o, "portal_fetches", p->portal_fetches);
    if (p->pipelined)
        put_count(o, "pipelined", p->pipelined);
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
    if (p->secrets_replaced) {
        put_count(o, "secrets_replaced", p->secrets_replaced);
        put(o, "passwords", json_string("generated"));
    }
    if (p->n_session_set) {
        json_t *sets = json_array();
        for (size_t i = 0; i < p->n_session_set; i++)
            json_array_append_new(sets, json_string(p->session_set[i]));
        put(o, "session_set", sets);
    }
    put_count(o, "sessions_failed", p->sessions_failed);
    if (p->order)
        put(o, "order",
            json_string(p->order == REPLAY_RESULT_ORDER_CAPTURE ? "capture" : "session"));
    if (p->order == REPLAY_RESULT_ORDER_CAPTURE) {
        put_count(o, "order_waits", p->order_waits);
        put(o, "order_wait_ms", json_real(p->order_wait_ms));
        put_count(o, "order_given_way", p->order_given_way);
    }
    if (p->captured_s > 0 || p->replayed_s > 0) {
        put(o, "captured_s", json_real(p->captured_s));
        put(o, "replayed_s", json_real(p->replayed_s));
    }
    double on_time = replay_on_time_share(p);
    if (!isnan(on_time))
        put(o, "on_time_share", json_real(on_time));
    put(o, "lag_us", result_lag_json(&p->lag));
    if (result_lag_known(&p->client_lag))
        put(o, "client_lag_us", result_lag_json(&p->client_lag));
    if (p->as_of_s > 0)
        put(o, "as_of_s", isfinite(p->as_of_s) ? json_real(p->as_of_s) : json_null());
    return o;
}

/* A number, 0 when absent. */
static double get_num(const json_t *o, const char *key)
{
    double v = result_part_num_or_nan(o, key);
    return isnan(v) ? 0 : v;
}

static void *replay_read(const json_t *o, const json_t *root, const json_t *summary, int *bad)
{
    (void)root;
    if (!o)
        return NULL;
    if (!json_is_object(o) || !result_classes_json_ok(summary)) {
        *bad = 1;
        return NULL;
    }
    struct replay_result *p = xcalloc(1, sizeof *p);
    const char *cap = json_string_value(json_object_get(o, "capture"));
    p->capture = cap ? xstrdup(cap) : NULL;
    p->speed = get_num(o, "speed");
    p->sessions = result_part_count(o, "sessions");
    p->statements = result_part_count(o, "statements");
    p->transactions = result_part_count(o, "transactions");
    p->sent = result_part_count(o, "sent");
    const json_t *s = json_object_get(o, "skipped"), *d = json_object_get(o, "diverged");
    p->skipped_copy = result_part_count(s, "copy");
    p->skipped_unsupported = result_part_count(s, "unsupported");
    p->skipped_read_only = result_part_count(s, "read_only");
    p->skipped_secret = result_part_count(s, "secret");
    const json_t *kinds = json_object_get(o, "unsupported");
    for (size_t i = 0; i < json_array_size(kinds); i++) {
        const json_t *kind = json_array_get(kinds, i);
        const char *name = json_string_value(json_object_get(kind, "kind"));
        const char *ex = json_string_value(json_object_get(kind, "example"));
        for (int k = 0; name && k < CAPTURE_UNSUP__COUNT; k++) {
            if (strcmp(name, capture_unsupported_names[k]) != 0)
                continue;
            p->unsupported[k].count = result_part_count(kind, "count");
            snprintf(p->unsupported[k].example, sizeof p->unsupported[k].example, "%s",
                     ex ? ex : "");
        }
    }
    p->copy_from = json_object_get(o, "copy_loaded") != NULL;
    p->copy_loaded = result_part_count(o, "copy_loaded");
    p->copy_empty = result_part_count(o, "copy_empty");
    p->copy_recorded = result_part_count(o, "copy_recorded");
    p->values_mapped = result_part_count(o, "values_mapped");
    p->prepared = result_part_count(o, "prepared");
    p->portal_fetches = result_part_count(o, "portal_fetches");
    p->pipelined = result_part_count(o, "pipelined");
    p->failed_now = result_part_count(d, "failed_now");
    p->succeeded_now = result_part_count(d, "succeeded_now");
    const json_t *top = json_object_get(d, "top");
    p->top = xcalloc(json_array_size(top) + 1, sizeof *p->top);
    for (size_t i = 0; i < json_array_size(top); i++) {
        const json_t *t = json_array_get(top, i);
        const char *why = json_string_value(json_object_get(t, "reason"));
        p->top[p->n_top].reason = xstrdup(why ? why : "");
        p->top[p->n_top++].count = result_part_count(t, "count");
    }
    p->secrets_replaced = result_part_count(o, "secrets_replaced");
    const json_t *sets = json_object_get(o, "session_set");
    p->session_set = xcalloc(json_array_size(sets) + 1, sizeof *p->session_set);
    for (size_t i = 0; i < json_array_size(sets); i++) {
        const char *v = json_string_value(json_array_get(sets, i));
        if (v)
            p->session_set[p->n_session_set++] = xstrdup(v);
    }
    p->sessions_failed = result_part_count(o, "sessions_failed");
    const char *order = json_string_value(json_object_get(o, "order"));
    p->order = !order                          ? 0
               : strcmp(order, "capture") == 0 ? REPLAY_RESULT_ORDER_CAPTURE
                                               : REPLAY_RESULT_ORDER_SESSION;
    p->order_waits = result_part_count(o, "order_waits");
    p->order_wait_ms = get_num(o, "order_wait_ms");
    p->order_given_way = result_part_count(o, "order_given_way");
    if (result_lag_from_json(json_object_get(o, "lag_us"), &p->lag) < 0 ||
        result_lag_from_json(json_object_get(o, "client_lag_us"), &p->client_lag) < 0) {
        replay_result_free(p);
        *bad = 1;
        return NULL;
    }
    p->as_of_s = get_num(o, "as_of_s");
    p->captured_s = get_num(o, "captured_s");
    p->replayed_s = get_num(o, "replayed_s");
    return p;
}

double replay_on_time_share(const struct replay_result *p)
{
    if (p->speed <= 0 || p->lag.hist.count == 0)
        return NAN;
    struct hist *h = hist_new();
    double share =
        hist_add_sparse(h, &p->lag.hist) == 0 ? hist_fraction_below(h, REPLAY_ON_TIME_US + 1) : NAN;
    hist_free(h);
    return share;
}

void replay_result_free(void *data)
{
    struct replay_result *p = data;
    if (!p)
        return;
    free(p->capture);
    for (size_t i = 0; i < p->n_top; i++)
        free(p->top[i].reason);
    free(p->top);
    for (size_t i = 0; i < p->n_session_set; i++)
        free(p->session_set[i]);
    free(p->session_set);
    hist_sparse_free(&p->lag.hist);
    hist_sparse_free(&p->client_lag.hist);
    free(p);
}

const struct replay_result *replay_result_of(const struct result *r)
{
    return result_part_get(r, replay_part.key);
}

/* replay.capture and replay.speed: the speed "max" or a number. */
static const char *const fields[] = {"capture", "speed", NULL};

static int field(const void *data, const char *name, char **value)
{
    const struct replay_result *p = data;
    if (strcmp(name, "capture") == 0) {
        *value = p->capture ? xstrdup(p->capture) : NULL;
        return p->capture != NULL;
    }
    *value = p->speed > 0 ? xasprintf("%.15g", p->speed) : xstrdup("max");
    return 1;
}

static void recovered(void *data, double t_s)
{
    ((struct replay_result *)data)->as_of_s = t_s;
}

const struct result_part_ops replay_part = {
    .key = "replay",
    .at = RESULT_PART_ROOT,
    .read = replay_read,
    .write = replay_json,
    .free = replay_result_free,
    .merge = replay_result_merge,
    .rows = replay_result_rows,
    .what = "replay or summary.classes",
    .unit = "statement",
    .fields = fields,
    .field = field,
    .warn = replay_result_warn,
    .table = &replay_result_table,
    .recovered = recovered,
};
