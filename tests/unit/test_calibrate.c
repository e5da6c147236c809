/* pgarena calibrate's arithmetic: the pooled A/A spread, the t quantile at 0.80, and the
 * smallest detectable change, checked by hand and by simulation (an effect of exactly the
 * detectable size is called by compare's Welch interval at least 80 % of the time). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "compare/calibrate.h"
#include "compare/cmp_int.h"
#include "sim_noise.h"

static void test_t80(void **state)
{
    (void)state;
    /* Student's t 0.80 quantiles from the table: 5, 10, 30 degrees of freedom, and the normal. */
    assert_true(fabs(calib_t80(5) - 0.9195) / 0.9195 < 0.01);
    assert_true(fabs(calib_t80(10) - 0.8791) / 0.8791 < 0.01);
    assert_true(fabs(calib_t80(30) - 0.8538) / 0.8538 < 0.01);
    assert_true(fabs(calib_t80(INFINITY) - 0.8416) < 1e-4);
    assert_true(isnan(calib_t80(0)));
}

static void test_pooled_sd(void **state)
{
    (void)state;
    /* Two groups whose logs are {0, 1, 2} and {5, 6, 7}: within-group sum of squares 4 on
     * 4 df, sd 1, whatever the gap between the groups. */
    double x[6] = {1, exp(1), exp(2), exp(5), exp(6), exp(7)};
    int g[6] = {0, 0, 0, 1, 1, 1}, df_ok[6] = {0, 0, 1, 1, 1, 1};
    double df;
    assert_true(fabs(calib_pooled_log_sd(x, g, 6, 2, &df) - 1) < 1e-12);
    assert_true(df == 4);
    /* One value a group: no degrees of freedom at all. */
    int single[2] = {0, 1};
    assert_true(isnan(calib_pooled_log_sd(x, single, 2, 2, &df)));
    /* {0, 1} and {2, 5, 6, 7}: groups of different sizes, 0.5 + 14 on 4 df. */
    assert_true(fabs(calib_pooled_log_sd(x, df_ok, 6, 2, &df) - sqrt(14.5 / 4)) < 1e-12);
}

static void test_detectable_by_hand(void **state)
{
    (void)state;
    /* s = 5 %, K = 5: se = 0.05 sqrt(2/5), df 4: (2.7764 + t80(4)) se. */
    double se = 0.05 * sqrt(0.4), want = expm1((2.7764 + calib_t80(4)) * se);
    assert_true(fabs(calib_seq_detectable(0.05, 5, 0) - want) < 1e-12);
    /* The margin adds on the log scale. */
    assert_true(fabs(calib_seq_detectable(0.05, 5, 0.02) - expm1(log1p(0.02) + log1p(want))) <
                1e-12);
    /* More trials detect smaller changes, never below the margin. */
    double prev = INFINITY;
    for (int k = 2; k <= 30; k++) {
        double d = calib_seq_detectable(0.03, k, 0.02);
        assert_true(d < prev && d > 0.02);
        prev = d;
    }
    /* The trials for 5 %: the first K whose detectable change is at most 5 %. */
    int k = calib_seq_trials_for(0.03, 0.05, 0.02, 100);
    assert_true(k > 2);
    assert_true(calib_seq_detectable(0.03, k, 0.02) <= 0.05);
    assert_true(calib_seq_detectable(0.03, k - 1, 0.02) > 0.05);
    /* Too noisy: none up to the cap. */
    assert_int_equal(calib_seq_trials_for(0.5, 0.05, 0.02, 30), 0);
    /* A duet: sigma / sqrt(T), a quarter of the change for 16 times the seconds. */
    double d100 = log1p(calib_duet_detectable(0.1, 100, INFINITY, 0));
    double d1600 = log1p(calib_duet_detectable(0.1, 1600, INFINITY, 0));
    assert_true(fabs(d100 - 0.01 * (1.96 + 0.8416212335729143)) < 1e-9);
    assert_true(fabs(d100 / d1600 - 4) < 1e-9);
}

/* K trials a side of log throughput with noise s, B shifted by delta: compare's Welch interval
 * clears the margin in at least 80 % of the experiments when delta is the detectable change. */
static void test_detectable_is_detected(void **state)
{
    (void)state;
    struct rng g;
    rng_seed(&g, 20261202);
    const double s = 0.04, margin = 0.02;
    const int ks[3] = {3, 5, 10}, n_exp = 4000;
    for (int ki = 0; ki < 3; ki++) {
        int k = ks[ki], called = 0;
        double delta = log1p(calib_seq_detectable(s, k, margin));
        for (int x = 0; x < n_exp; x++) {
            double a[10], b[10];
            for (int i = 0; i < k; i++) {
                a[i] = s * gauss(&g);
                b[i] = delta + s * gauss(&g);
            }
            struct cmp_welch w;
            cmp_welch(a, (size_t)k, b, (size_t)k, &w);
            called += w.lo > log1p(margin);
        }
        double power = (double)called / n_exp;
        print_message("K=%d: detectable %.1f %%, called in %.1f %%\n", k, 100 * expm1(delta),
                      100 * power);
        /* At least the promised 80 % (the df is taken as K - 1, the least Welch's can be with K
         * a side: its realised df varies with the two spreads), and not far above. */
        assert_true(power >= 0.80 && power < 0.92);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t80),
        cmocka_unit_test(test_pooled_sd),
        cmocka_unit_test(test_detectable_by_hand),
        cmocka_unit_test(test_detectable_is_detected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
