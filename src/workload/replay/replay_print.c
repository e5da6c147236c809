/* A replay's printers: show's workload, mode and fidelity lines, the report's fidelity table
 * and the note under its classes, and compare's warnings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/mem.h"
#include "report/fmt.h"
#include "workload/replay/replay_result.h"

static double ms(double us)
{
    return us / 1000.0;
}

static void show_workload(FILE *out, const struct replay_result *p)
{
    fprintf(out,
            "workload:            replay of %s: %llu sessions, %llu statements, %llu "
            "transactions\n",
            p->capture ? p->capture : "?", (unsigned long long)p->sessions,
            (unsigned long long)p->statements, (unsigned long long)p->transactions);
}

static void show_mode(FILE *out, const struct replay_result *p)
{
    if (p->speed > 0)
        fprintf(out,
                "mode:                replay at speed %g; latency from each statement's "
                "intended start\n",
                p->speed);
    else
        fprintf(out, "mode:                replay at speed max (back to back, in order); "
                     "latency from each statement's start\n");
}

/* How faithful the timing was: the capture's duration against the replay's, and the share
 * of statements sent on time (at a speed). */
static void show_timing(FILE *out, const struct replay_result *p)
{
    if (p->captured_s <= 0 || p->replayed_s <= 0)
        return;
    fprintf(out, "timing:              captured %.3f s, replayed %.3f s (%.2fx)", p->captured_s,
            p->replayed_s, p->replayed_s / p->captured_s);
    double on_time = replay_on_time_share(p);
    if (!isnan(on_time))
        fprintf(out, "; %.1f %% of statements sent within %d ms of their schedule", 100 * on_time,
                REPLAY_ON_TIME_US / 1000);
    fputc('\n', out);
}

/* Its schedule lag, the client's part of it, what was sent and skipped, and whether outcomes
 * were the capture's. */
static void show_fidelity(FILE *out, const struct replay_result *p)
{
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
    for (int k = 0; k < CAPTURE_UNSUP__COUNT; k++)
        if (p->unsupported[k].count)
            fprintf(out, "unsupported:         %s %llu, e.g. %s\n", capture_unsupported_names[k],
                    (unsigned long long)p->unsupported[k].count, p->unsupported[k].example);
    if (p->copy_from)
        fprintf(out, "copy from files:     %llu COPY FROM STDIN sent their --copy-from file\n",
                (unsigned long long)p->copy_loaded);
    if (p->copy_empty)
        fprintf(out,
                "copy without data:   %llu COPY FROM STDIN inside statements of several given "
                "no rows (their data is not in the log)\n",
                (unsigned long long)p->copy_empty);
    if (p->prepared || p->portal_fetches)
        fprintf(out,
                "named statements:    %llu prepared (once per session, again after a DEALLOCATE "
                "of them); %llu portal fetches folded into their portal's first execute (run "
                "whole)\n",
                (unsigned long long)p->prepared, (unsigned long long)p->portal_fetches);
    if (p->order == REPLAY_RESULT_ORDER_CAPTURE)
        fprintf(out,
                "order:               the capture's, across sessions: %llu statements waited "
                "%.3f ms in all; %llu waits given way to a lock\n",
                (unsigned long long)p->order_waits, p->order_wait_ms,
                (unsigned long long)p->order_given_way);
    else if (p->order == REPLAY_RESULT_ORDER_SESSION)
        fprintf(out, "order:               each session on its own clock (--order session)\n");
    show_timing(out, p);
    if (p->n_session_set || p->secrets_replaced) {
        fprintf(out, "sessions set up:     ");
        for (size_t i = 0; i < p->n_session_set; i++)
            fprintf(out, "%s--session-set %s", i ? ", " : "", p->session_set[i]);
        if (p->secrets_replaced)
            fprintf(out,
                    "%s%llu statements set a password of the replay's making (random, not "
                    "kept) for the capture's",
                    p->n_session_set ? "; " : "", (unsigned long long)p->secrets_replaced);
        fputc('\n', out);
    }
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
}

int replay_result_text(const struct result *r, const void *data, enum result_part_place at,
                       FILE *out)
{
    (void)r;
    const struct replay_result *p = data;
    switch (at) {
    case RESULT_PLACE_SHOW_WORKLOAD:
        show_workload(out, p);
        return 1;
    case RESULT_PLACE_SHOW_MODE:
        show_mode(out, p);
        return 1;
    case RESULT_PLACE_SHOW_FIGURES:
        show_fidelity(out, p);
        return 1;
    default:
        return 0;
    }
}

int replay_result_html(const struct result *r, const void *data, enum result_part_place at,
                       struct buf *b)
{
    (void)r;
    (void)data;
    if (at != RESULT_PLACE_HTML_CLASSES)
        return 0;
    buf_puts(b, "<p class=\"meta\">Each statement class (the statement with its constants "
                "replaced by placeholders) of the first replay's top classes by total "
                "time, with its count, total time and latency (of the statements that "
                "succeeded, from their intended start) in each replay.</p>\n");
    return 1;
}

