#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sparse_assert.h"

#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/rng.h"
#include "stats/hist.h"
#include "stats/series.h"

#define INTERVAL_US 1000000 /* 1 s */

/* Interval 0 begins here: far from 0, so that a recorder ignoring start would be caught. */
#define T0 (1000 * NS_PER_S + 7)

static time_ns at(double seconds)
{
    return T0 + (time_ns)(seconds * 1e9);
}

/* The tenths count exactly the interval's transactions. */
static void assert_tenths_sum(const struct interval *it)
{
    uint64_t sum = 0;
    for (int k = 0; k < SERIES_TENTHS; k++)
        sum += it->tenths[k];
    assert_int_equal(sum, it->n_tx);
}

static void assert_tenths(const struct interval *it, const uint64_t want[SERIES_TENTHS])
{
    for (int k = 0; k < SERIES_TENTHS; k++)
        if (it->tenths[k] != want[k])
            fail_msg("tenth %d: %llu, want %llu", k, (unsigned long long)it->tenths[k],
                     (unsigned long long)want[k]);
    assert_tenths_sum(it);
}

/* A sparse histogram built by hand from values. */
static void sparse_of(struct hist_sparse *out, const int64_t *values, size_t n)
{
    struct hist *h = hist_new();
    for (size_t i = 0; i < n; i++)
        hist_record(h, values[i]);
    hist_to_sparse(h, out);
    hist_free(h);
}

static void assert_interval(const struct series *s, size_t idx, uint64_t n_tx, uint64_t n_failed,
                            const int64_t *values, size_t n_values)
{
    assert_true(idx < s->n);
    const struct interval *it = &s->items[idx];
    assert_int_equal(it->n_tx, n_tx);
    assert_int_equal(it->n_failed, n_failed);
    assert_tenths_sum(it);
    struct hist_sparse want;
    sparse_of(&want, values, n_values);
    assert_sparse_equal_tol(&it->latency, &want, 0);
    hist_sparse_free(&want);
}

static void assert_interval_empty(const struct series *s, size_t idx)
{
    assert_interval(s, idx, 0, 0, NULL, 0);
    assert_null(s->items[idx].latency.bins);
}

static void assert_series_equal(const struct series *a, const struct series *b)
{
    assert_int_equal(a->interval_us, b->interval_us);
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->items[i].n_tx, b->items[i].n_tx);
        assert_int_equal(a->items[i].n_failed, b->items[i].n_failed);
        assert_memory_equal(a->items[i].tenths, b->items[i].tenths, sizeof a->items[i].tenths);
        /* Sums of squares of the merged halves may round differently. */
        assert_sparse_equal_tol(&a->items[i].latency, &b->items[i].latency, 1e-12);
    }
}

/* A series of intervals of interval_us and its recorder, started at T0 (last interval
 * max_idx); and their end. */
static void recorder_open(struct series *s, struct series_recorder *r, int64_t interval_us,
                          size_t max_idx)
{
    series_init(s, interval_us);
    series_recorder_init(r, s);
    series_recorder_start(r, T0, max_idx);
}

static void recorder_close(struct series *s, struct series_recorder *r)
{
    series_recorder_free(r);
    series_free(s);
}

static void test_init_and_start(void **state)
{
    (void)state;
    struct series s;
    series_init(&s, INTERVAL_US);
    struct series_recorder r;
    series_recorder_init(&r, &s);
    assert_ptr_equal(r.series, &s);
    assert_non_null(r.current);
    assert_int_equal(r.max_idx, SIZE_MAX);
    series_recorder_start(&r, T0, 9);
    assert_int_equal(r.start_ns, T0);
    assert_int_equal(r.max_idx, 9);
    assert_int_equal(r.cur_idx, 0);

    /* Nothing recorded: flush adds nothing. */
    series_recorder_flush(&r);
    assert_int_equal(s.n, 0);
    series_recorder_free(&r);
    assert_null(r.current);
    series_free(&s);
}

