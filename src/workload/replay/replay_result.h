#ifndef PGARENA_WORKLOAD_REPLAY_REPLAY_RESULT_H
#define PGARENA_WORKLOAD_REPLAY_REPLAY_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"
#include "result/part.h"
#include "result/result.h"

/*
 * A replay's section of the result file, replay {...}: what it ran and how faithfully (its
 * statement classes are the summary's, summary.classes[]). The replay workload's part
 * (result/part.h): read, written, merged, snapshotted for recover and printed here
 * (replay_result.c, replay_merge.c, replay_print.c).
 * Ownership: struct replay_result owns its strings and arrays (replay_part.free).
 */

/* replay.diverged.top[]: why outcomes differ from the capture's, most frequent first. */
struct replay_result_reason {
    char *reason;
    uint64_t count;
};

struct replay_result {
    char *capture;
    double speed; /* 0: max */
    uint64_t sessions, statements, transactions, sent;
    uint64_t skipped_copy, skipped_unsupported, skipped_read_only, skipped_secret;
    uint64_t failed_now, succeeded_now;
    /* "unsupported": skipped_unsupported by kind (the capture's), each with an example; only
     * the kinds that occur, absent in files before it. "copy_loaded": COPY FROM STDIN sent
     * their --copy-from file (only when given). */
    struct capture_unsupported_kind unsupported[CAPTURE_UNSUP__COUNT];
    int copy_from; /* --copy-from was given: copy_loaded written */
    uint64_t copy_loaded;
    /* "copy_recorded": COPY FROM STDIN sent the rows a recorded capture holds; "values_mapped":
     * statements sent with the values the replay's server handed back in place of the
     * capture's (large-object OIDs); each only when some. */
    uint64_t copy_recorded, values_mapped;
    /* "copy_empty": COPY FROM STDIN inside statements of several (their data is in no log,
     * and --copy-from is for COPY statements of their own) given no rows; only when some. */
    uint64_t copy_empty;
    /* "prepared": named statements the replay prepared (each once per session, again after
     * its session deallocated it); "portal_fetches": the capture's fetches of a portal started
     * before, folded into the portal's first execute (run whole); each only when some. */
    uint64_t prepared, portal_fetches;
    /* "pipelined": statements sent before their session's previous one had its results, as
     * the capture's clients sent them (a pipeline); only when some. */
    uint64_t pipelined;
    /* Statements whose password (cut out of the capture) the replay set to one of its own
     * making (random, never written): "secrets_replaced" and "passwords": "generated", both
     * only when there were some. */
    uint64_t secrets_replaced;
    /* --session-set as given, NAME=VALUE each ("session_set": [...], only when given). */
    size_t n_session_set;
    char **session_set;
    size_t n_top;
    struct replay_result_reason *top;
    uint64_t sessions_failed;
    /* "order": REPLAY_RESULT_ORDER_CAPTURE with "order_waits" (statements held back for the
     * capture's order across sessions), "order_wait_ms" (their time held back) and
     * "order_given_way" (waits given up: what they waited for was blocked by their own
     * session's locks); REPLAY_RESULT_ORDER_SESSION alone; 0: absent (files before it, whose
     * sessions each ran on their own clock). */
    int order;
    uint64_t order_waits, order_given_way;
    double order_wait_ms;
    /* lag_us: how late statements were sent behind their schedule; client_lag_us: the part
     * of it that was the replaying client's own (from the later of the due time and the end
     * of the session's previous statement or connect, to the send). */
    struct result_lag lag, client_lag;
    /* How faithful the timing was: "captured_s" (the capture's duration, first to last
     * event), "replayed_s" (the replay's measured duration, summary.duration_s) and, at a
     * speed, "on_time_share" (of the statements, those sent within 1 ms of their schedule,
     * from lag_us's histogram when written); 0: absent (files before them). */
    double captured_s, replayed_s;
    double as_of_s; /* recover: the run time its figures are from (the journal's last
                     * snapshot of them); 0: a run's own, whole */
};

#define REPLAY_RESULT_ORDER_CAPTURE 1
#define REPLAY_RESULT_ORDER_SESSION 2

extern const struct result_part_ops replay_part;

/* r's replay {}, or NULL when r is no replay's. */
const struct replay_result *replay_result_of(const struct result *r);
/* A statement sent within this long of its schedule was on time. */
#define REPLAY_ON_TIME_US 1000
/* The share (0..1) of p's statements sent on time, from its lag histogram; NAN at speed max
 * or without one. */
double replay_on_time_share(const struct replay_result *p);

/* Free what p owns, and p. */
void replay_result_free(void *p);

/* The agents' replay {} merged (replay_merge.c): the capture's own figures the first's, what
 * each agent replayed added up, the lags through their histograms (exact), the reasons added
 * up by text (each input lists only its top ones). NULL when the first has none. */
void *replay_result_merge(void *const *parts, size_t n);

/* Its rows (replay_print.c): show's workload, mode and fidelity lines; the report's fidelity
 * table and the note under the classes; and compare's warnings. */
void replay_result_rows(const struct result *r, const void *data, enum result_part_place at,
                        struct result_rows *out);
void replay_result_warn(const void *data, const char *path,
                        void (*say)(void *ctx, const char *text), void *ctx);
extern const struct result_part_table replay_result_table;

#endif
