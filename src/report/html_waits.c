/* Why, in the report: wait events over time (stacked shares, one chart per setup), the client's
 * and the host's CPU and the host's disk over time, and pg_stat_statements' top statements. */
#include "report/html_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "report/fmt.h"
#include "report/svg.h"
#include "report/text.h"

/* Events drawn in their own colour; the rest are "other". Styles 0..5 of the Okabe-Ito
 * palette tell them apart for colour-blind readers; "other" takes the pale yellow. */
#define STACK_EVENTS 6
#define STYLE_OTHER  7
/* Events named in the table's row of a run. */
#define TABLE_EVENTS 4

static int sampled(const struct result *r)
{
    return r->waits.present || r->client_cpu.present;
}

static int any_sampled(const struct report_doc *d)
{
    for (size_t i = 0; i < d->in->n; i++)
        if (sampled(&d->in->runs[i]))
            return 1;
    return 0;
}

/* The first run of each setup that was sampled, or -1. */
static long first_sampled(const struct report_doc *d, size_t side)
{
    for (size_t i = 0; i < d->in->n; i++)
        if (d->side_of[i] == side && sampled(&d->in->runs[i]))
            return (long)i;
    return -1;
}

/* The share (0..1) of event name among an interval's kept events; with name NULL, of the events
 * not among top[0..n_top). */
static double interval_share(const struct result_interval *it, const char *name,
                             const struct result_wait *top, size_t n_top)
{
    uint64_t total = report_waits_total(it->waits, it->n_waits), part = 0;
    if (total == 0)
        return NAN;
    for (size_t i = 0; i < it->n_waits; i++) {
        int listed = 0;
        for (size_t k = 0; k < n_top && !listed; k++)
            listed = strcmp(it->waits[i].name, top[k].name) == 0;
        if (name ? strcmp(it->waits[i].name, name) == 0 : !listed)
            part += it->waits[i].count;
    }
    return (double)part / (double)total;
}

/* Run i's wait events over time, stacked: the run's top events bottom up, then the rest. */
static void waits_chart(struct report_doc *d, size_t i)
{
    const struct result *r = &d->in->runs[i];
    if (!r->waits.present || r->waits.n_events == 0 || r->n_intervals == 0)
        return;
    size_t n_top = r->waits.n_events < STACK_EVENTS ? r->waits.n_events : STACK_EVENTS;
    struct svg_legend_entry legend[STACK_EVENTS + 1];
    for (size_t k = 0; k < n_top; k++)
        legend[k] = (struct svg_legend_entry){r->waits.events[k].name, k};
    legend[n_top] = (struct svg_legend_entry){"other", STYLE_OTHER};
    size_t n = r->n_intervals;
    double *xs = xmalloc(n * sizeof *xs), *lo = xmalloc(n * sizeof *lo);
    double *hi = xmalloc(n * sizeof *hi);
    struct svg_axis x = {
        .lo = 0, .hi = r->intervals[n - 1].t_s, .title = "time (s)", .max_ticks = 10};
    struct svg_axis y = {.lo = 0, .hi = 100, .title = "share of the sampled backends (%)"};
    char title[160], id[32];
    snprintf(title, sizeof title, "Wait events: %s", report_run_label(d, i));
    snprintf(id, sizeof id, "chart%d", ++d->next_id);
    report_figure_begin(d, title);
    struct svg_chart c;
    svg_chart_begin(&c, d->out, id, title, &x, &y, legend, n_top + 1);
    report_stall_bands(d, &c, i);
    for (size_t t = 0; t < n; t++) {
        xs[t] = r->intervals[t].t_s;
        hi[t] = 0;
    }
    for (size_t k = 0; k <= n_top; k++) {
        for (size_t t = 0; t < n; t++) {
            double s = interval_share(&r->intervals[t], k < n_top ? legend[k].name : NULL,
                                      r->waits.events, n_top);
            lo[t] = hi[t];
            hi[t] = isnan(s) ? NAN : lo[t] + 100 * s;
        }
        svg_fill(&c, xs, lo, hi, n, legend[k].style, 1.0); /* NaN: an unsampled interval */
    }
    svg_chart_end(&c);
    report_figure_end(d,
                      "What the run's own backends were doing, sampled in pg_stat_activity: each "
                      "interval's events as shares of its samples, stacked from the run's most "
                      "frequent event up. CPU: active without a wait event; Client:ClientRead: "
                      "waiting for the client's next statement.");
    free(xs);
    free(lo);
    free(hi);
}

enum cpu_what { CPU_CLIENT, CPU_HOST, DISK_WRITE, DISK_READ };

static double cpu_value(const struct result_interval *it, int what)
{
    if (what == CPU_CLIENT)
        return it->has_client_cpu ? it->cpu_user + it->cpu_system : NAN;
    if (!it->has_host)
        return NAN;
    if (what == CPU_HOST)
        return 100 * (1 - it->host.idle);
    double bytes = (double)(what == DISK_WRITE ? it->host.write_bytes : it->host.read_bytes);
    return result_interval_rate(it, bytes) / 1e6;
}