static void test_intervals_by_completion_time(void **state)
{
    (void)state;
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, SIZE_MAX);

    /* Interval 0: two successes and a failure (whose latency must be ignored). */
    series_recorder_add(&r, at(0.001), 0, 100);
    series_recorder_add(&r, at(0.5), 0, 2000);
    series_recorder_add(&r, at(0.9), 1, 999999);
    /* Still filling interval 0: nothing in the series yet. */
    assert_int_equal(s.n, 0);

    /* Interval 1: one success. Moving there snapshots interval 0. */
    series_recorder_add(&r, at(1.25), 0, 37);
    assert_int_equal(s.n, 1);
    static const int64_t v0[] = {100, 2000};
    assert_interval(&s, 0, 2, 1, v0, 2);

    /* Intervals 2 and 3 empty; interval 4: successes with repeated and large values, and
     * failures only at its end. */
    series_recorder_add(&r, at(4.0), 0, 5000);
    assert_int_equal(s.n, 2);
    static const int64_t v1[] = {37};
    assert_interval(&s, 1, 1, 0, v1, 1);
    series_recorder_add(&r, at(4.1), 0, 5000);
    series_recorder_add(&r, at(4.2), 0, 3600000000LL);
    series_recorder_add(&r, at(4.3), 0, 0);
    series_recorder_add(&r, at(4.4), 1, 1);
    series_recorder_add(&r, at(4.999999), 1, 5000);

    /* Interval 6: failures only. */
    series_recorder_add(&r, at(6.5), 1, 42);
    series_recorder_add(&r, at(6.6), 1, 43);
    assert_int_equal(s.n, 5);
    static const int64_t v4[] = {5000, 5000, 3600000000LL, 0};
    assert_interval(&s, 4, 4, 2, v4, 4);

    /* The last interval appears only after the flush. */
    assert_int_equal(s.n, 5);
    series_recorder_flush(&r);
    assert_int_equal(s.n, 7);

    assert_interval_empty(&s, 2);
    assert_interval_empty(&s, 3);
    assert_interval_empty(&s, 5);
    assert_interval(&s, 6, 0, 2, NULL, 0);
    assert_int_equal(s.items[6].latency.count, 0);
    assert_int_equal(s.items[6].latency.n_bins, 0);
    /* The earlier ones are unchanged by the later activity. */
    assert_interval(&s, 0, 2, 1, v0, 2);
    assert_interval(&s, 1, 1, 0, v1, 1);
    assert_interval(&s, 4, 4, 2, v4, 4);

    /* A second flush adds nothing. */
    series_recorder_flush(&r);
    assert_int_equal(s.n, 7);
    assert_interval(&s, 6, 0, 2, NULL, 0);

    recorder_close(&s, &r);
}

static void test_boundaries(void **state)
{
    (void)state;
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, SIZE_MAX);

    series_recorder_add(&r, T0, 0, 1);                    /* exactly at start: 0 */
    series_recorder_add(&r, T0 + NS_PER_S - 1, 0, 2);     /* last ns of 0 */
    series_recorder_add(&r, T0 + NS_PER_S, 0, 3);         /* exactly at 1 s: 1 */
    series_recorder_add(&r, T0 + 2 * NS_PER_S - 1, 1, 0); /* last ns of 1 */
    series_recorder_add(&r, T0 + 2 * NS_PER_S, 0, 4);     /* exactly at 2 s: 2 */
    series_recorder_add(&r, T0 + 3 * NS_PER_S, 1, 0);     /* exactly at 3 s: 3 */
    series_recorder_flush(&r);

    assert_int_equal(s.n, 4);
    static const int64_t v0[] = {1, 2}, v1[] = {3}, v2[] = {4};
    assert_interval(&s, 0, 2, 0, v0, 2);
    assert_interval(&s, 1, 1, 1, v1, 1);
    assert_interval(&s, 2, 1, 0, v2, 1);
    assert_interval(&s, 3, 0, 1, NULL, 0);
    recorder_close(&s, &r);
}

