#ifndef PGARENA_REPORT_SWEEP_OUT_H
#define PGARENA_REPORT_SWEEP_OUT_H

#include <stdio.h>

#include "base/err.h"
#include "compare/sweep_figs.h"
#include "result/sweep.h"

/* A sweep as the sweep command prints it. The functions only read what they are given. */

/* One row per point: its axes, each setup's tps and p99, and the change of tps and p99 of the
 * point's value of the compared axis against the baseline, with their 95 % intervals, verdicts
 * and the method (pooled or cell); below a row, what more trials would settle; then max_rate of
 * a capacity search. Columns are as wide as their texts: no header is cut. */
void report_sweep_text(FILE *out, const struct sweep_doc *d, const struct sweep_figs *f);

/* The same as {"points": [{"clients" (null on a speed axis), "rate", "scale", "speed" (a
 * speed axis's only), "settings", "setups": [{"label",
 * "trials", "tps", "tps_ci_low", "tps_ci_high", "p99_us", "p99_ci_low", "p99_ci_high"}],
 * "comparisons": [{"side", "metrics": [as compare --json]}]}], "max_rate"}. -1 with e set
 * (ERR_RUNTIME) when it cannot be written. */
int report_sweep_json(FILE *out, const struct sweep_doc *d, const struct sweep_figs *f,
                      struct err *e);

/* The comparison of f for the value side (point, setup) and metric (NULL: none). */
const struct sweep_comparison *report_sweep_find(const struct sweep_figs *f, size_t point,
                                                 size_t setup, const char *metric);

/* The first setup whose values are compared: 1 when the axis is the setups, else 0. */
size_t report_sweep_first_cmp_setup(const struct sweep_figs *f);

/* The line naming trial s of comparison r (value setup `setup`) whose client stalled, as the
 * text prints it below the row: "sync-off trial 2: client stalled 4.1 s (3 intervals), steal".
 * snprintf's return. */
int report_sweep_stall_line(char *buf, size_t size, const struct sweep_doc *d, const char *axis,
                            size_t setup, const struct sweep_comparison *r,
                            const struct sweep_stall *s);

/* "p99 <= 5 ms" etc. are the caller's; this is the axis part of a point: "8 clients, -R 100,
 * synchronous_commit=off" into buf. */
char *report_sweep_point(char *buf, size_t size, const struct sweep_doc *d,
                         const struct sweep_cell *c);

/* The HTML report of a sweep to path (atomically): throughput against the swept axis (clients,
 * else rate, else scale) per setup and combination of the other axes, with 95 % bands over the
 * trials; p99 against throughput; the cell table with compare's verdicts; a capacity search's
 * answer and steps. title NULL: "Sweep: A vs B". -1 with e set (ERR_INPUT) when it cannot be
 * written. */
int report_sweep_html_write(const struct sweep_doc *d, const struct sweep_figs *f,
                            const char *title, const char *path, struct err *e);

#endif
