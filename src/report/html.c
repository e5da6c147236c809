/* The HTML report: the document, its style, the summary of each run, and writing it out. */
#include "report/html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "compare/compare.h"
#include "report/fmt.h"
#include "report/part_out.h"
#include "report/html_int.h"
#include "report/svg.h"
#include "os/os.h"

/* Screen first; print keeps colours and puts one chart per row at a readable size. Only
 * system fonts: the file must render the same without a network. */
static const char style[] =
    ":root{color-scheme:light}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;font:15px/1.5 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica "
    "Neue\",Arial,sans-serif;color:#1a1a1a;background:#fff}\n"
    "main{max-width:1160px;margin:0 auto;padding:12px 16px 32px}\n"
    "h1{font-size:1.55em;margin:.3em 0 .1em;line-height:1.25}\n"
    "h2{font-size:1.2em;margin:1.6em 0 .6em;padding-bottom:.15em;border-bottom:2px solid #ddd}\n"
    "h3{font-size:1em;margin:0 0 .3em}\n"
    ".meta,figcaption,.detail{color:#555;font-size:.87em}\n"
    ".figs{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,440px),1fr));"
    "gap:20px 28px;align-items:start}\n"
    ".fig{margin:0;min-width:0}\n"
    "svg.chart{display:block;width:100%;height:auto}\n"
    "svg.chart .ax,svg.chart .lg{fill:#333}\n"
    "svg.swatch{vertical-align:middle;margin-right:6px}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    "table{border-collapse:collapse;font-size:.9em}\n"
    "th,td{padding:4px 8px;border-bottom:1px solid #e4e4e4;text-align:left;vertical-align:top}\n"
    "thead th{border-bottom:2px solid #ccc;white-space:nowrap}\n"
    "table.num td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "tbody th{font-weight:600;white-space:nowrap}\n"
    "td.ci svg{display:block}\n"
    "tr.detail td{border-bottom:1px solid #e4e4e4;padding-top:0;text-align:left;"
    "white-space:normal}\n"
    "tr.metric td,tr.metric th{border-bottom:none}\n"
    "tr.diff>*{background:#fff1c2}\n"
    "tr.diff th::before{content:\"\\2260  \";font-weight:700}\n"
    ".env td{max-width:22em;overflow-wrap:anywhere}\n"
    ".verdict{display:inline-block;padding:0 .5em;border-radius:3px;font-weight:600;"
    "white-space:nowrap;border:1px solid transparent}\n"
    ".v-better{background:#d3e8f6;color:#00466e;border-color:#8cbfe0}\n"
    ".v-worse{background:#fadccb;color:#7a2c00;border-color:#e8a27c}\n"
    ".v-none{background:#ececec;color:#333;border-color:#ccc}\n"
    ".v-inconclusive{background:#fff;color:#333;border:1px dashed #888}\n"
    ".run{margin:0 0 .9em}\n"
    ".run p,.run ul{margin:.1em 0 0}\n"
    ".warn li{margin:.2em 0}\n"
    "pre{white-space:pre-wrap;font-size:.85em;background:#f6f6f6;padding:8px;margin:.3em 0}\n"
    "footer{margin-top:2.5em;color:#666;font-size:.8em;border-top:1px solid #ddd;"
    "padding-top:.5em}\n"
    "@media print{body{font-size:10pt}main{max-width:none;padding:0}"
    ".figs{grid-template-columns:1fr}svg.chart{max-width:15cm}"
    ".fig,.run,tr,figure{break-inside:avoid}h2,h3{break-after:avoid}"
    ".scroll{overflow:visible}"
    "*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

static const char *label_of(const struct result *r, const char *path)
{
    return r->label && *r->label ? r->label : path;
}

