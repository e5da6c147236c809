#ifndef PGARENA_ENGINE_ENGINE_INT_H
#define PGARENA_ENGINE_ENGINE_INT_H

/* Shared inside engine/: the run, its workers and their clients. */

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/rng.h"
#include "engine/engine.h"
#include "engine/evwait.h"
#include "engine/sched.h"
#include "engine/timers.h"
#include "stats/series.h"

/*
 * Client states. client_advance runs a client from state to state, with the time of the
 * event that woke it, until it must wait; it then rests in one of the states below. Each
 * state's step is a helper that returns the next state (and whether the client rests there),
 * and one place moves the client (client.c's run_from), as pgbench's advanceConnectionState.
 * For each: what it waits for, and where it goes. The core has the connecting states
 * (client_conn.c) and the timers (client.c); each client kind is a driver with states of its
 * own: a script client (client_tx.c: CS_PREPARING to CS_END_TX) and a feed's client
 * (client_feed.c: CS_FEED_*).
 *
 * CS_CONNECTING     waits for the socket as pg_conn_poll asks (readable or writable; the
 *                   socket may change at any step). Connected: -> CS_PREPARING in prepared
 *                   mode, else -> c->resume (CS_IDLE at setup, CS_START_TX after a lost
 *                   connection, CS_START_CMD with -C). Failed, or the connect timeout (timer):
 *                   at setup the run is aborted (-> CS_FINISHED), later the client waits to
 *                   try again (-> CS_RECONNECT_WAIT; with -C the transaction fails first).
 * CS_PREPARING      waits for nothing: sends the next PREPARE -> CS_WAIT_PREPARE; all sent
 *                   -> c->resume.
 * CS_WAIT_PREPARE   waits for the PREPARE's results, up to their end (the error, if any, is
 *                   kept in c->failure meanwhile) -> CS_PREPARING; refused by the server at
 *                   setup: the run is refused (-> CS_FINISHED); else failed: as CS_CONNECTING.
 * CS_IDLE           set up; waits for the run to start (the worker moves it to CS_START_TX).
 * CS_START_TX       waits for nothing. Run over -> CS_FINISHED. -R: a start not yet due
 *                   -> CS_THROTTLE (starts already later than --latency-limit are skipped).
 *                   Chooses a script and -> CS_START_CMD, or, without a connection (-C, or
 *                   not yet back), -> CS_CONNECTING with resume CS_START_CMD.
 * CS_THROTTLE       waits (timer) for the scheduled start -> CS_START_TX.
 * CS_START_CMD      runs commands until one must wait: \set and \if inline; SQL sent
 *                   -> CS_WAIT_RESULT (in a pipeline: queued, and on to the next command);
 *                   \sleep -> CS_SLEEP; \endpipeline -> CS_WAIT_PIPELINE; a failure
 *                   -> CS_ERROR; past the last command -> CS_END_TX.
 * CS_WAIT_RESULT    waits for the results of the SQL command sent -> CS_START_CMD (next
 *                   command), or CS_ERROR when one failed or the connection broke. --timeout
 *                   (timer): sends a cancel and waits one more timeout; then the transaction
 *                   fails as a timeout and the connection is dropped -> CS_RECONNECT_WAIT.
 * CS_SLEEP          \sleep: waits (timer) until sleep_until -> CS_START_CMD (next command);
 *                   --timeout first -> CS_ERROR.
 * CS_WAIT_PIPELINE  \endpipeline (or an error in a pipeline): waits for every result up to
 *                   the pipeline's sync -> CS_START_CMD past \endpipeline, or CS_ERROR.
 *                   --timeout (timer): fails as a timeout -> CS_RECONNECT_WAIT.
 * CS_ERROR          a command failed; waits for nothing. Connection broken: the transaction
 *                   fails -> CS_RECONNECT_WAIT. A pipeline open: sync -> CS_WAIT_PIPELINE
 *                   (discarding). A transaction block open: ROLLBACK sent
 *                   -> CS_WAIT_ROLLBACK. Else as after the rollback.
 * CS_WAIT_ROLLBACK  waits for the ROLLBACK's result. A serialization or deadlock failure with
 *                   tries left -> CS_START_CMD from the first command with the same random
 *                   draws; else -> CS_END_TX. --timeout (timer): as in CS_WAIT_PIPELINE.
 * CS_END_TX         waits for nothing: records the transaction (-C: closes the connection)
 *                   -> CS_START_TX.
 * CS_RECONNECT_WAIT connection lost: waits (timer) out a backoff (100 ms, doubling up to 1 s)
 *                   -> CS_CONNECTING with resume CS_START_TX, or CS_FINISHED when the run is
 *                   over.
 * CS_FINISHED       done: waits for nothing.
 *
 * A feed's clients (engine/feed.h, client_feed.c) leave CS_START_TX for these:
 * CS_FEED_NEXT      waits for nothing: takes the next item of the client's stream (none yet:
 *                   -> CS_FEED_WAIT; no more -> CS_FINISHED). Not yet due -> CS_FEED_WAIT.
 *                   A session's start -> CS_CONNECTING with resume CS_FEED_NEXT (a failure:
 *                   the session is failed, its statements are not sent, -> CS_FEED_NEXT); a
 *                   statement -> CS_FEED_RESULT, or first CS_FEED_PREPARE for a named one not
 *                   yet prepared in the session; a session's end closes it -> CS_FEED_NEXT.
 * CS_FEED_WAIT      waits (timer) for the item's due time, or to ask the feed again
 *                   -> CS_FEED_NEXT.
 * CS_FEED_PREPARE   waits for the PREPARE of a named statement -> CS_FEED_RESULT (the
 *                   statement sent), or the statement fails -> CS_FEED_NEXT. When the name
 *                   holds another text, first for the DEALLOCATE of it -> CS_FEED_PREPARE
 *                   (the PREPARE sent).
 * CS_FEED_RESULT    waits for the statement's results -> CS_FEED_NEXT; its cancel time or
 *                   --timeout (timer) sends a cancel; a broken connection fails the session.
 */
