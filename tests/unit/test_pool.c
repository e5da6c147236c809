/* Pooled matrix verdicts (docs/compare-method.md §3.6): the chi-squared tail, Bartlett's test,
 * the pooled interval, and a seeded simulation of thousands of matrices drawn from the model
 * (a mean per cell and side, one noise level per side) and from heavier-tailed noise: the
 * intervals cover the true change, and A/A matrices give few false verdicts. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/rng.h"
#include "compare/cmp_int.h"
#include "sim_noise.h"

#define N_MATRICES 4000
#define N_CELLS    4 /* e.g. four client counts */
#define N_TRIALS   2 /* per cell and side: what users run */

static void test_chi2_tail(void **state)
{
    (void)state;
    /* The 95th percentiles of the chi-squared distribution on 1, 2, 5 and 30 df. */
    assert_true(fabs(cmp_chi2_sf(3.841459, 1) - 0.05) < 1e-6);
    assert_true(fabs(cmp_chi2_sf(5.991465, 2) - 0.05) < 1e-6);
    assert_true(fabs(cmp_chi2_sf(11.070498, 5) - 0.05) < 1e-6);
    assert_true(fabs(cmp_chi2_sf(43.772972, 30) - 0.05) < 1e-6);
    assert_true(fabs(cmp_chi2_sf(0.5, 3) - 0.918891) < 1e-5);
    assert_true(cmp_chi2_sf(0, 4) == 1);
}

static void test_pool_by_hand(void **state)
{
    (void)state;
    /* Three cells of two values: variances 0.02, 0.08 and 0.02 (1 df each). */
    const double y[] = {1.0, 1.2, 2.0, 2.4, 3.0, 3.2};
    const size_t n[] = {2, 2, 2};
    struct cmp_pooled p;
    int ex[5];
    cmp_pool(y, n, 3, 1e-12, ex, &p);
    assert_int_equal(p.n_cells, 3);
    assert_true(fabs(p.df - 3) < 1e-12);
    assert_true(fabs(p.var - 0.04) < 1e-12);
    /* Bartlett: (3 ln 0.04 - (2 ln 0.02 + ln 0.08)) / (1 + (3 - 1/3) / 6) on 2 df. */
    double t = (3 * log(0.04) - (2 * log(0.02) + log(0.08))) / (1 + (3 - 1.0 / 3) / 6);
    assert_true(fabs(p.p - cmp_chi2_sf(t, 2)) < 1e-12);
    assert_int_equal(p.homogeneous, 1);
    assert_true(!ex[0] && !ex[1] && !ex[2]);
    /* A cell far noisier than the others is refused: it keeps its own variance, the others
     * pool. */
    const double z[] = {1.0, 1.001, 2.0, 2.0012, 3.0, 3.0009, 4.0, 4.0011, 5.0, 6.5};
    const size_t m[] = {2, 2, 2, 2, 2};
    cmp_pool(z, m, 5, 1e-12, ex, &p);
    assert_int_equal(p.homogeneous, 0);
    assert_true(!ex[0] && !ex[1] && !ex[2] && !ex[3] && ex[4]);
    assert_int_equal(p.n_cells, 4);
    assert_true(p.p >= CMP_HOMOGENEITY_ALPHA && p.var < 1e-5);
    struct cmp_pooled v;
    assert_int_equal(cmp_pool_cell(&p, ex[4], z + 8, 2, 1e-12, &v), 0);
    assert_true(fabs(v.var - 1.5 * 1.5 / 2) < 1e-12 && v.df == 1);
    assert_int_equal(cmp_pool_cell(&p, ex[0], z, 2, 1e-12, &v), 1);
    assert_true(v.var == p.var && v.df == 4);
    /* One cell with two values: nothing to test, but a variance to use. */
    const size_t one[] = {2, 1};
    cmp_pool(y, one, 2, 1e-12, ex, &p);
    assert_int_equal(p.homogeneous, -1);
    assert_true(ex[0] && !ex[1]); /* the cell keeps its own; the one-trial cell borrows it */
    assert_true(fabs(p.var - 0.02) < 1e-12);
    /* Repeated values (histogram bins) take the floor, not a log of zero. */
    const double same[] = {1.0, 1.0, 2.0, 2.0};
    const size_t two[] = {2, 2};
    cmp_pool(same, two, 2, 1e-6, ex, &p);
    assert_true(fabs(p.var - 1e-6) < 1e-15);
    assert_int_equal(p.homogeneous, 1);
}

