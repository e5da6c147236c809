#ifndef PGARENA_COMPARE_CALIBRATE_H
#define PGARENA_COMPARE_CALIBRATE_H

/*
 * The arithmetic of `pgarena calibrate`: from the noise an A/A measured, the smallest change a
 * design would detect. A change is "detected" when compare would call it better (or worse)
 * with at least 80 % probability: its 95 % interval clears the margin, so on the log scale
 *   detectable = log(1 + margin) + (t975(df) + t80(df)) * se,
 * the usual sample-size relation (docs/compare-method.md §6: about 15.7 s^2 / delta^2 trials
 * per side without a margin) with the margin compare judges against. Pure.
 */

#include <stddef.h>

/* The between-trial standard deviation of log throughput, pooled within groups: x[i] of group
 * g[i] (groups 0..n_groups-1, the A/A's two labels); NaN with fewer than two degrees of
 * freedom. *df gets the degrees of freedom (n minus the groups that have values). */
double calib_pooled_log_sd(const double *x, const int *g, size_t n, int n_groups, double *df);

/* Sequential trials: K trials per side, between-trial sd s of log throughput (NaN: unknown).
 * The smallest change detected, as a fraction (0.05: 5 %); NaN when s is. The interval is
 * compare's Welch interval, whose degrees of freedom lie between K - 1 and 2K - 2 as the two
 * spreads fall: K - 1 is taken, so that the promise holds (simulated: 85-88 % at K 3 to 10). */
double calib_seq_detectable(double s, int k, double margin);

/* The trials per side (2..max_k) that detect a change of `change` (a fraction); 0 when even
 * max_k trials do not (the machine is too noisy for it). */
int calib_seq_trials_for(double s, double change, double margin, int max_k);

/* A duet of `seconds` paired seconds whose per-second log ratio has long-run standard
 * deviation sigma (autocorrelation included: the sd of the mean of n seconds is sigma /
 * sqrt(n)) and whose interval has df degrees of freedom: the smallest change detected. */
double calib_duet_detectable(double sigma, double seconds, double df, double margin);

/* Student's t quantile at 0.80, one-sided (Cornish-Fisher's first correction to the normal's
 * 0.8416; within 1 % of the table from 3 degrees of freedom). */
double calib_t80(double df);

#endif