enum client_state {
    CS_CONNECTING,
    CS_PREPARING,
    CS_WAIT_PREPARE,
    CS_IDLE,
    CS_START_TX,
    CS_THROTTLE,
    CS_START_CMD,
    CS_WAIT_RESULT,
    CS_SLEEP,
    CS_WAIT_PIPELINE,
    CS_ERROR,
    CS_WAIT_ROLLBACK,
    CS_END_TX,
    CS_RECONNECT_WAIT,
    CS_FINISHED,
    CS_FEED_NEXT,
    CS_FEED_WAIT,
    CS_FEED_PREPARE,
    CS_FEED_RESULT,
};

/* A feed client's state beyond a script client's (client_feed.c). */
struct client_feed {
    struct engine_feed_item item;
    int have_item;                  /* item taken from the feed, not yet carried out */
    int in_session, session_failed; /* a session started; it has no usable connection */
    const struct pg_connopts *conn; /* the session's, for connecting */
    struct feed_prepared {          /* named statements prepared in this session */
        char *name;
        uint64_t text_hash; /* of the text prepared under it (base/hash.h) */
    } * prepared;
    int n_prepared, cap_prepared;
    int closing; /* CS_FEED_PREPARE: the DEALLOCATE of the name's other text, before its Parse */
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
    int copy_given;        /* the statement's first COPY FROM STDIN had its turn */
    int copy_empty;        /* of the statement's COPY FROM STDIN, those given no rows */
    size_t copy_len;       /* the data the current COPY FROM STDIN sends (0: none) */
    size_t copy_at;        /* of it, what is queued */
    char returned[64];     /* want_returned: the last result's one value ("" none) */
};

struct worker;

