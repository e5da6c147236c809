#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sparse_assert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "stats/hist.h"

#define ONE_HOUR_US 3600000000LL
#define N_SAMPLES   100000

/* The percentiles every shape is checked at, in thousandths of a percent so the exact rank
 * can be computed with integers: 0, 1, 25, 50, 90, 99, 99.9, 100. */
static const int64_t check_pm[] = {0, 1000, 25000, 50000, 90000, 99000, 99900, 100000};
#define N_CHECK_PM (sizeof(check_pm) / sizeof(check_pm[0]))

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The exact order statistic the histogram approximates: rank ceil(p/100 * n), at least 1. */
static int64_t exact_percentile(const int64_t *sorted, size_t n, int64_t pm)
{
    uint64_t rank = ((uint64_t)pm * n + 99999) / 100000;
    if (rank < 1)
        rank = 1;
    return sorted[rank - 1];
}

/* Histogram answers are the top of the bin holding the exact value: never below it, and above
 * it by at most 0.1 % (bins under 2048 are exact, so the absolute slack of 1 rarely matters). */
static void check_close(const char *what, double p, int64_t exact, int64_t got)
{
    int64_t slack = exact / 1000 > 1 ? exact / 1000 : 1;
    if (got < exact || got - exact > slack) {
        print_error("%s: p%g: exact %lld, histogram %lld\n", what, p, (long long)exact,
                    (long long)got);
        fail();
    }
}

static struct hist *hist_of(const int64_t *v, size_t n)
{
    struct hist *h = hist_new();
    for (size_t i = 0; i < n; i++)
        hist_record(h, v[i]);
    return h;
}

static struct hist *hist_copy(const struct hist *src)
{
    struct hist *h = hist_new();
    hist_add(h, src);
    return h;
}

/* Records v into a histogram and checks the listed percentiles against the sorted data. */
static void check_shape(const char *what, int64_t *v, size_t n)
{
    struct hist *h = hist_of(v, n);
    qsort(v, n, sizeof(v[0]), cmp_i64);
    assert_int_equal(hist_count(h), n);
    assert_int_equal(hist_min(h), v[0]);
    assert_int_equal(hist_max(h), v[n - 1]);
    for (size_t k = 0; k < N_CHECK_PM; k++) {
        double p = (double)check_pm[k] / 1000.0;
        check_close(what, p, exact_percentile(v, n, check_pm[k]), hist_percentile(h, p));
    }
    hist_free(h);
}

/* Standard normal by Box-Muller; 1 - u keeps the logarithm's argument in (0, 1]. */
static double normal(struct rng *r)
{
    double u1 = 1.0 - rng_double(r);
    double u2 = rng_double(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

static void fill_uniform(struct rng *r, int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = rng_range(r, 1, 1000000);
}

static void fill_exponential(struct rng *r, int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = llround(-2000.0 * log(1.0 - rng_double(r)));
}

/* Lognormal with a median of 3 ms and a tail reaching one hour (clamped there, and the last
 * sample is exactly one hour so the max is known). */
static void fill_lognormal(struct rng *r, int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double x = exp(log(3000.0) + 3.0 * normal(r));
        v[i] = x > (double)ONE_HOUR_US ? ONE_HOUR_US : llround(x);
    }
    v[n - 1] = ONE_HOUR_US;
}

/* 80 % fast (200..800 us), 20 % slow around 80 ms. */
static void fill_bimodal(struct rng *r, int64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (rng_double(r) < 0.8) {
            v[i] = rng_range(r, 200, 800);
        } else {
            int64_t x = llround(80000.0 + 5000.0 * normal(r));
            v[i] = x < 0 ? 0 : x;
        }
    }
}

