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
 * event that woke it, until it must wait; it then rests in one of its states. Each state's
 * step is a helper that returns the next state (and whether the client rests there), and one
 * place moves the client (client.c's run_from), as pgbench's advanceConnectionState.
 *
 * The core's states, below, are a connection's, shared by every kind of client (client_conn.c,
 * client.c). What a client does on its connection is its kind's: each kind is a driver
 * (engine/client_driver.h) with states of its own, numbered from CS_DRIVER in its own enum
 * and documented there: a script client (client_script.h: SC_*, client_tx.c), an analytic
 * stream (a script client choosing its scripts in passes, client_stream.c) and a feed's
 * client (client_feed.h: FS_*, client_feed.c). run_from steps the core's states itself and
 * hands the others to the client's driver; timers and the end of a -T run likewise.
 *
 * CS_CONNECTING     waits for the socket as pg_conn_poll asks (readable or writable; the
 *                   socket may change at any step). Connected: the driver's connected (a
 *                   script client first prepares its statements with -M prepared), then
 *                   -> c->resume (CS_IDLE at setup, the driver's state otherwise). Failed, or
 *                   the connect timeout (timer): at setup the run is aborted (-> CS_FINISHED),
 *                   later the driver's connect_failed says.
 * CS_IDLE           set up; waits for the run to start (worker_begin: the driver's start).
 * CS_RECONNECT_WAIT connection lost (client_lost): waits (timer) out a backoff (100 ms,
 *                   doubling up to 1 s); the driver's timer says what then.
 * CS_FINISHED       done: waits for nothing.
 */
enum client_state {
    CS_CONNECTING,
    CS_IDLE,
    CS_RECONNECT_WAIT,
    CS_FINISHED,
    CS_DRIVER, /* the first of a driver's own states */
};

struct worker;
struct client_driver;

/* A client: what every kind shares (its connection and socket, its timer, its transaction's
 * times and outcome, its counts), its driver, and its kind's own part (kind). */
struct client {
    int id; /* 0-based, global: :client_id */
    struct worker *w;
    struct pg_conn *conn;
    struct ev_watch watch; /* the connection's socket in the worker's wait set */
    int state;             /* an enum client_state, or one of its driver's states */
    int resume;            /* where to go once connected (and, for a script client, prepared) */
    const struct client_driver *drv;
    void *kind;                          /* the driver's part of the client */
    const struct pg_connopts *conn_opts; /* what to connect with: a feed's session's (NULL:
                                          * the run's) */
    int copy_out;     /* a refused COPY TO STDOUT's rows are being read and dropped */
    int counts_apart; /* its transactions count in its script's figures only (a stream) */
    int timer_slot;   /* in the worker's timer heap, -1 when none */
    int lost;         /* counted in the worker's n_lost */
    int aborted;      /* its script cannot go on (as pgbench aborts a client): it finishes after the
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
    uint64_t n_done;   /* transactions finished or skipped, for -t */
    uint64_t n_logged; /* -l: the client's transactions logged so far */
    int64_t lag_us;    /* -R: how late the current transaction started */
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
/* The run has begun: move the client into its driver's first state and on from there. */
void client_start(struct client *c, time_ns now);
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
/* A transaction of c scheduled at sched_at skipped (-R with --latency-limit: already too late)
 * at now. */
void worker_record_skipped(struct client *c, time_ns sched_at, time_ns now);
void worker_record_statement(struct worker *w, int script, int command, time_ns start, time_ns end);
void *worker_main(void *arg);
/* The run has started (run->go_ns, start_ns, end_ns set): start the worker's statistics and
 * schedule, and every client (its driver's start), at now. */
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

/* client_feed.c: a feed's clients. */
/* Another worker raised w's feed_wake: its held clients ask the feed again. */
void client_feed_woken(struct worker *w, time_ns now);

/* Send a cancel request for conn without blocking the caller (a helper thread does it). */
void cancel_request(struct pg_conn *conn);
void cancel_start(void);
void cancel_stop(void);

#endif
