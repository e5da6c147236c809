/* A sweep's per-script figures, pooled over the scripts of a side (docs/compare-method.md
 * §3.7): the scripts of one cell ran in the same trials, so a slow trial slows all of them,
 * and the pool's degrees of freedom count that shared part once. */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdlib.h>

#include "base/mem.h"

/* The sums of squares of one run's units u[0..k) (each n values, trial i at y[at[u] + i]):
 * trial and residual (k >= 2), added with their df to ss, dfs. */
static size_t run_sums(const double *y, const size_t *at, const size_t *u, size_t k, size_t n,
                       double *ss, double *dfs)
{
    double grand = 0;
    double *unit_mean = xcalloc(k, sizeof *unit_mean), *trial_mean = xcalloc(n, sizeof *trial_mean);
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < n; i++) {
            double v = y[at[u[j]] + i];
            unit_mean[j] += v / (double)n;
            trial_mean[i] += v / (double)k;
            grand += v / (double)(n * k);
        }
    double trial = 0, resid = 0;
    for (size_t i = 0; i < n; i++)
        trial += (double)k * (trial_mean[i] - grand) * (trial_mean[i] - grand);
    for (size_t j = 0; j < k; j++)
        for (size_t i = 0; i < n; i++) {
            double r = y[at[u[j]] + i] - unit_mean[j] - trial_mean[i] + grand;
            resid += r * r;
        }
    free(unit_mean);
    free(trial_mean);
    ss[0] = trial;
    dfs[0] = (double)(n - 1);
    if (k < 2)
        return 1; /* one unit: its sum of squares is all "trial" */
    ss[1] = resid;
    dfs[1] = (double)((k - 1) * (n - 1));
    return 2;
}

double cmp_shared_trials_df(const double *y, const size_t *n, const size_t *run, size_t nc,
                            const int *excluded)
{
    size_t *at = xcalloc(nc + 1, sizeof *at), *u = xcalloc(nc + 1, sizeof *u);
    int *done = xcalloc(nc + 1, sizeof *done);
    double *ss = xcalloc(2 * nc + 2, sizeof *ss), *dfs = xcalloc(2 * nc + 2, sizeof *dfs);
    for (size_t c = 1; c < nc; c++)
        at[c] = at[c - 1] + n[c - 1];
    size_t n_terms = 0;
    double one_way = 0;
    for (size_t c = 0; c < nc; c++) {
        if (done[c] || excluded[c] || n[c] < 2)
            continue;
        /* The units of c's run with as many trials (the same trials). */
        size_t k = 0;
        for (size_t d = c; d < nc; d++)
            if (!done[d] && !excluded[d] && run[d] == run[c] && n[d] == n[c]) {
                u[k++] = d;
                done[d] = 1;
            }
        n_terms += run_sums(y, at, u, k, n[c], ss + n_terms, dfs + n_terms);
        one_way += (double)(k * (n[c] - 1));
    }
    double sum = 0, den = 0;
    for (size_t t = 0; t < n_terms; t++) {
        sum += ss[t];
        den += ss[t] * ss[t] / dfs[t];
    }
    free(at);
    free(u);
    free(done);
    free(ss);
    free(dfs);
    return den > 0 ? sum * sum / den : one_way;
}

void cmp_pool_parts(const double *y, const size_t *n, const size_t *run, size_t nc,
                    double floor_var, int *excluded, struct cmp_pooled *out)
{
    cmp_pool(y, n, nc, floor_var, excluded, out);
    if (out->n_cells >= 2 && out->df > 0)
        out->df = cmp_shared_trials_df(y, n, run, nc, excluded);
}