static void test_percentiles_shapes(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 42);
    int64_t *v = malloc(N_SAMPLES * sizeof(v[0]));
    assert_non_null(v);

    fill_uniform(&r, v, N_SAMPLES);
    check_shape("uniform", v, N_SAMPLES);
    fill_exponential(&r, v, N_SAMPLES);
    check_shape("exponential", v, N_SAMPLES);
    fill_lognormal(&r, v, N_SAMPLES);
    check_shape("lognormal", v, N_SAMPLES);
    fill_bimodal(&r, v, N_SAMPLES);
    check_shape("bimodal", v, N_SAMPLES);

    static const int64_t constants[] = {0, 1, 2047, 2048, 777777, ONE_HOUR_US, HIST_MAX_US};
    for (size_t k = 0; k < sizeof(constants) / sizeof(constants[0]); k++) {
        for (size_t i = 0; i < 1000; i++)
            v[i] = constants[k];
        check_shape("constant", v, 1000);
        /* A constant is known exactly: min and max clamp every answer to it. */
        struct hist *h = hist_of(v, 1000);
        for (size_t i = 0; i < N_CHECK_PM; i++)
            assert_int_equal(hist_percentile(h, (double)check_pm[i] / 1000.0), constants[k]);
        hist_free(h);
    }
    free(v);
}

/* Tiny samples exercise the rank arithmetic: every percentile on a 0.5 grid, n = 1 .. 40. */
static void test_percentiles_small_samples(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 7);
    int64_t v[40];
    for (size_t n = 1; n <= 40; n++) {
        for (size_t i = 0; i < n; i++)
            v[i] = rng_range(&r, 0, 1) ? rng_range(&r, 0, 3000) : rng_range(&r, 0, 50000000);
        struct hist *h = hist_of(v, n);
        qsort(v, n, sizeof(v[0]), cmp_i64);
        /* p0 and p100 are the exact min and max, not the edges of their bins. */
        assert_int_equal(hist_percentile(h, 0.0), v[0]);
        assert_int_equal(hist_percentile(h, 100.0), v[n - 1]);
        for (int64_t pm = 0; pm <= 100000; pm += 500)
            check_close("small", (double)pm / 1000.0, exact_percentile(v, n, pm),
                        hist_percentile(h, (double)pm / 1000.0));
        hist_free(h);
    }
}

static void assert_sparse_equal(const struct hist_sparse *a, const struct hist_sparse *b)
{
    assert_sparse_equal_tol(a, b, 1e-12); /* squares round */
}

static void assert_hist_equal(const struct hist *a, const struct hist *b)
{
    assert_int_equal(hist_count(a), hist_count(b));
    assert_int_equal(hist_overflow(a), hist_overflow(b));
    assert_int_equal(hist_min(a), hist_min(b));
    assert_int_equal(hist_max(a), hist_max(b));
    for (int64_t pm = 0; pm <= 100000; pm += 250)
        assert_int_equal(hist_percentile(a, (double)pm / 1000.0),
                         hist_percentile(b, (double)pm / 1000.0));
    assert_int_equal(hist_percentile(a, 99.99), hist_percentile(b, 99.99));
    assert_int_equal(hist_percentile(a, 99.999), hist_percentile(b, 99.999));
    struct hist_sparse sa, sb;
    hist_to_sparse(a, &sa);
    hist_to_sparse(b, &sb);
    assert_sparse_equal(&sa, &sb);
    hist_sparse_free(&sa);
    hist_sparse_free(&sb);
}

/* Four parts of different shapes and sizes, with overflow values sprinkled in. */
#define N_PARTS 4
static void make_parts(struct hist *part[N_PARTS], struct hist *all, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    static const size_t sizes[N_PARTS] = {20000, 5000, 30000, 1};
    int64_t *v = malloc(30000 * sizeof(v[0]));
    assert_non_null(v);
    for (int k = 0; k < N_PARTS; k++) {
        part[k] = hist_new();
        size_t n = sizes[k];
        switch (k) {
        case 0:
            fill_uniform(&r, v, n);
            break;
        case 1:
            fill_lognormal(&r, v, n);
            break;
        case 2:
            fill_bimodal(&r, v, n);
            break;
        default:
            v[0] = 5;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            int64_t x = (i % 997 == 3) ? HIST_MAX_US + (int64_t)i : v[i];
            hist_record(part[k], x);
            if (all)
                hist_record(all, x);
        }
    }
    free(v);
}