static void test_before_start_goes_to_zero(void **state)
{
    (void)state;
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, SIZE_MAX);

    series_recorder_add(&r, T0 - 5 * NS_PER_S, 0, 10); /* well before: still interval 0 */
    series_recorder_add(&r, T0 - 1, 1, 0);
    series_recorder_add(&r, T0 - NS_PER_S + 1, 0, 20);
    series_recorder_add(&r, T0 + 10, 0, 30);
    series_recorder_flush(&r);

    assert_int_equal(s.n, 1);
    static const int64_t v0[] = {10, 20, 30};
    assert_interval(&s, 0, 3, 1, v0, 3);
    recorder_close(&s, &r);
}

static void test_late_fold_into_last(void **state)
{
    (void)state;
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, 2); /* intervals 0, 1, 2 */

    series_recorder_add(&r, at(0.5), 0, 1);
    series_recorder_add(&r, at(2.5), 0, 2);  /* in 2 itself */
    series_recorder_add(&r, at(3.0), 0, 3);  /* exactly at the end of 2: folds into 2 */
    series_recorder_add(&r, at(3.5), 1, 0);  /* late failure */
    series_recorder_add(&r, at(10.0), 0, 4); /* long after */
    series_recorder_add(&r, T0 + 1000 * NS_PER_S, 0, 5);
    /* Still interval 2 being filled: only interval 0 in the series (1 is empty, not created). */
    assert_int_equal(s.n, 1);
    series_recorder_flush(&r);

    assert_int_equal(s.n, 3);
    static const int64_t v0[] = {1}, v2[] = {2, 3, 4, 5};
    assert_interval(&s, 0, 1, 0, v0, 1);
    assert_interval_empty(&s, 1);
    assert_interval(&s, 2, 4, 1, v2, 4);
    recorder_close(&s, &r);
}

static void test_max_idx_zero(void **state)
{
    (void)state;
    /* A single interval: everything from before start to far after lands in 0. */
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, 0);
    series_recorder_add(&r, T0 - 1, 0, 7);
    series_recorder_add(&r, at(0.5), 0, 8);
    series_recorder_add(&r, at(5.5), 1, 0);
    series_recorder_add(&r, at(500), 0, 9);
    assert_int_equal(s.n, 0);
    series_recorder_flush(&r);
    assert_int_equal(s.n, 1);
    static const int64_t v0[] = {7, 8, 9};
    assert_interval(&s, 0, 3, 1, v0, 3);
    recorder_close(&s, &r);
}

static void test_other_interval_length(void **state)
{
    (void)state;
    /* 250 ms intervals: the length comes from the series. */
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, 250000, SIZE_MAX);
    series_recorder_add(&r, at(0.249), 0, 1);
    series_recorder_add(&r, at(0.25), 0, 2);
    series_recorder_add(&r, at(0.999), 0, 3);
    series_recorder_add(&r, at(1.0), 1, 0);
    series_recorder_flush(&r);
    assert_int_equal(s.n, 5);
    static const int64_t v0[] = {1}, v1[] = {2}, v3[] = {3};
    assert_interval(&s, 0, 1, 0, v0, 1);
    assert_interval(&s, 1, 1, 0, v1, 1);
    assert_interval_empty(&s, 2);
    assert_interval(&s, 3, 1, 0, v3, 1);
    assert_interval(&s, 4, 0, 1, NULL, 0);
    recorder_close(&s, &r);
}