void report_doc_init(struct report_doc *d, struct buf *out, const struct report_input *in)
{
    memset(d, 0, sizeof *d);
    d->out = out;
    d->in = in;
    d->sides = xcalloc(in->n, sizeof *d->sides);
    d->side_of = xcalloc(in->n, sizeof *d->side_of);
    for (size_t i = 0; i < in->n; i++) {
        const char *label = label_of(&in->runs[i], in->paths[i]);
        size_t s = 0;
        while (s < d->n_sides && strcmp(d->sides[s].label, label) != 0)
            s++;
        if (s == d->n_sides) {
            d->sides[s].label = label;
            d->sides[s].runs = xcalloc(in->n, sizeof *d->sides[s].runs);
            d->n_sides++;
        }
        d->sides[s].runs[d->sides[s].n++] = i;
        d->side_of[i] = s;
    }
}

void report_doc_free(struct report_doc *d)
{
    for (size_t s = 0; s < d->n_sides; s++)
        free(d->sides[s].runs);
    free(d->sides);
    free(d->side_of);
    memset(d, 0, sizeof *d);
}

const char *report_run_label(const struct report_doc *d, size_t i)
{
    return d->sides[d->side_of[i]].label;
}

void report_section_begin(struct report_doc *d, const char *id, const char *title)
{
    buf_printf(d->out, "<section id=\"%s\">\n<h2>", id);
    report_escape(d->out, title);
    buf_puts(d->out, "</h2>\n");
}

void report_table_begin(struct report_doc *d, const char *const *heads, size_t n)
{
    buf_puts(d->out, "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>run</th>");
    for (size_t k = 0; k < n; k++)
        buf_printf(d->out, "<th>%s</th>", heads[k]);
    buf_puts(d->out, "</tr></thead><tbody>\n");
}

void report_section_end(struct report_doc *d)
{
    buf_puts(d->out, "</section>\n");
}

void report_swatch(struct report_doc *d, size_t side)
{
    buf_printf(d->out,
               "<svg class=\"swatch\" width=\"26\" height=\"10\" viewBox=\"0 0 26 10\" "
               "aria-hidden=\"true\"><line x1=\"1\" y1=\"5\" x2=\"25\" y2=\"5\" stroke=\"%s\" "
               "stroke-width=\"3\" stroke-dasharray=\"%s\"/></svg>",
               svg_color(side), svg_dash(side));
}

void report_run_heading(struct report_doc *d, size_t i)
{
    const struct report_side *side = &d->sides[d->side_of[i]];
    buf_puts(d->out, "<tr><th>");
    report_swatch(d, d->side_of[i]);
    report_escape(d->out, side->n > 1 ? d->in->paths[i] : side->label);
    buf_puts(d->out, "</th>");
}

/* "A vs B vs C", or the one setup's name. */
static void title_text(const struct report_doc *d, struct buf *b)
{
    if (d->in->title) {
        buf_puts(b, d->in->title);
        return;
    }
    buf_puts(b, "pgarena report: ");
    for (size_t s = 0; s < d->n_sides; s++)
        buf_printf(b, "%s%s", s ? " vs " : "", d->sides[s].label);
}

void report_page_begin(struct buf *out, const char *title)
{
    buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<meta name=\"generator\" content=\"pgarena " PGARENA_VERSION "\">\n<title>");
    report_escape(out, title);
    buf_printf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n<header><h1>", style);
    report_escape(out, title);
    buf_puts(out, "</h1>\n");
}

static void head(struct report_doc *d)
{
    struct buf t;
    buf_init(&t);
    title_text(d, &t);
    report_page_begin(d->out, t.data);
    buf_printf(d->out, "<p class=\"meta\">%zu run%s", d->in->n, d->in->n == 1 ? "" : "s");
    if (d->in->runs[0].started_at) {
        buf_puts(d->out, ", the first started ");
        report_escape(d->out, d->in->runs[0].started_at);
    }
    buf_puts(d->out, ".</p></header>\n");
    buf_free(&t);
}

