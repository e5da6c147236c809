#include "report/text.h"

#include <string.h>

/* A time lost: "850 ms" below a second, else "1.4 s". */
static void print_lost(FILE *out, double ms)
{
    if (ms < 1000)
        fprintf(out, "%.0f ms", ms);
    else
        fprintf(out, "%.1f s", ms / 1000);
}

void report_text_client_health(FILE *out, const struct result *r)
{
    const struct result_client_health *h = &r->client_health;
    if (!h->present)
        return;
    fprintf(out, "client health:       %llu of %llu intervals stalled",
            (unsigned long long)h->intervals_stalled, (unsigned long long)h->intervals);
    if (h->intervals_stalled > 0) {
        fputs(", worst ", out);
        print_lost(out, h->worst_ms);
        fprintf(out, " at %.0f s, %s", h->worst_t_s, result_stall_cause_names[h->worst_cause]);
        /* Steal and a full run queue take the host's CPUs from the server beside the client;
         * a stopped client is its own. */
        if (h->worst_cause != RESULT_STALL_LATE && r->server.location &&
            strcmp(r->server.location, "local") == 0)
            fputs(" (the server, on the same host, lost the same time)", out);
    }
    fputc('\n', out);
}
