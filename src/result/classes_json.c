/* Statement classes (summary.classes[]) and lag objects: paths a run's figures share with
 * whatever part counts them. */
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

void result_classes_json(const struct result *r, json_t *summary)
{
    if (r->summary.has_classes)
        put(summary, "classes", classes_json(r));
}

int result_lag_known(const struct result_lag *l)
{
    return l->hist.count > 0 || l->max_us > 0;
}

json_t *result_lag_json(const struct result_lag *l)
{
    json_t *o = json_object();
    put_num(o, "p50", l->p50_us);
    put_num(o, "p99", l->p99_us);
    put_num(o, "max", l->max_us);
    if (l->hist.count > 0)
        put(o, "histogram", result_hist_to_json(&l->hist));
    return o;
}

double result_part_num_or_nan(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int result_lag_from_json(const json_t *o, struct result_lag *l)
{
    if (!o)
        return 0;
    l->p50_us = result_part_num_or_nan(o, "p50");
    l->p99_us = result_part_num_or_nan(o, "p99");
    l->max_us = result_part_num_or_nan(o, "max");
    const json_t *h = json_object_get(o, "histogram");
    return h && result_hist_from_json(h, &l->hist) < 0 ? -1 : 0;
}

static void free_classes(struct result_script_figures *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].name);
        hist_sparse_free(&c[i].histogram);
    }
    free(c);
}

/* The classes of a (the array), into *out and *n; -1 when malformed (*out then holds those
 * read before, for the caller to free). */
static int read_classes(const json_t *a, struct result_script_figures **out, size_t *n)
{
    *out = xcalloc(json_array_size(a) + 1, sizeof **out);
    *n = 0;
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *o = json_array_get(a, i);
        const char *name = json_string_value(json_object_get(o, "class"));
        if (!json_is_object(o) || !name)
            return -1;
        struct result_script_figures *c = &(*out)[(*n)++];
        c->name = xstrdup(name);
        c->transactions = result_part_count(o, "count");
        c->failed = result_part_count(o, "failed");
        result_latency_from_json(json_object_get(o, "latency_us"), &c->latency_us);
        const json_t *h = json_object_get(o, "histogram");
        if (h && result_hist_from_json(h, &c->histogram) < 0)
            return -1;
    }
    return 0;
}

int result_classes_json_ok(const json_t *summary)
{
    const json_t *a = json_object_get(summary, "classes");
    if (!a)
        return 1;
    if (!json_is_array(a))
        return 0;
    struct result_script_figures *c;
    size_t n;
    int ok = read_classes(a, &c, &n) == 0;
    free_classes(c, n);
    return ok;
}

void result_classes_read(const json_t *summary, struct result *r)
{
    const json_t *a = json_object_get(summary, "classes");
    if (!json_is_array(a))
        return;
    result_classes_free(r);
    struct result_script_figures *c;
    size_t n;
    if (read_classes(a, &c, &n) < 0) { /* malformed: none (a part that needs them refuses) */
        free_classes(c, n);
        return;
    }
    r->summary.classes = c;
    r->summary.n_classes = n;
    r->summary.has_classes = 1;
}

void result_classes_free(struct result *r)
{
    free_classes(r->summary.classes, r->summary.n_classes);
    r->summary.classes = NULL;
    r->summary.n_classes = 0;
    r->summary.has_classes = 0;
}
