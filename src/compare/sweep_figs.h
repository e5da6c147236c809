#ifndef PGARENA_COMPARE_SWEEP_FIGS_H
#define PGARENA_COMPARE_SWEEP_FIGS_H

#include <stddef.h>

#include "base/err.h"
#include "compare/compare.h"
#include "result/result.h"
#include "result/sweep.h"

/*
 * The figures of a sweep, per point of its axes (a cell without its setup and trial): each
 * setup's throughput and p99 over its complete trials with 95 % intervals, and compare's
 * verdicts of every setup against the baseline over those trials; and the steady-state
 * figures a capacity search judges a step by.
 * Ownership: struct sweep_figs owns its arrays (sweep_figs_free); it borrows nothing.
 */

struct sweep_fig_setup {
    size_t n;                   /* complete trials */
    double tps, tps_lo, tps_hi; /* mean summary tps and its 95 % t interval (NaN below 2) */
    double p99_us, p99_lo, p99_hi;
};

struct sweep_fig_point {
    size_t first;                   /* the point's first cell in the document (its axes) */
    struct sweep_fig_setup *setups; /* one per setup of the document */
    size_t n_cmp;                   /* comparisons with the baseline, setup order */
    size_t *cmp_setup;              /* the setup each compares */
    struct cmp_outcome *cmp;
    size_t n_warnings; /* compare's warnings for this point (counted only) */
};

struct sweep_figs {
    size_t n;
    struct sweep_fig_point *points;
};

/* Whether two cells lie on the same point (clients, rate, scale and settings alike). */
int sweep_same_point(const struct sweep_cell *a, const struct sweep_cell *b);

/* Read the complete cells' result files (paths relative to dir) and figure out every point in
 * plan order. -1 with e (ERR_INPUT) when a complete cell's file cannot be read. */
int sweep_figs_build(const struct sweep_doc *d, const char *dir, struct sweep_figs *f,
                     struct err *e);

void sweep_figs_free(struct sweep_figs *f);

/* The steady part of a run: MSER-5 finds the warm-up from its per-second throughput and leaves
 * it out (runs too short for it lose their first interval); over the rest of its whole
 * intervals: */
struct cmp_steady {
    double tps;         /* achieved rate: committed transactions per second */
    double quantile_us; /* the latency quantile asked for (1: the maximum) */
    double seconds;     /* its length */
    double p50_growth;  /* median latency of its last third over its first when the middle
                         * third's lies between them, else 1 (also when too short): an open
                         * loop whose queue grows has latency that climbs */
};

/* -1 when nothing remains. */
int cmp_steady_figures(const struct result *r, double q, struct cmp_steady *out);

#endif