static void free_parts(struct hist *part[N_PARTS])
{
    for (int k = 0; k < N_PARTS; k++)
        hist_free(part[k]);
}

static void test_merge_equals_single(void **state)
{
    (void)state;
    struct hist *part[N_PARTS];
    struct hist *all = hist_new();
    make_parts(part, all, 1);
    struct hist *merged = hist_new();
    for (int k = 0; k < N_PARTS; k++)
        hist_add(merged, part[k]);
    assert_true(hist_overflow(all) > 0);
    assert_int_equal(hist_count(all), 20000 + 5000 + 30000 + 1 - hist_overflow(all));
    assert_hist_equal(merged, all);
    assert_true(hist_mean(merged) == hist_mean(all));
    free_parts(part);
    hist_free(all);
    hist_free(merged);
}

static void test_merge_associative(void **state)
{
    (void)state;
    struct hist *part[N_PARTS];
    make_parts(part, NULL, 2);
    /* ((a + b) + c) + d against a + (b + (c + d)). */
    struct hist *left = hist_copy(part[0]);
    hist_add(left, part[1]);
    hist_add(left, part[2]);
    hist_add(left, part[3]);
    struct hist *cd = hist_copy(part[2]);
    hist_add(cd, part[3]);
    struct hist *bcd = hist_copy(part[1]);
    hist_add(bcd, cd);
    struct hist *right = hist_copy(part[0]);
    hist_add(right, bcd);
    assert_hist_equal(left, right);
    /* Adding an empty histogram changes nothing, either way round. */
    struct hist *empty = hist_new();
    struct hist *left2 = hist_copy(left);
    hist_add(left2, empty);
    assert_hist_equal(left2, left);
    hist_add(empty, left);
    assert_hist_equal(empty, left);
    free_parts(part);
    hist_free(left);
    hist_free(left2);
    hist_free(cd);
    hist_free(bcd);
    hist_free(right);
    hist_free(empty);
}

static void test_sparse_round_trip(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 3);
    int64_t v[20000];
    fill_lognormal(&r, v, 20000);
    v[0] = 0;
    v[1] = HIST_MAX_US;
    struct hist *h = hist_of(v, 20000);
    struct hist_sparse s1, s2;
    hist_to_sparse(h, &s1);

    /* The snapshot's own invariants: sorted, no zero counts, counts add up. */
    assert_true(s1.n_bins > 100);
    uint64_t total = 0;
    for (size_t i = 0; i < s1.n_bins; i++) {
        assert_true(s1.bins[i].count > 0);
        if (i > 0)
            assert_true(s1.bins[i - 1].value_us < s1.bins[i].value_us);
        total += s1.bins[i].count;
    }
    assert_int_equal(total, s1.count);
    assert_int_equal(s1.count, 20000);
    assert_int_equal(s1.min_us, 0);
    assert_int_equal(s1.max_us, HIST_MAX_US);
    assert_int_equal(s1.bins[s1.n_bins - 1].value_us, HIST_MAX_US);

    struct hist *h2 = hist_new();
    assert_int_equal(hist_add_sparse(h2, &s1), 0);
    hist_to_sparse(h2, &s2);
    assert_sparse_equal(&s1, &s2);
    assert_true(s1.sumsq_us == s2.sumsq_us);
    assert_hist_equal(h, h2);
    assert_true(hist_mean(h) == hist_mean(h2));
    assert_true(hist_stddev(h) == hist_stddev(h2));

    /* Adding a snapshot into a nonempty histogram equals hist_add of the dense one. */
    struct hist *a = hist_of(v + 100, 500);
    struct hist *b = hist_copy(a);
    assert_int_equal(hist_add_sparse(a, &s1), 0);
    hist_add(b, h);
    assert_hist_equal(a, b);

    hist_sparse_free(&s1);
    hist_sparse_free(&s2);
    assert_null(s1.bins);
    assert_int_equal(s1.n_bins, 0);
    hist_free(h);
    hist_free(h2);
    hist_free(a);
    hist_free(b);
}

