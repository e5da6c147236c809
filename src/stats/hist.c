#include "stats/hist.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/*
 * Layout. Values 0 .. 2047 each get their own counter (bucket 0, exact). Above that, every power
 * of two [2^k, 2^(k+1)) with k >= 11 is cut into SUB_COUNT = 1024 equal sub-buckets of width
 * 2^(k-10), so a bin is never wider than 1/1024 of its lowest value: the relative error is below
 * 0.098 %. This is HdrHistogram's scheme at 3 significant figures (2048 sub-buckets of which the
 * upper half is used past the first bucket), with a unit of 1 us.
 *
 * With shift = max(0, msb(v) - 10), the counter index is (shift << 10) + (v >> shift): bucket 0
 * fills indexes 0 .. 2047, and bucket b >= 1 fills (b + 1) * 1024 .. (b + 2) * 1024 - 1 because
 * v >> b lies in [1024, 2048). The shift comes from one clz of (v | 2047), which also makes
 * small values land in bucket 0 without a branch.
 *
 * HIST_MAX_US = 2^42 is the lowest value of bucket 32, so the dense array stops right after it.
 */
#define SUB_BITS  10
#define SUB_COUNT (1 << SUB_BITS)
#define MAX_SHIFT 42

_Static_assert(HIST_MAX_US == (1LL << MAX_SHIFT), "N_COUNTS assumes HIST_MAX_US = 2^42");
_Static_assert(HIST_SUB_BUCKETS == SUB_COUNT, "result files state the sub-buckets");

#define N_COUNTS                                                                                   \
    ((size_t)(MAX_SHIFT - SUB_BITS) * SUB_COUNT +                                                  \
     (size_t)(HIST_MAX_US >> (MAX_SHIFT - SUB_BITS)) + 1)

/*
 * Invariants: count is the sum of counts[]; when count > 0, every nonzero counter lies between
 * index_of(min_us) and index_of(max_us), so scans only walk that range; when count == 0, min_us
 * is INT64_MAX and max_us is 0 (the first record then sets both without a special case).
 */
struct hist {
    uint64_t count;
    uint64_t n_overflow;
    int64_t min_us;
    int64_t max_us;
    double sum_us;
    double sumsq_us;
    uint64_t counts[]; /* N_COUNTS */
};

/* Counter index of a value in 0 .. HIST_MAX_US. */
static inline size_t index_of(int64_t v)
{
    uint64_t u = (uint64_t)v;
    /* 64 - clz(u | 2047) is msb + 1, at least 11; the shift is that minus 11. */
    unsigned shift = (unsigned)(64 - (SUB_BITS + 1) - __builtin_clzll(u | (2 * SUB_COUNT - 1)));
    return ((size_t)shift << SUB_BITS) + (size_t)(u >> shift);
}

/* Lowest value mapping to counter i (the inverse of index_of on bin boundaries). */
static inline int64_t lowest_of(size_t i)
{
    if (i < 2 * SUB_COUNT)
        return (int64_t)i;
    unsigned shift = (unsigned)(i >> SUB_BITS) - 1;
    uint64_t sub = (i & (SUB_COUNT - 1)) + SUB_COUNT;
    return (int64_t)(sub << shift);
}

/* Highest value mapping to counter i: one below the next bin's lowest value. */
static inline int64_t highest_of(size_t i)
{
    return lowest_of(i + 1) - 1;
}

static void clear_scalars(struct hist *h)
{
    h->count = 0;
    h->n_overflow = 0;
    h->min_us = INT64_MAX;
    h->max_us = 0;
    h->sum_us = 0.0;
    h->sumsq_us = 0.0;
}

struct hist *hist_new(void)
{
    struct hist *h = xcalloc(1, sizeof(*h) + N_COUNTS * sizeof(h->counts[0]));
    clear_scalars(h);
    return h;
}

void hist_free(struct hist *h)
{
    free(h);
}

void hist_reset(struct hist *h)
{
    /* Only the range between min and max can be nonzero: interval snapshots reset often and
     * usually touch a few thousand counters, not the whole array. */
    if (h->count > 0) {
        size_t lo = index_of(h->min_us);
        size_t hi = index_of(h->max_us);
        memset(&h->counts[lo], 0, (hi - lo + 1) * sizeof(h->counts[0]));
    }
    clear_scalars(h);
}

void hist_record_n(struct hist *h, int64_t value_us, uint64_t n)
{
    if (value_us < 0)
        value_us = 0;
    if (__builtin_expect(value_us > HIST_MAX_US, 0)) {
        h->n_overflow += n;
        return;
    }
    if (n == 0)
        return; /* would otherwise move min/max without recording anything */
    h->counts[index_of(value_us)] += n;
    h->count += n;
    if (value_us < h->min_us)
        h->min_us = value_us;
    if (value_us > h->max_us)
        h->max_us = value_us;
    double v = (double)value_us;
    double dn = (double)n;
    h->sum_us += v * dn;
    h->sumsq_us += v * v * dn;
}

