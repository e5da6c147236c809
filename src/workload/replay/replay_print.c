/* A replay's rows: show's workload, mode and fidelity lines, the report's fidelity table and
 * the note under its classes; and compare's warnings. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/mem.h"
#include "workload/replay/replay_result.h"

static double ms(double us)
{
    return us / 1000.0;
}

static void show_workload(struct result_rows *out, const struct replay_result *p)
{
    struct result_row *row =
        result_rows_add(out, RESULT_PLACE_SHOW_WORKLOAD, "workload",
                        "replay of %v: %v sessions, %v statements, %v transactions");
    result_row_text(row, p->capture ? p->capture : "?");
    result_row_count(row, RESULT_FMT_INT, p->sessions, NULL);
    result_row_count(row, RESULT_FMT_INT, p->statements, NULL);
    result_row_count(row, RESULT_FMT_INT, p->transactions, NULL);
}

static void show_mode(struct result_rows *out, const struct replay_result *p)
{
    if (p->speed > 0)
        result_row_num(result_rows_add(out, RESULT_PLACE_SHOW_MODE, "mode",
                                       "replay at speed %v; latency from each statement's "
                                       "intended start"),
                       RESULT_FMT_G, 0, p->speed, NULL);
    else
        result_rows_add(out, RESULT_PLACE_SHOW_MODE, "mode",
                        "replay at speed max (back to back, in order); latency from each "
                        "statement's start");
}

/* A row of counts at show's figures. */
static struct result_row *counts(struct result_rows *out, const char *label, const char *text,
                                 size_t n, const uint64_t *v)
{
    struct result_row *row = result_rows_add(out, RESULT_PLACE_SHOW_FIGURES, label, text);
    for (size_t i = 0; i < n; i++)
        result_row_count(row, RESULT_FMT_INT, v[i], NULL);
    return row;
}

/* A lag's p50, p99 and max in milliseconds. */
static struct result_row *lag_ms(struct result_rows *out, const char *label, const char *text,
                                 const struct result_lag *l)
{
    struct result_row *row = result_rows_add(out, RESULT_PLACE_SHOW_FIGURES, label, text);
    result_row_num(row, RESULT_FMT_FIXED, 3, ms(l->p50_us), NULL);
    result_row_num(row, RESULT_FMT_FIXED, 3, ms(l->p99_us), NULL);
    result_row_num(row, RESULT_FMT_FIXED, 3, ms(l->max_us), NULL);
    return row;
}

/* How faithful the timing was: the capture's duration against the replay's, and the share
 * of statements sent on time (at a speed). */
static void show_timing(struct result_rows *out, const struct replay_result *p)
{
    if (p->captured_s <= 0 || p->replayed_s <= 0)
        return;
    double on_time = replay_on_time_share(p);
    struct result_row *row = result_rows_add(
        out, RESULT_PLACE_SHOW_FIGURES, "timing",
        isnan(on_time) ? "captured %v, replayed %v (%v)"
                       : "captured %v, replayed %v (%v); %v of statements sent within %v ms of "
                         "their schedule");
    result_row_num(row, RESULT_FMT_FIXED, 3, p->captured_s, " s");
    result_row_num(row, RESULT_FMT_FIXED, 3, p->replayed_s, " s");
    result_row_num(row, RESULT_FMT_FIXED, 2, p->replayed_s / p->captured_s, "x");
    result_row_num(row, RESULT_FMT_PERCENT, 1, on_time, " %");
    result_row_count(row, RESULT_FMT_INT, REPLAY_ON_TIME_US / 1000, NULL);
}

/* The session settings a replay added: "--session-set A=B, ...; N statements set a password". */
static void show_session_set(struct result_rows *out, const struct replay_result *p)
{
    if (!p->n_session_set && !p->secrets_replaced)
        return;
    struct buf b;
    buf_init(&b);
    for (size_t i = 0; i < p->n_session_set; i++)
        buf_printf(&b, "%s--session-set %s", i ? ", " : "", p->session_set[i]);
    if (p->secrets_replaced)
        buf_printf(&b,
                   "%s%llu statements set a password of the replay's making (random, not kept) "
                   "for the capture's",
                   p->n_session_set ? "; " : "", (unsigned long long)p->secrets_replaced);
    result_row_text(result_rows_add(out, RESULT_PLACE_SHOW_FIGURES, "sessions set up", "%v"),
                    result_rows_str(out, b.data));
    buf_free(&b);
}