/* One line per sampled run of a per-interval figure; nothing when no run has it (the client's
 * CPU is drawn always). */
static void cpu_chart(struct report_doc *d, enum cpu_what what, const char *title,
                      const char *ytitle, const char *caption)
{
    report_time_chart(d, &(struct report_time_chart){.value = cpu_value,
                                                     .what = (int)what,
                                                     .title = title,
                                                     .ytitle = ytitle,
                                                     .caption = caption,
                                                     .y_top = what == CPU_HOST ? 100 : 0,
                                                     .skip_empty = what != CPU_CLIENT});
}

/* The top wait events of every sampled run, as shares. */
static void waits_table(struct report_doc *d)
{
    buf_puts(d->out, "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>run</th>"
                     "<th>samples</th><th style=\"text-align:left\">top wait events (share of "
                     "the sampled backends)</th><th>client CPU (cores)</th><th>busiest thread"
                     "</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        if (!sampled(r))
            continue;
        char text[48];
        report_run_heading(d, i);
        buf_printf(d->out, "<td>%s</td><td style=\"text-align:left\">",
                   report_fmt_count(text, sizeof text, r->waits.samples));
        uint64_t total = report_waits_total(r->waits.events, r->waits.n_events);
        for (size_t k = 0; k < r->waits.n_events && k < TABLE_EVENTS && total > 0; k++) {
            buf_puts(d->out, k ? ", " : "");
            report_escape(d->out, r->waits.events[k].name);
            buf_printf(d->out, " %.1f&nbsp;%%",
                       100.0 * (double)r->waits.events[k].count / (double)total);
        }
        if (total == 0)
            report_escape(d->out, r->waits.note ? r->waits.note : "none seen");
        if (r->client_cpu.present)
            buf_printf(d->out, "</td><td>%.2f</td><td>%.0f&nbsp;%%</td></tr>\n",
                       r->client_cpu.user + r->client_cpu.system,
                       100 * r->client_cpu.max_thread_core);
        else
            buf_puts(d->out, "</td><td>-</td><td>-</td></tr>\n");
    }
    buf_puts(d->out, "</tbody></table></div>\n");
}

/* pg_stat_statements' top statements of every run that has them, or why not. */
static void statements_table(struct report_doc *d)
{
    int any = 0;
    for (size_t i = 0; i < d->in->n; i++)
        any |= d->in->runs[i].n_statements_server > 0;
    if (!any) {
        for (size_t i = 0; i < d->in->n; i++)
            if (d->in->runs[i].statements_server_note) {
                buf_puts(d->out, "<p class=\"meta\">Server statements: ");
                report_escape(d->out, d->in->runs[i].statements_server_note);
                buf_puts(d->out, ".</p>\n");
                break;
            }
        return;
    }
    buf_puts(d->out, "<h3>Server statements (pg_stat_statements, top by total time)</h3>\n"
                     "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>run</th>"
                     "<th style=\"text-align:left\">query</th><th>calls</th><th>total</th>"
                     "<th>mean</th><th>rows</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        for (size_t k = 0; k < r->n_statements_server; k++) {
            const struct result_server_statement *s = &r->statements_server[k];
            char a[48], b[48], c[48], q[200];
            report_run_heading(d, i);
            buf_puts(d->out, "<td style=\"text-align:left\"><code>");
            report_escape(d->out, report_fmt_cut(q, sizeof q, s->query ? s->query : ""));
            buf_printf(d->out, "</code></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                       report_fmt_count(a, sizeof a, s->calls),
                       report_fmt_latency(b, sizeof b, s->total_ms * 1000),
                       report_fmt_latency(c, sizeof c, s->mean_ms * 1000),
                       report_fmt_count(q, sizeof q, s->rows));
        }
    }
    buf_puts(d->out, "</tbody></table></div>\n");
}

void report_html_why(struct report_doc *d)
{
    if (!any_sampled(d))
        return;
    report_section_begin(d, "why", "Why: wait events, CPU and statements");
    waits_table(d);
    buf_puts(d->out, "<div class=\"figs\">\n");
    for (size_t s = 0; s < d->n_sides; s++) {
        long i = first_sampled(d, s);
        if (i >= 0)
            waits_chart(d, (size_t)i);
    }
    cpu_chart(d, CPU_CLIENT, "Client CPU", "cores",
              "The client process's CPU time per interval, in cores (1 is one core busy).");
    cpu_chart(d, CPU_HOST, "Host CPU busy", "busy (%)",
              "The share of all the host's CPU time not idle, when the server runs on the "
              "client's host (both compete for it).");
    cpu_chart(d, DISK_WRITE, "Disk writes", "MB/s written",
              "Bytes written by the host's disks per second (/proc/diskstats), when the server "
              "runs on the client's host.");
    cpu_chart(d, DISK_READ, "Disk reads", "MB/s read",
              "Bytes read by the host's disks per second; drawn only when there were any.");
    buf_puts(d->out, "</div>\n");
    statements_table(d);
    report_section_end(d);
}
