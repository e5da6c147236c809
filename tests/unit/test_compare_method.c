/* The test values of docs/compare-method.md §8, on the worked example of §7. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "base/rng.h"
#include "compare/cmp_int.h"

/* §7: 60 per-second TPS samples per side. */
static const double series_a[60] = {
    521, 641,  746,  786,  802,  850,  898,  947,  925,  913,  956,  979,  1019, 1031, 1013,
    999, 1059, 1027, 996,  970,  983,  993,  987,  990,  1001, 1017, 1036, 1027, 973,  1001,
    966, 976,  950,  970,  963,  983,  1069, 1040, 1044, 995,  990,  1010, 1004, 1011, 888,
    864, 882,  864,  1034, 1008, 1021, 1013, 1031, 1004, 1026, 1013, 1038, 1038, 1026, 997};
static const double series_b[60] = {
    539,  610,  768,  802,  828,  862,  867,  874,  918,  925,  968,  971,  934,  928,  939,
    917,  958,  978,  1024, 1005, 1011, 1038, 1059, 1024, 1073, 1044, 1077, 1056, 1041, 1010,
    1022, 965,  933,  965,  979,  1077, 1096, 1114, 1080, 1054, 1082, 1079, 1124, 1106, 1053,
    1050, 1018, 1051, 1070, 1051, 1027, 1060, 1046, 1080, 1042, 1038, 1028, 1009, 1099, 1124};

#define WIN_START 20
#define WIN_LEN   40

static void assert_close(double got, double want, double tol)
{
    if (fabs(got - want) > tol) {
        print_error("got %.10g, want %.10g (tolerance %g)\n", got, want, tol);
        fail();
    }
}

static void assert_rel(double got, double want, double rel)
{
    assert_close(got, want, rel * fabs(want));
}

static void test_rng(void **state)
{
    (void)state;
    struct rng g;
    rng_seed(&g, 0); /* the first splitmix64 output from state 0 is the first word */
    assert_true(g.s[0] == 0xe220a8397b1dcdafULL);
    g = (struct rng){{1, 2, 3, 4}};
    const uint64_t raw[4] = {11520, 0, 1509978240, 1215971899390074240ULL};
    for (int i = 0; i < 4; i++)
        assert_true(rng_next(&g) == raw[i]);
    rng_seed(&g, 42);
    const uint64_t seeded[4] = {0x15780b2e0c2ec716ULL, 0x6104d9866d113a7eULL, 0xae17533239e499a1ULL,
                                0xecb8ad4703b360a1ULL};
    for (int i = 0; i < 4; i++)
        assert_true(rng_next(&g) == seeded[i]);
    rng_seed(&g, 42);
    const uint64_t below[10] = {22, 22, 9, 33, 36, 24, 34, 7, 38, 5};
    for (int i = 0; i < 10; i++)
        assert_int_equal(cmp_rng_below(&g, 40), below[i]);
}

static void test_pct7(void **state)
{
    (void)state;
    const double v[4] = {1, 2, 3, 4};
    assert_close(cmp_pct7(v, 4, 0.25), 1.75, 1e-12);
    double *w = malloc(2000 * sizeof *w);
    for (int i = 0; i < 2000; i++)
        w[i] = i;
    assert_close(cmp_pct7(w, 2000, 0.025), 49.975, 1e-9);
    assert_close(cmp_pct7(w, 2000, 1.0), 1999, 0);
    free(w);
}

static void test_mser_worked_example(void **state)
{
    (void)state;
    const double stat_a[9] = {634.928, 126.301, 80.977,  99.741, 122.197,
                              159.476, 207.349, 267.125, 344.803};
    const double stat_b[9] = {884.042, 327.806, 212.457, 166.559, 137.849,
                              178.601, 242.468, 57.621,  65.057};
    double stat[12];
    size_t n_stat;
    struct cmp_mser m;
    cmp_mser5(series_a, 60, &m, stat, &n_stat);
    assert_int_equal(n_stat, 9);
    for (int d = 0; d < 9; d++)
        assert_close(stat[d], stat_a[d], 0.0005);
    assert_int_equal(m.warmup, 10);
    assert_int_equal(m.flags, 0);
    cmp_mser5(series_b, 60, &m, stat, &n_stat);
    for (int d = 0; d < 9; d++)
        assert_close(stat[d], stat_b[d], 0.0005);
    assert_int_equal(m.warmup, 20);
    assert_int_equal(m.d_global, 35);
    assert_int_equal(m.flags, CMP_MSER_UNCERTAIN);
}

