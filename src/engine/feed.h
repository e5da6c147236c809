#ifndef PGARENA_ENGINE_FEED_H
#define PGARENA_ENGINE_FEED_H

#include <stdint.h>

#include "pg/pg.h"

/*
 * A feed: per-client streams of statements, each with its own schedule, in place of scripts
 * (a workload's: the workload is the source). Each client asks the feed for its next item
 * and carries it out: a session's connection at its offset, its statements one after the
 * other at their offsets (never before the previous one has finished), the session's end.
 * Offsets are µs from the start at speed 1; the run's start plus offset / speed is when an
 * item is due, and latency counts from then (so falling behind is measured); at speed max an
 * item is due as soon as the client is free, and sessions start in their order.
 * Calls come on the worker thread that owns the client; each worker has a state of its own
 * from open, so a source needs no locks on its hot path.
 * Ownership: what an item points to belongs to the source and stays valid until the next
 * call of next for the same client; a statement with next_pipelined, and those taken after it
 * while it runs, until their done.
 */

enum engine_feed_kind {
    FEED_CONNECT,    /* a session starts: connect with conn */
    FEED_STATEMENT,  /* send a statement */
    FEED_DISCONNECT, /* the session ends: close its connection */
};

enum engine_feed_proto {
    FEED_SIMPLE,  /* a Query message */
    FEED_UNNAMED, /* Parse/Bind/Execute of the unnamed statement */
    FEED_NAMED,   /* a named prepared statement: prepared on its first use in the session (and
                   * again after a DEALLOCATE of it, or when its text is not the one prepared
                   * under its name: the old one deallocated first) */
};

/* What a statement that succeeded did to its session's named statements (DEALLOCATE,
 * DISCARD ALL, as the source read its text): the engine forgets them, so that their next
 * use prepares them again rather than failing with 26000 (or 42P05). */
enum engine_feed_unprepare {
    FEED_UNPREPARE_NONE,
    FEED_UNPREPARE_NAMES, /* those of unprepare_names */
    FEED_UNPREPARE_ALL,
};

/* The most rows whose first values a statement hands back (outcome's returned). */
#define FEED_RETURNED_ROWS_MAX 1000

struct engine_feed_item {
    enum engine_feed_kind kind;
    int64_t offset_us;
    uint32_t session;
    /* FEED_CONNECT: where the session connects; its ordinal among the sessions' starts
     * (speed max starts them in this order). */
    const struct pg_connopts *conn;
    uint64_t ordinal;
    /* FEED_STATEMENT */
    enum engine_feed_proto proto;
    const char *text, *name;
    int n_params;
    const char *const *params;
    /* Its parameters as its client sent them (pg.h): NULL when every one is text and every
     * type inferred; forms.types has n_params OIDs (FEED_UNNAMED), and a FEED_NAMED one is
     * prepared with its first n_prepare_types. */
    const struct pg_param_forms *forms;
    int n_prepare_types;
    int64_t cancel_us; /* cancel it this long after its start (as the original was); -1: no */
    void *token;       /* the source's, handed back to done */
    /* A COPY FROM STDIN's data, sent to the statement's first COPY FROM STDIN when the
     * server asks for it; with n_copy_parts, the data is that many parts of these lengths in
     * order (summing to copy_len), the statement's Nth COPY FROM STDIN given the Nth. Any
     * COPY FROM STDIN beyond them, or without data (NULL: in a statement of several, whose
     * data no log holds), is given no rows and counted in the outcome's copy_empty. A COPY
     * TO STDOUT's rows are read and dropped. */
    const char *copy_data;
    size_t copy_len;
    int n_copy_parts;
    const size_t *copy_parts;
    /* Non-NULL: the statement's COPY FROM STDIN numbered copy_fail_at (from 0) is ended with
     * a CopyFail carrying this message after its data, not a CopyDone (its client failed it
     * so in the capture; the server's error then ends the statement). */
    const char *copy_fail;
    int copy_fail_at;
    enum engine_feed_unprepare unprepare;
    const char *unprepare_names; /* FEED_UNPREPARE_NAMES: each with its NUL, an empty one last */
    int want_returned;           /* hand back its result's value (outcome's returned) */
    /* FEED_UNNAMED, FEED_NAMED: its client sent no Sync after it, the session's next statement
     * shares its Sync. The engine sends the group in pipeline mode, each statement after the
     * one before has its results, and the Sync after the group's last one: the group runs as
     * one implicit transaction (outside a transaction block), and an error skips the rest of it
     * (their outcome: not ok, an empty SQLSTATE), as in the capture. */
    int sync_open;
    /* FEED_UNNAMED, FEED_NAMED: its client sent the session's next statement before this one's
     * results came (a pipeline). The engine then takes that one from the feed while these are
     * awaited and sends it in pipeline mode once it is due, unless it needs a Parse first. */
    int next_pipelined;
};

