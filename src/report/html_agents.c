/* Merged runs in the report (run --agents): a row per agent, so that an overloaded load host
 * shows as a lower throughput per client or a higher p99 than the others'. */
#include "report/html_int.h"

#include "report/fmt.h"

static int any_merged(const struct report_doc *d)
{
    for (size_t i = 0; i < d->in->n; i++)
        if (d->in->runs[i].n_agents > 0)
            return 1;
    return 0;
}

static void agent_row(struct report_doc *d, const struct result_agent *a)
{
    char text[48];
    buf_printf(d->out, "<td>%d</td><td style=\"text-align:left\">", a->index);
    report_escape(d->out, a->host ? a->host : "?");
    buf_printf(d->out, "</td><td>%d</td>", a->clients);
    buf_printf(d->out, "<td>%s</td>", report_fmt_sig(text, sizeof text, a->rate, 4));
    buf_printf(d->out, "<td>%s</td>", report_fmt_count(text, sizeof text, a->transactions));
    buf_printf(d->out, "<td>%s</td>", report_fmt_sig(text, sizeof text, a->tps, 4));
    buf_printf(d->out, "<td>%s</td>",
               report_fmt_sig(text, sizeof text, a->clients > 0 ? a->tps / a->clients : 0, 4));
    buf_printf(d->out, "<td>%s</td>", report_fmt_latency(text, sizeof text, a->p99_us));
    buf_printf(d->out, "<td>%s</td>",
               a->clock_uncertainty_us >= 0
                   ? report_fmt_latency(text, sizeof text, a->clock_uncertainty_us)
                   : "?");
    buf_puts(d->out, "<td style=\"text-align:left\">");
    report_escape(d->out, a->end_reason ? a->end_reason : "?");
    buf_puts(d->out, "</td></tr>\n");
}

void report_html_agents(struct report_doc *d)
{
    if (!any_merged(d))
        return;
    static const char *const heads[] = {"agent",        "host", "clients",        "rate",
                                        "transactions", "tps",  "tps per client", "p99",
                                        "clock ±",      "end"};
    report_section_begin(d, "agents", "Load hosts");
    report_table_begin(d, heads, sizeof heads / sizeof *heads);
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        for (size_t k = 0; k < r->n_agents; k++) {
            report_run_heading(d, i);
            agent_row(d, &r->agents[k]);
        }
    }
    buf_puts(d->out, "</tbody></table></div>\n");
    buf_puts(d->out, "<p class=\"meta\">A run split over several agents (run --agents), merged "
                     "exactly: each agent's share. An agent with less throughput per client or "
                     "a higher p99 than the others may have been limited by its own host.</p>\n");
    report_section_end(d);
}