static void test_flush_midway_then_continue(void **state)
{
    (void)state;
    /* A flush in the middle of an interval, then more in the same interval: the series
     * accumulates, nothing is counted twice. */
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, SIZE_MAX);
    series_recorder_add(&r, at(1.1), 0, 10);
    series_recorder_add(&r, at(1.2), 1, 0);
    series_recorder_flush(&r);
    assert_int_equal(s.n, 2);
    assert_interval_empty(&s, 0);
    static const int64_t a[] = {10};
    assert_interval(&s, 1, 1, 1, a, 1);

    series_recorder_add(&r, at(1.3), 0, 20);
    series_recorder_add(&r, at(1.4), 0, 10);
    series_recorder_add(&r, at(2.0), 0, 30);
    series_recorder_flush(&r);
    assert_int_equal(s.n, 3);
    static const int64_t b[] = {10, 20, 10}, c[] = {30};
    assert_interval(&s, 1, 3, 1, b, 3);
    assert_interval(&s, 2, 1, 0, c, 1);
    recorder_close(&s, &r);
}

/* Each success counts in the tenth of its interval it completed in (failures in none), at
 * the exact 100 ms edges too, and out of order as well as in order. */
static void test_tenths_by_completion_time(void **state)
{
    (void)state;
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, SIZE_MAX);
    const time_ns ms = NS_PER_MS;
    series_recorder_add(&r, T0, 0, 1);                /* exactly at start: tenth 0 */
    series_recorder_add(&r, T0 + 100 * ms - 1, 0, 1); /* last ns of tenth 0 */
    series_recorder_add(&r, T0 + 100 * ms, 0, 1);     /* exactly at 100 ms: tenth 1 */
    series_recorder_add(&r, T0 + 350 * ms, 0, 1);
    series_recorder_add(&r, T0 + 500 * ms, 1, 0); /* a failure: in no tenth */
    series_recorder_add(&r, T0 + 999 * ms, 0, 1);
    series_recorder_add(&r, T0 + 1050 * ms, 0, 1); /* interval 1, tenth 0 */
    series_recorder_add(&r, T0 + 200 * ms, 0, 1);  /* back in interval 0: tenth 2 */
    series_recorder_add(&r, T0 + 1950 * ms, 0, 1); /* interval 1, tenth 9 */
    series_recorder_add(&r, T0 + 1960 * ms, 0, 1);
    series_recorder_add(&r, T0 + 1400 * ms, 0, 1); /* an earlier tenth of the same interval */
    series_recorder_flush(&r);
    assert_int_equal(s.n, 2);
    static const uint64_t t0[SERIES_TENTHS] = {2, 1, 1, 1, 0, 0, 0, 0, 0, 1};
    static const uint64_t t1[SERIES_TENTHS] = {1, 0, 0, 0, 1, 0, 0, 0, 0, 2};
    assert_int_equal(s.items[0].n_tx, 6);
    assert_int_equal(s.items[0].n_failed, 1);
    assert_tenths(&s.items[0], t0);
    assert_int_equal(s.items[1].n_tx, 4);
    assert_tenths(&s.items[1], t1);
    recorder_close(&s, &r);
}

/* Folded in: before the start into interval 0's first tenth, past the last interval into its
 * last tenth; a tenth is 1/10 of the series' interval, whatever its length. */
