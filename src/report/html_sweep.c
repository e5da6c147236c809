/* The HTML report of a sweep: throughput against the swept axis with confidence bands, p99
 * against throughput, the cell table, and a capacity search's steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "report/fmt.h"
#include "report/html_int.h"
#include "report/svg.h"
#include "report/sweep_out.h"

enum x_axis { X_CLIENTS, X_RATE, X_SCALE, X_SPEED };

/* A line of a chart: one setup at one combination of the axes other than x. */
struct line {
    char *name;
    size_t n;
    double *x, *tps, *lo, *hi, *p99;
};

struct sweep_page {
    struct buf *out;
    const struct sweep_doc *d;
    const struct sweep_figs *f;
    enum x_axis xa;
    size_t n_lines;
    struct line *lines;
};

static double x_of(enum x_axis xa, const struct sweep_cell *c)
{
    if (xa == X_SPEED) /* max: no place on the axis (the p99 chart still shows it) */
        return c->speed == SWEEP_SPEED_MAX ? INFINITY : c->speed;
    return xa == X_CLIENTS ? (double)c->clients : xa == X_RATE ? c->rate : (double)c->scale;
}

/* The axes other than x of a point, with its setup: the name of its line. */
static char *line_name(const struct sweep_page *p, size_t setup, const struct sweep_cell *c)
{
    struct buf b;
    buf_init(&b);
    buf_puts(&b, p->d->setups[setup].label);
    if (p->xa != X_CLIENTS && p->d->n_clients > 1)
        buf_printf(&b, ", %lld clients", (long long)c->clients);
    if (p->xa != X_RATE && p->d->n_rates > 1)
        buf_printf(&b, ", -R %g", c->rate);
    if (p->xa != X_SCALE && p->d->n_scales > 1)
        buf_printf(&b, ", scale %lld", (long long)c->scale);
    char sp[32];
    if (p->xa != X_SPEED && p->d->n_speeds > 1)
        buf_printf(&b, ", speed %s", sweep_speed_text(sp, sizeof sp, c->speed));
    for (size_t k = 0; k < c->n_settings; k++)
        buf_printf(&b, ", %s=%s", c->settings[k].name, c->settings[k].value);
    char *s = xstrdup(b.data);
    buf_free(&b);
    return s;
}

static void add_point(struct line *l, double x, const struct sweep_fig_setup *s)
{
    size_t i = l->n++;
    l->x = xrealloc(l->x, l->n * sizeof *l->x);
    l->tps = xrealloc(l->tps, l->n * sizeof *l->tps);
    l->lo = xrealloc(l->lo, l->n * sizeof *l->lo);
    l->hi = xrealloc(l->hi, l->n * sizeof *l->hi);
    l->p99 = xrealloc(l->p99, l->n * sizeof *l->p99);
    /* Keep x ascending (plans list each axis in the order given). */
    while (i > 0 && l->x[i - 1] > x) {
        l->x[i] = l->x[i - 1];
        l->tps[i] = l->tps[i - 1];
        l->lo[i] = l->lo[i - 1];
        l->hi[i] = l->hi[i - 1];
        l->p99[i] = l->p99[i - 1];
        i--;
    }
    l->x[i] = x;
    l->tps[i] = s->n ? s->tps : NAN;
    l->lo[i] = s->tps_lo;
    l->hi[i] = s->tps_hi;
    l->p99[i] = s->n ? s->p99_us : NAN;
}

static void build_lines(struct sweep_page *p)
{
    const struct sweep_doc *d = p->d;
    p->xa = d->n_speeds        ? X_SPEED
            : d->n_clients > 1 ? X_CLIENTS
            : d->n_rates > 1   ? X_RATE
            : d->n_scales > 1  ? X_SCALE
                               : X_CLIENTS;
    p->lines = xcalloc(p->f->n * d->n_setups + 1, sizeof *p->lines);
    for (size_t i = 0; i < p->f->n; i++) {
        const struct sweep_cell *c = &d->cells[p->f->points[i].first];
        for (size_t u = 0; u < d->n_setups; u++) {
            char *name = line_name(p, u, c);
            size_t k = 0;
            while (k < p->n_lines && strcmp(p->lines[k].name, name) != 0)
                k++;
            if (k == p->n_lines)
                p->lines[p->n_lines++].name = name;
            else
                free(name);
            add_point(&p->lines[k], x_of(p->xa, c), &p->f->points[i].setups[u]);
        }
    }
}

