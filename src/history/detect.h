#ifndef PGARENA_HISTORY_DETECT_H
#define PGARENA_HISTORY_DETECT_H

/*
 * Change points in a series of per-run figures: E-divisive means (Matteson & James 2014,
 * with exponent 1, as Hunter and MongoDB use it), splitting hierarchically while a seeded
 * permutation test finds the best split significant; then the changes smaller than a minimum
 * effect are merged away, and each remaining one gets a bootstrap CI over the runs of its two
 * segments (so between-run noise counts). Pure: the same series and seed give the same
 * answer. Ownership: the caller's arrays.
 */

#include <stddef.h>
#include <stdint.h>

#define DETECT_DEFAULT_ALPHA        0.01
#define DETECT_DEFAULT_MIN_EFFECT   0.02
#define DETECT_DEFAULT_PERMUTATIONS 999
#define DETECT_DEFAULT_RESAMPLES    2000
/* No segment is shorter than this: a single odd run is noise, not a change. */
#define DETECT_MIN_SEGMENT 3

struct detect_config {
    double alpha;      /* significance level of the permutation test */
    double min_effect; /* |after / before - 1| below this is no change (0.02: 2 %) */
    int permutations;
    int resamples; /* bootstrap replicates of each change's CI */
    uint64_t seed;
};

void detect_config_default(struct detect_config *c);

struct detect_change {
    size_t index;           /* the first point of the new segment (from 0) */
    double p_value;         /* of the permutation test when it was found */
    double before, after;   /* the means of the segments on either side */
    double change_pct;      /* 100 * (after / before - 1) */
    double ci_low, ci_high; /* 95 % bootstrap CI of change_pct */
};

/* E-divisive's statistic Q of splitting x[0..n) at tau (the first point of the right part):
 * (m k / (m + k)) (2 / (m k) S_xy - S_xx / C(m, 2) - S_yy / C(k, 2)), with S the sums of
 * |a - b| across and within the parts. The detector takes the largest Q over tau and over
 * the right part's end kappa (detect_q(x, kappa, tau)). For the cross-check with the
 * reference. */
double detect_q(const double *x, size_t n, size_t tau);

/* The change points of x[0..n), in index order, into out (at most n / DETECT_MIN_SEGMENT).
 * Returns how many. */
size_t detect_changes(const double *x, size_t n, const struct detect_config *c,
                      struct detect_change *out);

#endif