static void test_tenths_fold_ins(void **state)
{
    (void)state;
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, 2); /* intervals 0, 1, 2 */
    series_recorder_add(&r, T0 - 5 * NS_PER_S, 0, 1);
    series_recorder_add(&r, T0 - 1, 0, 1);
    series_recorder_add(&r, at(0.55), 0, 1);
    series_recorder_add(&r, at(2.95), 0, 1);
    series_recorder_add(&r, at(3.0), 0, 1);  /* exactly at the end of 2 */
    series_recorder_add(&r, at(10.0), 0, 1); /* long after */
    series_recorder_add(&r, at(2.05), 0, 1); /* before the late tail's span: its own tenth */
    series_recorder_add(&r, at(3.5), 1, 0);
    series_recorder_flush(&r);
    assert_int_equal(s.n, 3);
    static const uint64_t t0[SERIES_TENTHS] = {2, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    static const uint64_t t2[SERIES_TENTHS] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 3};
    assert_tenths(&s.items[0], t0);
    assert_tenths(&s.items[2], t2);
    assert_int_equal(s.items[2].n_failed, 1);
    recorder_close(&s, &r);

    recorder_open(&s, &r, 250000, SIZE_MAX); /* 25 ms tenths */
    series_recorder_add(&r, at(0.024), 0, 1);
    series_recorder_add(&r, T0 + 25 * NS_PER_MS, 0, 1);
    series_recorder_add(&r, at(0.249), 0, 1);
    series_recorder_add(&r, at(0.26), 0, 1);
    series_recorder_flush(&r);
    static const uint64_t q0[SERIES_TENTHS] = {1, 1, 0, 0, 0, 0, 0, 0, 0, 1};
    static const uint64_t q1[SERIES_TENTHS] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    assert_tenths(&s.items[0], q0);
    assert_tenths(&s.items[1], q1);
    recorder_close(&s, &r);
}

