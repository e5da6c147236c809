/* Latency quantiles and their block-bootstrap CI from interval histograms (§3.4). */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

#define SUB_BITS 7 /* 128 linear sub-bins per power of two */

/* Values below 256 are exact; above, [2^m, 2^(m+1)) is cut into 128 bins of width 2^(m-7). */
uint32_t cmp_lat_index(int64_t value_us)
{
    uint64_t v = value_us < 0 ? 0 : (uint64_t)value_us;
    if (v < (2u << SUB_BITS))
        return (uint32_t)v;
    unsigned k = (unsigned)(63 - __builtin_clzll(v)) - SUB_BITS;
    return (uint32_t)(((k + 1) << SUB_BITS) + (v >> k) - (1u << SUB_BITS));
}

int64_t cmp_lat_lowest(uint32_t idx)
{
    if (idx < (2u << SUB_BITS))
        return idx;
    unsigned k = (idx >> SUB_BITS) - 1;
    uint64_t sub = (idx & ((1u << SUB_BITS) - 1)) + (1u << SUB_BITS);
    return (int64_t)(sub << k);
}

int64_t cmp_lat_highest(uint32_t idx)
{
    return cmp_lat_lowest(idx + 1) - 1;
}

void cmp_lat_init(struct cmp_lat *l)
{
    memset(l, 0, sizeof *l);
    l->off = xmalloc(sizeof *l->off);
    l->off[0] = 0;
    l->lo = UINT32_MAX;
}

void cmp_lat_free(struct cmp_lat *l)
{
    free(l->off);
    free(l->idx);
    free(l->cnt);
    memset(l, 0, sizeof *l);
}

void cmp_lat_add(struct cmp_lat *l, int64_t value_us, uint64_t count)
{
    if (count == 0)
        return;
    uint32_t i = cmp_lat_index(value_us);
    l->total += count;
    l->lo = i < l->lo ? i : l->lo;
    l->hi = i > l->hi ? i : l->hi;
    /* Finer bins of the result file fall into one coarse bin in a row: merge them. */
    if (l->len > l->off[l->n] && l->idx[l->len - 1] == i) {
        l->cnt[l->len - 1] += count;
        return;
    }
    if (l->len == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->idx = xrealloc(l->idx, l->cap * sizeof *l->idx);
        l->cnt = xrealloc(l->cnt, l->cap * sizeof *l->cnt);
    }
    l->idx[l->len] = i;
    l->cnt[l->len++] = count;
}

void cmp_lat_next(struct cmp_lat *l)
{
    l->n++;
    l->off = xrealloc(l->off, (l->n + 1) * sizeof *l->off);
    l->off[l->n] = l->len;
}

/* Dense counts over [lo, hi] of a weighted sum of intervals (weights NULL: all once). */
static uint64_t merge_dense(const struct cmp_lat *l, const uint32_t *w, uint64_t *dense)
{
    uint64_t total = 0;
    memset(dense, 0, (size_t)(l->hi - l->lo + 1) * sizeof *dense);
    for (size_t t = 0; t < l->n; t++) {
        uint64_t wt = w ? w[t] : 1;
        if (wt == 0)
            continue;
        for (size_t j = l->off[t]; j < l->off[t + 1]; j++) {
            dense[l->idx[j] - l->lo] += wt * l->cnt[j];
            total += wt * l->cnt[j];
        }
    }
    return total;
}

/* The values at qs[0..nq) (ascending) of a dense histogram, in one scan; 0 when empty. */
static void dense_quantiles(const uint64_t *dense, uint32_t lo, uint32_t hi, uint64_t total,
                            const double *qs, size_t nq, double *out)
{
    uint64_t cum = 0;
    size_t k = 0;
    for (uint32_t i = lo; i <= hi && k < nq && total > 0; i++) {
        cum += dense[i - lo];
        while (k < nq) {
            int64_t target = (int64_t)(qs[k] * (double)total + 0.5);
            if ((uint64_t)(target < 1 ? 1 : target) > cum)
                break;
            out[k++] = (double)cmp_lat_highest(i);
        }
    }
    for (; k < nq; k++)
        out[k] = total > 0 ? (double)cmp_lat_highest(hi) : 0;
}

