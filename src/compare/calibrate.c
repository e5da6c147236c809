/* The noise check's arithmetic (compare/calibrate.h). */
#include "compare/calibrate.h"

#include <math.h>

#include "compare/compare.h"

double calib_t80(double df)
{
    const double z = 0.8416212335729143;
    if (!(df > 0))
        return NAN;
    if (isinf(df))
        return z;
    return z + (z * z * z + z) / (4 * df);
}

double calib_pooled_log_sd(const double *x, const int *g, size_t n, int n_groups, double *df)
{
    double ss = 0;
    size_t used = 0;
    int groups = 0;
    for (int k = 0; k < n_groups; k++) {
        double sum = 0;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (g[i] == k && x[i] > 0) {
                sum += log(x[i]);
                m++;
            }
        if (!m)
            continue;
        groups++;
        used += m;
        double mean = sum / (double)m;
        for (size_t i = 0; i < n; i++)
            if (g[i] == k && x[i] > 0)
                ss += (log(x[i]) - mean) * (log(x[i]) - mean);
    }
    double d = (double)used - groups;
    if (df)
        *df = d;
    return d >= 2 ? sqrt(ss / d) : NAN;
}

static double detectable(double se, double df, double margin)
{
    if (!(se >= 0) || !(df > 0))
        return NAN;
    return expm1(log1p(margin) + (cmp_t975(df) + calib_t80(df)) * se);
}

double calib_seq_detectable(double s, int k, double margin)
{
    if (k < 2)
        return NAN;
    return detectable(s * sqrt(2.0 / k), k - 1.0, margin);
}

int calib_seq_trials_for(double s, double change, double margin, int max_k)
{
    if (!(s >= 0))
        return 0;
    for (int k = 2; k <= max_k; k++)
        if (calib_seq_detectable(s, k, margin) <= change)
            return k;
    return 0;
}

double calib_duet_detectable(double sigma, double seconds, double df, double margin)
{
    if (!(seconds > 0))
        return NAN;
    return detectable(sigma / sqrt(seconds), df, margin);
}