/* A script client's state beyond what every client has (client_tx.c, client_conn.c's
 * PREPAREs): where it is in its script, and what its commands hold between events. */
struct client_script {
    struct rng rng;          /* the client's own stream: a seeded run repeats its values */
    struct script_vars vars; /* the scripts' variables */
    int cmd;                 /* index of the current command in script */
    struct rng tx_rng;       /* state at the transaction's first try: retries repeat its draws */
    int prep_script;         /* prepared mode setup cursor */
    int prep_cmd;
    int scheduled; /* -R: sched_at holds a start not yet used */
    time_ns sched_at;
    time_ns sleep_until;
    time_ns sleep_start;    /* when the current \sleep began */
    struct pg_result *held; /* \gset: the last result with rows, applied when the command ends */
    int *pipe_cmds;         /* pipeline: commands sent whose results are still to come */
    time_ns *pipe_start;    /* and when each was sent */
    int pipe_head, pipe_tail;
    int pipe_discard; /* an error in a pipeline: read up to the sync, then fail */
    int pipe_syncs;   /* \syncpipeline syncs whose PIPELINE_SYNC result is still to come */
    int copy_out;     /* a refused COPY TO STDOUT's rows are being read and dropped */
    struct buf sql;   /* simple mode: the command with values substituted */
    const char **param_values;
    char (*param_text)[32];
    /* An analytic stream (engine_config's stream_clients): its pass's order of the stream's
     * scripts (offsets from the first), and the next one to run; NULL for the others. */
    int *stream_order;
    int stream_pos;
};

/* A client: what every kind shares (its connection and socket, its timer, its transaction's
 * times and outcome, its counts), and its kind's own part: a script client's (sc) or a
 * feed's (feed). */
struct client {
    int id; /* 0-based, global: :client_id */
    struct worker *w;
    struct pg_conn *conn;
    struct ev_watch watch; /* the connection's socket in the worker's wait set */
    enum client_state state;
    enum client_state resume; /* where to go once connected and prepared */
    int timer_slot;           /* in the worker's timer heap, -1 when none */
    int lost;                 /* counted in the worker's n_lost */
    int aborted; /* its script cannot go on (as pgbench aborts a client): it finishes after the
                  * transaction; counted in the worker's n_aborted */
    time_ns backoff_ns;
    const struct script *script;
    int script_idx;
    time_ns tx_start;    /* intended start: latency counts from here */
    time_ns tx_deadline; /* --timeout: when to cancel, 0 when none */
    time_ns cmd_start;
    time_ns connect_start;
    time_ns tx_connect_ns;    /* -C: the time to connect for this transaction, -1: none */
    time_ns connect_deadline; /* a connection attempt that takes longer fails */
    int tries;
    int cancelled;           /* a cancel was sent for the current command */
    enum pg_failure failure; /* first failure of the current try */
    uint64_t n_tx;
    uint64_t n_failed;
    uint64_t n_done;          /* transactions finished or skipped, for -t */
    uint64_t n_logged;        /* -l: the client's transactions logged so far */
    int64_t lag_us;           /* -R: how late the current transaction started */
    struct client_script sc;  /* a script client's */
    struct client_feed *feed; /* a feed's client, else NULL */
};

struct engine_state;

/* Per SQL command: successful executions in the measured part. */
struct stmt_stats {
    uint64_t count;
    double sum_us;
    struct hist *latency;
};

/* A worker's cumulative counts as it published them for the main thread (counters.c), under
 * its series_mu: they hold exactly its completions of intervals up to any idx with
 * lo <= idx <= hi. */
/* The histograms are dense copies refreshed in place (hist_assign): a copy holds no more than
 * its source's range, so a long run's publishing neither grows with the bins seen (as sparse
 * copies did, a few KB a second of a run) nor churns the worker's heap. */
