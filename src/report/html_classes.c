/* A replay's statement classes in the report: the top classes by total time (of the first
 * replay), side by side for every replay given. */
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

static void head(struct report_doc *d, size_t runs)
{
    buf_puts(d->out, "<div class=\"scroll\"><table><thead><tr><th>class</th>");
    for (size_t i = 0; i < runs; i++) {
        buf_puts(d->out, "<th colspan=\"4\">");
        report_escape(d->out, report_run_label(d, i));
        buf_puts(d->out, "</th>");
    }
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
