#ifndef PGARENA_COMPARE_SWEEP_FIGS_H
#define PGARENA_COMPARE_SWEEP_FIGS_H

#include <stddef.h>

#include "base/err.h"
#include "compare/compare.h"
#include "result/result.h"
#include "result/sweep.h"

/*
 * The figures of a sweep, per point of its axes (a cell without its setup and trial): each
 * setup's throughput and p99 over its complete trials with 95 % intervals; and the sweep's
 * comparisons along its compared axis: every other value of the
 * axis against its first, per cell of the other axes and metric, pooled over the cells where
 * the noise allows (docs/compare-method.md §3.6), else compare's verdict over the cell's trials.
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
};

struct sweep_figs {
    size_t n;
    struct sweep_fig_point *points;
    char *axis; /* the compared axis (NULL: none) */
    size_t n_cmps;
    struct sweep_comparison *cmps; /* in point order, then setup, then metric */
};

/* Whether two cells lie on the same point (clients, rate, scale and settings alike). */
int sweep_same_point(const struct sweep_cell *a, const struct sweep_cell *b);

/* The axis a sweep compares: d->compare_axis when given ("none": NULL), else the setups when
 * there are several, else the first --set axis, else the speed axis when it has several,
 * else none. */
const char *sweep_compare_axis(const struct sweep_doc *d);

/* Whether axis (setup, clients, rate, scale, speed, a --set name, or none) can be compared in d: -1
 * with e set (ERR_INPUT) when the sweep has no such axis or it has one value only. */
int sweep_compare_check(const struct sweep_doc *d, const char *axis, struct err *e);

/* A cell's value on an axis, as text, into buf. */
const char *sweep_axis_value(char *buf, size_t size, const struct sweep_doc *d,
                             const struct sweep_cell *c, const char *axis);

/* Read the complete cells' result files (paths relative to dir) and figure out every point in
 * plan order, and the comparisons. -1 with e (ERR_INPUT) when a complete cell's file cannot be
 * read. */
int sweep_figs_build(const struct sweep_doc *d, const char *dir, struct sweep_figs *f,
                     struct err *e);

void sweep_figs_free(struct sweep_figs *f);

/* The comparisons of f->axis (set) from the results res[0..d->n_cells) of the complete cells
 * (the others unread), read from paths: into f->cmps (sweep_cmp.c). */
void sweep_figs_compare(const struct sweep_doc *d, const struct result *res,
                        const char *const *paths, struct sweep_figs *f);

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