/* Its schedule lag, the client's part of it, what was sent and skipped, and whether outcomes
 * were the capture's. */
static void show_fidelity(struct result_rows *out, const struct replay_result *p)
{
    const int at = RESULT_PLACE_SHOW_FIGURES;
    lag_ms(out, "schedule lag (ms)", "p50 %v  p99 %v  max %v", &p->lag);
    if (result_lag_known(&p->client_lag))
        result_row_text(
            lag_ms(out, "client delay (ms)", "p50 %v  p99 %v  max %v  (%v)", &p->client_lag),
            p->speed > 0 ? "the part of the lag that is the client's"
                         : "from a statement's end to its session's next send");
    counts(out, "replayed",
           "%v sent; skipped %v copy, %v unsupported, %v read-only, %v secret; %v sessions "
           "failed",
           6,
           (const uint64_t[]){p->sent, p->skipped_copy, p->skipped_unsupported,
                              p->skipped_read_only, p->skipped_secret, p->sessions_failed});
    for (int k = 0; k < CAPTURE_UNSUP__COUNT; k++) {
        if (!p->unsupported[k].count)
            continue;
        struct result_row *row = result_rows_add(out, at, "unsupported", "%v %v, e.g. %v");
        result_row_text(row, capture_unsupported_names[k]);
        result_row_count(row, RESULT_FMT_INT, p->unsupported[k].count, NULL);
        result_row_text(row, p->unsupported[k].example);
    }
    if (p->copy_from)
        counts(out, "copy from files", "%v COPY FROM STDIN sent their --copy-from file", 1,
               &p->copy_loaded);
    if (p->copy_recorded)
        counts(out, "copy recorded", "%v COPY FROM STDIN sent the rows the capture recorded", 1,
               &p->copy_recorded);
    if (p->values_mapped)
        counts(out, "values mapped",
               "%v statements sent with the values this server returned for the capture's "
               "(large-object OIDs, ids a sequence gave)",
               1, &p->values_mapped);
    if (p->copy_empty)
        counts(out, "copy without data",
               "%v COPY FROM STDIN inside statements of several given no rows (the capture "
               "holds none of their own)",
               1, &p->copy_empty);
    if (p->prepared || p->portal_fetches)
        counts(out, "named statements",
               "%v prepared (once per session, again after a DEALLOCATE of them); %v portal "
               "fetches folded into their portal's first execute (run whole)",
               2, (const uint64_t[]){p->prepared, p->portal_fetches});
    if (p->pipelined)
        counts(out, "pipelined",
               "%v statements sent before their session's previous one had its results, as "
               "the capture's clients sent them",
               1, &p->pipelined);
    if (p->order == REPLAY_RESULT_ORDER_CAPTURE) {
        struct result_row *row =
            counts(out, "order",
                   "the capture's, across sessions: %v statements waited %v ms in all; %v "
                   "waits given way to a lock",
                   1, &p->order_waits);
        result_row_num(row, RESULT_FMT_FIXED, 3, p->order_wait_ms, NULL);
        result_row_count(row, RESULT_FMT_INT, p->order_given_way, NULL);
    } else if (p->order == REPLAY_RESULT_ORDER_SESSION) {
        result_rows_add(out, at, "order", "each session on its own clock (--order session)");
    }
    show_timing(out, p);
    show_session_set(out, p);
    if (p->failed_now || p->succeeded_now || p->sessions_failed) {
        counts(out, "DIVERGED",
               "%v failed now but not in the capture, %v succeeded now but failed in it", 2,
               (const uint64_t[]){p->failed_now, p->succeeded_now});
        for (size_t i = 0; i < p->n_top && i < 5; i++)
            result_row_text(counts(out, "", "%v x %v", 1, &p->top[i].count), p->top[i].reason);
    } else {
        result_rows_add(out, at, "fidelity", "every outcome as in the capture");
    }
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

static const char *const labels[N_ROWS] = {
    "statements sent",
    "skipped",
    "outcomes unlike the capture",
    "sessions failed",
    "captured / replayed duration, sent on time",
    "order waits, given way",
    "schedule lag p50 / p99 / max",
    "client delay p50 / p99 / max",
};

static void lag_cell(struct result_row *row, const struct result_lag *l)
{
    row->text = "%v / %v / %v";
    result_row_num(row, RESULT_FMT_LATENCY, 0, l->p50_us, NULL);
    result_row_num(row, RESULT_FMT_LATENCY, 0, l->p99_us, NULL);
    result_row_num(row, RESULT_FMT_LATENCY, 0, l->max_us, NULL);
}

static void timing_cell(struct result_row *row, const struct replay_result *p)
{
    if (p->captured_s <= 0 || p->replayed_s <= 0)
        return; /* "-": a file written before them */
    double on_time = replay_on_time_share(p);
    row->text = isnan(on_time) ? "%v / %v (%v)" : "%v / %v (%v), %v within 1 ms";
    result_row_num(row, RESULT_FMT_FIXED, 3, p->captured_s, " s");
    result_row_num(row, RESULT_FMT_FIXED, 3, p->replayed_s, " s");
    result_row_num(row, RESULT_FMT_FIXED, 2, p->replayed_s / p->captured_s, "x");
    result_row_num(row, RESULT_FMT_PERCENT, 1, on_time, " %");
}

/* Row k of the table: a row without text or values is "-". */
static void cell(struct result_row *row, const struct replay_result *p, size_t k)
{
    switch (k) {
    case ROW_SENT:
        result_row_count(row, RESULT_FMT_COUNT, p->sent, NULL);
        break;
    case ROW_SKIPPED:
        row->text = "%v copy, %v unsupported, %v read-only, %v secret";
        result_row_count(row, RESULT_FMT_INT, p->skipped_copy, NULL);
        result_row_count(row, RESULT_FMT_INT, p->skipped_unsupported, NULL);
        result_row_count(row, RESULT_FMT_INT, p->skipped_read_only, NULL);
        result_row_count(row, RESULT_FMT_INT, p->skipped_secret, NULL);
        break;
    case ROW_DIVERGED:
        row->text = "%v failed now, %v succeeded now";
        result_row_count(row, RESULT_FMT_INT, p->failed_now, NULL);
        result_row_count(row, RESULT_FMT_INT, p->succeeded_now, NULL);
        break;
    case ROW_SESSIONS_FAILED:
        result_row_count(row, RESULT_FMT_COUNT, p->sessions_failed, NULL);
        break;
    case ROW_TIMING:
        timing_cell(row, p);
        break;
    case ROW_ORDER:
        if (p->order == REPLAY_RESULT_ORDER_CAPTURE) {
            row->text = "%v waited %v ms, %v given way";
            result_row_count(row, RESULT_FMT_INT, p->order_waits, NULL);
            result_row_num(row, RESULT_FMT_FIXED, 1, p->order_wait_ms, NULL);
            result_row_count(row, RESULT_FMT_INT, p->order_given_way, NULL);
        } else if (p->order == REPLAY_RESULT_ORDER_SESSION) {
            row->text = "none (--order session)";
        }
        break;
    case ROW_LAG:
        lag_cell(row, &p->lag);
        break;
    default:
        if (result_lag_known(&p->client_lag)) /* else "-": a file written before it */
            lag_cell(row, &p->client_lag);
    }
}

void replay_result_rows(const struct result *r, const void *data, enum result_part_place at,
                        struct result_rows *out)
{
    (void)r;
    const struct replay_result *p = data;
    switch (at) {
    case RESULT_PLACE_SHOW_WORKLOAD:
        show_workload(out, p);
        break;
    case RESULT_PLACE_SHOW_MODE:
        show_mode(out, p);
        break;
    case RESULT_PLACE_SHOW_FIGURES:
        show_fidelity(out, p);
        break;
    case RESULT_PLACE_HTML_CLASSES:
        result_rows_add(out, at, "classes",
                        "<p class=\"meta\">Each statement class (the statement with its "
                        "constants replaced by placeholders) of the first replay's top classes "
                        "by total time, with its count, total time and latency (of the "
                        "statements that succeeded, from their intended start) in each "
                        "replay.</p>\n");
        break;
    case RESULT_PLACE_HTML_TABLE:
        for (size_t k = 0; k < N_ROWS; k++)
            cell(result_rows_add(out, at, labels[k], NULL), p, k);
        break;
    default:
        break;
    }
}

const struct result_part_table replay_result_table = {
    .id = "replay",
    .title = "Replay fidelity",
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