void hist_record(struct hist *h, int64_t value_us)
{
    /* The hot path: kept separate from hist_record_n so it has no multiplications by n. */
    if (value_us < 0)
        value_us = 0;
    if (__builtin_expect(value_us > HIST_MAX_US, 0)) {
        h->n_overflow++;
        return;
    }
    h->counts[index_of(value_us)]++;
    h->count++;
    if (value_us < h->min_us)
        h->min_us = value_us;
    if (value_us > h->max_us)
        h->max_us = value_us;
    double v = (double)value_us;
    h->sum_us += v;
    h->sumsq_us += v * v;
}

uint64_t hist_count(const struct hist *h)
{
    return h->count;
}

uint64_t hist_overflow(const struct hist *h)
{
    return h->n_overflow;
}

int64_t hist_min(const struct hist *h)
{
    return h->count > 0 ? h->min_us : 0;
}

int64_t hist_max(const struct hist *h)
{
    return h->count > 0 ? h->max_us : 0;
}

double hist_mean(const struct hist *h)
{
    return h->count > 0 ? h->sum_us / (double)h->count : 0.0;
}

double hist_stddev(const struct hist *h)
{
    /* E[x^2] - E[x]^2 cancels badly when the spread is tiny next to the values; a constant
     * series must still report exactly 0, and rounding must never give a negative variance. */
    if (h->count == 0 || h->min_us == h->max_us)
        return 0.0;
    double n = (double)h->count;
    double mean = h->sum_us / n;
    double var = h->sumsq_us / n - mean * mean;
    return var > 0.0 ? sqrt(var) : 0.0;
}

/*
 * The 1-based rank ceil(p/100 * count), in 1 .. count. The product carries a few ulps of
 * rounding (99.9 is not a binary fraction), which would push an exact integer such as
 * 0.999 * 1000 just above 999 and ceil it to 1000; shaving a few ulps first keeps it at 999.
 */
static uint64_t rank_of(double p, uint64_t count)
{
    if (p >= 100.0)
        return count;
    double x = p * (double)count / 100.0;
    double r = ceil(x - x * 4 * DBL_EPSILON);
    if (r < 1.0)
        return 1;
    if (r >= (double)count)
        return count;
    return (uint64_t)r;
}

int64_t hist_percentile(const struct hist *h, double p)
{
    if (h->count == 0)
        return 0;
    if (!(p > 0.0)) /* p <= 0, or NaN */
        return h->min_us;
    uint64_t rank = rank_of(p, h->count);
    size_t last = index_of(h->max_us);
    uint64_t seen = 0;
    for (size_t i = index_of(h->min_us); i <= last; i++) {
        seen += h->counts[i];
        if (seen >= rank) {
            /* The top of the max's bin may lie past the exact max: never report a value
             * above it. (No top is below the min, since the scan starts at the min's bin.) */
            int64_t v = highest_of(i);
            return v < h->max_us ? v : h->max_us;
        }
    }
    return h->max_us; /* unreachable while count is the sum of counts[] */
}

double hist_fraction_below(const struct hist *h, int64_t limit_us)
{
    if (h->count == 0 || limit_us <= h->min_us)
        return 0.0;
    if (limit_us > h->max_us)
        return 1.0;
    /* Here min < limit <= max <= HIST_MAX_US. Count whole bins below the one holding limit:
     * the values sharing its bin cannot be told apart, and are counted as not below. */
    size_t end = index_of(limit_us);
    uint64_t below = 0;
    for (size_t i = index_of(h->min_us); i < end; i++)
        below += h->counts[i];
    return (double)below / (double)h->count;
}

void hist_add(struct hist *dst, const struct hist *src)
{
    dst->n_overflow += src->n_overflow;
    if (src->count == 0)
        return;
    size_t last = index_of(src->max_us);
    for (size_t i = index_of(src->min_us); i <= last; i++)
        dst->counts[i] += src->counts[i];
    dst->count += src->count;
    if (src->min_us < dst->min_us)
        dst->min_us = src->min_us;
    if (src->max_us > dst->max_us)
        dst->max_us = src->max_us;
    dst->sum_us += src->sum_us;
    dst->sumsq_us += src->sumsq_us;
}

void hist_assign(struct hist *dst, const struct hist *src)
{
    /* Over both ranges (outside its own, a histogram's counters are 0), writing only the
     * counters that differ: a page that is zero in both stays untouched, and unmapped. */
    if (dst->count > 0 || src->count > 0) {
        size_t lo = SIZE_MAX, hi = 0;
        const struct hist *h[2] = {dst, src};
        for (int k = 0; k < 2; k++) {
            if (h[k]->count == 0)
                continue;
            size_t a = index_of(h[k]->min_us), b = index_of(h[k]->max_us);
            lo = a < lo ? a : lo;
            hi = b > hi ? b : hi;
        }
        for (size_t i = lo; i <= hi; i++)
            if (dst->counts[i] != src->counts[i])
                dst->counts[i] = src->counts[i];
    }
    dst->count = src->count;
    dst->n_overflow = src->n_overflow;
    dst->min_us = src->min_us;
    dst->max_us = src->max_us;
    dst->sum_us = src->sum_us;
    dst->sumsq_us = src->sumsq_us;
}