/* The report's fidelity table: a row per figure. */
enum {
    ROW_SENT,
    ROW_SKIPPED,
    ROW_DIVERGED,
    ROW_SESSIONS_FAILED,
    ROW_TIMING,
    ROW_ORDER,
    ROW_LAG,
    ROW_CLIENT_LAG,
    N_ROWS
};

static const char *const rows[N_ROWS] = {
    "statements sent",
    "skipped",
    "outcomes unlike the capture",
    "sessions failed",
    "captured / replayed duration, sent on time",
    "order waits, given way",
    "schedule lag p50 / p99 / max",
    "client delay p50 / p99 / max",
};

static void lag_text(const struct result_lag *l, char *t, size_t n)
{
    char a[32], b[32], c[32];
    snprintf(t, n, "%s / %s / %s", report_fmt_latency(a, sizeof a, l->p50_us),
             report_fmt_latency(b, sizeof b, l->p99_us),
             report_fmt_latency(c, sizeof c, l->max_us));
}

static void timing_text(const struct replay_result *p, char *t, size_t n)
{
    if (p->captured_s <= 0 || p->replayed_s <= 0)
        return; /* "-": a file written before them */
    double on_time = replay_on_time_share(p);
    int w = snprintf(t, n, "%.3f s / %.3f s (%.2fx)", p->captured_s, p->replayed_s,
                     p->replayed_s / p->captured_s);
    if (!isnan(on_time) && w > 0 && (size_t)w < n)
        snprintf(t + w, n - (size_t)w, ", %.1f %% within 1 ms", 100 * on_time);
}

static void cell(const void *data, size_t k, char *t, size_t n)
{
    const struct replay_result *p = data;
    switch (k) {
    case ROW_SENT:
        report_fmt_count(t, n, p->sent);
        break;
    case ROW_SKIPPED:
        snprintf(t, n, "%llu copy, %llu unsupported, %llu read-only, %llu secret",
                 (unsigned long long)p->skipped_copy, (unsigned long long)p->skipped_unsupported,
                 (unsigned long long)p->skipped_read_only, (unsigned long long)p->skipped_secret);
        break;
    case ROW_DIVERGED:
        snprintf(t, n, "%llu failed now, %llu succeeded now", (unsigned long long)p->failed_now,
                 (unsigned long long)p->succeeded_now);
        break;
    case ROW_SESSIONS_FAILED:
        report_fmt_count(t, n, p->sessions_failed);
        break;
    case ROW_TIMING:
        timing_text(p, t, n);
        break;
    case ROW_ORDER:
        if (p->order == REPLAY_RESULT_ORDER_CAPTURE)
            snprintf(t, n, "%llu waited %.1f ms, %llu given way",
                     (unsigned long long)p->order_waits, p->order_wait_ms,
                     (unsigned long long)p->order_given_way);
        else if (p->order == REPLAY_RESULT_ORDER_SESSION)
            snprintf(t, n, "none (--order session)");
        break;
    case ROW_LAG:
        lag_text(&p->lag, t, n);
        break;
    default:
        if (result_lag_known(&p->client_lag)) /* else "-": a file written before it */
            lag_text(&p->client_lag, t, n);
    }
}

const struct result_part_table replay_result_table = {
    .id = "replay",
    .title = "Replay fidelity",
    .n_rows = N_ROWS,
    .rows = rows,
    .cell = cell,
    .note = "<p class=\"meta\">The schedule lag is how late statements were sent "
            "behind the capture's schedule; the client delay is the time from the "
            "later of a statement's due time and the end of its session's previous "
            "statement to its sending (at speed max, from that end): the part of "
            "the lag that is the client's. A lag that is not the client's is the "
            "server taking longer than in the capture. Outcomes unlike the capture: "
            "statements that failed in the replay but not in the capture, and the "
            "reverse.</p>\n",
};

/* The client's part of a replay's schedule lag past which the replaying client, not only the
 * server, shaped the replay. */
#define CLIENT_LAG_WARN_US 10000.0

/* A replay unlike its capture: outcomes that differ (not like for like), or a client that was
 * late itself. */
void replay_result_warn(const void *data, const char *path,
                        void (*say)(void *ctx, const char *text), void *ctx)
{
    const struct replay_result *p = data;
    char *text;
    if (p->failed_now || p->succeeded_now || p->sessions_failed) {
        text =
            xasprintf("%s: the replay diverged from its capture (%llu failed now, %llu succeeded "
                      "now, %llu sessions failed): not the capture's work",
                      path, (unsigned long long)p->failed_now, (unsigned long long)p->succeeded_now,
                      (unsigned long long)p->sessions_failed);
        say(ctx, text);
        free(text);
    }
    if (p->client_lag.p99_us > CLIENT_LAG_WARN_US) {
        text =
            xasprintf("%s: the replaying client was late itself (its delay before sending: p99 "
                      "%.1f ms): the client shaped this replay, not only the server (more -j, or a "
                      "less busy load host)",
                      path, p->client_lag.p99_us / 1000);
        say(ctx, text);
        free(text);
    }
}