static void test_sparse_merge_equals_dense(void **state)
{
    (void)state;
    struct hist *part[N_PARTS];
    make_parts(part, NULL, 4);
    struct hist *dense = hist_new();
    struct hist_sparse acc = {0};
    for (int k = 0; k < N_PARTS; k++) {
        struct hist_sparse s;
        hist_to_sparse(part[k], &s);
        hist_sparse_merge(&acc, &s);
        hist_sparse_free(&s);
        hist_add(dense, part[k]);
        /* After every step, not only at the end. */
        struct hist_sparse want;
        hist_to_sparse(dense, &want);
        assert_sparse_equal(&acc, &want);
        hist_sparse_free(&want);
    }

    /* Merging an empty snapshot changes nothing; merging into an empty one copies. */
    struct hist_sparse empty = {0};
    hist_sparse_merge(&acc, &empty);
    struct hist_sparse want;
    hist_to_sparse(dense, &want);
    assert_sparse_equal(&acc, &want);
    hist_sparse_merge(&empty, &acc);
    assert_sparse_equal(&empty, &want);
    hist_sparse_free(&want);

    /* A snapshot merged with itself equals the dense histogram added to itself. */
    hist_sparse_merge(&acc, &acc);
    hist_add(dense, dense);
    hist_to_sparse(dense, &want);
    assert_sparse_equal(&acc, &want);

    hist_sparse_free(&want);
    hist_sparse_free(&empty);
    hist_sparse_free(&acc);
    hist_free(dense);
    free_parts(part);
}

/* Copies a snapshot's bins so a test can corrupt them without touching the original. */
static struct hist_sparse sparse_dup(const struct hist_sparse *s)
{
    struct hist_sparse d = *s;
    d.bins = malloc(s->n_bins * sizeof(s->bins[0]));
    assert_non_null(d.bins);
    memcpy(d.bins, s->bins, s->n_bins * sizeof(s->bins[0]));
    return d;
}

static void assert_rejected_unchanged(struct hist *h, const struct hist_sparse *bad)
{
    struct hist_sparse before, after;
    hist_to_sparse(h, &before);
    uint64_t overflow = hist_overflow(h);
    assert_int_equal(hist_add_sparse(h, bad), -1);
    hist_to_sparse(h, &after);
    assert_sparse_equal(&before, &after);
    assert_true(before.sumsq_us == after.sumsq_us);
    assert_int_equal(hist_overflow(h), overflow);
    hist_sparse_free(&before);
    hist_sparse_free(&after);
}

