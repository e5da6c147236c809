/* Inside the server, in the report: events as bands on the time-series charts, a section of
 * the WAL rate, the hit ratio, the buffers written by whom and the replication lag over time
 * with the per-transaction figures, and compare's internals under each comparison. */
#include "report/html_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "report/fmt.h"
#include "report/sio.h"
#include "report/svg.h"

/* Band colours by event kind (svg styles): checkpoint, autovacuum, autoanalyze, lag. */
static const size_t kind_style[RESULT_N_EVENT_KINDS] = {4, 2, 3, 5};

void report_event_bands(struct report_doc *d, struct svg_chart *c)
{
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        for (size_t k = 0; k < r->n_events; k++) {
            const struct result_event *ev = &r->events[k];
            if (!ev->start)
                continue;
            char label[200];
            snprintf(label, sizeof label, "%s: %s%s%s at %.1f s", report_run_label(d, i),
                     result_event_kinds[ev->kind], ev->detail ? " " : "",
                     ev->detail ? ev->detail : "", ev->t_s);
            svg_event_band(c, ev->t_s, report_event_end(r, k), kind_style[ev->kind], label);
        }
    }
}

int report_any_events(const struct report_doc *d)
{
    for (size_t i = 0; i < d->in->n; i++)
        if (d->in->runs[i].n_events > 0)
            return 1;
    return 0;
}

enum sio_what { W_WAL_MB_S, W_HIT_PCT, W_LAG_MB, W_BUF_CKPT, W_BUF_BGW, W_BUF_BACKEND };

static double sio_value(const struct result_interval *it, int what)
{
    const struct result_sio *s = &it->sio;
    if (!s->have || it->duration_s <= 0)
        return NAN;
    switch (what) {
    case W_WAL_MB_S:
        return (s->have >> SIO_WAL_BYTES) & 1
                   ? result_interval_rate(it, (double)s->v[SIO_WAL_BYTES]) / (1024.0 * 1024.0)
                   : NAN;
    case W_HIT_PCT: {
        double h = report_sio_hit_ratio(s);
        return h >= 0 ? 100 * h : NAN;
    }
    case W_LAG_MB: {
        double top = NAN;
        for (size_t i = 0; i < s->n_lag; i++)
            if (!(s->lag[i].bytes / (1024.0 * 1024.0) <= top))
                top = (double)s->lag[i].bytes / (1024.0 * 1024.0);
        return top;
    }
    default: {
        int f = what == W_BUF_CKPT  ? SIO_BUF_CHECKPOINTER
                : what == W_BUF_BGW ? SIO_BUF_BGWRITER
                                    : SIO_BUF_BACKEND;
        return (s->have >> f) & 1 ? result_interval_rate(it, (double)s->v[f]) : NAN;
    }
    }
}

/* One line per run of a figure, with the events as bands; nothing for the replication lag
 * when no run has one. */
static void line_chart(struct report_doc *d, int what, const char *title, const char *ytitle,
                       const char *caption)
{
    report_time_chart(d, &(struct report_time_chart){.value = sio_value,
                                                     .what = what,
                                                     .title = title,
                                                     .ytitle = ytitle,
                                                     .caption = caption,
                                                     .y_top = what == W_HIT_PCT ? 100 : 0,
                                                     .skip_empty = what == W_LAG_MB,
                                                     .event_bands = 1});
}

/* Run i's buffers written per second by the checkpointer, the bgwriter and backends. */
static void buffers_chart(struct report_doc *d, size_t i)
{
    const struct result *r = &d->in->runs[i];
    size_t n = r->n_intervals;
    static const char *const names[3] = {"checkpointer", "bgwriter", "backends"};
    struct svg_legend_entry legend[3];
    double top = 0;
    for (int k = 0; k < 3; k++) {
        legend[k] = (struct svg_legend_entry){names[k], (size_t)k};
        for (size_t t = 0; t < n; t++) {
            double v = sio_value(&r->intervals[t], W_BUF_CKPT + k);
            if (isfinite(v) && v > top)
                top = v;
        }
    }
    struct svg_axis x = {
        .lo = 0, .hi = r->intervals[n - 1].t_s, .title = "time (s)", .max_ticks = 10};
    struct svg_axis y = {.lo = 0, .hi = top > 0 ? top : 1, .title = "buffers written per second"};
    char title[160], id[32];
    snprintf(title, sizeof title, "Buffers written: %s", report_run_label(d, i));
    snprintf(id, sizeof id, "chart%d", ++d->next_id);
    report_figure_begin(d, title);
    struct svg_chart c;
    svg_chart_begin(&c, d->out, id, title, &x, &y, legend, 3);
    report_stall_bands(d, &c, i);
    double *xs = xmalloc(n * sizeof *xs), *ys = xmalloc(n * sizeof *ys);
    for (int k = 0; k < 3; k++) {
        for (size_t t = 0; t < n; t++) {
            xs[t] = r->intervals[t].t_s;
            ys[t] = sio_value(&r->intervals[t], W_BUF_CKPT + k);
        }
        svg_series(&c, xs, ys, n, (size_t)k);
    }
    free(xs);
    free(ys);
    svg_chart_end(&c);
    report_figure_end(d, "Shared buffers written per second: by the checkpointer (checkpoints), "
                         "the background writer, and backends that found no clean buffer "
                         "(pg_stat_bgwriter; from 17, client backends' writes of pg_stat_io).");
}

