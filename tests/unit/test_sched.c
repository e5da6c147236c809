#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "base/clock.h"
#include "engine/sched.h"

#define N_DRAWS 200000

/* A start far from 0, so that "after start" is not trivially true. */
#define START_NS (5 * NS_PER_S + 123456789LL)

/* What a run of N_DRAWS arrivals looks like. */
struct draw_stats {
    double rate_per_s;  /* arrivals / elapsed since start */
    double mean_gap_ns; /* mean of the gaps (the first from start) */
    double cv;          /* standard deviation / mean of the gaps */
    double frac_above;  /* fraction of gaps above the target mean gap */
    int monotonic;      /* every arrival >= the previous one */
    int after_start;    /* every arrival >= start */
    time_ns first, last;
};

static struct draw_stats draw(double rate, time_ns start, uint64_t seed, int n)
{
    struct sched s;
    sched_init(&s, rate, start, seed);
    struct draw_stats d = {.monotonic = 1, .after_start = 1};
    double target_gap = 1e9 / rate;
    double sum = 0, sumsq = 0;
    long above = 0;
    time_ns prev = start;
    for (int i = 0; i < n; i++) {
        time_ns t = sched_next(&s);
        if (i == 0)
            d.first = t;
        if (t < prev)
            d.monotonic = 0;
        if (t < start)
            d.after_start = 0;
        double gap = (double)(t - prev);
        sum += gap;
        sumsq += gap * gap;
        if (gap > target_gap)
            above++;
        prev = t;
    }
    d.last = prev;
    d.mean_gap_ns = sum / n;
    double var = sumsq / n - d.mean_gap_ns * d.mean_gap_ns;
    d.cv = sqrt(var) / d.mean_gap_ns;
    d.frac_above = (double)above / n;
    d.rate_per_s = (double)n / ((double)(d.last - start) / 1e9);
    return d;
}

static void assert_rel_near(double got, double want, double rel_tol)
{
    if (fabs(got - want) > rel_tol * fabs(want))
        fail_msg("got %.6g, want %.6g within %.3g%%", got, want, rel_tol * 100);
}

static void test_init_fields(void **state)
{
    (void)state;
    struct sched s;
    sched_init(&s, 1000, START_NS, 42);
    assert_true(s.mean_gap_ns == 1e6);
    assert_int_equal(s.next, START_NS);
    sched_init(&s, 50, 0, 42);
    assert_true(s.mean_gap_ns == 2e7);
    sched_init(&s, 1e6, 0, 42);
    assert_true(s.mean_gap_ns == 1e3);
}

static void test_first_arrival_after_start(void **state)
{
    (void)state;
    /* The first arrival is one random gap after start (a gap of mean 1 ms is never below 1 ns
     * for these seeds), and it is what the schedule now holds. */
    for (uint64_t seed = 1; seed <= 100; seed++) {
        struct sched s;
        sched_init(&s, 1000, START_NS, seed);
        time_ns t = sched_next(&s);
        assert_true(t > START_NS);
        assert_true(t < START_NS + 60 * NS_PER_S);
        assert_int_equal(s.next, t);
    }
}

static void check_rate(double rate, uint64_t seed)
{
    struct draw_stats d = draw(rate, START_NS, seed, N_DRAWS);
    assert_true(d.monotonic);
    assert_true(d.after_start);
    assert_true(d.first >= START_NS);
    /* Mean rate within 1 % of the target. */
    assert_rel_near(d.rate_per_s, rate, 0.01);
    assert_rel_near(d.mean_gap_ns, 1e9 / rate, 0.01);
    /* Exponential gaps: coefficient of variation 1 (within 2 %), and P(gap > mean) = e^-1
     * (within 1 % relative). */
    assert_rel_near(d.cv, 1.0, 0.02);
    assert_rel_near(d.frac_above, exp(-1.0), 0.01);
}

static void test_rate_1000(void **state)
{
    (void)state;
    check_rate(1000, 1);
    check_rate(1000, 0xdeadbeef);
}

static void test_rate_50(void **state)
{
    (void)state;
    check_rate(50, 2);
    check_rate(50, 77);
}

static void test_rate_1e6(void **state)
{
    (void)state;
    /* Mean gap 1 us: the truncation of each gap to whole nanoseconds must not bias the rate
     * by more than the tolerance. */
    check_rate(1e6, 3);
    check_rate(1e6, 12345);
}