static void test_add_sparse_rejects_corrupt(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 5);
    int64_t v[5000];
    fill_uniform(&r, v, 5000);
    struct hist *src = hist_of(v, 5000);
    struct hist_sparse good;
    hist_to_sparse(src, &good);
    size_t last = good.n_bins - 1;
    /* Bins near 1e6 are 512 wide, so value + 1 is inside a bin, not on its boundary. */
    assert_true(good.bins[last].value_us > 4096);

    /* h already holds data, so "unchanged" means more than "still empty". */
    struct hist *h = hist_of(v, 1000);
    hist_record(h, HIST_MAX_US + 1);

    struct hist_sparse bad = sparse_dup(&good);
    bad.bins[last].value_us += 1; /* the corrupt bin comes last: all must be checked first */
    assert_rejected_unchanged(h, &bad);
    bad.bins[last].value_us = good.bins[last].value_us;

    bad.bins[last].value_us = HIST_MAX_US * 2; /* out of range, and a power of two */
    assert_rejected_unchanged(h, &bad);
    bad.bins[last].value_us = HIST_MAX_US + 1;
    assert_rejected_unchanged(h, &bad);
    bad.bins[last].value_us = good.bins[last].value_us;

    bad.bins[0].value_us = -1;
    assert_rejected_unchanged(h, &bad);
    bad.bins[0].value_us = good.bins[0].value_us;

    /* An out-of-range bin is rejected even with a zero count, which no total would reveal. */
    struct hist_bin keep = bad.bins[last];
    bad.bins[last].value_us = HIST_MAX_US * 2;
    bad.bins[last].count = 0;
    bad.count -= keep.count;
    bad.max_us = bad.bins[last - 1].value_us;
    assert_rejected_unchanged(h, &bad);
    bad.bins[last] = keep;
    bad.count = good.count;
    bad.max_us = good.max_us;

    bad.min_us = bad.bins[1].value_us; /* in range and below max, but not in the lowest bin */
    assert_rejected_unchanged(h, &bad);
    bad.min_us = good.min_us;
    bad.max_us = bad.bins[last - 1].value_us; /* nor the max in the highest */
    assert_rejected_unchanged(h, &bad);
    bad.max_us = good.max_us;

    bad.count += 1; /* totals disagree with the bins */
    assert_rejected_unchanged(h, &bad);
    bad.count = good.count;

    bad.min_us = bad.max_us + 1; /* min not in the lowest bin */
    assert_rejected_unchanged(h, &bad);
    bad.min_us = good.min_us;

    /* Restored, the copy is accepted again: the rejections were about the corruption. */
    struct hist *want = hist_copy(h);
    hist_add(want, src);
    assert_int_equal(hist_add_sparse(h, &bad), 0);
    assert_int_equal(hist_count(h), hist_count(want));
    assert_int_equal(hist_percentile(h, 50.0), hist_percentile(want, 50.0));

    free(bad.bins);
    hist_sparse_free(&good);
    hist_free(src);
    hist_free(h);
    hist_free(want);
}

static void test_overflow_and_negative(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    hist_record(h, HIST_MAX_US + 1);
    hist_record(h, INT64_MAX);
    hist_record_n(h, HIST_MAX_US + 5, 10);
    assert_int_equal(hist_overflow(h), 12);
    assert_int_equal(hist_count(h), 0);
    assert_int_equal(hist_max(h), 0);
    assert_int_equal(hist_percentile(h, 100.0), 0);

    hist_record(h, HIST_MAX_US); /* the top of the range is recorded */
    assert_int_equal(hist_count(h), 1);
    assert_int_equal(hist_max(h), HIST_MAX_US);
    assert_int_equal(hist_percentile(h, 100.0), HIST_MAX_US);
    assert_int_equal(hist_percentile(h, 50.0), HIST_MAX_US);

    hist_record(h, -5); /* negative counts as 0 */
    hist_record_n(h, -1, 3);
    assert_int_equal(hist_count(h), 5);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_percentile(h, 80.0), 0);
    assert_true(hist_mean(h) == (double)HIST_MAX_US / 5.0);

    /* n = 0 records nothing, not even a min or max. */
    struct hist *z = hist_new();
    hist_record_n(z, 123, 0);
    hist_record(z, 500);
    hist_record(z, 600);
    hist_record_n(z, 1000, 0);
    assert_int_equal(hist_count(z), 2);
    assert_int_equal(hist_min(z), 500);
    assert_int_equal(hist_max(z), 600);
    assert_int_equal(hist_percentile(z, 0.0), 500);
    assert_int_equal(hist_percentile(z, 100.0), 600);
    hist_free(z);

    /* The bin just below the top is 2^31 wide and starts at 2^42 - 2^31. */
    struct hist *t = hist_new();
    hist_record(t, HIST_MAX_US - 1);
    hist_record(t, HIST_MAX_US);
    struct hist_sparse s;
    hist_to_sparse(t, &s);
    assert_int_equal(s.n_bins, 2);
    assert_int_equal(s.bins[0].value_us, HIST_MAX_US - (1LL << 31));
    assert_int_equal(s.bins[1].value_us, HIST_MAX_US);
    hist_sparse_free(&s);
    hist_free(t);

    hist_reset(h);
    assert_int_equal(hist_overflow(h), 0);
    assert_int_equal(hist_count(h), 0);
    hist_free(h);
}