static int has_sio(const struct result *r)
{
    for (size_t t = 0; t < r->n_intervals; t++)
        if (r->intervals[t].sio.have)
            return 1;
    return 0;
}

static void per_tx_cell(struct report_doc *d, enum cmp_internal_id id, double v)
{
    char text[32];
    buf_puts(d->out, "<td>");
    if (v >= 0)
        report_escape(d->out, report_internal_value(text, sizeof text, id, v));
    else
        buf_puts(d->out, "-");
    buf_puts(d->out, "</td>");
}

static void per_tx_table(struct report_doc *d)
{
    static const char *const heads[] = {"WAL / tx",    "full-page images", "buffers written / tx",
                                        "temp / tx",   "checkpoints",      "autovacuum",
                                        "autoanalyze", "standby lag > 1 s"};
    report_table_begin(d, heads, sizeof heads / sizeof *heads);
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        if (!r->sio_per_tx.present)
            continue;
        report_run_heading(d, i);
        per_tx_cell(d, CMP_IN_WAL_PER_TX, r->sio_per_tx.wal_bytes);
        per_tx_cell(d, CMP_IN_FPI_SHARE, r->sio_per_tx.fpi_share);
        per_tx_cell(d, CMP_IN_BUFFERS_PER_TX, r->sio_per_tx.buffers_written);
        per_tx_cell(d, CMP_IN_TEMP_PER_TX, r->sio_per_tx.temp_bytes);
        for (int k = 0; k < RESULT_N_EVENT_KINDS; k++)
            buf_printf(d->out, "<td>%llu</td>", (unsigned long long)r->event_counts[k]);
        buf_puts(d->out, "</tr>\n");
    }
    buf_puts(d->out, "</tbody></table></div>\n");
}

void report_html_inside(struct report_doc *d)
{
    int any = 0;
    for (size_t i = 0; i < d->in->n; i++)
        any |= has_sio(&d->in->runs[i]);
    if (!any)
        return;
    report_section_begin(d, "inside", "Inside the server");
    per_tx_table(d);
    buf_puts(d->out, "<div class=\"figs\">\n");
    line_chart(d, W_WAL_MB_S, "WAL rate", "WAL written (MB/s)",
               "WAL bytes written per second (pg_stat_wal). Bands: checkpoints (orange), "
               "autovacuum (green), autoanalyze (yellow), a standby more than 1 s behind "
               "(blue); hover for the run and the table.");
    line_chart(d, W_HIT_PCT, "Shared-buffer hit ratio", "hits (% of block reads)",
               "The run's database's blocks found in shared buffers, of all it asked for "
               "(pg_stat_database): a read may still come from the OS cache.");
    for (size_t s = 0; s < d->n_sides; s++)
        for (size_t i = 0; i < d->in->n; i++)
            if (d->side_of[i] == s && has_sio(&d->in->runs[i]) && d->in->runs[i].n_intervals) {
                buffers_chart(d, i);
                break;
            }
    line_chart(d, W_LAG_MB, "Replication lag", "replay lag (MB, the furthest standby)",
               "How far the furthest standby's replay was behind the primary's WAL at each "
               "interval's end (pg_stat_replication).");
    buf_puts(d->out, "</div>\n");
    report_section_end(d);
}

void report_html_cmp_internals(struct report_doc *d, const struct cmp_outcome *o)
{
    if (!o->internals_sampled)
        return;
    if (o->n_internals == 0) {
        buf_puts(d->out, "<p>Server internals: none changed by 5 % or more.</p>\n");
        return;
    }
    buf_puts(d->out, "<p>Server internals that changed most: ");
    for (size_t i = 0; i < o->n_internals; i++) {
        const struct cmp_internal_change *c = &o->internals[i];
        char a[32], b[32];
        buf_puts(d->out, i ? ", " : "");
        report_escape(d->out, report_internal_label(c->id));
        buf_printf(d->out, " %s &#8594; %s", report_internal_value(a, sizeof a, c->id, c->a),
                   report_internal_value(b, sizeof b, c->id, c->b));
        if (isfinite(c->change_pct) && c->id != CMP_IN_FPI_SHARE && c->id != CMP_IN_HIT_RATIO)
            buf_printf(d->out, " (%+.0f&nbsp;%%)", c->change_pct);
    }
    buf_puts(d->out, ".</p>\n");
}