static void lines_free(struct sweep_page *p)
{
    for (size_t i = 0; i < p->n_lines; i++) {
        struct line *l = &p->lines[i];
        free(l->name);
        free(l->x);
        free(l->tps);
        free(l->lo);
        free(l->hi);
        free(l->p99);
    }
    free(p->lines);
}

static void range(const double *v, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i])) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
}

static struct svg_legend_entry *legend(const struct sweep_page *p)
{
    struct svg_legend_entry *e = xcalloc(p->n_lines + 1, sizeof *e);
    for (size_t i = 0; i < p->n_lines; i++)
        e[i] = (struct svg_legend_entry){p->lines[i].name, i};
    return e;
}

static void figure(struct sweep_page *p, const char *heading, const char *caption, int which)
{
    static const char *const x_titles[] = {"clients", "rate (tps scheduled)", "scale",
                                           "replay speed (x captured)"};
    struct svg_axis x = {INFINITY, -INFINITY, 0, SVG_FMT_NUMBER, x_titles[p->xa], 0};
    struct svg_axis y = {0, -INFINITY, 0, SVG_FMT_NUMBER, "throughput (tps)", 0};
    for (size_t i = 0; i < p->n_lines; i++) {
        const struct line *l = &p->lines[i];
        if (which == 0) {
            range(l->x, l->n, &x.lo, &x.hi);
            range(l->tps, l->n, &y.lo, &y.hi);
            range(l->hi, l->n, &y.lo, &y.hi);
        } else {
            range(l->tps, l->n, &x.lo, &x.hi);
            range(l->p99, l->n, &y.lo, &y.hi);
        }
    }
    if (!isfinite(x.lo) || !isfinite(y.hi))
        return;
    if (which == 0) {
        x.log = x.lo > 0 && x.hi / x.lo >= 8;
    } else {
        x.title = "throughput (tps)";
        y.title = "latency p99";
        y.fmt = SVG_FMT_LATENCY;
        x.lo = 0;
    }
    buf_puts(p->out, "<figure class=\"fig\"><h3>");
    report_escape(p->out, heading);
    buf_puts(p->out, "</h3>\n");
    struct svg_chart c;
    struct svg_legend_entry *e = legend(p);
    svg_chart_begin(&c, p->out, which == 0 ? "tps" : "p99", heading, &x, &y, e, p->n_lines);
    free(e);
    for (size_t i = 0; i < p->n_lines; i++) {
        const struct line *l = &p->lines[i];
        if (which == 0) {
            svg_area(&c, l->x, l->lo, l->hi, l->n, i);
            svg_series(&c, l->x, l->tps, l->n, i);
        } else {
            svg_series(&c, l->tps, l->p99, l->n, i);
        }
    }
    svg_chart_end(&c);
    buf_puts(p->out, "<figcaption>");
    report_escape(p->out, caption);
    buf_puts(p->out, "</figcaption></figure>\n");
}

/* A change in percent; beyond +999 % only that (an interval so wide says nothing finer). */
static const char *change(char *buf, size_t size, double pct)
{
    if (pct >= 1000) {
        snprintf(buf, size, "&gt;+999%%");
        return buf;
    }
    return report_fmt_change(buf, size, pct);
}

/* A comparison's cell: change [CI] verdict method, and what refused pooling (refused: the
 * note when the homogeneity test did); with its detail as the cell's title when titled. */
static void change_td(struct buf *b, const struct sweep_comparison *r, const char *refused,
                      int titled)
{
    char c[32], lo[32], hi[32];
    if (!r) {
        buf_puts(b, "<td>-</td>");
        return;
    }
    const char *v = r->verdict;
    buf_puts(b, "<td");
    if (titled && r->detail && r->detail[0]) {
        buf_puts(b, " title=\"");
        report_escape(b, r->detail);
        buf_puts(b, "\"");
    }
    buf_printf(b, ">%s [%s, %s] <span class=\"verdict %s\">%s</span> <small>%s%s</small></td>",
               change(c, sizeof c, r->change_pct), change(lo, sizeof lo, r->ci_low),
               change(hi, sizeof hi, r->ci_high),
               strcmp(v, "better") == 0                     ? "v-better"
               : strcmp(v, "worse") == 0                    ? "v-worse"
               : strcmp(v, "no-meaningful-difference") == 0 ? "v-none"
                                                            : "v-inconclusive",
               v, r->method, r->homogeneous == 0 ? refused : "");
}