static void assert_empty(const struct hist *h)
{
    assert_int_equal(hist_count(h), 0);
    assert_int_equal(hist_min(h), 0);
    assert_int_equal(hist_max(h), 0);
    assert_true(hist_mean(h) == 0.0);
    assert_true(hist_stddev(h) == 0.0);
    assert_int_equal(hist_percentile(h, 0.0), 0);
    assert_int_equal(hist_percentile(h, 50.0), 0);
    assert_int_equal(hist_percentile(h, 100.0), 0);
    assert_true(hist_fraction_below(h, 1000) == 0.0);
    struct hist_sparse s;
    hist_to_sparse(h, &s);
    assert_int_equal(s.n_bins, 0);
    assert_int_equal(s.count, 0);
    assert_int_equal(s.min_us, 0);
    assert_int_equal(s.max_us, 0);
    assert_true(s.sum_us == 0.0);
    hist_sparse_free(&s);
}

static void test_empty_and_reset(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    assert_empty(h);
    struct hist_sparse empty = {0};
    assert_int_equal(hist_add_sparse(h, &empty), 0);
    assert_empty(h);

    /* After a reset nothing of the old data may remain, in bins or in the scalars. */
    for (int64_t v = 0; v < 100000; v += 7)
        hist_record(h, v * 31);
    hist_record(h, ONE_HOUR_US);
    hist_reset(h);
    assert_empty(h);
    hist_record(h, 500);
    hist_record(h, 700);
    assert_int_equal(hist_percentile(h, 100.0), 700);
    assert_true(hist_mean(h) == 600.0);
    /* Reaching the old extremes again would expose any stale counter there. */
    hist_record(h, 0);
    hist_record(h, ONE_HOUR_US);
    struct hist_sparse s;
    hist_to_sparse(h, &s);
    assert_int_equal(s.n_bins, 4);
    assert_int_equal(s.min_us, 0);
    assert_int_equal(s.max_us, ONE_HOUR_US);
    for (size_t i = 0; i < s.n_bins; i++)
        assert_int_equal(s.bins[i].count, 1);
    assert_int_equal(hist_percentile(h, 75.0), 700);
    hist_sparse_free(&s);
    hist_free(h);
    hist_free(NULL);
}

static void test_record_n_equals_repeats(void **state)
{
    (void)state;
    struct hist *a = hist_new();
    struct hist *b = hist_new();
    static const int64_t vals[] = {0, 3, 2048, 99999, 1234567, ONE_HOUR_US};
    for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
        uint64_t n = 1 + k * 37;
        hist_record_n(a, vals[k], n);
        for (uint64_t i = 0; i < n; i++)
            hist_record(b, vals[k]);
    }
    assert_hist_equal(a, b);
    assert_true(hist_mean(a) == hist_mean(b));
    hist_free(a);
    hist_free(b);
}