static void test_mser_synthetic(void **state)
{
    (void)state;
    double x[300];
    struct cmp_mser m;
    for (int i = 0; i < 300; i++)
        x[i] = i < 50 ? 500 : 1000;
    cmp_mser5(x, 300, &m, NULL, NULL);
    assert_int_equal(m.warmup, 50);
    assert_int_equal(m.flags, 0);
    for (int i = 0; i < 300; i++)
        x[i] = 700;
    cmp_mser5(x, 300, &m, NULL, NULL);
    assert_int_equal(m.warmup, 0);
    cmp_mser5(x, 49, &m, NULL, NULL);
    assert_int_equal(m.flags, CMP_MSER_TOO_SHORT);
    assert_int_equal(m.warmup, 0);
}

static void test_pw_block_worked_example(void **state)
{
    (void)state;
    struct cmp_lrv a, b;
    cmp_pw_block(series_a + WIN_START, WIN_LEN, &a);
    cmp_pw_block(series_b + WIN_START, WIN_LEN, &b);
    assert_close(a.acov0, 2197.73, 0.005);
    assert_close(a.rho1, 0.6117, 0.00005);
    assert_int_equal(a.mhat, 2);
    assert_int_equal(a.m, 4);
    assert_close(a.s2lr, 6519.890, 0.0005);
    assert_close(a.g, 5991.564, 0.0005);
    assert_close(a.b_cb, 3.700, 0.0005);
    assert_int_equal(a.b, 4);
    assert_close(a.n_eff, 13.5, 0.05);
    assert_close(b.acov0, 1772.76, 0.005);
    assert_close(b.rho1, 0.6076, 0.00005);
    assert_int_equal(b.mhat, 2);
    assert_close(b.s2lr, 5047.153, 0.0005);
    assert_close(b.g, 4450.514, 0.0005);
    assert_close(b.b_cb, 3.600, 0.0005);
    assert_int_equal(b.b, 4);
    assert_close(b.n_eff, 14.0, 0.05);
}

/* Standard normal draws by Box-Muller from the method's generator. */
static double gauss(struct rng *g)
{
    double u = (double)(rng_next(g) >> 11) * 0x1.0p-53 + 0x1.0p-54;
    double v = (double)(rng_next(g) >> 11) * 0x1.0p-53;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void test_pw_block_properties(void **state)
{
    (void)state;
    enum { N = 3600 };
    double *x = malloc(N * sizeof *x);
    struct rng g;
    struct cmp_lrv l;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        rng_seed(&g, seed);
        double e = 0;
        for (int i = 0; i < N; i++)
            x[i] = 1000 + (e = 0.9 * e + gauss(&g));
        cmp_pw_block(x, N, &l);
        assert_true(l.b > 10);
        for (int i = 0; i < N; i++)
            x[i] = 1000 + gauss(&g);
        cmp_pw_block(x, N, &l);
        assert_true(l.b <= 3);
    }
    free(x);
}

static void test_cbb_worked_example(void **state)
{
    (void)state;
    const double *xa = series_a + WIN_START, *xb = series_b + WIN_START;
    struct rng g;
    rng_seed(&g, 42);
    assert_rel(cmp_cbb_mean(xa, WIN_LEN, 4, &g), 980.975, 1e-12);
    assert_rel(cmp_cbb_mean(xb, WIN_LEN, 4, &g), 1043.65, 1e-12);
    struct cmp_ci ci;
    cmp_ratio_ci(xa, WIN_LEN, xb, WIN_LEN, 4, 2000, 42, &ci);
    assert_rel(ci.a, 993.150, 1e-12);
    assert_rel(ci.b, 1048.875, 1e-12);
    assert_rel(ci.est, 1.05611, 1e-5);
    assert_rel(ci.lo, 1.0260418018826194, 1e-9);
    assert_rel(ci.hi, 1.0880997921569657, 1e-9);
    struct cmp_lrv la, lb;
    cmp_pw_block(xa, WIN_LEN, &la);
    cmp_pw_block(xb, WIN_LEN, &lb);
    cmp_hac_ci(ci.a, la.s2lr, WIN_LEN, ci.b, lb.s2lr, WIN_LEN, &ci);
    assert_close(ci.lo, 1.02204, 0.000005);
    assert_close(ci.hi, 1.09132, 0.000005);
}

