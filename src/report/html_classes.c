/* A replay's figures in the report: how faithful each replay was (what it sent and skipped,
 * outcomes that differ from the capture, its schedule lag and the client's part of it), and
 * the top statement classes by total time (of the first replay), side by side for every
 * replay given. */
#include "report/html_int.h"

#include <string.h>

#include "report/fmt.h"

/* Classes in the table, and runs side by side. */
#define HTML_CLASSES    20
#define HTML_CLASS_RUNS 6
/* A class's text is cut to this many characters. */
#define HTML_CLASS_WIDTH 160

static const struct result_script_figures *find_class(const struct result *r, const char *name)
{
    for (size_t i = 0; i < r->summary.n_classes; i++)
        if (r->summary.classes[i].name && strcmp(r->summary.classes[i].name, name) == 0)
            return &r->summary.classes[i];
    return NULL;
}

/* A table's first header row: corner, then each run's label in a cell opened by th. */
static void run_heads(struct report_doc *d, size_t runs, const char *corner, const char *th)
{
    buf_printf(d->out, "<div class=\"scroll\"><table><thead><tr><th>%s</th>", corner);
    for (size_t i = 0; i < runs; i++) {
        buf_puts(d->out, th);
        report_escape(d->out, report_run_label(d, i));
        buf_puts(d->out, "</th>");
    }
}

static void head(struct report_doc *d, size_t runs)
{
    run_heads(d, runs, "class", "<th colspan=\"4\">");
    buf_puts(d->out, "</tr><tr><th></th>");
    for (size_t i = 0; i < runs; i++)
        buf_puts(d->out, "<th>count</th><th>total</th><th>p50</th><th>p99</th>");
    buf_puts(d->out, "</tr></thead><tbody>\n");
}

static void cells(struct report_doc *d, const struct result_script_figures *c)
{
    char text[48];
    if (!c) {
        buf_puts(d->out, "<td>-</td><td>-</td><td>-</td><td>-</td>");
        return;
    }
    double total = c->latency_us.mean * (double)(c->transactions - c->failed);
    buf_printf(d->out, "<td>%s</td>", report_fmt_count(text, sizeof text, c->transactions));
    buf_printf(d->out, "<td>%s</td>", report_fmt_latency(text, sizeof text, total));
    buf_printf(d->out, "<td>%s</td>", report_fmt_latency(text, sizeof text, c->latency_us.p50));
    buf_printf(d->out, "<td>%s</td>", report_fmt_latency(text, sizeof text, c->latency_us.p99));
}

void report_html_classes(struct report_doc *d)
{
    if (d->in->n == 0 || d->in->runs[0].summary.n_classes == 0)
        return;
    const struct result *first = &d->in->runs[0];
    size_t runs = d->in->n < HTML_CLASS_RUNS ? d->in->n : HTML_CLASS_RUNS;
    report_section_begin(d, "classes", "Statement classes");
    head(d, runs);
    for (size_t k = 0; k < first->summary.n_classes && k < HTML_CLASSES; k++) {
        const char *name = first->summary.classes[k].name;
        char text[HTML_CLASS_WIDTH + 4];
        snprintf(text, sizeof text, "%.*s%s", HTML_CLASS_WIDTH, name ? name : "?",
                 name && strlen(name) > HTML_CLASS_WIDTH ? "..." : "");
        buf_puts(d->out, "<tr><td style=\"text-align:left\"><code>");
        report_escape(d->out, text);
        buf_puts(d->out, "</code></td>");
        for (size_t i = 0; i < runs; i++)
            cells(d, name ? find_class(&d->in->runs[i], name) : NULL);
        buf_puts(d->out, "</tr>\n");
    }
    buf_puts(d->out, "</tbody></table></div>\n");
    buf_puts(d->out, "<p class=\"meta\">Each statement class (the statement with its constants "
                     "replaced by placeholders) of the first replay's top classes by total "
                     "time, with its count, total time and latency (of the statements that "
                     "succeeded, from their intended start) in each replay.</p>\n");
    report_section_end(d);
}

