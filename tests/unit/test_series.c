#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sparse_assert.h"

#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "stats/hist.h"
#include "stats/series.h"

#define INTERVAL_US 1000000

static void assert_sparse_equal(const struct hist_sparse *a, const struct hist_sparse *b)
{
    assert_sparse_equal_tol(a, b, 0);
}

/* The tenths count exactly the interval's transactions. */
static void assert_tenths_sum(const struct interval *it)
{
    uint64_t sum = 0;
    for (int k = 0; k < SERIES_TENTHS; k++)
        sum += it->tenths[k];
    assert_int_equal(sum, it->n_tx);
}

static void assert_series_equal(const struct series *a, const struct series *b)
{
    assert_int_equal(a->interval_us, b->interval_us);
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->items[i].n_tx, b->items[i].n_tx);
        assert_int_equal(a->items[i].n_failed, b->items[i].n_failed);
        assert_memory_equal(a->items[i].tenths, b->items[i].tenths, sizeof a->items[i].tenths);
        assert_tenths_sum(&a->items[i]);
        assert_sparse_equal(&a->items[i].latency, &b->items[i].latency);
    }
}

static void assert_interval_empty(const struct interval *it)
{
    assert_int_equal(it->n_tx, 0);
    assert_int_equal(it->n_failed, 0);
    assert_int_equal(it->latency.n_bins, 0);
    assert_int_equal(it->latency.count, 0);
    assert_int_equal(it->latency.min_us, 0);
    assert_int_equal(it->latency.max_us, 0);
}

static void test_add_into_intervals(void **state)
{
    (void)state;
    struct series s;
    series_init(&s, INTERVAL_US);
    assert_int_equal(s.interval_us, INTERVAL_US);
    assert_int_equal(s.n, 0);

    series_add(&s, 2, 5, 1, NULL, NULL);
    assert_int_equal(s.n, 3);
    assert_interval_empty(&s.items[0]);
    assert_interval_empty(&s.items[1]);
    assert_int_equal(s.items[2].n_tx, 5);
    assert_int_equal(s.items[2].n_failed, 1);
    assert_int_equal(s.items[2].latency.count, 0);

    struct hist *h = hist_new();
    hist_record(h, 300);
    hist_record(h, 100);
    series_add(&s, 2, 2, 0, NULL, h);
    hist_reset(h);
    hist_record(h, 50000);
    series_add(&s, 2, 1, 3, NULL, h);
    series_add(&s, 0, 7, 0, NULL, h);
    assert_int_equal(s.n, 3);
    const struct interval *it = &s.items[2];
    assert_int_equal(it->n_tx, 8);
    assert_int_equal(it->n_failed, 4);
    assert_int_equal(it->latency.count, 3);
    assert_int_equal(it->latency.min_us, 100);
    assert_int_equal(it->latency.max_us, 50000);
    assert_int_equal(it->latency.n_bins, 3);
    assert_int_equal(it->latency.bins[0].value_us, 100);
    assert_int_equal(it->latency.bins[1].value_us, 300);
    assert_true(it->latency.bins[2].value_us <= 50000 && it->latency.bins[2].value_us > 49900);
    assert_true(it->latency.sum_us == 50400.0);
    assert_int_equal(s.items[0].n_tx, 7);
    assert_int_equal(s.items[0].latency.count, 1);
    assert_int_equal(s.items[0].latency.min_us, 50000);
    assert_interval_empty(&s.items[1]);

    /* An empty histogram adds counts only. */
    hist_reset(h);
    series_add(&s, 1, 4, 0, NULL, h);
    assert_int_equal(s.items[1].n_tx, 4);
    assert_int_equal(s.items[1].latency.count, 0);
    assert_int_equal(s.items[1].latency.n_bins, 0);
    hist_free(h);
    series_free(&s);
    assert_int_equal(s.n, 0);
    assert_null(s.items);
}