static void test_cbb_invariants(void **state)
{
    (void)state;
    const double *xa = series_a + WIN_START, *xb = series_b + WIN_START;
    struct cmp_ci ci, scaled;
    /* One block as long as the series: every replicate is the sample mean. */
    cmp_ratio_ci(xa, WIN_LEN, xb, WIN_LEN, WIN_LEN, 500, 7, &ci);
    assert_rel(ci.lo, ci.est, 1e-12);
    assert_rel(ci.hi, ci.est, 1e-12);
    double bx[WIN_LEN];
    for (int i = 0; i < WIN_LEN; i++)
        bx[i] = xb[i] * 1.1;
    cmp_ratio_ci(xa, WIN_LEN, xb, WIN_LEN, 4, 2000, 42, &ci);
    cmp_ratio_ci(xa, WIN_LEN, bx, WIN_LEN, 4, 2000, 42, &scaled);
    assert_rel(scaled.lo, 1.1 * ci.lo, 1e-9);
    assert_rel(scaled.hi, 1.1 * ci.hi, 1e-9);
    cmp_ratio_ci(xa, WIN_LEN, xa, WIN_LEN, 4, 2000, 42, &ci);
    assert_rel(ci.est, 1, 1e-15);
    assert_true(ci.lo <= 1 && ci.hi >= 1);
}

static void test_lat_bins(void **state)
{
    (void)state;
    assert_int_equal(cmp_lat_index(255), 255);
    assert_int_equal(cmp_lat_index(256), 256);
    assert_int_equal(cmp_lat_lowest(256), 256);
    assert_int_equal(cmp_lat_highest(256), 257);
    assert_int_equal(cmp_lat_index(9343), 913);
    assert_int_equal(cmp_lat_lowest(913), 9280);
    assert_int_equal(cmp_lat_highest(913), 9343);
    assert_int_equal(cmp_lat_index(20095), 1052);
    assert_int_equal(cmp_lat_lowest(1052), 19968);
    assert_int_equal(cmp_lat_highest(1052), 20095);
    /* Every bin of the result file (1024 per power of two) nests in one coarse bin. */
    for (int64_t v = 2048; v < 1 << 22;) {
        int64_t width = 1LL << (63 - __builtin_clzll((uint64_t)v) - 10);
        assert_int_equal(cmp_lat_index(v), cmp_lat_index(v + width - 1));
        v += width;
    }
    struct cmp_lat l;
    cmp_lat_init(&l);
    for (int v = 1; v <= 100; v++)
        cmp_lat_add(&l, v, 1);
    cmp_lat_next(&l);
    assert_close(cmp_lat_quantile(&l, 0.99), 99, 0);
    assert_close(cmp_lat_quantile(&l, 0.5), 50, 0);
    cmp_lat_free(&l);
}

