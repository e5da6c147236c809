#include "result/result_int.h"

#include <math.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "stats/hist_compact.h"

json_t *result_hist_to_json(const struct hist_sparse *h)
{
    json_t *bins = json_array();
    for (size_t i = 0; i < h->n_bins; i++)
        json_array_append_new(
            bins, json_pack("[II]", (json_int_t)h->bins[i].value_us, (json_int_t)h->bins[i].count));
    json_t *o = json_object();
    json_object_set_new(o, "unit", json_string("us"));
    json_object_set_new(o, "sub_buckets", json_integer(HIST_SUB_BUCKETS));
    json_object_set_new(o, "count", json_integer((json_int_t)h->count));
    json_object_set_new(o, "min", json_integer((json_int_t)h->min_us));
    json_object_set_new(o, "max", json_integer((json_int_t)h->max_us));
    json_object_set_new(o, "sum", isfinite(h->sum_us) ? json_real(h->sum_us) : json_null());
    json_object_set_new(o, "sumsq", isfinite(h->sumsq_us) ? json_real(h->sumsq_us) : json_null());
    json_object_set_new(o, "bins", bins);
    return o;
}

/* The compact form: h's exact figures and len bytes of compact text. */
static json_t *compact_json(const struct hist_sparse *h, const char *text, size_t len)
{
    json_t *o = json_object();
    json_object_set_new(o, "count", json_integer((json_int_t)h->count));
    json_object_set_new(o, "min", json_integer((json_int_t)h->min_us));
    json_object_set_new(o, "max", json_integer((json_int_t)h->max_us));
    json_object_set_new(o, "sum", isfinite(h->sum_us) ? json_real(h->sum_us) : json_null());
    json_object_set_new(o, "sumsq", isfinite(h->sumsq_us) ? json_real(h->sumsq_us) : json_null());
    json_object_set_new(o, "compact", json_stringn(text, len));
    return o;
}

json_t *result_hist_to_json_compact(const struct hist_sparse *h)
{
    struct buf text;
    buf_init(&text);
    hist_compact_encode(h, &text);
    json_t *o = compact_json(h, text.data, text.len);
    buf_free(&text);
    return o;
}

static int get_int(const json_t *o, const char *key, json_int_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        return -1;
    *out = json_integer_value(v);
    return 0;
}

json_t *result_interval_hist_json(const struct result_interval *it)
{
    if (!it->compact)
        return result_hist_to_json_compact(&it->histogram);
    return compact_json(&it->histogram, it->compact, it->compact_len);
}

/* keep: where to keep a compact form's text (checked, not decoded), or NULL to decode it. */
static int hist_from_json(const json_t *j, struct hist_sparse *out, struct result_interval *keep)
{
    memset(out, 0, sizeof *out);
    json_int_t count, min, max;
    json_t *bins = json_object_get(j, "bins"), *compact = json_object_get(j, "compact");
    if (!json_is_object(j) || get_int(j, "count", &count) < 0 || get_int(j, "min", &min) < 0 ||
        get_int(j, "max", &max) < 0 || !(json_is_array(bins) || json_is_string(compact)) ||
        count < 0)
        return -1;
    out->count = (uint64_t)count;
    out->min_us = min;
    out->max_us = max;
    out->sum_us = json_number_value(json_object_get(j, "sum"));
    out->sumsq_us = json_number_value(json_object_get(j, "sumsq"));
    if (!json_is_array(bins)) { /* version 2's interval form */
        const char *text = json_string_value(compact);
        size_t len = json_string_length(compact);
        if (!keep)
            return hist_compact_decode(text, len, out);
        if (hist_compact_check(text, len, out) < 0)
            return -1;
        keep->compact = xmalloc(len + 1);
        memcpy(keep->compact, text, len + 1);
        keep->compact_len = len;
        return 0;
    }
    out->n_bins = json_array_size(bins);
    out->bins = xcalloc(out->n_bins, sizeof *out->bins);
    uint64_t total = 0;
    for (size_t i = 0; i < out->n_bins; i++) {
        json_t *b = json_array_get(bins, i);
        json_t *v = json_array_get(b, 0), *c = json_array_get(b, 1);
        if (!json_is_integer(v) || !json_is_integer(c) || json_integer_value(c) < 0 ||
            json_integer_value(v) < 0 ||
            (i > 0 && json_integer_value(v) <= out->bins[i - 1].value_us)) {
            hist_sparse_free(out);
            return -1;
        }
        out->bins[i].value_us = json_integer_value(v);
        out->bins[i].count = (uint64_t)json_integer_value(c);
        total += out->bins[i].count;
    }
    if (total != out->count) {
        hist_sparse_free(out);
        return -1;
    }
    return 0;
}

int result_hist_from_json(const json_t *j, struct hist_sparse *out)
{
    return hist_from_json(j, out, NULL);
}

int result_interval_hist_from_json(const json_t *j, struct result_interval *it)
{
    return hist_from_json(j, &it->histogram, it);
}

int result_interval_decoded(const struct result_interval *it, struct hist_sparse *out)
{
    if (!it->compact) { /* a copy */
        memset(out, 0, sizeof *out);
        hist_sparse_merge(out, &it->histogram);
        return 0;
    }
    *out = it->histogram;
    return hist_compact_decode(it->compact, it->compact_len, out);
}

int result_interval_add(struct hist *h, const struct result_interval *it)
{
    if (!it->compact)
        return hist_add_sparse(h, &it->histogram);
    struct hist_sparse s;
    if (result_interval_decoded(it, &s) < 0)
        return -1;
    int rc = hist_add_sparse(h, &s);
    hist_sparse_free(&s);
    return rc;
}

int result_interval_merge(struct hist_sparse *acc, const struct result_interval *it)
{
    if (!it->compact) {
        hist_sparse_merge(acc, &it->histogram);
        return 0;
    }
    struct hist_sparse s;
    if (result_interval_decoded(it, &s) < 0)
        return -1;
    hist_sparse_merge(acc, &s);
    hist_sparse_free(&s);
    return 0;
}
