/* The between-trial variance of a matrix, pooled over the cells of one side, and Bartlett's
 * test of its homogeneity (docs/compare-method.md §3.6). */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdlib.h>

#include "base/mem.h"

/* Regularized lower incomplete gamma P(a, x) by its series, for x < a + 1. */
static double gamma_p_series(double a, double x)
{
    double term = 1 / a, sum = term;
    for (int k = 1; k < 500 && fabs(term) > 1e-15 * fabs(sum); k++) {
        term *= x / (a + k);
        sum += term;
    }
    return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Regularized upper incomplete gamma Q(a, x) by its continued fraction (modified Lentz), for
 * x >= a + 1. */
static double gamma_q_fraction(double a, double x)
{
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i < 500; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        d = fabs(d) < tiny ? tiny : d;
        c = b + an / c;
        c = fabs(c) < tiny ? tiny : c;
        d = 1 / d;
        double step = d * c;
        h *= step;
        if (fabs(step - 1) < 1e-15)
            break;
    }
    return exp(-x + a * log(x) - lgamma(a)) * h;
}

double cmp_chi2_sf(double x, double k)
{
    if (!(x > 0))
        return 1;
    double a = k / 2, h = x / 2;
    return h < a + 1 ? 1 - gamma_p_series(a, h) : gamma_q_fraction(a, h);
}

/* Mean and variance (n - 1) of x[0..n), n >= 2; the variance at least floor_var. Figures read
 * from histogram bins or counted over a second can repeat exactly: the floor (their
 * resolution) keeps the log of a zero variance out of the test. */
static double cell_var(const double *x, size_t n, double floor_var)
{
    double m = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - m) * (x[i] - m);
    double var = ss / (double)(n - 1);
    return var > floor_var ? var : floor_var;
}

/* Pool the cells with two or more values that are not excluded; Bartlett's p when two or
 * more. */
static void pool_once(const double *var, const size_t *n, size_t nc, const int *excluded,
                      struct cmp_pooled *out)
{
    double ss_all = 0, nu_all = 0, sum_log = 0, sum_inv = 0;
    out->n_cells = 0;
    out->p = NAN;
    for (size_t c = 0; c < nc; c++) {
        if (n[c] < 2 || excluded[c])
            continue;
        double nu = (double)n[c] - 1;
        ss_all += nu * var[c];
        nu_all += nu;
        sum_log += nu * log(var[c]);
        sum_inv += 1 / nu;
        out->n_cells++;
    }
    out->df = nu_all;
    out->var = nu_all > 0 ? ss_all / nu_all : 0;
    if (out->n_cells < 2)
        return;
    /* Bartlett's statistic with its small-sample correction, chi-squared on k - 1 df. */
    double k = (double)out->n_cells;
    double corr = 1 + (sum_inv - 1 / nu_all) / (3 * (k - 1));
    double t = (nu_all * log(out->var) - sum_log) / corr;
    out->p = cmp_chi2_sf(t, k - 1);
}

void cmp_pool(const double *y, const size_t *n, size_t nc, double floor_var, int *excluded,
              struct cmp_pooled *out)
{
    *out = (struct cmp_pooled){.p = NAN, .homogeneous = -1};
    double *var = xcalloc(nc + 1, sizeof *var);
    size_t at = 0, tested = 0;
    for (size_t c = 0; c < nc; at += n[c], c++) {
        excluded[c] = 0;
        if (n[c] >= 2) {
            var[c] = cell_var(y + at, n[c], floor_var);
            tested++;
        }
    }
    pool_once(var, n, nc, excluded, out);
    if (tested < 2) {
        /* Nothing to test: a cell with two values keeps its own variance (the pool is that
         * cell), which cells of one trial may still borrow. */
        for (size_t c = 0; c < nc; c++)
            excluded[c] = n[c] >= 2;
        free(var);
        return;
    }
    /* While the test refuses, the cell farthest on the log scale from the median of the
     * pooled cells' variances keeps its own variance, and the rest are tested again. The
     * median, not the pool: one wild cell inflates the pool until its steady neighbours look
     * like the outliers. */
    int dropped = 0;
    double *logs = xcalloc(nc + 1, sizeof *logs);
    while (out->n_cells >= 2 && out->p < CMP_HOMOGENEITY_ALPHA) {
        size_t k = 0, worst = nc;
        for (size_t c = 0; c < nc; c++)
            if (n[c] >= 2 && !excluded[c])
                logs[k++] = log(var[c]);
        cmp_sort(logs, k);
        double med = k % 2 ? logs[k / 2] : (logs[k / 2 - 1] + logs[k / 2]) / 2, far = -1;
        for (size_t c = 0; c < nc; c++)
            if (n[c] >= 2 && !excluded[c] && fabs(log(var[c]) - med) > far) {
                far = fabs(log(var[c]) - med);
                worst = c;
            }
        excluded[worst] = 1;
        dropped = 1;
        pool_once(var, n, nc, excluded, out);
    }
    free(logs);
    if (out->n_cells < 2) { /* nothing left that shares its noise: no pool */
        for (size_t c = 0; c < nc; c++)
            excluded[c] = n[c] >= 2;
        out->var = out->df = 0;
        out->n_cells = 0;
    }
    out->homogeneous = !dropped;
    free(var);
}

int cmp_pool_cell(const struct cmp_pooled *pool, int excluded, const double *y, size_t n,
                  double floor_var, struct cmp_pooled *out)
{
    if (pool->df > 0 && !excluded) {
        *out = *pool;
        return 1;
    }
    *out = (struct cmp_pooled){.p = NAN, .homogeneous = pool->homogeneous};
    if (n < 2)
        return -1;
    out->var = cell_var(y, n, floor_var);
    out->df = (double)n - 1;
    out->n_cells = 1;
    return 0;
}

/* Welch-Satterthwaite degrees of freedom of qa + qb with dfa and dfb. */
static double welch_df(double qa, double dfa, double qb, double dfb)
{
    double den = qa * qa / dfa + qb * qb / dfb;
    return den > 0 ? (qa + qb) * (qa + qb) / den : dfa + dfb;
}

void cmp_pooled_welch(double d, size_t na, const struct cmp_pooled *pa, size_t nb,
                      const struct cmp_pooled *pb, struct cmp_welch *out)
{
    double qa = pa->var / (double)na, qb = pb->var / (double)nb;
    out->d = d;
    out->se = sqrt(qa + qb);
    out->df = welch_df(qa, pa->df, qb, pb->df);
    double t = cmp_t975(out->df);
    out->lo = d - t * out->se;
    out->hi = d + t * out->se;
}

int cmp_trials_needed_pooled(const struct cmp_pooled *pa, size_t na, const struct cmp_pooled *pb,
                             size_t nb, double gap)
{
    if (!(gap > 0) || !(pa->df > 0) || !(pb->df > 0))
        return 0;
    size_t given = na > nb ? na : nb;
    for (size_t n = given + 1; n <= CMP_MAX_TRIALS; n++) {
        /* n trials a side in this cell: each side's pool gains the cell's added trials. */
        double dfa = pa->df + (double)(n - na), dfb = pb->df + (double)(n - nb);
        double qa = pa->var / (double)n, qb = pb->var / (double)n;
        if (cmp_t975(welch_df(qa, dfa, qb, dfb)) * sqrt(qa + qb) < gap)
            return (int)n;
    }
    return 0;
}
