#ifndef PGARENA_WORKLOAD_REPLAY_ORDER_H
#define PGARENA_WORKLOAD_REPLAY_ORDER_H

/*
 * The capture's real-time order across sessions (replay run --order capture): a statement
 * may not start before every statement that had finished before it started in the capture
 * has finished in the replay.
 *
 * A statement's end is its start plus its duration when the capture has one, else its
 * session's next event (its next statement, or its end): a bound, so the order never waits
 * for what may not have finished yet. The capture's times are only as precise as its
 * resolution R (a log's milliseconds): a true time lies in [t, t + R). So A certainly finished
 * before S started only when end(A) + R <= start(S); within R the log cannot tell, and the
 * replay does not wait (two sessions' statements in one millisecond are not ordered by
 * guesswork, which made sessions wait for statements blocked by their own locks). Ranked by
 * end + R (ties by capture order), the statements that certainly finished before statement S
 * started are the first need(S) of that ranking: S may start once those have all finished. The
 * replay keeps one watermark, mark: the first mark statements in end order have finished. Each
 * check is one comparison, each finished statement a flag and an amortised step of the mark; memory
 * is 9 bytes per statement of the capture. Own-session predecessors are among the first need(S),
 * and finish first anyway.
 *
 * What another session did becomes visible at its transaction's end, so a statement inside a
 * transaction block (its BEGIN too) is never waited for; its block's COMMIT or ROLLBACK is,
 * and so is every statement outside a block. Which statements are waited for is the caller's
 * choice (prepass.c builds two orders: a session's start waits for everything that finished
 * before its login; a statement only for the changes of the schema and roles, since the rows
 * concurrent sessions share are ordered by the server's locks, as they were in the capture, and
 * a statement that waits holding its own locks for another session's is how replays of
 * contended applications crawled).
 *
 * The statements are numbered 0, 1, ... in the capture's order (every statement event, also
 * those the replay leaves out): a statement left out (COPY, a session that never started)
 * is outside the order and never waited for.
 *
 * Pure: the builder and the checks take no lock; the caller serialises replay_order_finished
 * (mark is read atomically by replay_order_ready from any thread).
 * Ownership: the order owns its arrays (replay_order_free).
 */

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define REPLAY_ORDER_NONE UINT32_MAX

/* A statement's part in the order. */
enum replay_order_part {
    REPLAY_ORDER_OUT = 0,   /* left out: neither waits nor is waited for */
    REPLAY_ORDER_IN = 1,    /* waits, and is waited for */
    REPLAY_ORDER_WAITS = 2, /* waits, is not waited for (inside a transaction block) */
};

struct replay_order_build {
    size_t n, cap;
    int64_t *start, *end; /* by statement number; end INT64_MAX: not known yet */
    unsigned char *in;    /* enum replay_order_part */
    size_t n_sessions;
    int64_t resolution_us; /* the capture's time resolution (capture.h) */
    int64_t *pending;      /* by session: its last statement, -1 when none */
};

struct replay_order {
    size_t n_all;   /* statements of the capture */
    uint32_t n;     /* of them in the order */
    uint32_t *rank; /* by statement number: its place by end, REPLAY_ORDER_NONE if not waited
                     * for */
    uint32_t *need; /* by statement number: the first need in end order must be done (0: out) */
    unsigned char *done;   /* by rank */
    _Atomic uint32_t mark; /* the first mark by end have finished */
};

/* resolution_us: the capture's header's time_resolution_us (0: exact times). */
void replay_order_build_init(struct replay_order_build *b, size_t n_sessions,
                             int64_t resolution_us);
/* The next statement of the capture (numbered from 0), of session (< n_sessions), started at
 * start_us, duration_us (-1 unknown); part: its part in the order. */
void replay_order_build_statement(struct replay_order_build *b, uint32_t session, int64_t start_us,
                                  int64_t duration_us, enum replay_order_part part);
/* Session ends at offset_us: its last statement's end is bounded by it. */
void replay_order_build_session_end(struct replay_order_build *b, uint32_t session,
                                    int64_t offset_us);
/* The order, made from b (b is emptied). */
void replay_order_build_finish(struct replay_order_build *b, struct replay_order *o);

/* Whether statement number i may start: 1 when every statement waited for that finished
 * before it started in the capture has finished (i out of the order or beyond the capture:
 * 1). */
int replay_order_ready(const struct replay_order *o, uint64_t i);
/* Statement number i finished (or will never run); callers serialise. Whether the mark
 * moved (never for a statement not waited for). */
int replay_order_finished(struct replay_order *o, uint64_t i);
void replay_order_free(struct replay_order *o);

#endif