static void test_ensure(void **state)
{
    (void)state;
    struct series s;
    series_init(&s, 500000);
    series_ensure(&s, 0);
    assert_int_equal(s.n, 0);
    series_ensure(&s, 4);
    assert_int_equal(s.n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_interval_empty(&s.items[i]);

    struct hist *h = hist_new();
    hist_record(h, 1234);
    series_add(&s, 3, 1, 0, NULL, h);
    series_ensure(&s, 2); /* never shrinks */
    assert_int_equal(s.n, 4);
    series_ensure(&s, 40); /* grows, keeping what was there */
    assert_int_equal(s.n, 40);
    assert_int_equal(s.items[3].n_tx, 1);
    assert_int_equal(s.items[3].latency.count, 1);
    assert_int_equal(s.items[3].latency.min_us, 1234);
    for (size_t i = 4; i < 40; i++)
        assert_interval_empty(&s.items[i]);
    assert_int_equal(s.interval_us, 500000);
    hist_free(h);
    series_free(&s);
}

#define N_WORKERS  3
#define N_EVENTS   30000
#define FLUSH_EACH 250

/* Latencies spread over several powers of two, so bins of many sizes are exercised. */
static int64_t draw_latency(struct rng *r)
{
    int shift = (int)rng_range(r, 0, 16); /* sums of squares stay below 2^53 */
    return rng_range(r, 0, (int64_t)1 << shift);
}

/*
 * Replay the same events two ways: each worker keeps its own series, flushing a per-interval
 * histogram every FLUSH_EACH events as the engine does; `all` gets each event on its own.
 * Worker w only sees intervals below n_intervals[w], so the series differ in length.
 */
static void make_series(struct series w[N_WORKERS], struct series *all, const size_t *n_intervals,
                        uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed);
    struct hist *pending[N_WORKERS];
    size_t pending_idx[N_WORKERS];
    int pending_n[N_WORKERS];
    struct hist *one = hist_new();
    series_init(all, INTERVAL_US);
    for (int k = 0; k < N_WORKERS; k++) {
        series_init(&w[k], INTERVAL_US);
        pending[k] = hist_new();
        pending_idx[k] = 0;
        pending_n[k] = 0;
    }
    for (int e = 0; e < N_EVENTS; e++) {
        int k = (int)rng_range(&r, 0, N_WORKERS - 1);
        size_t idx = (size_t)rng_range(&r, 0, (int64_t)n_intervals[k] - 1);
        int failed = rng_range(&r, 0, 9) == 0;
        int64_t lat = draw_latency(&r);
        if (pending_n[k] > 0 && (idx != pending_idx[k] || pending_n[k] == FLUSH_EACH)) {
            series_add(&w[k], pending_idx[k], 0, 0, NULL, pending[k]);
            hist_reset(pending[k]);
            pending_n[k] = 0;
        }
        pending_idx[k] = idx;
        pending_n[k]++;
        hist_record(pending[k], lat);
        uint64_t tenths[SERIES_TENTHS] = {0};
        tenths[rng_range(&r, 0, SERIES_TENTHS - 1)] = !failed;
        series_add(&w[k], idx, !failed, failed, tenths, NULL);
        hist_reset(one);
        hist_record(one, lat);
        series_add(all, idx, !failed, failed, tenths, one);
    }
    for (int k = 0; k < N_WORKERS; k++) {
        if (pending_n[k] > 0)
            series_add(&w[k], pending_idx[k], 0, 0, NULL, pending[k]);
        hist_free(pending[k]);
    }
    hist_free(one);
}

static void free_series(struct series w[N_WORKERS], struct series *all)
{
    for (int k = 0; k < N_WORKERS; k++)
        series_free(&w[k]);
    series_free(all);
}

static void test_merge_equals_single(void **state)
{
    (void)state;
    static const size_t same[N_WORKERS] = {12, 12, 12};
    struct series w[N_WORKERS], all, merged;
    make_series(w, &all, same, 11);
    series_init(&merged, INTERVAL_US);
    for (int k = 0; k < N_WORKERS; k++)
        series_merge(&merged, &w[k]);
    assert_series_equal(&merged, &all);
    uint64_t n_tx = 0, n_failed = 0, n_lat = 0;
    for (size_t i = 0; i < merged.n; i++) {
        n_tx += merged.items[i].n_tx;
        n_failed += merged.items[i].n_failed;
        n_lat += merged.items[i].latency.count;
    }
    assert_int_equal(n_tx + n_failed, N_EVENTS);
    assert_int_equal(n_lat, N_EVENTS);
    assert_true(n_failed > N_EVENTS / 20 && n_failed < N_EVENTS / 5);
    series_free(&merged);
    free_series(w, &all);
}

