/* report --history: the series of history as charts and change tables. */
#include "report/history_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/mem.h"
#include "report/fmt.h"
#include "report/html_int.h"
#include "report/svg.h"

static const char *metric_title(int m)
{
    switch (m) {
    case CMP_TPS:
        return "throughput (tps)";
    case CMP_FAILURE_RATE:
        return "failure rate";
    default:
        return "latency";
    }
}

static const char *run_id(const struct result *runs, const struct history_metric *m, size_t i)
{
    const char *id = runs[m->points[i].run].run_id;
    return id ? id : "?";
}

/* The figure's y range: the points and their CIs. */
static void y_range(const struct history_metric *m, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t i = 0; i < m->n_points; i++) {
        const struct history_point *p = &m->points[i];
        double a = isnan(p->ci_low) ? p->value : p->ci_low;
        double b = isnan(p->ci_high) ? p->value : p->ci_high;
        *lo = fmin(*lo, fmin(a, p->value));
        *hi = fmax(*hi, fmax(b, p->value));
    }
    if (!isfinite(*lo) || !isfinite(*hi)) {
        *lo = 0;
        *hi = 1;
    }
    *lo = fmin(*lo, 0);
}

static void chart(struct buf *out, const struct result *runs, const struct history_metric *m,
                  size_t s, size_t k)
{
    double lo, hi;
    y_range(m, &lo, &hi);
    struct svg_axis x = {-0.5,           (double)m->n_points - 0.5, 0,
                         SVG_FMT_NUMBER, "run (in order, from 0)",  0};
    struct svg_axis y = {lo,
                         hi,
                         0,
                         m->metric == CMP_TPS || m->metric == CMP_FAILURE_RATE ? SVG_FMT_NUMBER
                                                                               : SVG_FMT_LATENCY,
                         metric_title(m->metric),
                         0};
    struct svg_legend_entry legend[] = {{cmp_metric_names[m->metric], 0}};
    struct svg_chart c;
    char id[32];
    snprintf(id, sizeof id, "h%zu-%zu", s, k);
    svg_chart_begin(&c, out, id, cmp_metric_names[m->metric], &x, &y, legend, 1);
    /* segments: every other one shaded */
    size_t from = 0;
    for (size_t j = 0; j <= m->n_changes; j++) {
        size_t to = j < m->n_changes ? m->changes[j].d.index : m->n_points;
        if (j % 2 == 1)
            svg_band(&c, (double)from - 0.5, (double)to - 0.5, 0, NULL);
        from = to;
    }
    double *xs = xcalloc(m->n_points + 1, sizeof *xs), *ys = xcalloc(m->n_points + 1, sizeof *ys);
    double *l = xcalloc(m->n_points + 1, sizeof *l), *u = xcalloc(m->n_points + 1, sizeof *u);
    for (size_t i = 0; i < m->n_points; i++) {
        xs[i] = (double)i;
        ys[i] = m->points[i].value;
        l[i] = m->points[i].ci_low;
        u[i] = m->points[i].ci_high;
    }
    svg_area(&c, xs, l, u, m->n_points, 0);
    svg_series(&c, xs, ys, m->n_points, 0);
    for (size_t i = 0; i < m->n_points; i++) {
        buf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>#%zu ",
                   svg_px(&c, xs[i]), svg_py(&c, ys[i]), svg_color(0), i);
        report_escape(out, run_id(runs, m, i));
        buf_printf(out, ": %.6g</title></circle>\n", ys[i]);
    }
    /* change points: a dashed line at the first run of the new segment, linked */
    for (size_t j = 0; j < m->n_changes; j++) {
        double px = svg_px(&c, (double)m->changes[j].d.index - 0.5);
        buf_printf(out,
                   "<a href=\"#%s-c%zu\"><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                   "stroke=\"#d55e00\" stroke-width=\"2\" stroke-dasharray=\"4 3\"><title>change "
                   "at %zu: %+.1f %%</title></line></a>\n",
                   id, j, px, px, svg_py(&c, c.yt.hi), svg_py(&c, c.yt.lo), m->changes[j].d.index,
                   m->changes[j].d.change_pct);
    }
    svg_chart_end(&c);
    free(xs);
    free(ys);
    free(l);
    free(u);
}