/* How a statement went, for the source's own figures. */
struct engine_feed_outcome {
    int sent;                       /* 0: not sent (its session has no connection) */
    int ok;                         /* every result succeeded */
    enum pg_failure why;            /* when not ok */
    const char *sqlstate, *message; /* when not ok: "" when unknown */
    int64_t latency_us;             /* from its intended start to its last result */
    int64_t lag_us;                 /* from its intended start to its sending */
    int64_t client_lag_us; /* of lag_us, the client's own: from the later of the intended start
                            * and the session's previous statement's end (or its connect's) */
    int measured;          /* it ended after --warmup (the run's figures count it) */
    int copy_empty;        /* its COPY FROM STDIN given no rows: none for them (copy_data) */
    int prepared;          /* FEED_NAMED: it was prepared (a Parse sent) before it ran */
    int not_run;           /* its server skipped it: an earlier statement of its Sync group
                            * failed (sync_open) */
    int sent_ahead;        /* sent before the session's previous statement had its results (as
                            * its client did: next_pipelined) */
    /* With the item's want_returned: the first value of each row of its last result (at most
     * FEED_RETURNED_ROWS_MAX, a '\n' between them), NULL when a row has none (NULL) or
     * there is no row; valid during done. */
    const char *returned;
};

/* A statement due to start, for the source's ready: the time, and the session's connection
 * (whether it is inside a transaction block, its server process). */
struct engine_feed_due {
    int64_t now_ns; /* the engine's clock (base/clock.h) */
    int in_tx;      /* the session is in a transaction block (it may hold locks) */
    int backend_pid;
    int64_t ask_again_ns; /* the source's: when held back, ask again at the latest this much
                           * later (0: the engine's default) */
};

struct engine_feed {
    double speed; /* 0: max */
    void *arg;
    /* A worker's state, for its clients first_client .. first_client + n_clients - 1. */
    void *(*open)(void *arg, int worker, int first_client, int n_clients);
    /* The next item of client (global index) into it: 1, 0 when none is available yet (the
     * source's look-ahead is full: ask again soon), -1 when the client has no more, 2 when
     * the source has read a part of the way to it (ask again once the worker's other
     * clients have had their turn: a long read never holds up their statements). */
    int (*next)(void *ws, int client, struct engine_feed_item *it);
    /* A statement's outcome; returns 1 when it counts in the run's figures as a statement,
     * 0 when the source counts it as skipped. */
    int (*done)(void *ws, int client, const struct engine_feed_item *it,
                const struct engine_feed_outcome *o);
    /* A session could not connect, or lost its connection (its further statements come
     * back through done with sent 0). */
    void (*session_failed)(void *ws, int client, uint32_t session, const char *why);
    /* The worker's run is over. */
    void (*close)(void *ws);
    /* Optional: whether a statement that is due (its time has come, its session connected)
     * may start now; 0 parks the client until a statement ends (on any worker), or a few
     * ms (sooner when d->ask_again_ns says so), then asks again. */
    int (*ready)(void *ws, int client, const struct engine_feed_item *it,
                 struct engine_feed_due *d);
    /* Optional: called once a statement's turn has come, just before it is sent; the source
     * may point its text and params elsewhere (to what they became since next: values the
     * replay's server handed back in place of the capture's), valid until its done. */
    void (*before_send)(void *ws, int client, struct engine_feed_item *it);
};

#endif