/* A tick that closes the interval being filled: the next completion finds its own tenth. */
static void test_tenths_after_tick(void **state)
{
    (void)state;
    struct series s;
    struct series_recorder r;
    recorder_open(&s, &r, INTERVAL_US, SIZE_MAX);
    series_recorder_add(&r, at(0.95), 0, 1);
    series_recorder_tick(&r, at(1.2));
    series_recorder_add(&r, at(1.25), 0, 1);
    series_recorder_add(&r, at(0.97), 0, 1); /* after the tick, in interval 0 again */
    series_recorder_flush(&r);
    static const uint64_t t0[SERIES_TENTHS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
    static const uint64_t t1[SERIES_TENTHS] = {0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
    assert_tenths(&s.items[0], t0);
    assert_tenths(&s.items[1], t1);
    recorder_close(&s, &r);
}

/* One completion of a generated workload. */
struct event {
    time_ns end;
    int failed;
    int64_t latency_us;
};

static void test_two_recorders_merged_equal_one(void **state)
{
    (void)state;
    enum { N_EVENTS = 20000 };
    const size_t max_idx = 14;
    struct event *ev = malloc(N_EVENTS * sizeof *ev);
    assert_non_null(ev);
    struct rng g;
    rng_seed(&g, 2024);
    /* Completions in time order from 2 s before start to 20 s after (past max_idx), with gaps
     * that leave some intervals empty, ~10 % failures, latencies over several decades. */
    time_ns t = T0 - 2 * NS_PER_S;
    for (int i = 0; i < N_EVENTS; i++) {
        if (rng_range(&g, 0, 999) == 0)
            t += rng_range(&g, 1, 3) * NS_PER_S; /* a stall */
        else
            t += rng_range(&g, 0, 2 * NS_PER_MS);
        ev[i].end = t;
        ev[i].failed = rng_range(&g, 0, 9) == 0;
        ev[i].latency_us = rng_range(&g, 0, 1) ? rng_range(&g, 0, 2000) : rng_range(&g, 0, 5000000);
    }
    /* The generated run actually spans past the last interval. */
    assert_true(t > T0 + (time_ns)(max_idx + 1) * NS_PER_S);

    struct series one, a, b;
    series_init(&one, INTERVAL_US);
    series_init(&a, INTERVAL_US);
    series_init(&b, INTERVAL_US);
    struct series_recorder r1, ra, rb;
    series_recorder_init(&r1, &one);
    series_recorder_init(&ra, &a);
    series_recorder_init(&rb, &b);
    series_recorder_start(&r1, T0, max_idx);
    series_recorder_start(&ra, T0, max_idx);
    series_recorder_start(&rb, T0, max_idx);

    /* The reference: a dense histogram per interval, built by hand. */
    struct hist *ref[15];
    uint64_t ref_tx[15] = {0}, ref_failed[15] = {0}, ref_tenths[15][SERIES_TENTHS] = {{0}};
    for (size_t k = 0; k <= max_idx; k++)
        ref[k] = hist_new();

    int n_a = 0;
    for (int i = 0; i < N_EVENTS; i++) {
        series_recorder_add(&r1, ev[i].end, ev[i].failed, ev[i].latency_us);
        /* Each worker sees its own completions in time order. */
        if (rng_range(&g, 0, 2) == 0) {
            series_recorder_add(&ra, ev[i].end, ev[i].failed, ev[i].latency_us);
            n_a++;
        } else {
            series_recorder_add(&rb, ev[i].end, ev[i].failed, ev[i].latency_us);
        }
        time_ns since = ev[i].end - T0;
        size_t k = since < 0 ? 0 : (size_t)(since / NS_PER_S);
        int tenth = since < 0 ? 0 : (int)(since % NS_PER_S / (NS_PER_S / 10));
        if (k > max_idx) {
            k = max_idx;
            tenth = SERIES_TENTHS - 1;
        }
        if (ev[i].failed) {
            ref_failed[k]++;
        } else {
            ref_tx[k]++;
            ref_tenths[k][tenth]++;
            hist_record(ref[k], ev[i].latency_us);
        }
    }
    assert_true(n_a > N_EVENTS / 4 && n_a < N_EVENTS / 2);
    series_recorder_flush(&r1);
    series_recorder_flush(&ra);
    series_recorder_flush(&rb);

    /* The single recorder matches the hand-built reference. */
    assert_int_equal(one.n, max_idx + 1);
    int n_empty = 0;
    for (size_t k = 0; k <= max_idx; k++) {
        assert_int_equal(one.items[k].n_tx, ref_tx[k]);
        assert_int_equal(one.items[k].n_failed, ref_failed[k]);
        assert_tenths(&one.items[k], ref_tenths[k]);
        struct hist_sparse want;
        hist_to_sparse(ref[k], &want);
        assert_sparse_equal_tol(&one.items[k].latency, &want, 0);
        hist_sparse_free(&want);
        n_empty += ref_tx[k] + ref_failed[k] == 0;
    }
    /* The workload exercised empty intervals and the folded tail. */
    assert_true(n_empty > 0);
    assert_true(ref_tx[max_idx] > ref_tx[0]);

    /* Merging the two halves (in both orders) gives the single recorder's series. */
    struct series merged;
    series_init(&merged, INTERVAL_US);
    series_merge(&merged, &a);
    series_merge(&merged, &b);
    assert_series_equal(&merged, &one);
    series_free(&merged);
    series_init(&merged, INTERVAL_US);
    series_merge(&merged, &b);
    series_merge(&merged, &a);
    assert_series_equal(&merged, &one);
    /* Merging into a directly. */
    series_merge(&a, &b);
    assert_series_equal(&a, &one);

    series_free(&merged);
    for (size_t k = 0; k <= max_idx; k++)
        hist_free(ref[k]);
    series_recorder_free(&r1);
    series_recorder_free(&ra);
    series_recorder_free(&rb);
    series_free(&one);
    series_free(&a);
    series_free(&b);
    free(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_and_start),
        cmocka_unit_test(test_intervals_by_completion_time),
        cmocka_unit_test(test_boundaries),
        cmocka_unit_test(test_before_start_goes_to_zero),
        cmocka_unit_test(test_late_fold_into_last),
        cmocka_unit_test(test_max_idx_zero),
        cmocka_unit_test(test_other_interval_length),
        cmocka_unit_test(test_flush_midway_then_continue),
        cmocka_unit_test(test_tenths_by_completion_time),
        cmocka_unit_test(test_tenths_fold_ins),
        cmocka_unit_test(test_tenths_after_tick),
        cmocka_unit_test(test_two_recorders_merged_equal_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
