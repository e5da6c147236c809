/* The report's charts: series over time, the latency distribution, failures. */
#include "report/html_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "report/fmt.h"
#include "report/svg.h"

#define CURVE_POINTS 241 /* a point every 0.025 nines over six nines */
#define MAX_NINES    6.0

size_t report_percentile_curve(const struct hist_sparse *h, double max_nines,
                               struct report_point *out, size_t n_points)
{
    if (h->count == 0 || n_points < 2)
        return 0;
    struct hist *full = hist_new();
    if (hist_add_sparse(full, h) < 0) {
        hist_free(full);
        return 0;
    }
    double top = log10((double)h->count);
    if (top > max_nines)
        top = max_nines;
    for (size_t i = 0; i < n_points; i++) {
        double x = top * (double)i / (double)(n_points - 1);
        out[i].x = x;
        out[i].y = (double)hist_percentile(full, 100 * (1 - pow(10, -x)));
    }
    hist_free(full);
    return n_points;
}

/* The legend: one entry per setup, with its number of trials when there are several. */
static struct svg_legend_entry *legend_of(const struct report_doc *d, char ***names)
{
    struct svg_legend_entry *e = xcalloc(d->n_sides, sizeof *e);
    *names = xcalloc(d->n_sides, sizeof **names);
    for (size_t s = 0; s < d->n_sides; s++) {
        const struct report_side *side = &d->sides[s];
        (*names)[s] =
            side->n > 1 ? xasprintf("%s (%zu runs)", side->label, side->n) : xstrdup(side->label);
        e[s].name = (*names)[s];
        e[s].style = s;
    }
    return e;
}

static void free_legend(const struct report_doc *d, struct svg_legend_entry *e, char **names)
{
    for (size_t s = 0; s < d->n_sides; s++)
        free(names[s]);
    free(names);
    free(e);
}

static void chart_begin(struct report_doc *d, struct svg_chart *c, const char *title,
                        const struct svg_axis *x, const struct svg_axis *y)
{
    char **names, id[32];
    struct svg_legend_entry *legend = legend_of(d, &names);
    snprintf(id, sizeof id, "chart%d", ++d->next_id);
    svg_chart_begin(c, d->out, id, title, x, y, legend, d->n_sides);
    free_legend(d, legend, names);
}

void report_figure_begin(struct report_doc *d, const char *heading)
{
    buf_puts(d->out, "<figure class=\"fig\"><h3>");
    report_escape(d->out, heading);
    buf_puts(d->out, "</h3>\n");
}

void report_figure_end(struct report_doc *d, const char *caption)
{
    buf_puts(d->out, "<figcaption>");
    report_escape(d->out, caption);
    buf_puts(d->out, "</figcaption></figure>\n");
}

enum over_time { OT_TPS, OT_P50, OT_P99, OT_MAX, OT_FAILED };

static double interval_value(const struct result_interval *it, int what)
{
    if (what == OT_TPS)
        return result_interval_tps(it);
    if (what == OT_FAILED)
        return result_interval_rate(it, (double)it->failed);
    if (it->transactions == 0)
        return NAN; /* no latency measured: a gap, not a zero */
    return what == OT_P50 ? it->p50_us : what == OT_P99 ? it->p99_us : it->max_us;
}

/* The longest warm-up of the runs, and the end of the last interval. */
static void time_range(const struct report_doc *d, double *warmup_s, double *end_s)
{
    *warmup_s = 0;
    *end_s = 1;
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        if (r->options.warmup_s > *warmup_s)
            *warmup_s = r->options.warmup_s;
        if (r->n_intervals > 0 && r->intervals[r->n_intervals - 1].t_s > *end_s)
            *end_s = r->intervals[r->n_intervals - 1].t_s;
    }
}

static void time_bands(struct report_doc *d, struct svg_chart *c, double warmup_s, double end_s)
{
    report_event_bands(d, c);
    report_stall_bands(d, c, SIZE_MAX);
    if (warmup_s > 0)
        svg_band(c, -warmup_s, 0, 0, "warm-up, not measured");
    double start, stop;
    if (report_cmp_window(d, &start, &stop) == 0) {
        if (start > 0)
            svg_band(c, 0, start, 1, "left out by compare");
        if (stop < end_s)
            svg_band(c, stop, end_s, 1, NULL);
    }
}

void report_interval_series(struct report_doc *d, struct svg_chart *c,
                            double (*value)(const struct result_interval *it, int what), int what)
{
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        double *xs = xmalloc((r->n_intervals + 1) * sizeof *xs);
        double *ys = xmalloc((r->n_intervals + 1) * sizeof *ys);
        for (size_t t = 0; t < r->n_intervals; t++) {
            xs[t] = r->intervals[t].t_s;
            ys[t] = value(&r->intervals[t], what);
        }
        svg_series(c, xs, ys, r->n_intervals, d->side_of[i]);
        free(xs);
        free(ys);
    }
}

