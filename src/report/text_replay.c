/* A replay's part of the text summary: what was replayed, how faithfully, and its classes. */
#include "report/text.h"

#include <string.h>

/* Classes listed in the summary (the result file keeps the top 200). */
#define TEXT_CLASSES 10
/* A class's text is cut to this many characters in the table. */
#define TEXT_CLASS_WIDTH 60

static double ms(double us)
{
    return us / 1000.0;
}

void report_text_replay_workload(FILE *out, const struct result *r)
{
    const struct result_replay *p = &r->replay;
    fprintf(out,
            "workload:            replay of %s: %llu sessions, %llu statements, %llu "
            "transactions\n",
            p->capture ? p->capture : "?", (unsigned long long)p->sessions,
            (unsigned long long)p->statements, (unsigned long long)p->transactions);
}

void report_text_replay_mode(FILE *out, const struct result *r)
{
    if (r->replay.speed > 0)
        fprintf(out,
                "mode:                replay at speed %g; latency from each statement's "
                "intended start\n",
                r->replay.speed);
    else
        fprintf(out, "mode:                replay at speed max (back to back, in order); "
                     "latency from each statement's start\n");
}

static double total_ms(const struct result_script_figures *c)
{
    return ms(c->latency_us.mean * (double)(c->transactions - c->failed));
}

void report_text_replay(FILE *out, const struct result *r)
{
    const struct result_replay *p = &r->replay;
    fprintf(out, "schedule lag (ms):   p50 %.3f  p99 %.3f  max %.3f\n", ms(p->lag.p50_us),
            ms(p->lag.p99_us), ms(p->lag.max_us));
    if (result_lag_known(&p->client_lag))
        fprintf(out, "client delay (ms):   p50 %.3f  p99 %.3f  max %.3f  (%s)\n",
                ms(p->client_lag.p50_us), ms(p->client_lag.p99_us), ms(p->client_lag.max_us),
                p->speed > 0 ? "the part of the lag that is the client's"
                             : "from a statement's end to its session's next send");
    fprintf(out,
            "replayed:            %llu sent; skipped %llu copy, %llu unsupported, %llu "
            "read-only, %llu secret; %llu sessions failed\n",
            (unsigned long long)p->sent, (unsigned long long)p->skipped_copy,
            (unsigned long long)p->skipped_unsupported, (unsigned long long)p->skipped_read_only,
            (unsigned long long)p->skipped_secret, (unsigned long long)p->sessions_failed);
    if (p->failed_now || p->succeeded_now || p->sessions_failed) {
        fprintf(out,
                "DIVERGED:            %llu failed now but not in the capture, %llu succeeded "
                "now but failed in it\n",
                (unsigned long long)p->failed_now, (unsigned long long)p->succeeded_now);
        for (size_t i = 0; i < p->n_top && i < 5; i++)
            fprintf(out, "                     %llu x %s\n", (unsigned long long)p->top[i].count,
                    p->top[i].reason);
    } else {
        fprintf(out, "fidelity:            every outcome as in the capture\n");
    }
    size_t n = r->summary.n_classes;
    if (n == 0)
        return;
    fprintf(out, "%-*s %9s %7s %10s %9s %9s %9s\n", TEXT_CLASS_WIDTH, "top classes (by total time)",
            "count", "failed", "total_ms", "mean_ms", "p50_ms", "p99_ms");
    for (size_t i = 0; i < n && i < TEXT_CLASSES; i++) {
        const struct result_script_figures *c = &r->summary.classes[i];
        char text[TEXT_CLASS_WIDTH + 1];
        size_t len = strlen(c->name ? c->name : "");
        snprintf(text, sizeof text, "%s", c->name ? c->name : "");
        if (len > TEXT_CLASS_WIDTH)
            memcpy(text + TEXT_CLASS_WIDTH - 3, "...", 3);
        fprintf(out, "%-*s %9llu %7llu %10.1f %9.3f %9.3f %9.3f\n", TEXT_CLASS_WIDTH, text,
                (unsigned long long)c->transactions, (unsigned long long)c->failed, total_ms(c),
                ms(c->latency_us.mean), ms(c->latency_us.p50), ms(c->latency_us.p99));
    }
    if (n > TEXT_CLASSES)
        fprintf(out, "(%zu classes more in the result file)\n", n - TEXT_CLASSES);
}