/* What was run and how: workload, scale, clients, mode, duration, server. */
static void describe_setup(struct buf *b, const struct result *r)
{
    char n[48], size[96];
    buf_printf(b, "%s %s %s, ", r->workload.name ? r->workload.name : "a custom workload",
               r->workload.n_sizes > 0 ? "on" : "at", report_fmt_dataset(size, sizeof size, r));
    buf_printf(b, "%d client%s on %d thread%s, %s protocol, ", r->options.clients,
               r->options.clients == 1 ? "" : "s", r->options.threads,
               r->options.threads == 1 ? "" : "s",
               r->options.protocol ? r->options.protocol : "simple");
    if (r->options.rate > 0)
        buf_printf(b, "open loop at %s tps", report_fmt_num(n, sizeof n, r->options.rate, 4));
    else
        buf_puts(b, "closed loop");
    buf_printf(b, "; %s s measured", report_fmt_num(n, sizeof n, r->summary.duration_s, 3));
    if (r->options.warmup_s > 0)
        buf_printf(b, " after a %s s warm-up", report_fmt_num(n, sizeof n, r->options.warmup_s, 3));
    buf_puts(b, ". ");
    if (r->server.version)
        buf_printf(b, "PostgreSQL %s", r->server.version);
    else
        buf_puts(b, "Server version not recorded");
    if (r->client.hostname)
        buf_printf(b, ", driven from %s", r->client.hostname);
    buf_puts(b, ". ");
}

/* What it measured: transactions, throughput, latency, failures. */
static void describe_outcome(struct buf *b, const struct result *r)
{
    char n[48], p50[32], p99[32], max[32];
    const struct latency_summary *l = &r->summary.latency_us;
    buf_printf(b, "%s transactions at ", report_fmt_count(n, sizeof n, r->summary.transactions));
    buf_printf(
        b, "%s tps; latency p50 %s, p99 %s, max %s; ",
        report_fmt_sig(n, sizeof n, r->summary.tps, 4), report_fmt_latency(p50, sizeof p50, l->p50),
        report_fmt_latency(p99, sizeof p99, l->p99), report_fmt_latency(max, sizeof max, l->max));
    uint64_t all = r->summary.transactions + r->summary.failed;
    if (r->summary.failed == 0)
        buf_puts(b, "no failures.");
    else
        buf_printf(
            b, "%s failed (%s%%).", report_fmt_count(n, sizeof n, r->summary.failed),
            report_fmt_sig(p50, sizeof p50, 100.0 * (double)r->summary.failed / (double)all, 3));
    report_parts_html(r, RESULT_PLACE_HTML_SUMMARY, b);
    if (!r->complete)
        buf_printf(b, " The run was cut short (%s): these are the numbers up to then.",
                   r->end_reason ? r->end_reason : "incomplete");
}

/* A setup's runs: one paragraph when it has one run, else the setup once and a line per run
 * (trials share the setup; compare warns when they do not). */
static void side_summary(struct report_doc *d, size_t s, struct buf *text)
{
    const struct report_side *side = &d->sides[s];
    buf_puts(d->out, "<div class=\"run\"><h3>");
    report_swatch(d, s);
    report_escape(d->out, side->label);
    buf_puts(d->out, " <span class=\"meta\">");
    if (side->n > 1)
        buf_printf(d->out, "%zu runs", side->n);
    else
        report_escape(d->out, d->in->paths[side->runs[0]]);
    buf_puts(d->out, "</span></h3><p>");
    buf_reset(text);
    describe_setup(text, &d->in->runs[side->runs[0]]);
    if (side->n == 1)
        describe_outcome(text, &d->in->runs[side->runs[0]]);
    report_escape(d->out, text->data);
    report_verdict_sentence(d, s);
    buf_puts(d->out, "</p>\n");
    if (side->n > 1) {
        buf_puts(d->out, "<ul>\n");
        for (size_t k = 0; k < side->n; k++) {
            buf_reset(text);
            describe_outcome(text, &d->in->runs[side->runs[k]]);
            buf_puts(d->out, "<li>");
            report_escape(d->out, d->in->paths[side->runs[k]]);
            buf_puts(d->out, ": ");
            report_escape(d->out, text->data);
            buf_puts(d->out, "</li>\n");
        }
        buf_puts(d->out, "</ul>\n");
    }
    buf_puts(d->out, "</div>\n");
}

