#ifndef PGARENA_REPORT_HTML_INT_H
#define PGARENA_REPORT_HTML_INT_H

/*
 * Shared by the parts of the HTML report (html.c: the document and summaries; html_charts.c:
 * the charts; html_compare.c: the comparison; html_env.c: environments and warnings) and
 * their unit tests.
 * Ownership: struct report_doc owns its side tables (report_doc_free) and borrows the input;
 * struct report_env owns its strings (report_env_free).
 */

#include <stddef.h>

#include "base/buf.h"
#include "report/html.h"
#include "stats/hist.h"

/* A setup: the runs that share a label, in the order the files were given. */
struct report_side {
    const char *label; /* borrowed from the run or its path */
    size_t n;
    size_t *runs; /* indexes into in->runs */
};

struct report_doc {
    struct buf *out;
    const struct report_input *in;
    size_t n_sides;
    struct report_side *sides; /* side i draws in style i */
    size_t *side_of;           /* the side of each run */
    int next_id;               /* for element ids unique in the document */
};

/* The document up to its <h1>title</h1> inside <header> (the caller closes the header). */
void report_page_begin(struct buf *out, const char *title);

/* Write data to path through a temporary file beside it, renamed into place. -1 with e set
 * (ERR_INPUT) when it cannot be written. */
int report_write_atomic(const char *path, const char *data, size_t len, struct err *e);

/* Group the runs into sides by label, as compare does. */
void report_doc_init(struct report_doc *d, struct buf *out, const struct report_input *in);
void report_doc_free(struct report_doc *d);

/* The setup name of run i: its label, or its path when it has none. */
const char *report_run_label(const struct report_doc *d, size_t i);

/* <section id=id><h2>title</h2> ... </section> */
void report_section_begin(struct report_doc *d, const char *id, const char *title);
void report_section_end(struct report_doc *d);

/* A table of numbers with a first column "run" and these heads; rows follow, each opened by
 * report_run_heading; the caller closes it with "</tbody></table></div>". */
void report_table_begin(struct report_doc *d, const char *const *heads, size_t n);

/* A coloured line swatch for side s, as the charts draw it (inline SVG). */
void report_swatch(struct report_doc *d, size_t side);

/* A table row's heading for run i: its swatch and setup, or its file for one of several
 * trials of a setup. Opens the row: "<tr><th>...</th>". */
void report_run_heading(struct report_doc *d, size_t i);

/* Charts (html_charts.c). */

struct report_point {
    double x; /* -log10(1 - p): 0 is the minimum, 1 is p90, 2 is p99, ... */
    double y; /* latency in microseconds */
};

/* The percentile curve of h on the "nines" scale, as n_points points evenly spaced from x = 0
 * to x = min(log10(count), max_nines) (beyond 1 - 1/count a percentile says nothing more),
 * each the latency at that percentile (hist_percentile: bin resolution, never above the max).
 * Returns the points written to out (room for n_points >= 2); 0 when h is empty or invalid. */
size_t report_percentile_curve(const struct hist_sparse *h, double max_nines,
                               struct report_point *out, size_t n_points);

/* <figure class="fig"><h3>heading</h3> ... <figcaption>caption</figcaption></figure> */
void report_figure_begin(struct report_doc *d, const char *heading);
void report_figure_end(struct report_doc *d, const char *caption);

/* One line per run in chart c: value(interval, what) against the interval's end (NaN: a gap),
 * in the run's side's style. */
struct svg_chart;
void report_interval_series(struct report_doc *d, struct svg_chart *c,
                            double (*value)(const struct result_interval *it, int what), int what);

/* A figure of every run over time: one line per run of value(interval, what) (NaN: none) in
 * its side's style, the y axis from 0 to y_top (0: the highest value), the server's events as
 * bands when event_bands is set; nothing when skip_empty is set and no value is above 0. */
struct report_time_chart {
    double (*value)(const struct result_interval *it, int what);
    int what;
    const char *title, *ytitle, *caption;
    double y_top;
    int skip_empty, event_bands;
};
void report_time_chart(struct report_doc *d, const struct report_time_chart *tc);

/* Throughput, then latency p50, p99 and max, over time (one line per run). */
void report_html_over_time(struct report_doc *d);

/* The percentile plot of all runs, with a table of their percentiles. */
void report_html_distribution(struct report_doc *d);

/* A row per script of every run that ran several (html_scripts.c); nothing when none did. */
void report_html_scripts(struct report_doc *d);
/* The first run's top statement classes, side by side for every run (html_classes.c);
 * nothing when it has none. */
void report_html_classes(struct report_doc *d);
/* The tables of the first run's workload parts (result/part.h), a column per run
 * (html_classes.c); nothing when it has none. */
void report_html_part_tables(struct report_doc *d);
/* Merged runs: a row per agent (html_agents.c). */
void report_html_agents(struct report_doc *d);

/* Why (html_waits.c): wait events over time, stacked, per setup; client and host CPU and disk
 * writes over time; the top wait events and pg_stat_statements' statements as tables.
 * Nothing when no run was sampled. */
void report_html_why(struct report_doc *d);

/* Inside the server (html_sio.c): every run's events as bands on chart c; the section of the
 * WAL rate, hit ratio, buffers written and replication lag over time with the per-transaction
 * figures (nothing when no run has server_io); compare's internals of one outcome. */
struct cmp_outcome;
void report_event_bands(struct report_doc *d, struct svg_chart *c);
int report_any_events(const struct report_doc *d);
void report_html_inside(struct report_doc *d);
void report_html_cmp_internals(struct report_doc *d, const struct cmp_outcome *o);

/* The client's health (html_health.c): the client-stalled intervals of run (SIZE_MAX: every
 * run) as bands on the time chart c. */
void report_stall_bands(struct report_doc *d, struct svg_chart *c, size_t run);
/* Whether a run has a client-stalled interval. */
int report_any_stalls(const struct report_doc *d);

/* Failures by class and over time; nothing when no run had any. */
void report_html_failures(struct report_doc *d);

/* The comparison (html_compare.c). */

/* The comparison table of every setup against the baseline, with CIs and verdicts. */
void report_html_comparison(struct report_doc *d);

/* The verdicts of side s against the baseline as one sentence (nothing when none). */
void report_verdict_sentence(struct report_doc *d, size_t side);

/* The part of the runs that compare analysed, in seconds from the measured start: 0 and the
 * window when there is a comparison, -1 when there is none. */
int report_cmp_window(const struct report_doc *d, double *start_s, double *end_s);

/* The comparison's warnings as <li> items; returns how many. */
size_t report_cmp_warnings(struct report_doc *d);

/* Environments (html_env.c). */

/* One scalar of a run's environment by its dotted path, as result files flatten it. */
struct report_env_item {
    char *path;
    char *value;
};

struct report_env {
    size_t n;
    struct report_env_item *items;
};

/* The environment of r: what result_read flattened when it is there, else what the model
 * holds (a run's in-memory result). */
void report_env_of(const struct result *r, struct report_env *out);
void report_env_free(struct report_env *env);

/* The environments of all runs side by side, differing entries highlighted. */
void report_html_environment(struct report_doc *d);

/* Warnings of the server captures, of the comparison, and about the runs themselves. */
void report_html_warnings(struct report_doc *d);

#endif