static void test_merge_different_lengths(void **state)
{
    (void)state;
    static const size_t lens[N_WORKERS] = {3, 9, 1};
    struct series w[N_WORKERS], all, a, b;
    make_series(w, &all, lens, 12);
    assert_int_equal(w[0].n, 3);
    assert_int_equal(w[1].n, 9);
    assert_int_equal(w[2].n, 1);
    assert_int_equal(all.n, 9);

    /* Shorter into longer and longer into shorter give the same series. */
    series_init(&a, INTERVAL_US);
    series_merge(&a, &w[0]);
    series_merge(&a, &w[1]);
    series_merge(&a, &w[2]);
    series_init(&b, INTERVAL_US);
    series_merge(&b, &w[1]);
    series_merge(&b, &w[2]);
    series_merge(&b, &w[0]);
    assert_int_equal(a.n, 9);
    assert_series_equal(&a, &all);
    assert_series_equal(&b, &all);
    /* Intervals 3..8 come from worker 1 alone. */
    for (size_t i = 3; i < 9; i++) {
        assert_int_equal(a.items[i].n_tx, w[1].items[i].n_tx);
        assert_sparse_equal(&a.items[i].latency, &w[1].items[i].latency);
    }
    series_free(&a);
    series_free(&b);
    free_series(w, &all);
}

static void test_merge_copies_and_empty(void **state)
{
    (void)state;
    struct series src, dst, empty;
    series_init(&src, INTERVAL_US);
    series_init(&empty, INTERVAL_US);
    struct hist *h = hist_new();
    hist_record(h, 10);
    hist_record(h, 2000000);
    series_add(&src, 1, 2, 1, NULL, h);
    hist_free(h);

    /* Into an empty series: an equal, independent copy (src freed, dst still whole). */
    series_init(&dst, INTERVAL_US);
    series_merge(&dst, &src);
    assert_series_equal(&dst, &src);
    assert_ptr_not_equal(dst.items[1].latency.bins, src.items[1].latency.bins);
    series_free(&src);
    assert_int_equal(dst.n, 2);
    assert_interval_empty(&dst.items[0]);
    assert_int_equal(dst.items[1].n_tx, 2);
    assert_int_equal(dst.items[1].n_failed, 1);
    assert_int_equal(dst.items[1].latency.count, 2);
    assert_int_equal(dst.items[1].latency.min_us, 10);
    assert_int_equal(dst.items[1].latency.max_us, 2000000);

    /* An empty source changes nothing. */
    series_merge(&dst, &empty);
    assert_int_equal(dst.n, 2);
    assert_int_equal(dst.items[1].n_tx, 2);
    assert_int_equal(dst.items[1].latency.count, 2);
    assert_int_equal(dst.items[1].latency.n_bins, 2);

    /* Merging a series into itself doubles it. */
    series_merge(&dst, &dst);
    assert_int_equal(dst.items[1].n_tx, 4);
    assert_int_equal(dst.items[1].n_failed, 2);
    assert_int_equal(dst.items[1].latency.count, 4);
    assert_int_equal(dst.items[1].latency.n_bins, 2);
    assert_int_equal(dst.items[1].latency.bins[0].count, 2);
    assert_int_equal(dst.items[1].latency.min_us, 10);
    series_free(&dst);
    series_free(&empty);
}

/* Handing intervals over: what is taken leaves the series, a late addition to an interval
 * already taken lands in the first one still held, and nothing is counted twice or lost. */
static void test_take_into(void **state)
{
    (void)state;
    struct series s;
    series_init(&s, INTERVAL_US);
    struct hist *h = hist_new();
    for (size_t i = 0; i < 4; i++) {
        hist_reset(h);
        hist_record(h, 100 * (int64_t)(i + 1));
        series_add(&s, i, 1, i, NULL, h);
    }
    struct interval acc = {0};
    series_take_into(&s, 1, 0, &acc);
    assert_int_equal(acc.n_tx, 2);
    assert_int_equal(acc.n_failed, 1);
    assert_int_equal(acc.latency.count, 2);
    assert_int_equal(acc.latency.max_us, 200);
    assert_int_equal(s.first, 2);
    assert_int_equal(s.n, 2);
    hist_sparse_free(&acc.latency);
    memset(&acc, 0, sizeof acc);
    series_add(&s, 0, 5, 0, NULL, NULL); /* late: goes into interval 2 */
    series_take_into(&s, 2, 0, &acc);
    assert_int_equal(acc.n_tx, 6);
    assert_int_equal(acc.latency.count, 1);
    assert_int_equal(acc.latency.min_us, 300);
    hist_sparse_free(&acc.latency);
    memset(&acc, 0, sizeof acc);
    series_take_into(&s, 1, 0, &acc); /* already taken: nothing */
    assert_int_equal(acc.n_tx, 0);
    series_take_into(&s, 9, 0, &acc); /* past what is held: the rest */
    assert_int_equal(acc.n_tx, 1);
    assert_int_equal(acc.n_failed, 3);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.first, 10);
    hist_sparse_free(&acc.latency);
    series_free(&s);
    hist_free(h);
}