struct worker_counters {
    size_t lo, hi; /* hi: SIZE_MAX once the worker has ended; lo > hi: none */
    uint64_t n_retried, n_retries, n_skipped, n_late, errors[PGF__COUNT];
    struct hist *lag;
    struct client_result *clients; /* the worker's, in order */
    struct {
        uint64_t count;
        double sum_us;
        struct hist *latency; /* NULL when worker.stmts[k].latency is */
    } * stmts;                /* as worker.stmts */
    struct {
        uint64_t n_tx, n_failed, n_retried, n_skipped;
        struct hist *latency;
    } * scripts; /* as worker.scripts */
};

struct worker {
    int id;
    pthread_t thread;
    struct engine_state *run;
    struct evwait *ev; /* its clients' sockets and the stop wake-up */
    struct timers timers;
    struct sched sched;
    int n_clients;
    struct client *clients;
    int n_live;          /* clients not yet CS_FINISHED */
    int n_setup_pending; /* clients still connecting/preparing */
    int setup_failed;
    int setup_refused; /* the server refused to prepare a statement: the script is at fault */
    int swept;         /* clients idle at the end of a -T run were finished */
    char error[256];
    /* Its setup ended by a stop request, not by a failure of its own. */
    int setup_interrupted;

    /* Statistics, owned by this thread; the atomics are read by the main thread. */
    struct hist *latency;
    struct hist *lag;
    struct series series; /* guarded by series_mu: the main thread takes closed intervals */
    pthread_mutex_t series_mu;
    struct series_recorder recorder;
    int measuring;            /* the recorder is started: interval ends wake the worker */
    int64_t begin_wall_us;    /* the wall clock when its clients began (us since 1970) */
    _Atomic size_t open_idx;  /* intervals before it are in series (SIZE_MAX: done) */
    struct stmt_stats *stmts; /* indexed by run->cmd_base[script] + command */
    struct engine_script_figures *scripts; /* indexed by the client's script_idx */
    struct txlog *txlog;                   /* -l, or NULL */
    uint64_t errors[PGF__COUNT];
    uint64_t n_tx, n_failed, n_retried, n_retries, n_skipped, n_late;
    uint64_t n_connects;
    int n_aborted; /* clients aborted (client.aborted) */
    time_ns connect_time_ns;
    time_ns last_completion;
    _Atomic uint64_t prog_tx, prog_failed;
    _Atomic double prog_sum_us, prog_sumsq_us;
    atomic_int n_lost;             /* clients whose connection is lost and not yet back */
    atomic_int n_clients_finished; /* clients in CS_FINISHED */
    void *feed_ws;                 /* the feed's state for this worker, or NULL */
    /* The client's health: while measuring, the wait never lasts past tick_ns (at most
     * ENGINE_TICK_NS ahead), and how far past its deadline a wait ended is the worker's
     * lateness, kept for interval late_idx until it moves on (then added to series);
     * late_mark: lateness up to it is counted. */
    time_ns tick_ns, late_mark;
    size_t late_idx;
    time_ns late_from_ns, late_until_ns; /* interval late_idx's span (0, 0: none yet) */
    int64_t late_sum_ns, late_max_ns;
    struct worker_counters pub; /* guarded by series_mu */
    size_t counters_for;        /* the last engine_state.counters_want seen */
    time_ns counters_at;        /* publish for it at the first event from then; 0: none */
    time_ns counters_gate;      /* events before it need no check (worker_counters_check) */
    /* Feed clients the feed had nothing for yet: woken when another finishes a statement
     * (which may make room in the feed's look-ahead). */
    struct client **feed_waiting;
    int n_feed_waiting, cap_feed_waiting;
    /* Feed clients the feed's ready holds back (a source's order across workers): another
     * worker whose statement ends raises feed_wake while there are some (several workers
     * only; feed_wake_watch watches it in ev, reported with &feed_wake). */
    atomic_int n_feed_held;
    struct evwake feed_wake;
    struct ev_watch feed_wake_watch;
};