static double phi(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

static int by_fraction(const void *x, const void *y, const double *frac)
{
    int i = *(const int *)x, j = *(const int *)y;
    if (frac[i] != frac[j])
        return frac[i] > frac[j] ? -1 : 1;
    return i - j; /* ties go to the lower index */
}

static const double *sort_frac; /* qsort has no context argument */

static int by_fraction_cb(const void *x, const void *y)
{
    return by_fraction(x, y, sort_frac);
}

/* §8 item 6: the golden histogram of one second, lognormal with mean 10 clients / TPS. */
static void golden_second(struct cmp_lat *l, int tps, int dip)
{
    double sigma = dip ? 0.80 : 0.35;
    double mu = log(1e7 / tps) - sigma * sigma / 2;
    int nb = (int)cmp_lat_index(10000000);
    double *frac = calloc((size_t)nb + 1, sizeof *frac);
    long *cnt = calloc((size_t)nb + 1, sizeof *cnt);
    int *order = malloc(((size_t)nb + 1) * sizeof *order);
    long sum = 0;
    for (int i = 1; i <= nb; i++) {
        double lo = (double)cmp_lat_lowest((uint32_t)i), hi = (double)cmp_lat_highest((uint32_t)i);
        double p = phi((log(hi + 1) - mu) / sigma) - phi((log(lo) - mu) / sigma);
        double c = tps * p;
        cnt[i] = (long)floor(c);
        frac[i] = c - floor(c);
        sum += cnt[i];
        order[i - 1] = i;
    }
    sort_frac = frac;
    qsort(order, (size_t)nb, sizeof *order, by_fraction_cb);
    for (long k = 0; k < tps - sum; k++)
        cnt[order[k]]++;
    for (int i = 1; i <= nb; i++)
        cmp_lat_add(l, cmp_lat_lowest((uint32_t)i), (uint64_t)cnt[i]);
    cmp_lat_next(l);
    free(frac);
    free(cnt);
    free(order);
}

static void golden_window(struct cmp_lat *l, const double *tps, int dip_from)
{
    cmp_lat_init(l);
    for (int t = WIN_START; t < WIN_START + WIN_LEN; t++)
        golden_second(l, (int)tps[t], t >= dip_from && t < dip_from + 4);
}

/* One bin either way: libm's erfc may differ in the last digits. */
static void assert_bin(double got, int64_t want)
{
    uint32_t i = cmp_lat_index(want);
    if (got != want && got != cmp_lat_highest(i - 1) && got != cmp_lat_highest(i + 1)) {
        print_error("got %.0f, want %lld\n", got, (long long)want);
        fail();
    }
}

static void test_lat_golden(void **state)
{
    (void)state;
    struct cmp_lat la, lb;
    golden_window(&la, series_a, 44);
    golden_window(&lb, series_b, 31);
    const double qs[4] = {0.5, 0.95, 0.99, 0.999};
    struct cmp_ci ci[4];
    cmp_lat_ci(&la, &lb, 4, qs, 4, 2000, 43, ci);
    assert_bin(ci[0].a, 9407);
    assert_bin(ci[0].b, 8895);
    assert_bin(ci[1].a, 17407);
    assert_bin(ci[1].b, 16383);
    assert_bin(ci[2].a, 24319);
    assert_bin(ci[2].b, 20991);
    assert_bin(ci[3].a, 38655);
    assert_bin(ci[3].b, 35583);
    assert_close(ci[0].lo, 0.9257, 0.0005);
    assert_close(ci[0].hi, 0.9655, 0.0005);
    assert_close(ci[2].lo, 0.6142, 0.0005);
    assert_close(ci[2].hi, 1.3804, 0.0005);
    cmp_lat_free(&la);
    cmp_lat_free(&lb);
}

static const double trials_a[5] = {993.2, 1021.8, 962.5, 1008.9, 979.4};
static const double trials_b[5] = {1048.9, 1002.3, 1071.6, 1023.0, 986.7};

static void log_of(const double *x, size_t n, double *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = log(x[i]);
}

static void test_welch(void **state)
{
    (void)state;
    double la[5], lb[5];
    log_of(trials_a, 5, la);
    log_of(trials_b, 5, lb);
    struct cmp_welch w;
    cmp_welch(la, 5, lb, 5, &w);
    assert_close(exp(w.d), 1.03334, 0.000005);
    assert_close(w.se, 0.01829, 0.000005);
    assert_close(w.df, 7.2034, 0.00005);
    assert_close(exp(w.lo), 0.98960, 0.000005);
    assert_close(exp(w.hi), 1.07901, 0.000005);
    cmp_welch(la, 3, lb, 3, &w);
    assert_close(exp(w.d), 1.0487, 0.00005);
    assert_close(exp(w.lo), 0.96480, 0.000005);
    assert_close(exp(w.hi), 1.13991, 0.000005);
    assert_close(cmp_t975(3.93), 3.1824, 0);
    assert_close(cmp_t975(35), 2.0423, 0);
    assert_close(cmp_t975(45), 2.0211, 0);
    assert_close(cmp_t975(5000), 1.96, 0);
}

static void test_mann_whitney(void **state)
{
    (void)state;
    assert_close(cmp_mwu_p(trials_a, 5, trials_b, 5), 0.1508, 0.00005);
    assert_close(cmp_mwu_p(trials_a, 3, trials_b, 3), 0.2000, 0.00005);
    /* Complete separation gives the smallest p n v n can reach. */
    const double lo[5] = {1, 2, 3, 4, 5}, hi[5] = {11, 12, 13, 14, 15};
    const double min_p[4] = {0.3333, 0.1000, 0.02857, 0.007937};
    for (int n = 2; n <= 5; n++)
        assert_rel(cmp_mwu_p(lo, (size_t)n, hi, (size_t)n), min_p[n - 2], 0.0002);
}

static void test_trials_needed(void **state)
{
    (void)state;
    /* §7: s = 2.89 % on both sides, estimate +3.3 %: about 8 trials per side settle the
     * direction (with equal variances Welch's degrees of freedom at n are the pooled 2n - 2), and
     * about 40 (over the 30 we count to) would size it beyond +-2 %. */
    double v = 0.0289 * 0.0289, d = log(1.0333), margin = log(1.02);
    assert_int_equal(cmp_trials_needed(v, v, 1, d), 8);
    assert_int_equal(cmp_trials_needed(v, v, 1, d - margin), 0);
    assert_int_equal(cmp_trials_needed(1e-4, 1e-4, 1, 0.05), 2);
    assert_int_equal(cmp_trials_needed(1e-4, 1e-4, 1, 0), 0);
    /* Never at or below the trials given, however clear the projection. */
    assert_int_equal(cmp_trials_needed(1e-8, 1e-8, 3, 0.05), 4);
    assert_int_equal(cmp_trials_needed(1e-8, 1e-8, 30, 0.05), 0);
}

/* The advice comes from the verdict's own interval: the case (3 trials a side, p99
 * inconclusive, "about 3 trials per side would settle it") cannot recur, and projecting to the
 * trials given reproduces the Welch interval exactly. */
static void test_trials_needed_matches_interval(void **state)
{
    (void)state;
    /* Logs of p99 over 3 trials per side, sides of unequal spread: Welch's df fall to ~2.1. */
    const double a[3] = {0.000, 0.004, -0.004}, b[3] = {0.080, 0.020, 0.140};
    struct cmp_welch w;
    cmp_welch(a, 3, b, 3, &w);
    double va = 0.004 * 0.004, vb = 0.06 * 0.06;
    double half = (w.hi - w.lo) / 2;
    assert_true(w.lo < 0); /* the verdict's interval includes no change: inconclusive */
    /* Just wider than the interval's half-width: 3 trials would do, were they not given. */
    assert_int_equal(cmp_trials_needed(va, vb, 2, half * 1.0001), 3);
    assert_int_equal(cmp_trials_needed(va, vb, 2, half * 0.9999) > 3, 1);
    int n = cmp_trials_needed(va, vb, 3, w.d);
    assert_true(n > 3);
    /* At the advised n the projected interval excludes no change; one fewer it does not. */
    double df = (double)(n - 1) * (va + vb) * (va + vb) / (va * va + vb * vb);
    assert_true(cmp_t975(df) * sqrt((va + vb) / n) < w.d);
    double df1 = (double)(n - 2) * (va + vb) * (va + vb) / (va * va + vb * vb);
    assert_true(n == 4 || cmp_t975(df1) * sqrt((va + vb) / (n - 1)) >= w.d);
}

static void test_verdict_table(void **state)
{
    (void)state;
    double up = 1.02, lo = 1 / 1.02;
    assert_int_equal(cmp_classify(1.026, 1.088, 1, lo, up), CMP_C_BETTER);
    assert_int_equal(cmp_classify(1 / 0.966, 1 / 0.926, 1, lo, up), CMP_C_BETTER); /* latency */
    assert_int_equal(cmp_classify(0.614, 1.380, 1, lo, up), CMP_C_INCONCLUSIVE);
    assert_int_equal(cmp_classify(0.9896, 1.0790, 1, lo, up), CMP_C_INCONCLUSIVE);
    assert_int_equal(cmp_classify(0.995, 1.012, 1, lo, up), CMP_C_EQUIVALENT);
    assert_int_equal(cmp_classify(1.004, 1.015, 1, lo, up), CMP_C_BETTER_NEGLIGIBLE);
    assert_int_equal(cmp_classify(1.01, 1.05, 1, lo, up), CMP_C_BETTER_SMALL);
    assert_int_equal(cmp_classify(0.90, 0.97, 1, lo, up), CMP_C_WORSE);
    assert_int_equal(cmp_classify(0.97, 0.995, 1, lo, up), CMP_C_WORSE_SMALL);
    assert_int_equal(cmp_classify(0.985, 0.995, 1, lo, up), CMP_C_WORSE_NEGLIGIBLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng),
        cmocka_unit_test(test_pct7),
        cmocka_unit_test(test_mser_worked_example),
        cmocka_unit_test(test_mser_synthetic),
        cmocka_unit_test(test_pw_block_worked_example),
        cmocka_unit_test(test_pw_block_properties),
        cmocka_unit_test(test_cbb_worked_example),
        cmocka_unit_test(test_cbb_invariants),
        cmocka_unit_test(test_lat_bins),
        cmocka_unit_test(test_lat_golden),
        cmocka_unit_test(test_welch),
        cmocka_unit_test(test_mann_whitney),
        cmocka_unit_test(test_trials_needed),
        cmocka_unit_test(test_trials_needed_matches_interval),
        cmocka_unit_test(test_verdict_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