/* The tenths through add, merge and take_into: each interval's own add up tenth by tenth, one
 * folded in from before counts in the first, one from after (the end of the run) in the last,
 * and they always sum to n_tx. */
static void test_tenths(void **state)
{
    (void)state;
    struct series s, other;
    series_init(&s, INTERVAL_US);
    series_init(&other, INTERVAL_US);
    static const uint64_t a[SERIES_TENTHS] = {1, 0, 2, 0, 0, 0, 0, 0, 0, 3};
    static const uint64_t b[SERIES_TENTHS] = {0, 4, 0, 0, 0, 0, 0, 0, 1, 0};
    series_add(&s, 0, 6, 1, a, NULL);
    series_add(&s, 1, 5, 0, b, NULL);
    series_add(&s, 1, 2, 0, NULL, NULL); /* when in the interval unknown: the first tenth */
    series_add(&other, 1, 6, 0, a, NULL);
    series_add(&other, 3, 5, 2, b, NULL);
    series_merge(&s, &other);
    series_free(&other);
    assert_int_equal(s.n, 4);
    static const uint64_t m1[SERIES_TENTHS] = {3, 4, 2, 0, 0, 0, 0, 0, 1, 3};
    assert_memory_equal(s.items[0].tenths, a, sizeof a);
    assert_memory_equal(s.items[1].tenths, m1, sizeof m1);
    assert_memory_equal(s.items[3].tenths, b, sizeof b);
    for (size_t i = 0; i < s.n; i++)
        assert_tenths_sum(&s.items[i]);

    /* Interval 0 on its own; then 1, with a late addition to 0 folded into its first tenth. */
    struct interval acc = {0};
    series_take_into(&s, 0, 0, &acc);
    assert_int_equal(acc.n_tx, 6);
    assert_memory_equal(acc.tenths, a, sizeof a);
    memset(&acc, 0, sizeof acc);
    series_add(&s, 0, 7, 0, b, NULL); /* late: into interval 1's first tenth */
    series_take_into(&s, 1, 0, &acc);
    assert_int_equal(acc.n_tx, 20);
    static const uint64_t m1_late[SERIES_TENTHS] = {10, 4, 2, 0, 0, 0, 0, 0, 1, 3};
    assert_memory_equal(acc.tenths, m1_late, sizeof m1_late);
    assert_tenths_sum(&acc);

    /* The end of the run as interval 2: 3 (after it) into its last tenth. */
    memset(&acc, 0, sizeof acc);
    series_take_into(&s, 2, 1, &acc);
    assert_int_equal(acc.n_tx, 5);
    static const uint64_t end[SERIES_TENTHS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    assert_memory_equal(acc.tenths, end, sizeof end);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.first, 4);

    /* Handing over an interval past the ones held (2, 3): both before it, its first tenth. */
    series_add(&s, 4, 6, 0, a, NULL);
    series_add(&s, 5, 5, 0, b, NULL);
    memset(&acc, 0, sizeof acc);
    series_take_into(&s, 7, 0, &acc);
    assert_int_equal(acc.n_tx, 11);
    assert_int_equal(acc.tenths[0], 11);
    assert_tenths_sum(&acc);
    assert_int_equal(s.first, 8);
    series_free(&s);
}

/* A tick past the interval being filled closes it, without a completion after it. */
static void test_recorder_tick(void **state)
{
    (void)state;
    struct series s;
    series_init(&s, INTERVAL_US);
    struct series_recorder r;
    series_recorder_init(&r, &s);
    series_recorder_start(&r, 10 * NS_PER_S, 3);
    series_recorder_add(&r, 10 * NS_PER_S + NS_PER_S / 2, 0, 250);
    series_recorder_tick(&r, 10 * NS_PER_S + 900 * NS_PER_MS); /* same interval: nothing */
    assert_int_equal(s.n, 0);
    series_recorder_tick(&r, 11 * NS_PER_S + 200 * NS_PER_MS);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.items[0].n_tx, 1);
    assert_int_equal(r.cur_idx, 1);
    series_recorder_tick(&r, 99 * NS_PER_S); /* capped at the last interval */
    assert_int_equal(r.cur_idx, 3);
    series_recorder_free(&r);
    series_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_into_intervals),
        cmocka_unit_test(test_ensure),
        cmocka_unit_test(test_take_into),
        cmocka_unit_test(test_tenths),
        cmocka_unit_test(test_recorder_tick),
        cmocka_unit_test(test_merge_equals_single),
        cmocka_unit_test(test_merge_different_lengths),
        cmocka_unit_test(test_merge_copies_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