static void cell_change(struct buf *b, const struct sweep_comparison *r)
{
    change_td(b, r, " (noise differs between cells)", 0);
}

/* The trials the verdicts stood on whose client stalled, one line each as the text names them
 * (nothing when none did). */
static void stalls(struct sweep_page *p)
{
    const struct sweep_doc *d = p->d;
    size_t u0 = report_sweep_first_cmp_setup(p->f), n = 0;
    for (size_t i = 0; i < p->f->n; i++)
        for (size_t u = u0; p->f->axis && u < d->n_setups; u++) {
            const struct sweep_comparison *r = report_sweep_find(p->f, i, u, "tps");
            for (size_t k = 0; r && k < r->n_stalled; k++) {
                char name[512], line[400];
                if (n++ == 0)
                    buf_puts(p->out, "<p>Client stalls behind these verdicts:</p>\n<ul "
                                     "class=\"stalls\">\n");
                report_sweep_point(name, sizeof name, d, &d->cells[p->f->points[i].first]);
                report_sweep_stall_line(line, sizeof line, d, p->f->axis, u, r, &r->stalled[k]);
                buf_puts(p->out, "<li>");
                report_escape(p->out, name);
                buf_puts(p->out, ": ");
                report_escape(p->out, line);
                buf_puts(p->out, "</li>\n");
            }
        }
    if (n)
        buf_puts(p->out, "</ul>\n");
}

static void table(struct sweep_page *p)
{
    const struct sweep_doc *d = p->d;
    buf_puts(p->out, "<section id=\"cells\">\n<h2>Cells</h2>\n<div class=\"scroll\"><table "
                     "class=\"num\">\n<thead><tr><th>point</th>");
    for (size_t u = 0; u < d->n_setups; u++) {
        buf_puts(p->out, "<th>");
        report_escape(p->out, d->setups[u].label);
        buf_puts(p->out, " tps</th><th>p99</th>");
    }
    size_t u0 = report_sweep_first_cmp_setup(p->f);
    for (size_t u = u0; p->f->axis && u < d->n_setups; u++) {
        buf_puts(p->out, "<th>");
        if (u0 || d->n_setups > 1) {
            report_escape(p->out, d->setups[u].label);
            buf_puts(p->out, ": ");
        }
        buf_puts(p->out, "tps change [95% CI]</th><th>p99 change [95% CI]</th>");
    }
    buf_puts(p->out, "</tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < p->f->n; i++) {
        const struct sweep_fig_point *pt = &p->f->points[i];
        char name[512], tps[32], p99[32];
        report_sweep_point(name, sizeof name, d, &d->cells[pt->first]);
        buf_puts(p->out, "<tr><th>");
        report_escape(p->out, name);
        buf_puts(p->out, "</th>");
        for (size_t u = 0; u < d->n_setups; u++) {
            const struct sweep_fig_setup *s = &pt->setups[u];
            buf_printf(p->out, "<td>%s</td><td>%s</td>",
                       s->n ? report_fmt_sig(tps, sizeof tps, s->tps, 5) : "-",
                       s->n && s->tps > 0 ? report_fmt_latency(p99, sizeof p99, s->p99_us)
                                          : "-"); /* -c 0: no terminal, no latency */
        }
        for (size_t u = u0; p->f->axis && u < d->n_setups; u++) {
            const struct sweep_comparison *t = report_sweep_find(p->f, i, u, "tps");
            struct sweep_cell vc = d->cells[pt->first];
            char v[256];
            vc.setup = u;
            if (!t && !u0 && p->f->n_cmps &&
                strcmp(sweep_axis_value(v, sizeof v, d, &vc, p->f->axis), p->f->cmps[0].baseline) ==
                    0) {
                buf_puts(p->out, "<td>baseline</td><td>-</td>");
                continue;
            }
            cell_change(p->out, t);
            cell_change(p->out, report_sweep_find(p->f, i, u, "latency_p99"));
        }
        buf_puts(p->out, "</tr>\n");
    }
    buf_puts(p->out, "</tbody></table></div>\n");
    stalls(p);
    if (p->f->axis) {
        buf_puts(p->out, "<p class=\"meta\">Compared: ");
        report_escape(p->out, p->f->axis);
        buf_puts(p->out, ", each value against the first. <i>pooled</i>: the interval takes each "
                         "side's between-trial variance pooled over its cells (log scale; "
                         "Bartlett's test finds their noise alike); <i>cell</i>: the cell's own "
                         "trials, where pooling was not possible or was refused.</p>\n");
    }
    buf_puts(p->out, "</section>\n");
}