static void test_fractional_rate(void **state)
{
    (void)state;
    /* A rate split across workers need not be an integer (e.g. 1000 / 3). */
    check_rate(1000.0 / 3.0, 9);
}

static void test_gaps_quantiles(void **state)
{
    (void)state;
    /* Beyond mean and CV: P(gap > k * mean) = e^-k for a few k, within 5 % relative (the
     * tail at k = 3 holds about 10k of 200k gaps). */
    struct sched s;
    const double mean = 1e6;
    sched_init(&s, 1000, 0, 99);
    long above[4] = {0};
    time_ns prev = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        time_ns t = sched_next(&s);
        double gap = (double)(t - prev);
        for (int k = 0; k < 4; k++)
            if (gap > (k == 0 ? 0.1 : (double)k) * mean)
                above[k]++;
        prev = t;
    }
    assert_rel_near((double)above[0] / N_DRAWS, exp(-0.1), 0.01);
    assert_rel_near((double)above[1] / N_DRAWS, exp(-1.0), 0.01);
    assert_rel_near((double)above[2] / N_DRAWS, exp(-2.0), 0.03);
    assert_rel_near((double)above[3] / N_DRAWS, exp(-3.0), 0.05);
}

static void test_same_seed_same_sequence(void **state)
{
    (void)state;
    struct sched a, b;
    sched_init(&a, 1000, START_NS, 7);
    sched_init(&b, 1000, START_NS, 7);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(sched_next(&a), sched_next(&b));

    /* A copy of the state continues identically (plain data). */
    struct sched c = a;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(sched_next(&a), sched_next(&c));
}

static void test_different_seeds_differ(void **state)
{
    (void)state;
    struct sched a, b;
    sched_init(&a, 1000, START_NS, 7);
    sched_init(&b, 1000, START_NS, 8);
    int same = 0;
    time_ns pa = START_NS, pb = START_NS;
    for (int i = 0; i < 10000; i++) {
        time_ns x = sched_next(&a), y = sched_next(&b);
        /* Compare gaps, not the running sums (those could cross by chance). */
        same += x - pa == y - pb;
        pa = x;
        pb = y;
    }
    assert_true(same < 10);

    /* Seed 0 is a valid seed and differs from seed 1. */
    sched_init(&a, 1000, 0, 0);
    sched_init(&b, 1000, 0, 1);
    assert_true(sched_next(&a) != sched_next(&b));
}

static void test_start_only_shifts(void **state)
{
    (void)state;
    /* The same seed from another start gives the same gaps, shifted. */
    struct sched a, b;
    sched_init(&a, 250, 0, 31);
    sched_init(&b, 250, START_NS, 31);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(sched_next(&b) - sched_next(&a), START_NS);
}

static void test_rate_scales_gaps(void **state)
{
    (void)state;
    /* Same seed, ten times the rate: each gap is a tenth (up to the nanosecond truncation). */
    struct sched a, b;
    sched_init(&a, 100, 0, 5);
    sched_init(&b, 1000, 0, 5);
    time_ns pa = 0, pb = 0;
    for (int i = 0; i < 10000; i++) {
        time_ns ta = sched_next(&a), tb = sched_next(&b);
        double ga = (double)(ta - pa), gb = (double)(tb - pb);
        assert_true(fabs(ga / 10.0 - gb) <= 1.0);
        pa = ta;
        pb = tb;
    }
}

/* At 1e8/s gaps average 10 ns: whole-nanosecond arrivals cannot keep the exponential's
 * shape, but the mean rate must not drift (fractions of a nanosecond are carried). */
static void test_rate_1e8(void **state)
{
    (void)state;
    struct draw_stats d = draw(1e8, START_NS, 4, N_DRAWS);
    assert_true(d.monotonic);
    assert_rel_near(d.rate_per_s, 1e8, 0.01);
    d = draw(5e8, START_NS, 5, N_DRAWS);
    assert_rel_near(d.rate_per_s, 5e8, 0.01);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_fields),
        cmocka_unit_test(test_first_arrival_after_start),
        cmocka_unit_test(test_rate_1000),
        cmocka_unit_test(test_rate_50),
        cmocka_unit_test(test_rate_1e6),
        cmocka_unit_test(test_rate_1e8),
        cmocka_unit_test(test_fractional_rate),
        cmocka_unit_test(test_gaps_quantiles),
        cmocka_unit_test(test_same_seed_same_sequence),
        cmocka_unit_test(test_different_seeds_differ),
        cmocka_unit_test(test_start_only_shifts),
        cmocka_unit_test(test_rate_scales_gaps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
