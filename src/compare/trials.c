/* Trials as the unit: Welch's t, Mann-Whitney, how many trials (docs/compare-method.md §3.5, §6).
 */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* t(0.975, df) for df = 1..30, then the coarser rows of the method's table. */
static const double t975_small[30] = {
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010,  2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796,  2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423};

double cmp_t975(double df)
{
    /* The row at or below df errs on the wide side; below 1 (never from Welch with two
     * values a side) the widest row stands in. */
    if (!(df >= 1))
        return t975_small[0];
    if (df < 31)
        return t975_small[(int)floor(df) - 1];
    if (df < 40)
        return t975_small[29];
    if (df < 60)
        return 2.0211;
    if (df < 120)
        return 2.0003;
    if (df < 1000)
        return 1.9799;
    return 1.96;
}

static void mean_var(const double *x, size_t n, double *mean, double *var)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = s / (double)n;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *var = n > 1 ? ss / (double)(n - 1) : NAN;
}

void cmp_welch(const double *a, size_t na, const double *b, size_t nb, struct cmp_welch *out)
{
    double ma, va, mb, vb;
    mean_var(a, na, &ma, &va);
    mean_var(b, nb, &mb, &vb);
    out->d = mb - ma;
    double df;
    if (na < 2) {
        va = vb;
        df = (double)nb - 1;
    } else if (nb < 2) {
        vb = va;
        df = (double)na - 1;
    } else {
        double qa = va / (double)na, qb = vb / (double)nb;
        df = (qa + qb) * (qa + qb) / (qa * qa / (double)(na - 1) + qb * qb / (double)(nb - 1));
        if (isnan(df)) /* both variances zero */
            df = (double)(na + nb - 2);
    }
    out->se = sqrt(va / (double)na + vb / (double)nb);
    out->df = df;
    double t = cmp_t975(df);
    out->lo = out->d - t * out->se;
    out->hi = out->d + t * out->se;
}

/* Number of arrangements of m and n values by U (pairs of an a above a b), for u = 0..m n:
 * f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u), depending on whether the largest value
 * is an a (above all n b's) or a b. Rolled over m; all additions of counts, so the small
 * tail probabilities stay exact enough. Caller frees. */
static double *u_distribution(size_t m, size_t n)
{
    size_t width = m * n + 1;
    double *prev = xcalloc((n + 1) * width, sizeof *prev);
    double *cur = xcalloc((n + 1) * width, sizeof *cur);
    for (size_t j = 0; j <= n; j++)
        prev[j * width] = 1; /* m = 0: only u = 0 */
    for (size_t i = 1; i <= m; i++) {
        memset(cur, 0, (n + 1) * width * sizeof *cur);
        cur[0] = 1; /* n = 0 */
        for (size_t j = 1; j <= n; j++)
            for (size_t u = 0; u <= i * j; u++)
                cur[j * width + u] =
                    (u >= j ? prev[j * width + u - j] : 0) + cur[(j - 1) * width + u];
        double *t = prev;
        prev = cur;
        cur = t;
    }
    double *dist = xmalloc(width * sizeof *dist);
    memcpy(dist, prev + n * width, width * sizeof *dist);
    free(prev);
    free(cur);
    return dist;
}

/* Tie correction sum of (t^3 - t) over groups of equal values. */
static double tie_term(const double *a, size_t na, const double *b, size_t nb)
{
    size_t n = na + nb;
    double *all = xmalloc(n * sizeof *all);
    memcpy(all, a, na * sizeof *all);
    memcpy(all + na, b, nb * sizeof *all);
    cmp_sort(all, n);
    double sum = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && all[j] == all[i])
            j++;
        double t = (double)(j - i);
        sum += t * t * t - t;
        i = j;
    }
    free(all);
    return sum;
}

double cmp_mwu_p(const double *a, size_t na, const double *b, size_t nb)
{
    double u = 0;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++)
            u += a[i] > b[j] ? 1 : a[i] == b[j] ? 0.5 : 0;
    double mn = (double)na * (double)nb;
    if (mn <= 2500) {
        double *dist = u_distribution(na, nb);
        double total = 0, below = 0, above = 0;
        for (size_t k = 0; k <= na * nb; k++) {
            total += dist[k];
            below += (double)k <= u ? dist[k] : 0;
            above += (double)k >= u ? dist[k] : 0;
        }
        free(dist);
        double p = 2 * fmin(below, above) / total;
        return p < 1 ? p : 1;
    }
    double n = (double)(na + nb);
    double var = mn / 12 * ((n + 1) - tie_term(a, na, b, nb) / (n * (n - 1)));
    double dev = fabs(u - mn / 2) - 0.5;
    if (dev <= 0 || var <= 0)
        return 1;
    return erfc(dev / sqrt(var) / sqrt(2.0));
}

int cmp_trials_needed(double var_a, double var_b, int n_given, double gap)
{
    if (!(gap > 0) || !(var_a >= 0) || !(var_b >= 0))
        return 0;
    double sum2 = (var_a + var_b) * (var_a + var_b), sq2 = var_a * var_a + var_b * var_b;
    for (int n = n_given < 2 ? 2 : n_given + 1; n <= CMP_MAX_TRIALS; n++) {
        /* cmp_welch's degrees of freedom with n values a side: (n - 1) (va + vb)^2 / (va^2 +
         * vb^2), and its fallback when both variances are zero. */
        double df = sq2 > 0 ? (double)(n - 1) * sum2 / sq2 : 2.0 * n - 2;
        if (cmp_t975(df) * sqrt((var_a + var_b) / n) < gap)
            return n;
    }
    return 0;
}