void report_time_chart(struct report_doc *d, const struct report_time_chart *tc)
{
    double top = 0, end_s = 1;
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        for (size_t t = 0; t < r->n_intervals; t++) {
            double v = tc->value(&r->intervals[t], tc->what);
            if (isfinite(v) && v > top)
                top = v;
            if (r->intervals[t].t_s > end_s)
                end_s = r->intervals[t].t_s;
        }
    }
    if (top <= 0 && tc->skip_empty)
        return;
    struct svg_legend_entry *legend = xcalloc(d->n_sides, sizeof *legend);
    for (size_t s = 0; s < d->n_sides; s++)
        legend[s] = (struct svg_legend_entry){d->sides[s].label, s};
    struct svg_axis x = {.lo = 0, .hi = end_s, .title = "time (s)", .max_ticks = 10};
    struct svg_axis y = {.lo = 0,
                         .hi = tc->y_top > 0 ? tc->y_top
                               : top > 0     ? top
                                             : 1,
                         .title = tc->ytitle};
    char id[32];
    snprintf(id, sizeof id, "chart%d", ++d->next_id);
    report_figure_begin(d, tc->title);
    struct svg_chart c;
    svg_chart_begin(&c, d->out, id, tc->title, &x, &y, legend, d->n_sides);
    free(legend);
    if (tc->event_bands)
        report_event_bands(d, &c);
    report_stall_bands(d, &c, SIZE_MAX);
    report_interval_series(d, &c, tc->value, tc->what);
    svg_chart_end(&c);
    report_figure_end(d, tc->caption);
}

/* One chart of a per-interval value of every run. */
static void over_time_chart(struct report_doc *d, enum over_time what, const char *title,
                            const char *caption)
{
    double warmup_s, end_s, top = 0;
    time_range(d, &warmup_s, &end_s);
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        for (size_t t = 0; t < r->n_intervals; t++) {
            double v = interval_value(&r->intervals[t], what);
            if (isfinite(v) && v > top)
                top = v;
        }
    }
    int latency = what != OT_TPS && what != OT_FAILED;
    struct svg_axis x = {.lo = -warmup_s, .hi = end_s, .title = "time (s)", .max_ticks = 10};
    struct svg_axis y = {.lo = 0,
                         .hi = top > 0 ? top : 1,
                         .fmt = latency ? SVG_FMT_LATENCY : SVG_FMT_NUMBER,
                         .title = latency             ? "latency"
                                  : what == OT_FAILED ? "failures per second"
                                                      : "throughput (tps)"};
    struct svg_chart c;
    report_figure_begin(d, title);
    chart_begin(d, &c, title, &x, &y);
    time_bands(d, &c, warmup_s, end_s);
    report_interval_series(d, &c, interval_value, (int)what);
    svg_chart_end(&c);
    report_figure_end(d, caption);
}

void report_html_over_time(struct report_doc *d)
{
    double warmup_s, end_s;
    time_range(d, &warmup_s, &end_s);
    double start, stop;
    int has_window = report_cmp_window(d, &start, &stop) == 0 && start > 0;
    char caption[560];
    snprintf(caption, sizeof caption,
             "Committed transactions per second, per interval, against the time since the "
             "measured start.%s%s",
             warmup_s > 0 ? " Shaded grey: the warm-up (--warmup), run but not measured." : "",
             has_window ? " Hatched: the start that compare left out as warm-up." : "");
    if (report_any_events(d))
        snprintf(caption + strlen(caption), sizeof caption - strlen(caption), "%s",
                 " Coloured bands: checkpoints, autovacuum and autoanalyze, a standby behind "
                 "(Inside the server).");
    if (report_any_stalls(d))
        snprintf(caption + strlen(caption), sizeof caption - strlen(caption), "%s",
                 " Dark bands: intervals where the client itself stalled (steal, run queue, or "
                 "stopped or starved), on every time chart.");
    report_section_begin(d, "over-time", "Over time");
    buf_puts(d->out, "<div class=\"figs\">\n");
    over_time_chart(d, OT_TPS, "Throughput", caption);
    over_time_chart(d, OT_P50, "Latency p50",
                    "Median latency of the transactions completed in each interval.");
    over_time_chart(d, OT_P99, "Latency p99",
                    "99th percentile of the latency in each interval: the slowest 1 %.");
    over_time_chart(d, OT_MAX, "Latency max",
                    "The slowest transaction of each interval. Gaps: intervals without any.");
    buf_puts(d->out, "</div>\n");
    report_section_end(d);
}

/* The percentiles of each run as a table beside the plot. */
static void percentile_table(struct report_doc *d)
{
    static const char *const heads[] = {"p50", "p90", "p99", "p99.9", "max"};
    buf_puts(d->out, "<div class=\"fig\"><h3>Percentiles</h3><div class=\"scroll\">"
                     "<table class=\"num\"><thead><tr><th>run</th>");
    for (size_t k = 0; k < sizeof heads / sizeof *heads; k++)
        buf_printf(d->out, "<th>%s</th>", heads[k]);
    buf_puts(d->out, "</tr></thead><tbody>\n");
    for (size_t i = 0; i < d->in->n; i++) {
        const struct latency_summary *l = &d->in->runs[i].summary.latency_us;
        double v[] = {l->p50, l->p90, l->p99, l->p999, l->max};
        char text[48];
        report_run_heading(d, i);
        for (size_t k = 0; k < sizeof v / sizeof *v; k++)
            buf_printf(d->out, "<td>%s</td>", report_fmt_latency(text, sizeof text, v[k]));
        buf_puts(d->out, "</tr>\n");
    }
    buf_puts(d->out, "</tbody></table></div></div>\n");
}

