#ifndef PGARENA_WORKLOAD_REPLAY_REPLAY_INT_H
#define PGARENA_WORKLOAD_REPLAY_REPLAY_INT_H

/*
 * Shared by the replay workload's files: the state of one replay (from detect to
 * free_state), made by a first pass over the capture (prepass.c), fed to the engine by
 * source.c, and turned into the result's figures (replay_run.c).
 * Ownership: struct replay_state owns everything it points to (replay_state_free).
 */

#include <pthread.h>
#include <stdint.h>

#include "base/buf.h"
#include "engine/feed.h"
#include "pg/pg.h"
#include "stats/hist.h"
#include "capture/capture.h"
#include "workload/replay/draws.h"
#include "workload/replay/order.h"
#include "workload/replay/replay_classes.h"
#include "workload/replay/returned.h"
#include "workload/replay/replay.h"
#include "workload/replay/sequences.h"
#include "workload/replay/usertypes.h"

/* Distinct classes a worker keeps apart before the rest go into "other". */
#define REPLAY_WORKER_CLASSES 600
/* Reasons of divergence kept apart per worker. */
#define REPLAY_MAX_REASONS 64
/* Statements a worker holds read ahead of its clients at most (bounded look-ahead). */
#define REPLAY_LOOKAHEAD 65536

/* A captured session: when it starts and ends, and which client replays it. */
struct replay_session {
    int64_t start_us, end_us;
    int client; /* -1: a session the first pass has not seen start */
    int conn;   /* index in replay_state.conns */
    uint64_t statements;
};

struct replay_reason {
    char *text;
    uint64_t count;
};

/* The figures a worker gathers, and the run's once merged. */
struct replay_figures {
    uint64_t sent, skipped_copy, skipped_read_only, skipped_unsupported;
    uint64_t prepared;      /* named statements prepared (again after a DEALLOCATE of them) */
    uint64_t pipelined;     /* statements sent before their session's previous one's results */
    uint64_t copy_loaded;   /* COPY FROM STDIN sent their --copy-from file */
    uint64_t copy_recorded; /* COPY FROM STDIN sent the rows the capture holds */
    uint64_t values_mapped; /* statements sent with the replay's values for the capture's */
    uint64_t copy_empty;    /* COPY FROM STDIN inside statements of several, given no rows */
    uint64_t failed_now, succeeded_now, sessions_failed;
    uint64_t secrets_replaced; /* statements sent with the replay's password for the captured */
    /* --order capture: statements held back for the capture's order, for how long, and the
     * waits given up because the statement waited for was blocked by the waiting session's
     * own locks (source.c) */
    uint64_t order_waits, order_given_way;
    int64_t order_wait_us;
    struct class_table *classes;
    struct hist *lag, *client_lag; /* lag_us, client_lag_us */
    size_t n_reasons;
    struct replay_reason reasons[REPLAY_MAX_REASONS + 1]; /* the last: any other */
};

struct replay_state {
    struct replay_opts opts;
    struct replay_returned returned; /* the capture's server's values, mapped (returned.h) */
    struct capture_header header;
    uint64_t transactions; /* the capture's: BEGIN ... COMMIT blocks and single statements */
    size_t n_sessions;
    struct replay_session *sessions;
    size_t n_conns; /* the sessions' distinct (user, database), mapped */
    struct pg_connopts *conns;
    int *conn_db;     /* by conn: its database's index in databases, -1 for the run's own */
    char **databases; /* the mapped target databases (for --reset-from), n_conns at most */
    /* The password the replay sets where the capture's statements set one (the capture holds
     * none: capture/sqltext.h), random for each run and never written anywhere; the sessions
     * that log in as a role the capture gave a password to give it. */
    char password[33];
    size_t n_databases;
    int n_clients;
    /* --order capture (ordered): the capture's real-time order across sessions, its
     * statements numbered as each worker reads them; order_mu serialises their finishing. */
    int ordered;
    struct replay_order order;    /* statements: the schema's changes before them */
    struct replay_order connects; /* sessions' starts: everything that finished before */
    /* --order capture: the capture's order of draws from each sequence (draws.h), its keys
     * and builder until the catalog is read (sequences.h) */
    struct replay_draw_keys draw_keys;
    struct replay_draws_build draws_build;
    struct replay_draws draws;
    /* The unique indexes and foreign keys on keys a sequence gave, each with its NUL
     * (sequences.h): a failure naming one is named as one on a generated value */
    struct buf generated_keys;
    struct pg_connopts own; /* the run's own connection (CONN, its database given) */
    /* The user's types the capture names, mapped to the targets' OIDs (usertypes.h) */
    struct replay_types types;
    pthread_mutex_t order_mu;
    struct engine_feed feed;
    /* --copy-from: the COPY FROM STDIN that have a file, by their number in the capture
     * (ascending), each with its file (DIR/TABLE.N for the Nth COPY into TABLE) */
    size_t n_copy_loads;
    struct replay_copy_load {
        uint64_t seq;
        char *path;
    } * copy_loads;
    pthread_mutex_t mu; /* guards merged while workers close */
    struct replay_figures merged;
};

/* prepass.c: read the capture at opts->capture once: its header, its sessions, the clients
 * that replay them (a client replays sessions that do not overlap in time, one after the
 * other; numbered so that the engine's threads, which take the clients in contiguous blocks,
 * get about as many statements each), the connection options of each (user and database
 * mapped, CONN's host and port, --read-only's setting) and the transactions. threads: the
 * run's -j. NULL with e set (ERR_INPUT). */
struct replay_state *replay_prepass(const struct replay_opts *opts, const struct pg_connopts *conn,
                                    int threads, struct err *e);
void replay_state_free(struct replay_state *s);
/* sequences.c: a connection of the replay's own to database name (NULL: the run's own
 * connection's), where neither pg_stat_statements nor the server's log sees it (track =
 * none, log_statement = none ... at the session's start, which a superuser may set; else
 * seen), so that the target's figures and log hold the replay's statements alone; NULL when
 * it cannot connect. */
struct pg_conn *replay_catalog_connect(const struct replay_state *s, const char *name);
/* name as --map-db or --map-user (maps, n of them) map it. */
const char *replay_mapped(const struct replay_map *maps, int n, const char *name);
/* " key='v'" appended to conninfo b (backslash before ' and \). */
void replay_conninfo_value(struct buf *b, const char *key, const char *v);

/* source.c: the engine's feed over s (s->feed filled in). */
void replay_source_init(struct replay_state *s);

/* The figures: init, merge src into dst, free. */
void replay_figures_init(struct replay_figures *f);
void replay_figures_merge(struct replay_figures *dst, const struct replay_figures *src);
/* Every figure of f back to zero (its class entries kept): after a worker handed them over. */
void replay_figures_reset(struct replay_figures *f);
void replay_figures_free(struct replay_figures *f);
/* Count one divergence of reason text (first REPLAY_MAX_REASONS apart, then "other"). */
void replay_figures_reason(struct replay_figures *f, const char *text, uint64_t n);

/* --copy-from: the file the COPY FROM STDIN numbered seq in the capture (its statements
 * counted from 0 in the order read) is sent, NULL when none (the COPY is skipped). */
const char *replay_copy_load(const struct replay_state *s, uint64_t seq);
/* Whether a statement begins or ends a transaction block: 1 begins, -1 ends, 0 neither. */
int replay_tx_boundary(const char *text);
/* Whether a statement changes the schema or the roles (CREATE, ALTER, DROP, GRANT, ...: its
 * first word), what the order makes the other sessions' statements wait for. */
int replay_schema_change(const char *text);

#endif
