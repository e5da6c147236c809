/* The runs whose client stalled, named beside the verdicts (issue 37, item 2): a verdict that
 * stands on a run whose client lost time is one to read with that in mind. */
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "compare/cmp_int.h"

int cmp_stall_line(char *buf, size_t size, const char *label, size_t trial, double stalled_ms,
                   uint64_t intervals, const char *cause)
{
    char lost[32];
    if (stalled_ms < 999.5) /* what rounds to 1000 ms is 1.0 s */
        snprintf(lost, sizeof lost, "%.0f ms", stalled_ms);
    else
        snprintf(lost, sizeof lost, "%.1f s", stalled_ms / 1000);
    return snprintf(buf, size, "%s trial %zu: client stalled %s (%llu interval%s), %s", label,
                    trial, lost, (unsigned long long)intervals, intervals == 1 ? "" : "s", cause);
}

int cmp_stall_text(char *buf, size_t size, const char *label, size_t trial,
                   const struct result_client_health *h)
{
    if (!h->present || h->intervals_stalled == 0)
        return 0;
    return cmp_stall_line(buf, size, label, trial, h->stalled_ms, h->intervals_stalled,
                          result_stall_cause_names[h->worst_cause]);
}

void cmp_stalls(struct cmp_report *rep)
{
    for (size_t s = 0; s < rep->n_sides; s++) {
        const struct cmp_side *side = &rep->sides[s];
        for (size_t i = 0; i < side->n_trials; i++) {
            const struct result_client_health *h = &side->runs[i]->client_health;
            int len = cmp_stall_text(NULL, 0, side->label, i + 1, h);
            if (len <= 0)
                continue;
            char *text = xmalloc((size_t)len + 1);
            cmp_stall_text(text, (size_t)len + 1, side->label, i + 1, h);
            rep->stalls = xrealloc(rep->stalls, (rep->n_stalls + 1) * sizeof *rep->stalls);
            rep->stalls[rep->n_stalls++] = (struct cmp_stall){
                s, i + 1, h->stalled_ms, h->intervals_stalled, h->worst_cause, text};
        }
    }
}
