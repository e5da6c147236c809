/* Warm-up detection, long-run variance and block length, drift (docs/compare-method.md §3.1-3.2).
 */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdlib.h>

#include "base/mem.h"

#define MSER_BATCH  5
#define MSER_MIN_NB 10
#define PW_K        5 /* consecutive insignificant autocorrelations that end the search */

/* Sum of squared deviations of z[d..nb) from their mean, in two passes: a one-pass form
 * (sum of squares minus square of sum) leaves rounding noise where a suffix is constant, and
 * that noise would then decide the argmin among cuts that are truly tied at zero. */
static double mser_stat(const double *z, size_t nb, size_t d)
{
    size_t k = nb - d;
    double s = 0;
    for (size_t j = d; j < nb; j++)
        s += z[j];
    double zbar = s / (double)k;
    double ss = 0;
    for (size_t j = d; j < nb; j++)
        ss += (z[j] - zbar) * (z[j] - zbar);
    return ss / ((double)k * (double)k);
}

void cmp_mser5(const double *x, size_t n, struct cmp_mser *out, double *stat, size_t *n_stat)
{
    size_t nb = n / MSER_BATCH;
    out->warmup = 0;
    out->d_global = 0;
    out->flags = 0;
    if (n_stat)
        *n_stat = 0;
    if (nb < MSER_MIN_NB) {
        out->flags = CMP_MSER_TOO_SHORT;
        return;
    }
    double *z = xmalloc(nb * sizeof *z);
    for (size_t j = 0; j < nb; j++) {
        double s = 0;
        for (size_t i = 0; i < MSER_BATCH; i++)
            s += x[j * MSER_BATCH + i];
        z[j] = s / MSER_BATCH;
    }
    /* The last batches are left out of the search: a cut there always looks steady. */
    size_t e = nb / 4 < MSER_BATCH ? nb / 4 : MSER_BATCH;
    e = e < 1 ? 1 : e;
    size_t last = nb - e - 1, restr = nb / 2 < last ? nb / 2 : last;
    size_t d_global = 0, d_restr = 0;
    double best_global = INFINITY, best_restr = INFINITY;
    for (size_t d = 0; d <= last; d++) {
        double s = mser_stat(z, nb, d);
        if (stat)
            stat[d] = s;
        if (s < best_global) {
            best_global = s;
            d_global = d;
        }
        if (d <= restr && s < best_restr) {
            best_restr = s;
            d_restr = d;
        }
    }
    if (n_stat)
        *n_stat = last + 1;
    out->warmup = d_restr * MSER_BATCH;
    out->d_global = d_global * MSER_BATCH;
    if (out->d_global > n / 2)
        out->flags |= CMP_MSER_UNCERTAIN;
    free(z);
}

/* Biased autocovariance at lag k (1/n, as the block-length rule expects); 0 past the data. */
static double acov(const double *x, size_t n, double mean, size_t k)
{
    double s = 0;
    for (size_t t = k; t < n; t++)
        s += (x[t] - mean) * (x[t - k] - mean);
    return s / (double)n;
}

/* The flat-top lag window. */
static double flat_top(double s)
{
    s = fabs(s);
    if (s < 0.5)
        return 1;
    return s <= 1 ? 2 * (1 - s) : 0;
}

/* The first lag m starting a run of PW_K insignificant autocorrelations (Patton's rule). */
static size_t first_quiet_lag(const double *rho, size_t mmax, double c)
{
    for (size_t m = 1; m + PW_K - 1 <= mmax; m++) {
        size_t k = 0;
        while (k < PW_K && fabs(rho[m + k]) < c)
            k++;
        if (k == PW_K)
            return m;
    }
    for (size_t k = mmax; k >= 1; k--)
        if (fabs(rho[k]) >= c)
            return k;
    return 1;
}

void cmp_pw_block(const double *x, size_t n, struct cmp_lrv *out)
{
    *out = (struct cmp_lrv){.b = 1, .n_eff = (double)n, .mhat = 1, .m = 1};
    if (n < 2)
        return;
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    out->acov0 = acov(x, n, mean, 0);
    if (!(out->acov0 > 0))
        return; /* a constant series: no noise, any block length is exact */
    double dn = (double)n;
    size_t mmax = (size_t)ceil(sqrt(dn)) + PW_K;
    size_t bmax = (size_t)ceil(fmin(3 * sqrt(dn), dn / 3));
    double c = 2 * sqrt(log10(dn) / dn);
    double *g = xmalloc((mmax + 1) * sizeof *g), *rho = xmalloc((mmax + 1) * sizeof *rho);
    for (size_t k = 0; k <= mmax; k++) {
        g[k] = acov(x, n, mean, k);
        rho[k] = g[k] / out->acov0;
    }
    out->rho1 = rho[1];
    out->mhat = first_quiet_lag(rho, mmax, c);
    out->m = 2 * out->mhat < mmax ? 2 * out->mhat : mmax;
    double s2lr = g[0], gsum = 0;
    for (size_t k = 1; k <= out->m; k++) {
        double w = flat_top((double)k / (double)out->m);
        s2lr += 2 * w * g[k];
        gsum += 2 * w * (double)k * g[k];
    }
    out->g = gsum;
    if (s2lr <= 0) {
        out->s2lr = out->acov0;
        out->fallback = 1;
    } else {
        out->s2lr = s2lr;
        out->b_cb = cbrt(2 * gsum * gsum / (4.0 / 3.0 * s2lr * s2lr)) * cbrt(dn);
        double b = ceil(out->b_cb);
        b = b < 1 ? 1 : b > (double)bmax ? (double)bmax : b;
        out->b = (size_t)b;
    }
    out->n_eff = dn * out->acov0 / out->s2lr;
    free(g);
    free(rho);
}

void cmp_drift_check(const double *x, size_t n, double s2lr, double margin, struct cmp_drift *out)
{
    *out = (struct cmp_drift){0};
    size_t n1 = n / 2, n2 = n - n1;
    if (n1 == 0)
        return;
    for (size_t i = 0; i < n1; i++)
        out->m1 += x[i];
    for (size_t i = n1; i < n; i++)
        out->m2 += x[i];
    out->m1 /= (double)n1;
    out->m2 /= (double)n2;
    double diff = out->m2 - out->m1;
    if (s2lr > 0)
        out->z = diff / sqrt(s2lr / (double)n1 + s2lr / (double)n2);
    else
        out->z = diff > 0 ? INFINITY : diff < 0 ? -INFINITY : 0;
    out->flagged = fabs(out->z) > 3 && out->m1 > 0 && fabs(out->m2 / out->m1 - 1) > margin;
}