static void run_list(struct buf *out, const struct result *runs, const struct history_metric *m,
                     size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        char id[9];
        snprintf(id, sizeof id, "%s", run_id(runs, m, i)); /* the first 8: --accept takes them */
        buf_puts(out, i > from ? ", " : "");
        report_escape(out, id);
    }
}

static void changes_table(struct buf *out, const struct result *runs,
                          const struct history_metric *m, size_t s, size_t k)
{
    if (m->n_changes == 0) {
        buf_puts(out, "<p>No change point.</p>\n");
        return;
    }
    buf_puts(out, "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>at</th>"
                  "<th>before</th><th>after</th><th>change</th><th>95 % CI</th><th>p</th>"
                  "<th>verdict</th><th>runs before</th><th>runs after</th></tr></thead><tbody>\n");
    for (size_t j = 0; j < m->n_changes; j++) {
        const struct history_change *c = &m->changes[j];
        size_t from = j ? m->changes[j - 1].d.index : 0;
        size_t to = j + 1 < m->n_changes ? m->changes[j + 1].d.index : m->n_points;
        buf_printf(out,
                   "<tr id=\"h%zu-%zu-c%zu\"><th>%zu</th><td>%.6g</td><td>%.6g</td><td>%+.1f "
                   "%%</td><td>[%+.1f, %+.1f]</td><td>%.3f</td><td>%s</td><td>",
                   s, k, j, c->d.index, c->d.before, c->d.after, c->d.change_pct, c->d.ci_low,
                   c->d.ci_high, c->d.p_value, cmp_verdict_names[c->verdict]);
        run_list(out, runs, m, from, c->d.index);
        buf_puts(out, "</td><td>");
        run_list(out, runs, m, c->d.index, to);
        buf_puts(out, "</td></tr>\n");
    }
    buf_puts(out, "</tbody></table></div>\n");
}

int report_history_html_write(const struct result *runs, const struct history_out *h,
                              const char *title, const char *path, struct err *e)
{
    struct buf out;
    buf_init(&out);
    report_page_begin(&out, title ? title : "History");
    buf_printf(&out, "<p class=\"meta\">%zu series.</p></header>\n", h->n_series);
    for (size_t s = 0; s < h->n_series; s++) {
        const struct history_series *hs = &h->series[s];
        buf_printf(&out, "<section id=\"series-%zu\">\n<h2>Series %zu</h2>\n<p>", s + 1, s + 1);
        report_escape(&out, hs->key);
        buf_puts(&out, "</p>\n");
        for (size_t k = 0; k < hs->n_metrics; k++) {
            const struct history_metric *m = &hs->metrics[k];
            buf_puts(&out, "<figure class=\"fig\"><h3>");
            report_escape(&out, cmp_metric_names[m->metric]);
            buf_puts(&out, "</h3>\n");
            chart(&out, runs, m, s, k);
            buf_puts(&out, "<figcaption>Each run's figure with its 95 % CI (from the spread of "
                           "its intervals); segments between change points shaded in turn; a "
                           "dashed line marks a change, linked to its row below.");
            if (m->regressed)
                buf_printf(&out, " The newest run is in a worse segment (since %zu)%s.", m->first,
                           m->accepted ? ", accepted" : "");
            buf_puts(&out, "</figcaption></figure>\n");
            changes_table(&out, runs, m, s, k);
        }
        buf_puts(&out, "</section>\n");
    }
    buf_puts(&out, "<footer>Made by pgarena " PGARENA_VERSION ".</footer>\n</main>\n</body>\n"
                   "</html>\n");
    int rc = report_write_atomic(path, out.data, out.len, e);
    buf_free(&out);
    return rc;
}