/* The right end of the percentile axis in whole nines: where the runs with the most
 * transactions stop saying anything new (1 - 1/count), rounded to the nearest whole nine
 * unless that is less than half a nine short. */
static double nines_axis(const struct report_doc *d)
{
    double top = 1;
    for (size_t i = 0; i < d->in->n; i++) {
        uint64_t count = d->in->runs[i].histogram.count;
        if (count > 0)
            top = fmax(top, fmin(MAX_NINES, floor(log10((double)count) + 0.5)));
    }
    return top;
}

void report_html_distribution(struct report_doc *d)
{
    struct report_point(*curves)[CURVE_POINTS] = xcalloc(d->in->n, sizeof *curves);
    size_t *n = xcalloc(d->in->n, sizeof *n);
    double top_x = nines_axis(d), lo_y = INFINITY, hi_y = 0;
    for (size_t i = 0; i < d->in->n; i++) {
        n[i] = report_percentile_curve(&d->in->runs[i].histogram, top_x, curves[i], CURVE_POINTS);
        for (size_t k = 0; k < n[i]; k++) {
            if (curves[i][k].y > 0)
                lo_y = fmin(lo_y, curves[i][k].y);
            hi_y = fmax(hi_y, curves[i][k].y);
        }
    }
    struct svg_axis x = {.lo = 0,
                         .hi = top_x,
                         .fmt = SVG_FMT_NINES,
                         .title = "percentile",
                         .max_ticks = (int)top_x + 1};
    struct svg_axis y = {.lo = isfinite(lo_y) ? lo_y : 1,
                         .hi = hi_y > 0 ? hi_y : 10,
                         .log = 1,
                         .fmt = SVG_FMT_LATENCY,
                         .title = "latency (log scale)"};
    report_section_begin(d, "distribution", "Latency distribution");
    buf_puts(d->out, "<div class=\"figs\">\n");
    report_figure_begin(d, "Latency by percentile");
    struct svg_chart c;
    chart_begin(d, &c, "Latency by percentile", &x, &y);
    double xs[CURVE_POINTS], ys[CURVE_POINTS];
    for (size_t i = 0; i < d->in->n; i++) {
        for (size_t k = 0; k < n[i]; k++) {
            xs[k] = curves[i][k].x;
            ys[k] = curves[i][k].y;
        }
        svg_series(&c, xs, ys, n[i], d->side_of[i]);
    }
    svg_chart_end(&c);
    report_figure_end(d, "The latency below which a given share of all measured transactions "
                         "completed. The percentile axis stretches the tail: each step right is "
                         "ten times rarer (90%, 99%, 99.9%...). Lower is better.");
    percentile_table(d);
    buf_puts(d->out, "</div>\n");
    report_section_end(d);
    free(curves);
    free(n);
}

static int any_failures(const struct report_doc *d)
{
    for (size_t i = 0; i < d->in->n; i++)
        if (d->in->runs[i].summary.failed > 0)
            return 1;
    return 0;
}

static void failure_table(struct report_doc *d)
{
    buf_puts(d->out, "<div class=\"fig\"><h3>By class</h3><div class=\"scroll\">"
                     "<table class=\"num\"><thead><tr><th>run</th>");
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        buf_printf(d->out, "<th>%s</th>", result_error_names[k]);
    buf_puts(d->out, "<th>failed</th><th>of all</th><th>retried</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        char text[48];
        report_run_heading(d, i);
        for (int k = 0; k < RESULT_N_ERRORS; k++)
            buf_printf(d->out, "<td>%s</td>",
                       report_fmt_count(text, sizeof text, r->summary.errors[k]));
        uint64_t all = r->summary.transactions + r->summary.failed;
        buf_printf(d->out, "<td>%s</td>", report_fmt_count(text, sizeof text, r->summary.failed));
        buf_printf(d->out, "<td>%s%%</td>",
                   report_fmt_sig(text, sizeof text,
                                  all ? 100.0 * (double)r->summary.failed / (double)all : 0, 3));
        buf_printf(d->out, "<td>%s</td></tr>\n",
                   report_fmt_count(text, sizeof text, r->summary.retried));
    }
    buf_puts(d->out, "</tbody></table></div></div>\n");
}

void report_html_failures(struct report_doc *d)
{
    if (!any_failures(d))
        return;
    report_section_begin(d, "failures", "Failures");
    buf_puts(d->out, "<div class=\"figs\">\n");
    over_time_chart(d, OT_FAILED, "Failures over time",
                    "Failed transactions per second, per interval (after retries), all classes "
                    "together; the table gives each class over the whole run.");
    failure_table(d);
    buf_puts(d->out, "</div>\n");
    report_section_end(d);
}