static void summary(struct report_doc *d)
{
    report_section_begin(d, "summary", "Summary");
    struct buf text;
    buf_init(&text);
    for (size_t s = 0; s < d->n_sides; s++)
        side_summary(d, s, &text);
    buf_free(&text);
    report_section_end(d);
}

static void footer(struct report_doc *d)
{
    buf_puts(d->out, "<footer>Made by pgarena " PGARENA_VERSION " from ");
    for (size_t i = 0; i < d->in->n; i++) {
        buf_puts(d->out, i == 0 ? "" : i + 1 == d->in->n ? " and " : ", ");
        report_escape(d->out, d->in->paths[i]);
    }
    buf_puts(d->out, ". Self-contained: this file needs no network and runs no script.</footer>\n");
}

void report_html(struct buf *out, const struct report_input *in)
{
    struct report_doc d;
    report_doc_init(&d, out, in);
    head(&d);
    summary(&d);
    report_html_comparison(&d);
    report_html_warnings(&d);
    report_html_over_time(&d);
    report_html_why(&d);
    report_html_inside(&d);
    report_html_distribution(&d);
    report_html_scripts(&d);
    report_html_part_tables(&d);
    report_html_classes(&d);
    report_html_agents(&d);
    report_html_failures(&d);
    report_html_environment(&d);
    footer(&d);
    buf_puts(out, "</main>\n</body>\n</html>\n");
    report_doc_free(&d);
}

/* Write data to path through a temporary file beside it, so that a reader never sees half a
 * report and a failed write leaves any earlier report in place. */
int report_write_atomic(const char *path, const char *data, size_t len, struct err *e)
{
    char *tmp = xasprintf("%s.tmp-XXXXXX", path);
    int fd = os_mkstemp(tmp);
    if (fd < 0) {
        err_set(e, ERR_INPUT, "cannot write the report %s: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    int saved = errno;
    /* mkstemp made it 0600: give it the mode a new file gets */
    int ok = done == len && os_default_mode(fd) == 0;
    if (close(fd) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (ok && os_replace(tmp, path) != 0) {
        ok = 0;
        saved = errno;
    }
    if (!ok) {
        os_unlink(tmp);
        err_set(e, ERR_INPUT, "cannot write the report %s: %s", path, strerror(saved));
    }
    free(tmp);
    return ok ? 0 : -1;
}

int report_html_write(const struct result *runs, const char *const *paths, size_t n,
                      const char *title, const char *html_path, struct err *e)
{
    struct report_input in = {.n = n, .runs = runs, .paths = paths, .title = title};
    struct cmp_report cmp;
    struct err ce = {0};
    int several = 0;
    for (size_t i = 1; i < n; i++)
        several |= strcmp(label_of(&runs[i], paths[i]), label_of(&runs[0], paths[0])) != 0;
    struct cmp_config cfg = {
        .seed = CMP_DEFAULT_SEED, .margin = CMP_DEFAULT_MARGIN, .resamples = CMP_RESAMPLES};
    /* A comparison that cannot be made (a run without a complete interval) leaves the rest
     * of the report as useful as ever: it says why instead. */
    if (several && cmp_compare(runs, paths, n, &cfg, &cmp, &ce) == 0)
        in.cmp = &cmp;
    else if (several)
        in.no_cmp_reason = ce.msg;
    struct buf out;
    buf_init(&out);
    report_html(&out, &in);
    int rc = report_write_atomic(html_path, out.data, out.len, e);
    buf_free(&out);
    if (in.cmp)
        cmp_report_free(&cmp);
    return rc;
}
