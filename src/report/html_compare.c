/* The comparison in the report. SEAM(issue 7): until compare is merged there is none. */
#include "report/fmt.h"
#include "report/html_int.h"

int report_cmp_window(const struct report_doc *d, double *start_s, double *end_s)
{
    (void)d;
    *start_s = *end_s = 0;
    return -1;
}

void report_verdict_sentence(struct report_doc *d, size_t side)
{
    (void)d;
    (void)side;
}

void report_html_comparison(struct report_doc *d)
{
    if (!d->in->no_cmp_reason)
        return;
    report_section_begin(d, "comparison", "Comparison");
    buf_puts(d->out, "<p>No comparison: ");
    report_escape(d->out, d->in->no_cmp_reason);
    buf_puts(d->out, "</p>\n");
    report_section_end(d);
}

size_t report_cmp_warnings(struct report_doc *d)
{
    (void)d;
    return 0;
}