/* A worker wakes at least this often while measuring: a stopped or starved process shows as
 * its lateness past this tick. */
#define ENGINE_TICK_NS (100 * NS_PER_MS)

struct engine_state {
    const struct engine_config *cfg;
    int n_workers;
    struct worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n_setup_done;       /* workers whose clients are all set up (or failed) */
    int go;                 /* 1: start; -1: abort before start */
    int n_finished;         /* workers whose loop ended */
    time_ns go_ns;          /* clients start (warmup begins) */
    time_ns start_ns;       /* the measured part begins: after the warmup */
    time_ns end_ns;         /* -T: when clients stop starting transactions; 0 otherwise */
    int64_t epoch_shift_us; /* wall clock minus monotonic clock, for -l's timestamps */
    size_t max_interval;
    size_t n_emitted; /* intervals passed to cfg->interval_done so far */
    size_t n_edges;   /* interval edges passed to cfg->interval_edge so far */
    int max_params;
    int n_cmds;                    /* commands of all scripts */
    int *cmd_base;                 /* per script: index of its first command in a flat array */
    atomic_int server_lost;        /* every client lost for too long: the run was stopped */
    atomic_int exit_aborted;       /* --exit-on-abort stopped the run */
    _Atomic uint64_t feed_started; /* a feed at speed max: sessions started so far */
    char overdue_note[320]; /* why engine_state_check_overdue stopped the run, "" if it did not */
    /* The interval the main thread wants the workers' cumulative counts for (SIZE_MAX: none):
     * each publishes them before it records anything after it (counters.c). */
    _Atomic size_t counters_want;
};

/* Set when a stop is requested; read by workers each loop pass. */
extern atomic_int engine_stop_flag;
/* Raised on a stop request; every worker's wait set watches it. */
extern struct evwake engine_stop_wake;

/* A wait whose deadline was due ended at now: the time past the deadline not counted yet
 * (late_mark) is the worker's lateness, each interval it spans getting its part (interval
 * late_idx's kept in the worker until the next one's comes, then added to the series). */
void worker_note_late(struct worker *w, time_ns deadline, time_ns now);
/* Hand the lateness kept for interval late_idx to the series. */
void worker_flush_late(struct worker *w);

void client_init(struct client *c, struct worker *w, int id);
void client_free(struct client *c);
/* Start the asynchronous connection for setup at now; -1 when it cannot even start (the
 * worker's setup has failed then). */
int client_connect(struct client *c, time_ns now);
/* Advance the state machine as far as it can go without waiting; now is the time of the
 * event that woke the client, the one clock reading all its transitions use. */
void client_advance(struct client *c, time_ns now);
/* Move the client into state and on from there (worker_begin: a client's first transaction
 * or its feed). */
void client_start(struct client *c, enum client_state state, time_ns now);
/* The client's timer fired (schedule, backoff or timeout). */
void client_on_timer(struct client *c, time_ns now);
/* Finish a client that waits for nothing but time, or is only reopening its connection (end
 * of a -T run). */
void client_finish_if_idle(struct client *c);
/* Register interest in the connection's socket (EV_READ, EV_WRITE; 0: none). -1 when the
 * wait set refuses it. */
int client_watch(struct client *c, unsigned events);
/* The same while connecting: libpq may have replaced the socket by a new one with the same
 * number (moving to the next host or address), which the wait set does not know although it
 * knows the number, so it is registered anew at every step. -1 when the wait set refuses it
 * (the reason is the client's error). */
int client_watch_connecting(struct client *c, unsigned events);

/* Record a finished transaction of client c (its current script); returns 1 when it counted
 * (after the warmup). */
int worker_record(struct client *c, time_ns start, time_ns end, int failed, enum pg_failure why);
/* A transaction of c skipped (-R with --latency-limit: already too late) at now. */
void worker_record_skipped(struct client *c, time_ns now);
void worker_record_statement(struct worker *w, int script, int command, time_ns start, time_ns end);
void *worker_main(void *arg);
/* The run has started (run->go_ns, start_ns, end_ns set): start the worker's statistics and
 * schedule, and every client's first transaction, at now. */
