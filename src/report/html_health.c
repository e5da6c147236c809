/* The client's health in the report: every run's client-stalled intervals as bands on the
 * time charts, so that a dip there reads as the client's, not the server's. */
#include "report/html_int.h"

#include <stdint.h>
#include <stdio.h>

#include "report/svg.h"

/* The band's colour (an svg style): the palette's black, which no event kind takes. */
#define STALL_STYLE 6

void report_stall_bands(struct report_doc *d, struct svg_chart *c, size_t run)
{
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        if (run != SIZE_MAX && i != run)
            continue;
        for (size_t t = 0; t < r->n_intervals; t++) {
            const struct result_interval *it = &r->intervals[t];
            if (!it->health.present || it->health.cause == RESULT_STALL_NONE)
                continue;
            char label[200];
            snprintf(label, sizeof label, "%s: client stalled %.0f ms (%s) by %.0f s",
                     report_run_label(d, i), it->health.stalled_ms,
                     result_stall_cause_names[it->health.cause], it->t_s);
            svg_event_band(c, it->t_s - it->duration_s, it->t_s, STALL_STYLE, label);
        }
    }
}

int report_any_stalls(const struct report_doc *d)
{
    for (size_t i = 0; i < d->in->n; i++) {
        const struct result *r = &d->in->runs[i];
        if (r->client_health.present && r->client_health.intervals_stalled > 0)
            return 1;
    }
    return 0;
}