void hist_to_sparse(const struct hist *h, struct hist_sparse *out)
{
    memset(out, 0, sizeof(*out));
    if (h->count == 0)
        return;
    size_t first = index_of(h->min_us);
    size_t last = index_of(h->max_us);
    size_t n = 0;
    for (size_t i = first; i <= last; i++)
        n += h->counts[i] != 0;
    out->bins = xmalloc(n * sizeof(out->bins[0]));
    for (size_t i = first; i <= last; i++) {
        if (h->counts[i] != 0) {
            out->bins[out->n_bins].value_us = lowest_of(i);
            out->bins[out->n_bins].count = h->counts[i];
            out->n_bins++;
        }
    }
    out->count = h->count;
    out->min_us = h->min_us;
    out->max_us = h->max_us;
    out->sum_us = h->sum_us;
    out->sumsq_us = h->sumsq_us;
}

/*
 * Whether a snapshot (from a file, so untrusted) can be added without breaking the invariants of
 * struct hist. Beyond each bin value being an in-range bin boundary, the totals must agree with
 * the bins: the count is their sum, and min and max fall in the lowest and highest nonzero bins
 * (the scans rely on that). Bins need not be sorted here.
 */
static int sparse_is_valid(const struct hist_sparse *s)
{
    uint64_t total = 0;
    size_t lo = SIZE_MAX;
    size_t hi = 0;
    for (size_t k = 0; k < s->n_bins; k++) {
        int64_t v = s->bins[k].value_us;
        if (v < 0 || v > HIST_MAX_US)
            return 0;
        size_t i = index_of(v);
        if (lowest_of(i) != v)
            return 0;
        if (__builtin_add_overflow(total, s->bins[k].count, &total))
            return 0;
        if (s->bins[k].count == 0)
            continue;
        if (i < lo)
            lo = i;
        if (i > hi)
            hi = i;
    }
    if (total != s->count)
        return 0;
    if (s->count == 0)
        return 1;
    if (s->min_us < 0 || s->min_us > s->max_us || s->max_us > HIST_MAX_US)
        return 0;
    if (index_of(s->min_us) != lo || index_of(s->max_us) != hi)
        return 0;
    return isfinite(s->sum_us) && isfinite(s->sumsq_us);
}

int hist_add_sparse(struct hist *h, const struct hist_sparse *s)
{
    /* Validate everything before touching h, so a corrupt snapshot leaves it unchanged. */
    if (!sparse_is_valid(s))
        return -1;
    if (s->count == 0)
        return 0;
    for (size_t k = 0; k < s->n_bins; k++)
        h->counts[index_of(s->bins[k].value_us)] += s->bins[k].count;
    h->count += s->count;
    if (s->min_us < h->min_us)
        h->min_us = s->min_us;
    if (s->max_us > h->max_us)
        h->max_us = s->max_us;
    h->sum_us += s->sum_us;
    h->sumsq_us += s->sumsq_us;
    return 0;
}

void hist_sparse_merge(struct hist_sparse *dst, const struct hist_sparse *src)
{
    /* Copy src first: dst == src (doubling a snapshot) must still work. */
    struct hist_sparse s = *src;
    size_t cap = dst->n_bins + s.n_bins;
    struct hist_bin *out = cap > 0 ? xmalloc(cap * sizeof(out[0])) : NULL;
    size_t i = 0, j = 0, n = 0;

    /* Both lists are sorted by value: a plain merge, summing the bins present in both. */
    while (i < dst->n_bins && j < s.n_bins) {
        if (dst->bins[i].value_us < s.bins[j].value_us) {
            out[n++] = dst->bins[i++];
        } else if (s.bins[j].value_us < dst->bins[i].value_us) {
            out[n++] = s.bins[j++];
        } else {
            out[n] = dst->bins[i++];
            out[n++].count += s.bins[j++].count;
        }
    }
    while (i < dst->n_bins)
        out[n++] = dst->bins[i++];
    while (j < s.n_bins)
        out[n++] = s.bins[j++];

    free(dst->bins);
    dst->bins = out;
    dst->n_bins = n;
    if (s.count > 0) {
        if (dst->count == 0 || s.min_us < dst->min_us)
            dst->min_us = s.min_us;
        if (dst->count == 0 || s.max_us > dst->max_us)
            dst->max_us = s.max_us;
    }
    dst->count += s.count;
    dst->sum_us += s.sum_us;
    dst->sumsq_us += s.sumsq_us;
}

void hist_sparse_free(struct hist_sparse *s)
{
    free(s->bins);
    memset(s, 0, sizeof(*s));
}