void worker_begin(struct worker *w, time_ns now);

/* Set up run for cfg without starting anything: workers, their clients (not connected) and
 * statistics. engine_state_free undoes it; engine_state_collect merges the workers' results
 * into out. */
void engine_state_init(struct engine_state *run, const struct engine_config *cfg);
void engine_state_free(struct engine_state *run);
void engine_state_collect(struct engine_state *run, struct engine_result *out);
/* The main thread's watch, at now: when every client still running has lost its connection
 * for SERVER_LOST_NS, the run stops as server-lost. *lost_since keeps the state (0 at
 * first). */
void engine_state_check_server_lost(struct engine_state *run, time_ns now, time_ns *lost_since);
/* The main thread's other watch (overdue.c): a -T run with transactions in flight past its
 * end (and past --timeout) probes the server on a connection of its own, and stops as
 * server-lost when it does not answer. *probe_at keeps the state (0 at first). */
void engine_state_check_overdue(struct engine_state *run, time_ns now, time_ns *probe_at);

/* edges.c: the interval edges (cfg->interval_edge). Edge k's time: the measured start plus k
 * intervals, a -T run's last one at its end; -1 when the run has no edge k. */
time_ns engine_state_edge_ns(const struct engine_state *run, size_t k);
/* On the main thread at now: call the hook for every edge not called yet whose time has come. */
void engine_state_edges(struct engine_state *run, time_ns now);
/* The time of the next edge to call; -1 when none (no hook, or the run's last was called). */
time_ns engine_state_next_edge(const struct engine_state *run);

/* counters.c. A worker's counts for the main thread: published at its first event after the
 * interval the main thread wants (worker_counters_check, at every event time t before it is
 * recorded), and once at its end (worker_counters_publish with SIZE_MAX). The check reads the
 * request only at the worker's first event in each interval (t >= counters_gate, the end of
 * the interval of the last one it read it at): the interval asked for always lies past the
 * one of the request, so no event after it is counted before the worker has seen it. */
void worker_counters_publish(struct worker *w, size_t hi);
void worker_counters_at_boundary(struct worker *w, time_ns t);
static inline void worker_counters_check(struct worker *w, time_ns t)
{
    if (t >= w->counters_gate)
        worker_counters_at_boundary(w, t);
}
void worker_counters_free(struct worker *w);
/* On the main thread, after interval idx was handed over: the workers' counts through it into
 * so_far (engine_result_free frees it); 0 when a worker has none for it (it saw the request
 * too late). */
int engine_counters_collect(struct engine_state *run, size_t idx, struct engine_result *so_far);
/* The main thread asks for the counts of a later interval, at now, when it has none pending. */
void engine_counters_request(struct engine_state *run, time_ns now);

/* client_feed.c: a feed's client (engine/feed.h). */
void client_feed_init(struct client *c);
void client_feed_free(struct client *c);
/* Steps of its states (client_int.h): each returns the next state. */
int client_step_feed_next(struct client *c, time_ns now);
int client_step_feed_prepare(struct client *c, time_ns now);
int client_step_feed_result(struct client *c, time_ns now);
/* The timer of a feed client: due time, cancel time or --timeout. The next state. */
int client_feed_timer(struct client *c, time_ns now);
/* Connecting for a session failed: the session is failed, the stream goes on. The state to
 * wait in. */
int client_feed_connect_failed(struct client *c, const char *what, time_ns now);
/* Another worker raised w's feed_wake: its held clients ask the feed again. */
void client_feed_woken(struct worker *w, time_ns now);

/* Send a cancel request for conn without blocking the caller (a helper thread does it). */
void cancel_request(struct pg_conn *conn);
void cancel_start(void);
void cancel_stop(void);

#endif