struct sim {
    size_t cells, covered, false_verdicts, pooled, refused;
};

/* One matrix: side A with noise sa, side B with noise sb, true changes d[c] on the log scale;
 * each cell's interval pooled when both sides pass the test, else the cell's own Welch. */
static double noisy_cell = 1; /* the first cell's noise, times the side's */

static void one_matrix(struct rng *g, double sa, double sb, const double *d, int tails,
                       struct sim *s)
{
    double ya[N_CELLS * N_TRIALS], yb[N_CELLS * N_TRIALS];
    size_t n[N_CELLS];
    for (int c = 0; c < N_CELLS; c++) {
        double mu = 8 + 2 * rng_double(g); /* each cell its own level */
        n[c] = N_TRIALS;
        for (int i = 0; i < N_TRIALS; i++) {
            double k = c == 0 ? noisy_cell : 1;
            ya[c * N_TRIALS + i] = mu + k * sa * (tails ? heavy(g) : gauss(g));
            yb[c * N_TRIALS + i] = mu + d[c] + k * sb * (tails ? heavy(g) : gauss(g));
        }
    }
    struct cmp_pooled pa, pb;
    int exa[N_CELLS], exb[N_CELLS];
    cmp_pool(ya, n, N_CELLS, 1e-10, exa, &pa);
    cmp_pool(yb, n, N_CELLS, 1e-10, exb, &pb);
    int pooled = pa.homogeneous == 1 && pb.homogeneous == 1;
    s->pooled += pooled;
    s->refused += !pooled;
    for (int c = 0; c < N_CELLS; c++) {
        /* As the sweep does: each side its pool, or the cell's own variance where refused. */
        const double *a = ya + c * N_TRIALS, *b = yb + c * N_TRIALS;
        struct cmp_welch w;
        struct cmp_pooled va, vb;
        int from_a = cmp_pool_cell(&pa, exa[c], a, N_TRIALS, 1e-10, &va);
        int from_b = cmp_pool_cell(&pb, exb[c], b, N_TRIALS, 1e-10, &vb);
        if (from_a == 1 || from_b == 1) {
            double ma = (a[0] + a[1]) / 2, mb = (b[0] + b[1]) / 2;
            cmp_pooled_welch(mb - ma, N_TRIALS, &va, N_TRIALS, &vb, &w);
        } else {
            cmp_welch(a, N_TRIALS, b, N_TRIALS, &w);
        }
        s->cells++;
        s->covered += w.lo <= d[c] && d[c] <= w.hi;
        /* A verdict is better or worse when the interval lies beyond the 2 % margin. */
        s->false_verdicts += d[c] == 0 && (w.lo > log(1.02) || w.hi < -log(1.02));
    }
}

static void simulate(int tails, int aa, struct sim *s)
{
    struct rng g;
    rng_seed(&g, aa ? 4242 : 4343);
    memset(s, 0, sizeof *s);
    for (int k = 0; k < N_MATRICES; k++) {
        double d[N_CELLS];
        for (int c = 0; c < N_CELLS; c++)
            d[c] = aa ? 0 : 0.3 * (rng_double(&g) - 0.5);
        /* Setups differ in noise (B steadier), A/A shares it. */
        double sa = 0.02 + 0.08 * rng_double(&g), sb = aa ? sa : sa * 0.5;
        one_matrix(&g, sa, sb, d, tails, s);
    }
}