double cmp_lat_quantile(const struct cmp_lat *l, double q)
{
    if (l->total == 0)
        return 0;
    uint64_t *dense = xmalloc((size_t)(l->hi - l->lo + 1) * sizeof *dense);
    uint64_t total = merge_dense(l, NULL, dense);
    double v;
    dense_quantiles(dense, l->lo, l->hi, total, &q, 1, &v);
    free(dense);
    return v;
}

/* Interval weights of one replicate: how often each interval is drawn. */
static void replicate_weights(size_t n, size_t b, struct rng *g, size_t *starts, uint32_t *w)
{
    memset(w, 0, n * sizeof *w);
    size_t k = cmp_cbb_starts(n, b, g, starts);
    size_t filled = 0;
    for (size_t j = 0; j < k; j++) {
        size_t len = b < n - filled ? b : n - filled;
        for (size_t i = 0; i < len; i++)
            w[(starts[j] + i) % n]++;
        filled += len;
    }
}

/* Scratch space for one side's replicates. */
struct side_boot {
    const struct cmp_lat *l;
    size_t *starts;
    uint32_t *w;
    uint64_t *dense;
    double *v; /* nq quantiles of the current replicate */
};

static void side_boot_init(struct side_boot *s, const struct cmp_lat *l, size_t b, size_t nq)
{
    s->l = l;
    s->starts = xmalloc((l->n / b + 1) * sizeof *s->starts);
    s->w = xmalloc(l->n * sizeof *s->w);
    s->dense = xmalloc((size_t)(l->hi - l->lo + 1) * sizeof *s->dense);
    s->v = xmalloc(nq * sizeof *s->v);
}

static void side_boot_free(struct side_boot *s)
{
    free(s->starts);
    free(s->w);
    free(s->dense);
    free(s->v);
}

static void side_boot_draw(struct side_boot *s, size_t b, struct rng *g, const double *qs,
                           size_t nq)
{
    replicate_weights(s->l->n, b, g, s->starts, s->w);
    uint64_t total = merge_dense(s->l, s->w, s->dense);
    dense_quantiles(s->dense, s->l->lo, s->l->hi, total, qs, nq, s->v);
}

void cmp_lat_ci(const struct cmp_lat *la, const struct cmp_lat *lb, size_t b, const double *qs,
                size_t nq, int r, uint64_t seed, struct cmp_ci *out)
{
    for (size_t k = 0; k < nq; k++) {
        /* An empty side has no quantile at all, rather than one of 0. */
        double va = la->total > 0 ? cmp_lat_quantile(la, qs[k]) : NAN;
        double vb = lb->total > 0 ? cmp_lat_quantile(lb, qs[k]) : NAN;
        out[k] = (struct cmp_ci){va, vb, NAN, NAN, NAN};
        if (out[k].a > 0 && out[k].b > 0)
            out[k].est = out[k].b / out[k].a;
    }
    if (la->total == 0 || lb->total == 0)
        return;
    struct side_boot sa, sb;
    side_boot_init(&sa, la, b, nq);
    side_boot_init(&sb, lb, b, nq);
    double *lr = xmalloc(nq * (size_t)r * sizeof *lr);
    struct rng g;
    rng_seed(&g, seed);
    for (int i = 0; i < r; i++) {
        side_boot_draw(&sa, b, &g, qs, nq);
        side_boot_draw(&sb, b, &g, qs, nq);
        for (size_t k = 0; k < nq; k++)
            lr[k * (size_t)r + (size_t)i] =
                sa.v[k] > 0 && sb.v[k] > 0 ? log(sb.v[k] / sa.v[k]) : NAN;
    }
    for (size_t k = 0; k < nq; k++) {
        cmp_pct_interval(lr + k * (size_t)r, (size_t)r, &out[k].lo, &out[k].hi);
        out[k].lo = exp(out[k].lo);
        out[k].hi = exp(out[k].hi);
    }
    free(lr);
    side_boot_free(&sa);
    side_boot_free(&sb);
}
