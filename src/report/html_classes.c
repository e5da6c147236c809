/* Tables of runs side by side: the top statement classes by total time (of the first run),
 * and the figures of the first run's workload parts (result/part.h's tables). */
#include "report/html_int.h"

#include <string.h>

#include "report/fmt.h"
#include "report/part_out.h"

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
    report_parts_html(first, RESULT_PLACE_HTML_CLASSES, d->out); /* what they are */
    report_section_end(d);
}

/* A cell of a part's table as the report had it: its text cut to 95 bytes, "-" when empty. */
static void cell_text(struct buf *t, const struct result_row *row)
{
    buf_reset(t);
    if (row)
        report_row_expand(t, row, 0);
    if (t->len > 95) {
        t->len = 95;
        t->data[95] = 0;
    }
    if (t->len == 0)
        buf_puts(t, "-");
}

/* Row k of a part's table: its label (the first run's) and each run's figure (rows[i]: run
 * i's rows at the table's place), as text. */
static void part_row(struct report_doc *d, size_t runs, const struct result_rows *rows, size_t k)
{
    buf_puts(d->out, "<tr><th style=\"text-align:left\">");
    report_escape(d->out, rows[0].row[k].label ? rows[0].row[k].label : "");
    buf_puts(d->out, "</th>");
    struct buf t;
    buf_init(&t);
    for (size_t i = 0; i < runs; i++) {
        cell_text(&t, k < rows[i].n ? &rows[i].row[k] : NULL);
        buf_puts(d->out, "<td>");
        report_escape(d->out, t.data);
        buf_puts(d->out, "</td>");
    }
    buf_free(&t);
    buf_puts(d->out, "</tr>\n");
}

void report_html_part_tables(struct report_doc *d)
{
    if (d->in->n == 0)
        return;
    const struct result_parts *parts = &d->in->runs[0].parts;
    size_t runs = d->in->n < HTML_CLASS_RUNS ? d->in->n : HTML_CLASS_RUNS;
    for (size_t p = 0; p < parts->n; p++) {
        const struct result_part_ops *ops = parts->at[p].ops;
        if (!ops->table)
            continue;
        report_section_begin(d, ops->table->id, ops->table->title);
        run_heads(d, runs, "", "<th>");
        buf_puts(d->out, "</tr></thead><tbody>\n");
        struct result_rows rows[HTML_CLASS_RUNS] = {{0}};
        for (size_t i = 0; i < runs; i++) {
            const struct result *r = &d->in->runs[i];
            const void *data = result_part_get(r, ops->key);
            if (data && ops->rows)
                ops->rows(r, data, RESULT_PLACE_HTML_TABLE, &rows[i]);
        }
        for (size_t k = 0; k < rows[0].n; k++)
            part_row(d, runs, rows, k);
        for (size_t i = 0; i < runs; i++)
            result_rows_free(&rows[i]);
        buf_puts(d->out, "</tbody></table></div>\n");
        if (ops->table->note)
            buf_puts(d->out, ops->table->note);
        report_section_end(d);
    }
}