static void report(const char *what, const struct sim *s)
{
    printf("%s: %zu cells, %.2f%% covered, %.2f%% false verdicts, %.1f%% of matrices pooled\n",
           what, s->cells, 100.0 * (double)s->covered / (double)s->cells,
           100.0 * (double)s->false_verdicts / (double)s->cells,
           100.0 * (double)s->pooled / (double)(s->pooled + s->refused));
}

static void test_coverage_model(void **state)
{
    (void)state;
    struct sim s;
    simulate(0, 0, &s);
    report("model A/B", &s);
    assert_true((double)s.covered >= 0.94 * (double)s.cells);
    /* Pooling holds in most matrices drawn from the model. */
    assert_true((double)s.pooled >= 0.9 * (double)N_MATRICES);
}

static void test_coverage_heavy_tails(void **state)
{
    (void)state;
    struct sim s;
    simulate(1, 0, &s);
    report("heavy-tailed A/B", &s);
    assert_true((double)s.covered >= 0.94 * (double)s.cells);
}

static void test_aa_false_verdicts(void **state)
{
    (void)state;
    for (int tails = 0; tails < 2; tails++) {
        struct sim s;
        simulate(tails, 1, &s);
        report(tails ? "heavy-tailed A/A" : "model A/A", &s);
        assert_true((double)s.false_verdicts <= 0.06 * (double)s.cells);
        assert_true((double)s.covered >= 0.94 * (double)s.cells);
    }
}

/* Noise that is not homogeneous, the model's limit: one cell of four five times noisier on both
 * sides. With two trials a cell (one df each) Bartlett's test has little power: it refuses
 * about 7 % of these matrices (69 % would still pool at alpha 0.05, 28 % at 0.2, and the
 * coverage stays at 92.4 % whatever alpha), so the noisy cell is under-covered. This pins the
 * figure that docs/compare-method.md §3.6 states; more trials per cell are the remedy. */
static void test_coverage_one_noisy_cell(void **state)
{
    (void)state;
    struct sim s;
    noisy_cell = 5;
    simulate(0, 0, &s);
    noisy_cell = 1;
    report("one noisy cell A/B", &s);
    assert_true((double)s.covered >= 0.91 * (double)s.cells);
    assert_true((double)s.refused >= 0.03 * (double)N_MATRICES);
}

/* Pooling narrows: with 2 trials a cell and side, the cell's own Welch interval has 1 to 2 df
 * (t of 12.7 to 4.30), the pooled one over 6 cells a side 12 (t 2.18). */
static void test_pooled_narrower(void **state)
{
    (void)state;
    struct cmp_pooled p = {.var = 0.0025, .df = 6, .n_cells = 6, .homogeneous = 1};
    struct cmp_welch w;
    cmp_pooled_welch(0.5, 2, &p, 2, &p, &w);
    assert_true(fabs(w.df - 12) < 1e-9);
    double a[2] = {1.0, 1.0 + sqrt(0.005)}, b[2] = {1.5, 1.5 + sqrt(0.005)};
    struct cmp_welch c;
    cmp_welch(a, 2, b, 2, &c); /* the same variance, 0.0025, from the cell alone */
    assert_true(fabs(c.df - 2) < 1e-9);
    assert_true((c.hi - c.lo) > 1.9 * (w.hi - w.lo));
    /* More trials: never at or below what was run. */
    int more = cmp_trials_needed_pooled(&p, 2, &p, 2, 0.01);
    assert_true(more == 0 || more > 2);
    assert_true(cmp_trials_needed_pooled(&p, 2, &p, 2, 0.06) > 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chi2_tail),         cmocka_unit_test(test_pool_by_hand),
        cmocka_unit_test(test_coverage_model),    cmocka_unit_test(test_coverage_heavy_tails),
        cmocka_unit_test(test_aa_false_verdicts), cmocka_unit_test(test_coverage_one_noisy_cell),
        cmocka_unit_test(test_pooled_narrower),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