/* The per-script record of the same value side and script as r for metric (NULL: none). */
static const struct sweep_comparison *
script_record(const struct sweep_figs *f, const struct sweep_comparison *r, const char *metric)
{
    for (size_t j = 0; j < f->n_cmps; j++)
        if (f->cmps[j].script && f->cmps[j].fig_point == r->fig_point &&
            f->cmps[j].fig_setup == r->fig_setup && strcmp(f->cmps[j].script, r->script) == 0 &&
            strcmp(f->cmps[j].metric, metric) == 0)
            return &f->cmps[j];
    return NULL;
}

/* Per-script latency changes (analytic queries: per query), as the text table's "per
 * script:" block: for each value side and script, a row per latency metric; only when the runs
 * had two or more scripts. */
static void scripts_table(struct sweep_page *p)
{
    static const char *const metrics[] = {"latency_p50", "latency_p95", "latency_p99"};
    static const char *const names[] = {"p50", "p95", "p99"};
    const struct sweep_doc *d = p->d;
    const struct sweep_figs *f = p->f;
    int header = 0;
    for (size_t k = 0; k < f->n_cmps; k++) {
        const struct sweep_comparison *r = &f->cmps[k];
        if (!r->script || strcmp(r->metric, metrics[0]) != 0)
            continue;
        if (!header++)
            buf_puts(p->out, "<section id=\"scripts\">\n<h2>Per script</h2>\n<div "
                             "class=\"scroll\"><table class=\"num\" id=\"script-table\">\n"
                             "<thead><tr><th>point</th><th>script</th><th>latency</th>"
                             "<th>change [95% CI] verdict method</th></tr></thead>\n<tbody>\n");
        char where[600];
        report_sweep_point(where, sizeof where, d, &d->cells[f->points[r->fig_point].first]);
        size_t n = sizeof metrics / sizeof metrics[0];
        buf_printf(p->out, "<tr><th rowspan=\"%zu\">", n);
        if (d->n_setups > 1) {
            report_escape(p->out, d->setups[r->fig_setup].label);
            buf_puts(p->out, ", ");
        }
        report_escape(p->out, where);
        buf_printf(p->out, "</th><th rowspan=\"%zu\">", n);
        report_escape(p->out, r->script);
        buf_puts(p->out, "</th>");
        for (size_t m = 0; m < n; m++) {
            buf_printf(p->out, "%s<th>%s</th>", m ? "<tr>" : "", names[m]);
            change_td(p->out, script_record(f, r, metrics[m]),
                      " (noise differs from the other scripts')", 1);
            buf_puts(p->out, "</tr>\n");
        }
    }
    if (!header)
        return;
    buf_puts(p->out,
             "</tbody></table></div>\n<p class=\"meta\">Each script's latency at the value of "
             "the compared axis against the baseline, in the same cell of the other axes (lower "
             "is better: a negative change is <i>better</i>). <i>pooled</i>: each side's "
             "between-trial variance pooled over its scripts of the same kind (a slow trial "
             "they share counted once); <i>cell</i>: compare's per-script verdict over the "
             "cell's own trials, where pooling was not possible. A cell's title says why its "
             "verdict.</p>\n</section>\n");
}

