#ifndef PGARENA_ENGINE_CLIENT_FEED_H
#define PGARENA_ENGINE_CLIENT_FEED_H

/*
 * A feed's client (engine/feed.h; its driver: client_feed.c): its states and its part of a
 * client. It connects for each session its stream starts, not at setup, and begins in
 * FS_NEXT. For each state: what it waits for, and where it goes.
 *
 * FS_NEXT     waits for nothing: takes the next item of the client's stream (none yet:
 *             -> FS_WAIT; no more -> CS_FINISHED). Not yet due -> FS_WAIT. A session's start
 *             -> CS_CONNECTING with resume FS_NEXT (a failure: the session is failed, its
 *             statements are not sent, -> FS_WAIT, due at once); a statement -> FS_RESULT, or
 *             first FS_PREPARE for a named one not yet prepared in the session; a session's
 *             end closes it -> FS_NEXT.
 * FS_WAIT     waits (timer) for the item's due time, or to ask the feed again -> FS_NEXT.
 * FS_PREPARE  waits for the PREPARE of a named statement -> FS_RESULT (the statement sent), or
 *             the statement fails -> FS_NEXT. When the name holds another text, first for the
 *             DEALLOCATE of it -> FS_PREPARE (the PREPARE sent).
 * FS_RESULT   waits for the statement's results -> FS_NEXT; its cancel time or --timeout
 *             (timer) sends a cancel; a broken connection fails the session.
 *
 * A Sync group (feed.h's sync_open) is sent in pipeline mode: its statements pass through the
 * same states, each sent with a Flush instead of a Sync, the group's last one with the Sync,
 * whose result FS_RESULT (or FS_PREPARE, when its Parse failed) reads too before FS_NEXT.
 * A pipeline (feed.h's next_pipelined): in FS_RESULT the client takes the statements sent
 * after the one it waits for (ahead), sends each in pipeline mode once due; when the results
 * are in, the first of them is the statement -> FS_RESULT (or, not sent yet, FS_NEXT).
 */

#include "engine/engine_int.h"

enum feed_state {
    FS_NEXT = CS_DRIVER,
    FS_WAIT,
    FS_PREPARE,
    FS_RESULT,
};

/* A feed client's part (c->kind). */
struct client_feed {
    struct engine_feed_item item;
    int have_item;                  /* item taken from the feed, not yet carried out */
    int in_session, session_failed; /* a session started; it has no usable connection */
    struct feed_prepared {          /* named statements prepared in this session */
        char *name;
        uint64_t text_hash; /* of the text prepared under it (base/hash.h) */
    } * prepared;
    int n_prepared, cap_prepared;
    int closing;      /* FS_PREPARE: the DEALLOCATE of the name's other text, before its Parse */
    int prepared_now; /* the statement was prepared before it ran */
    int cancel_sent;
    time_ns due, cancel_at; /* the statement's intended start and cancel time */
    time_ns ready_at;       /* the session's previous statement (or its connect) ended */
    time_ns client_lag;     /* of the statement's lag, the client's own: from the later of
                             * due and ready_at to its sending */
    int waiting;            /* in the worker's feed_waiting */
    int held;               /* the feed's ready held the item back (its wait ends: ready_at) */
    char sqlstate[6];       /* the statement's first error */
    char message[200];
    int copy_out, copy_in; /* in a COPY TO STDOUT's rows; a COPY FROM STDIN's data to send */
    int copy_given;        /* the statement's COPY FROM STDIN that had their turn */
    int copy_empty;        /* of the statement's COPY FROM STDIN, those given no rows */
    size_t copy_len;       /* where the current COPY FROM STDIN's data ends in the item's */
    size_t copy_at;        /* of it, what is queued (from where its part starts) */
    struct buf returned;   /* want_returned: the last result's first values ("" none) */
    int pipeline;          /* the connection is in pipeline mode (a Sync group, a pipeline) */
    int group_open;        /* the last statement sent left its Sync group open (sync_open) */
    int await_sync;        /* the statement's Sync is sent, its result not read yet */
    int not_run;           /* the statement was skipped: its group had failed before it */
    int sent_ahead;        /* it was sent before the one before it had its results */
    struct feed_ahead {    /* statements taken while the statement's results are awaited */
        struct engine_feed_item item;
        time_ns due;       /* its intended start (speed max: its sending) */
        time_ns cmd_start; /* its sending */
        int sent, await_sync;
    } * ahead;
    int n_ahead, cap_ahead;
    time_ns ahead_at; /* when to try the next of them again (0: at the statement's results) */
};

#endif
