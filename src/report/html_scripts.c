/* Per-script results in the report: a row per script of every run that ran several. */
#include "report/html_int.h"

#include "report/fmt.h"

static int any_script_mix(const struct report_doc *d)
{
    for (size_t i = 0; i < d->in->n; i++)
        if (d->in->runs[i].summary.n_scripts > 1)
            return 1;
    return 0;
}

static void script_row(struct report_doc *d, const struct result *r,
                       const struct result_script_figures *s)
{
    char text[48];
    const struct latency_summary *l = &s->latency_us;
    buf_puts(d->out, "<td style=\"text-align:left\">");
    report_escape(d->out, s->name ? s->name : "?");
    buf_printf(d->out, "</td><td>%d</td><td>%s</td>", s->weight,
               report_fmt_count(text, sizeof text, s->transactions));
    double share = r->summary.transactions > 0
                       ? 100.0 * (double)s->transactions / (double)r->summary.transactions
                       : 0;
    buf_printf(d->out, "<td>%s%%</td>", report_fmt_num(text, sizeof text, share, 3));
    buf_printf(d->out, "<td>%s</td>", report_fmt_count(text, sizeof text, s->failed));
    buf_printf(d->out, "<td>%s</td>", report_fmt_sig(text, sizeof text, s->tps, 4));
    double v[] = {l->mean, l->p50, l->p95, l->p99, l->max};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        buf_printf(d->out, "<td>%s</td>", report_fmt_latency(text, sizeof text, v[k]));
    buf_puts(d->out, "</tr>\n");
}

void report_html_scripts(struct report_doc *d)
{
    if (!any_script_mix(d))
        return;
    static const char *const heads[] = {"script", "weight", "transactions", "share",
                                        "failed", "tps",    "mean",         "p50",
                                        "p95",    "p99",    "max"};
    report_section_begin(d, "scripts", "Per script");
    report_table_begin(d, heads, sizeof heads / sizeof *heads);
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        for (size_t s = 0; s < r->summary.n_scripts; s++) {
            report_run_heading(d, i);
            script_row(d, r, &r->summary.scripts[s]);
        }
    }
    buf_puts(d->out, "</tbody></table></div>\n");
    buf_puts(d->out, "<p class=\"meta\">Each script's transactions over the whole run (the "
                     "latency of successful ones).</p>\n");
    report_section_end(d);
}