static void capacity(struct sweep_page *p)
{
    const struct sweep_max_rate *m = &p->d->max_rate;
    if (!m->have)
        return;
    char v[32], lo[32], hi[32];
    buf_puts(p->out, "<section id=\"capacity\">\n<h2>Capacity</h2>\n<p>");
    if (m->tps > 0)
        buf_printf(p->out,
                   "The highest open-loop rate meeting <b>%s</b>: <b>%s tps</b> (95 %% CI of "
                   "the achieved rate over the confirming trials: %s to %s)",
                   m->slo, report_fmt_sig(v, sizeof v, m->tps, 4),
                   report_fmt_sig(lo, sizeof lo, m->ci_low, 4),
                   report_fmt_sig(hi, sizeof hi, m->ci_high, 4));
    else
        buf_printf(p->out, "No rate tried met <b>%s</b>", m->slo);
    if (m->failed_at > 0)
        buf_printf(p->out, "; %s tps missed it", report_fmt_sig(v, sizeof v, m->failed_at, 4));
    buf_puts(p->out, ".</p>\n<p class=\"meta\">Steps, in order:");
    for (size_t i = 0; i < p->d->n_cells; i++) {
        const struct sweep_cell *c = &p->d->cells[i];
        if (c->rate > 0)
            buf_printf(p->out, " %s tps %s", report_fmt_sig(v, sizeof v, c->rate, 4),
                       c->slo_met > 0    ? "met"
                       : c->slo_met == 0 ? "missed"
                                         : "not judged");
        else
            buf_puts(p->out, " closed loop");
        /* a trial whose client stalled: run again instead of judged, or judged after that */
        if (c->client_stalled)
            buf_puts(p->out, c->slo_met < 0 ? " (client stalled: run again)" : " (client stalled)");
        buf_puts(p->out, ";");
    }
    buf_puts(p->out, "</p>\n</section>\n");
}

/* Whether some point of the sweep has throughput (a power-test sweep, -c 0, has none). */
static int any_throughput(const struct sweep_page *p)
{
    for (size_t i = 0; i < p->f->n; i++)
        for (size_t u = 0; u < p->d->n_setups; u++)
            if (p->f->points[i].setups[u].n && p->f->points[i].setups[u].tps > 0)
                return 1;
    return 0;
}

int report_sweep_html_write(const struct sweep_doc *d, const struct sweep_figs *f,
                            const char *title, const char *path, struct err *e)
{
    struct buf out;
    buf_init(&out);
    struct sweep_page p = {.out = &out, .d = d, .f = f};
    build_lines(&p);
    struct buf t;
    buf_init(&t);
    if (title) {
        buf_puts(&t, title);
    } else {
        buf_puts(&t, "Sweep: ");
        for (size_t u = 0; u < d->n_setups; u++)
            buf_printf(&t, "%s%s", u ? " vs " : "", d->setups[u].label);
    }
    report_page_begin(&out, t.data);
    buf_free(&t);
    size_t done = 0;
    for (size_t i = 0; i < d->n_cells; i++)
        done += d->cells[i].status == SWEEP_COMPLETE;
    buf_printf(&out, "<p class=\"meta\">%zu of %zu cells complete, %d trial%s each. ", done,
               d->n_cells, d->trials, d->trials == 1 ? "" : "s");
    report_escape(&out, d->command);
    buf_puts(&out, "</p></header>\n");
    capacity(&p);
    if (!d->max_rate.have && !any_throughput(&p))
        buf_puts(&out, "<p class=\"meta\">No curves: no cell ran a terminal (-c 0: -w ch's "
                       "analytic streams alone, whose queries are compared per script "
                       "below).</p>\n");
    else if (!d->max_rate.have) {
        buf_puts(&out, "<section id=\"curves\">\n<h2>Curves</h2>\n<div class=\"figs\">\n");
        figure(&p, "Throughput",
               "Mean throughput over each point's trials; the band is its 95 % "
               "confidence interval (t over the trials, none with one trial).",
               0);
        figure(&p, "p99 latency against throughput",
               "Each point's mean p99 latency against its mean throughput, joined along the "
               "swept axis: where the line turns up, more load buys latency, not throughput.",
               1);
        buf_puts(&out, "</div>\n</section>\n");
    }
    table(&p);
    scripts_table(&p);
    buf_puts(&out, "<footer>Made by pgarena " PGARENA_VERSION
                   ". Self-contained: this file needs no network and runs no script.</footer>\n"
                   "</main>\n</body>\n</html>\n");
    lines_free(&p);
    int rc = report_write_atomic(path, out.data, out.len, e);
    buf_free(&out);
    return rc;
}