/* One row of the fidelity table: a label and each replay's figure, as text. */
static void fidelity_row(struct report_doc *d, size_t runs, const char *label,
                         void (*fig)(const struct result_replay *p, char *text, size_t size))
{
    buf_puts(d->out, "<tr><th style=\"text-align:left\">");
    report_escape(d->out, label);
    buf_puts(d->out, "</th>");
    for (size_t i = 0; i < runs; i++) {
        char text[96] = "-";
        if (d->in->runs[i].replay.present)
            fig(&d->in->runs[i].replay, text, sizeof text);
        buf_puts(d->out, "<td>");
        report_escape(d->out, text);
        buf_puts(d->out, "</td>");
    }
    buf_puts(d->out, "</tr>\n");
}

static void fig_sent(const struct result_replay *p, char *t, size_t n)
{
    report_fmt_count(t, n, p->sent);
}

static void fig_skipped(const struct result_replay *p, char *t, size_t n)
{
    snprintf(t, n, "%llu copy, %llu unsupported, %llu read-only, %llu secret",
             (unsigned long long)p->skipped_copy, (unsigned long long)p->skipped_unsupported,
             (unsigned long long)p->skipped_read_only, (unsigned long long)p->skipped_secret);
}

static void fig_diverged(const struct result_replay *p, char *t, size_t n)
{
    snprintf(t, n, "%llu failed now, %llu succeeded now", (unsigned long long)p->failed_now,
             (unsigned long long)p->succeeded_now);
}

static void fig_sessions_failed(const struct result_replay *p, char *t, size_t n)
{
    report_fmt_count(t, n, p->sessions_failed);
}

static void lag_text(const struct result_lag *l, char *t, size_t n)
{
    char a[32], b[32], c[32];
    snprintf(t, n, "%s / %s / %s", report_fmt_latency(a, sizeof a, l->p50_us),
             report_fmt_latency(b, sizeof b, l->p99_us),
             report_fmt_latency(c, sizeof c, l->max_us));
}

static void fig_lag(const struct result_replay *p, char *t, size_t n)
{
    lag_text(&p->lag, t, n);
}

static void fig_client_lag(const struct result_replay *p, char *t, size_t n)
{
    if (result_lag_known(&p->client_lag)) /* else "-": a file written before it */
        lag_text(&p->client_lag, t, n);
}

void report_html_replay(struct report_doc *d)
{
    if (d->in->n == 0 || !d->in->runs[0].replay.present)
        return;
    size_t runs = d->in->n < HTML_CLASS_RUNS ? d->in->n : HTML_CLASS_RUNS;
    report_section_begin(d, "replay", "Replay fidelity");
    run_heads(d, runs, "", "<th>");
    buf_puts(d->out, "</tr></thead><tbody>\n");
    fidelity_row(d, runs, "statements sent", fig_sent);
    fidelity_row(d, runs, "skipped", fig_skipped);
    fidelity_row(d, runs, "outcomes unlike the capture", fig_diverged);
    fidelity_row(d, runs, "sessions failed", fig_sessions_failed);
    fidelity_row(d, runs, "schedule lag p50 / p99 / max", fig_lag);
    fidelity_row(d, runs, "client delay p50 / p99 / max", fig_client_lag);
    buf_puts(d->out, "</tbody></table></div>\n");
    buf_puts(d->out, "<p class=\"meta\">The schedule lag is how late statements were sent "
                     "behind the capture's schedule; the client delay is the time from the "
                     "later of a statement's due time and the end of its session's previous "
                     "statement to its sending (at speed max, from that end): the part of "
                     "the lag that is the client's. A lag that is not the client's is the "
                     "server taking longer than in the capture. Outcomes unlike the capture: "
                     "statements that failed in the replay but not in the capture, and the "
                     "reverse.</p>\n");
    report_section_end(d);
}