static void test_mean_stddev(void **state)
{
    (void)state;
    /* A textbook set: mean 5, population standard deviation 2. */
    static const int64_t small[] = {2, 4, 4, 4, 5, 5, 7, 9};
    struct hist *h = hist_of(small, 8);
    assert_true(hist_mean(h) == 5.0);
    assert_true(fabs(hist_stddev(h) - 2.0) < 1e-12);
    hist_free(h);

    /* Random data against a two-pass computation in long double. */
    struct rng r;
    rng_seed(&r, 11);
    int64_t *v = malloc(N_SAMPLES * sizeof(v[0]));
    assert_non_null(v);
    fill_bimodal(&r, v, N_SAMPLES);
    h = hist_of(v, N_SAMPLES);
    long double sum = 0;
    for (size_t i = 0; i < N_SAMPLES; i++)
        sum += v[i];
    long double mean = sum / N_SAMPLES;
    long double ss = 0;
    for (size_t i = 0; i < N_SAMPLES; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    double sd = (double)sqrtl(ss / N_SAMPLES);
    assert_true(fabs(hist_mean(h) - (double)mean) <= 1e-12 * (double)mean);
    assert_true(fabs(hist_stddev(h) - sd) <= 1e-9 * sd);
    hist_free(h);
    free(v);

    /* A constant, even a large one, has a standard deviation of exactly 0. (For this value
     * E[x^2] - E[x]^2 rounds to 4096, not 0.) */
    h = hist_new();
    for (int i = 0; i < 1000; i++)
        hist_record(h, ONE_HOUR_US - 1);
    assert_true(hist_stddev(h) == 0.0);
    assert_true(hist_mean(h) == (double)(ONE_HOUR_US - 1));
    hist_free(h);
}

static void test_fraction_below(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    for (int64_t v = 0; v < 1000; v++)
        hist_record(h, v);
    assert_true(hist_fraction_below(h, 0) == 0.0);
    assert_true(hist_fraction_below(h, -10) == 0.0);
    assert_true(hist_fraction_below(h, 1) == 0.001);
    assert_true(hist_fraction_below(h, 500) == 0.5);
    assert_true(hist_fraction_below(h, 999) == 0.999);
    assert_true(hist_fraction_below(h, 1000) == 1.0);
    assert_true(hist_fraction_below(h, HIST_MAX_US * 4) == 1.0);
    hist_free(h);

    /* Large values at bin resolution: 1e6 lies in the 512-wide bin 999936 .. 1000447. */
    h = hist_new();
    hist_record_n(h, 10, 10);
    hist_record_n(h, 999936, 5);
    hist_record_n(h, 1000000, 5);
    hist_record_n(h, 2000000, 20);
    assert_true(hist_fraction_below(h, 11) == 0.25);
    assert_true(hist_fraction_below(h, 999936) == 0.25);
    assert_true(hist_fraction_below(h, 1000000) == 0.25); /* the shared bin is not below */
    assert_true(hist_fraction_below(h, 1000448) == 0.5);  /* the next bin boundary */
    assert_true(hist_fraction_below(h, 2000000) == 0.5);
    assert_true(hist_fraction_below(h, 2000001) == 1.0); /* above the exact max */
    hist_free(h);
}

/*
 * Every value from 0 to 5,000,000 recorded once. The snapshot then shows the whole layout:
 * bins must tile the range with no gap or overlap (each holds exactly its width of values),
 * be exact below 2048 and never wider than 1/1024 of their lowest value, so the top of a bin
 * is within 0.1 % of any value in it. Percentiles at sampled ranks must give that top.
 */
static void test_relative_error_bound(void **state)
{
    (void)state;
    const int64_t top = 5000000;
    struct hist *h = hist_new();
    for (int64_t v = 0; v <= top; v++)
        hist_record(h, v);
    struct hist_sparse s;
    hist_to_sparse(h, &s);
    int64_t next = 0;
    for (size_t i = 0; i < s.n_bins; i++) {
        int64_t lo = s.bins[i].value_us;
        int64_t width = (int64_t)s.bins[i].count;
        assert_int_equal(lo, next);
        if (lo < 2048) {
            assert_int_equal(width, 1);
        } else if (i + 1 < s.n_bins) { /* the last bin is cut short by the data */
            assert_true(width > 1 && width * 1024 <= lo);
            /* Widths are powers of two that divide the bin's lowest value. */
            assert_true((width & (width - 1)) == 0 && lo % width == 0);
        }
        int64_t high = lo + width - 1;
        assert_true((double)(high - lo) <= 0.001 * (double)lo || high == lo);
        next = lo + width;
    }
    assert_int_equal(next, top + 1);

    uint64_t n = (uint64_t)top + 1;
    for (uint64_t rank = 1; rank <= n; rank += (rank < 20000 ? 7 : 1009)) {
        int64_t v = (int64_t)rank - 1; /* the rank-th smallest value */
        int64_t got = hist_percentile(h, 100.0 * (double)rank / (double)n);
        /* Expected: the top of v's bin, found in the snapshot. */
        size_t lo = 0, hi = s.n_bins;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (s.bins[mid].value_us <= v)
                lo = mid;
            else
                hi = mid;
        }
        int64_t want = s.bins[lo].value_us + (int64_t)s.bins[lo].count - 1;
        if (got != want || got < v || (double)(got - v) > 0.001 * (double)v) {
            print_error("rank %llu: value %lld, got %lld, bin top %lld\n", (unsigned long long)rank,
                        (long long)v, (long long)got, (long long)want);
            fail();
        }
    }
    hist_sparse_free(&s);
    hist_free(h);
}

