#include "report/text.h"

#include <string.h>

#include "report/fmt.h"

/* The summary's lines about why: wait events as shares of what the sampler saw, the client's
 * CPU (and a warning when a thread of it was busy), and pg_stat_statements' top statements. */

/* Wait events on the summary line; the rest are left out. */
#define SUMMARY_WAITS 4
/* The summary's values start in this column, and its lines end before WIDTH. */
#define INDENT 21
#define WIDTH  100
/* Statements in the summary's table. */
#define SUMMARY_STATEMENTS 5
/* A client thread busier than this share of one core may be what limits the run. */
#define BUSY_THREAD 0.9

uint64_t report_waits_total(const struct result_wait *w, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += w[i].count;
    return total;
}

static void print_waits(FILE *out, const struct result *r)
{
    const struct result_waits *w = &r->waits;
    uint64_t total = report_waits_total(w->events, w->n_events);
    fputs("wait events:         ", out);
    if (total == 0) {
        fprintf(out, "none seen (%s)\n", w->note ? w->note : "no backend of the run was sampled");
        return;
    }
    int col = INDENT;
    for (size_t i = 0; i < w->n_events && i <= SUMMARY_WAITS; i++) {
        char item[160];
        if (i == SUMMARY_WAITS)
            snprintf(item, sizeof item, "%zu more", w->n_events - SUMMARY_WAITS);
        else
            snprintf(item, sizeof item, "%s %.1f %%", w->events[i].name,
                     100.0 * (double)w->events[i].count / (double)total);
        int len = (int)strlen(item) + (i ? 2 : 0);
        if (i && col + len > WIDTH) { /* wrap under the first event */
            fprintf(out, ",\n%*s%s", INDENT, "", item);
            col = INDENT + len - 2;
        } else {
            fprintf(out, "%s%s", i ? ", " : "", item);
            col += len;
        }
    }
    fprintf(out,
            "\n                     (%llu samples, every %d ms, of the run's own backends%s)\n",
            (unsigned long long)w->samples, w->sample_ms,
            w->visibility && strcmp(w->visibility, "own-user") == 0
                ? "; pg_stat_activity showed only the user's own sessions"
                : "");
}

static void print_cpu(FILE *out, const struct result *r)
{
    const struct result_client_cpu *c = &r->client_cpu;
    fprintf(out,
            "client CPU:          %.2f cores (user %.2f, system %.2f); busiest thread %.0f %% of "
            "a core\n",
            c->user + c->system, c->user, c->system, 100 * c->max_thread_core);
    if (c->max_thread_core > BUSY_THREAD)
        fprintf(out,
                "warning:             a client thread used %.0f %% of a core: the client may be "
                "what limits the numbers (try more threads, -j)\n",
                100 * c->max_thread_core);
}

static void print_statements_server(FILE *out, const struct result *r)
{
    if (r->n_statements_server == 0) {
        if (r->statements_server_note)
            fprintf(out, "server statements:   none: %s\n", r->statements_server_note);
        return;
    }
    fprintf(out, "server statements (pg_stat_statements, top by total time):\n");
    fprintf(out, "  %10s %10s %9s %10s  %s\n", "calls", "total_ms", "mean_ms", "rows", "query");
    for (size_t i = 0; i < r->n_statements_server && i < SUMMARY_STATEMENTS; i++) {
        const struct result_server_statement *s = &r->statements_server[i];
        char q[100 - 46 + 1];
        fprintf(out, "  %10llu %10.1f %9.3f %10llu  %s\n", (unsigned long long)s->calls,
                s->total_ms, s->mean_ms, (unsigned long long)s->rows,
                report_fmt_cut(q, sizeof q, s->query ? s->query : ""));
    }
}

void report_text_waits(FILE *out, const struct result *r)
{
    if (r->waits.present)
        print_waits(out, r);
    if (r->client_cpu.present)
        print_cpu(out, r);
    report_text_client_health(out, r);
    print_statements_server(out, r);
}

const struct result_wait *report_interval_top_wait(const struct result_interval *it, double *share)
{
    uint64_t total = report_waits_total(it->waits, it->n_waits);
    *share = 0;
    if (total == 0)
        return NULL;
    *share = (double)it->waits[0].count / (double)total;
    return &it->waits[0];
}