static void test_one_hour(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    hist_record(h, 1000);
    hist_record(h, ONE_HOUR_US);
    hist_record(h, ONE_HOUR_US - 1);
    assert_int_equal(hist_overflow(h), 0);
    assert_int_equal(hist_count(h), 3);
    assert_int_equal(hist_max(h), ONE_HOUR_US);
    assert_int_equal(hist_percentile(h, 100.0), ONE_HOUR_US);
    /* Rank 2 is one hour minus 1 us, sharing the 2^21-wide bin with one hour itself; the bin's
     * top lies above the max, so the answer is clamped to the max. */
    assert_int_equal(hist_percentile(h, 50.0), ONE_HOUR_US);
    assert_int_equal(hist_percentile(h, 33.0), 1000);
    struct hist_sparse s;
    hist_to_sparse(h, &s);
    assert_int_equal(s.n_bins, 2);
    int64_t lo = s.bins[1].value_us;
    assert_true(lo <= ONE_HOUR_US - 1 && ONE_HOUR_US - lo <= ONE_HOUR_US / 1000);
    assert_int_equal(s.bins[1].count, 2);
    hist_sparse_free(&s);
    hist_free(h);
}

/* hist_assign makes a copy, whatever the copy held before: a wide one over a narrow one and
 * back, and an empty one, each equal to its source (the engine's published counts are such
 * copies, refreshed in place). */
static void test_assign(void **state)
{
    (void)state;
    int64_t wide[] = {1, 30, 2500, 70000, 9000000, HIST_MAX_US + 1};
    int64_t narrow[] = {120, 121, 121, 4000};
    struct hist *w = hist_of(wide, sizeof wide / sizeof wide[0]);
    struct hist *n = hist_of(narrow, sizeof narrow / sizeof narrow[0]);
    struct hist *empty = hist_new();
    struct hist *dst = hist_new();
    hist_assign(dst, w);
    assert_hist_equal(dst, w);
    assert_true(hist_mean(dst) == hist_mean(w) && hist_stddev(dst) == hist_stddev(w));
    hist_assign(dst, n);
    assert_hist_equal(dst, n);
    hist_assign(dst, empty);
    assert_hist_equal(dst, empty);
    hist_assign(dst, w);
    hist_add(dst, n);
    hist_add(n, w);
    assert_hist_equal(dst, n);
    hist_free(w);
    hist_free(n);
    hist_free(empty);
    hist_free(dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_percentiles_shapes),
        cmocka_unit_test(test_percentiles_small_samples),
        cmocka_unit_test(test_merge_equals_single),
        cmocka_unit_test(test_merge_associative),
        cmocka_unit_test(test_sparse_round_trip),
        cmocka_unit_test(test_sparse_merge_equals_dense),
        cmocka_unit_test(test_add_sparse_rejects_corrupt),
        cmocka_unit_test(test_overflow_and_negative),
        cmocka_unit_test(test_empty_and_reset),
        cmocka_unit_test(test_record_n_equals_repeats),
        cmocka_unit_test(test_mean_stddev),
        cmocka_unit_test(test_fraction_below),
        cmocka_unit_test(test_relative_error_bound),
        cmocka_unit_test(test_one_hour),
        cmocka_unit_test(test_assign),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
