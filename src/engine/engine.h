#ifndef PGARENA_ENGINE_ENGINE_H
#define PGARENA_ENGINE_ENGINE_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/err.h"
#include "engine/feed.h"
#include "engine/txlog.h"
#include "pg/pg.h"
#include "script/script.h"
#include "stats/hist.h"
#include "stats/series.h"

/*
 * The load generator: `threads` workers, each an event loop over its clients' non-blocking
 * libpq connections; each client a state machine running scripts. Nothing here prints:
 * progress goes to a callback, results to struct engine_result.
 * Ownership: the caller owns config and everything it points to; engine_result is filled by
 * engine_run and freed by engine_result_free.
 */

enum engine_protocol { PROTO_SIMPLE, PROTO_EXTENDED, PROTO_PREPARED };

/* What the progress callback sees, once per progress period, on the calling thread. */
struct engine_progress {
    double elapsed_s;       /* since the measured start */
    double period_s;        /* length of this period */
    uint64_t n_tx;          /* transactions completed in this period */
    uint64_t n_failed;      /* failed in this period */
    double latency_mean_us; /* of this period's transactions */
    double latency_stddev_us;
};

/* One interval of the run, all workers merged, as the interval callback sees it. */
struct engine_interval {
    size_t idx;        /* 0 = the first interval of the measured part */
    double t_s;        /* its end, seconds since the measured start */
    double duration_s; /* its length (the last one may be shorter) */
    uint64_t n_tx, n_failed;
    /* n_tx by the tenth of the interval (interval_us / SERIES_TENTHS) they completed in:
     * SERIES_TENTHS entries summing to n_tx. A short last interval has zeros past its end; the
     * late tail of a -T run counts in the last tenth. */
    const uint64_t *tenths;
    const struct hist_sparse *latency; /* successful transactions, microseconds */
    /* The workers' wake-up lateness in it: how far past their deadline (a tick at most 100 ms
     * ahead) their waits ended, summed over the workers, and the largest of one worker. */
    int64_t late_sum_ns, late_max_ns;
    /* With engine_config.counters, on some intervals: the run's cumulative per-client,
     * per-statement and per-script counts, retries, skips, late ones, errors and -R lag of
     * exactly the transactions of this interval and those before it (statements and lag: as
     * they stood when the workers moved past it); NULL on the others. Borrowed for the call. */
    const struct engine_result *so_far;
};

struct engine_config {
    const struct pg_connopts *conn;
    const struct script_set *scripts;
    int64_t scale;
    int clients;
    int threads;
    int64_t duration_s;    /* -T; 0 when running a transaction count */
    int64_t tx_per_client; /* -t; 0 when running for a duration */
    enum engine_protocol protocol;
    int64_t interval_us; /* length of one interval of the series */
    double progress_s;   /* 0: no progress callback */
    uint64_t seed;
    double rate;              /* -R: transactions per second over all clients; 0: closed loop */
    int64_t latency_limit_us; /* --latency-limit; 0: none */
    int64_t warmup_s;         /* --warmup: run this long first, count nothing */
    int max_tries;            /* --max-tries: tries of a serialization/deadlock failure (>= 1) */
    int64_t timeout_us;       /* --timeout: cancel a transaction running longer; 0: none */
    int connect_per_tx;       /* -C */
    /* --exit-on-abort: a failure that pgbench aborts its client on (any class but
     * serialization and deadlock) ends the run, as END_ERROR. */
    int exit_on_abort;
    int debug; /* --debug: each client's scripts, sends and results on stderr, as pgbench's */
    /* \sleep is a terminal's keying or think time (TPC-C): not part of the latency, and the
     * end of a -T run cuts it short (a transaction that has sent nothing yet is dropped, one
     * thinking after its SQL is recorded at once). */
    int sleep_is_terminal_time;
    /* -l: pgbench's transaction log, a file per thread: LOG_PREFIX.PID for the first,
     * LOG_PREFIX.PID.N for thread N (as pgbench names them); NULL: no log. */
    const char *log_prefix;
    struct txlog_opts log;
    void (*progress)(const struct engine_progress *p, void *arg);
    void *progress_arg;
    /* With --warmup: called once on the main thread when the measured part begins, while the
     * clients run (pgarena reads the server's statistics there); NULL: none. */
    void (*measure_start)(void *arg);
    void *measure_start_arg;
    /* When not NULL: called once on the main thread when every client is connected and the
     * run starts, with the monotonic time at which the measured part begins (after any
     * warmup); the wait-event sampler starts there. */
    void (*started)(time_ns measured_start_ns, void *arg);
    void *started_arg;
    /* When not NULL: clients entries, where client i keeps the backend process ID of its
     * current connection (0 while it has none), so that a sampler can tell the run's own
     * backends from the server's others. */
    atomic_int *backend_pids;
    /* When not NULL: called on the main thread for each interval in order, once every worker
     * has moved past it (and for the rest at the end), and the intervals are not kept:
     * engine_result.series stays empty. NULL: they are returned in engine_result.series. */
    void (*interval_done)(const struct engine_interval *iv, void *arg);
    void *interval_arg;
    /* When not NULL: called on the main thread at each interval edge, once each and in order,
     * as soon after its time as the main thread wakes (it waits for each): edge k is the
     * measured start plus k intervals (edge 0 the measured start; a -T run's last edge its end,
     * which may cut the last interval short), edge_ns its time. A run that ends otherwise (-t,
     * a stop) has no edge at its end. */
    void (*interval_edge)(size_t k, time_ns edge_ns, void *arg);
    void *interval_edge_arg;
    /* When not NULL: called on each worker thread as it ends, after its last transaction. */
    void (*thread_end)(void *arg);
    void *thread_end_arg;
    /* With interval_done: 1 to have the cumulative counts with an interval every so often
     * (engine_interval.so_far; about every second interval). */
    int counters;
    /* When not NULL: called on the main thread once every client is connected (and its
     * statements prepared), before any transaction: returns 0 with *go_ns the monotonic time
     * at which the clients start (the warmup, if any, first; now or later), or -1 with e set
     * to start nothing (engine_run then fails with that error). run --agents waits at its
     * barrier there. */
    int (*barrier)(void *arg, time_ns *go_ns, struct err *e);
    void *barrier_arg;
    /* Analytic streams (CH-benCHmark): the last stream_clients of the clients run the last
     * stream_scripts scripts of the set one after another, closed loop and never paced by -R,
     * each pass in a permutation drawn from the client's own seeded stream (in the set's order
     * with stream_in_order). Their transactions count only in the per-script and per-statement
     * figures, never in the run's totals, latency, intervals or progress, and they do not extend
     * the measured duration (unless every client is a stream). 0: none. The other clients never
     * choose these scripts, which have weight 0 in the set. */
    int stream_clients;
    int stream_scripts;
    int stream_in_order;
    /* When not NULL: the clients run the feed's
     * statement streams instead of scripts (engine/feed.h): none connects at setup,
     * each connects when its session starts, and the run ends when every stream has ended;
     * a transaction of the figures is a statement. scripts is still given (one script, for
     * the per-script figures); protocol is the simple one. */
    const struct engine_feed *feed;
};

enum end_reason { END_FINISHED, END_INTERRUPTED, END_SERVER_LOST, END_ERROR };

struct client_result {
    uint64_t n_tx;
    uint64_t n_failed;
};

/* Per SQL command of the scripts: successful executions, from send to last result. */
struct statement_result {
    int script;  /* index in the script set */
    int command; /* index in the script */
    uint64_t count;
    double mean_us;
    int64_t p99_us;
};

/* Per script of the set: its transactions over the whole measured part (each worker keeps its
 * own while the run goes on; the run's are their sum). */
struct engine_script_figures {
    uint64_t n_tx;
    uint64_t n_failed;
    uint64_t n_retried;   /* as engine_result's, of this script's transactions */
    uint64_t n_skipped;   /* -R --latency-limit: its starts skipped (it was the one chosen) */
    struct hist *latency; /* successful transactions, microseconds */
};

struct engine_result {
    time_ns duration_ns; /* measured part: from its start to the end (or last completion) */
    /* The wall clock (us since 1970) when the first worker's clients began, warmup included;
     * 0 when none began. */
    int64_t start_wall_us;
    uint64_t n_tx; /* successful transactions */
    uint64_t n_failed;
    uint64_t n_retried; /* transactions that needed more than one try */
    uint64_t n_retries; /* tries beyond the first, in all */
    uint64_t n_skipped; /* -R with --latency-limit: skipped, already late */
    uint64_t n_late;    /* successful, but over --latency-limit */
    uint64_t errors[PGF__COUNT];
    struct hist *latency;            /* successful transactions, microseconds */
    uint64_t n_latency_out_of_range; /* successful, but too slow for the histogram's range */
    struct hist *lag;                /* -R: start delay behind the schedule, microseconds */
    struct series series;
    int n_clients;
    struct client_result *clients;
    int n_statements;
    struct statement_result *statements;
    int n_scripts; /* as the script set: scripts[i] is its script i */
    struct engine_script_figures *scripts;
    uint64_t n_connects;     /* -C: connections opened for transactions, --warmup's included */
    time_ns connect_time_ns; /* -C: their total time */
    int n_aborted;           /* clients whose script could not go on (end_reason END_ERROR) */
    enum end_reason end_reason;
    char first_error[256]; /* first failure message seen, "" if none */
    char log_error[256];   /* -l: the transaction log could not be written, "" if it was */
    char end_note[320];    /* why the run stopped early when the engine says more, else "" */
};

/* Connect every client (and prepare statements in prepared mode), then run until the duration
 * or transaction count is reached, or engine_request_stop. Returns 0 with out filled (also
 * when interrupted: out->end_reason says so), or -1 with e set when the run could not start
 * (connection failure, ERR_RUNTIME; a statement the server cannot prepare or a transaction
 * log that cannot be opened, ERR_INPUT); out is then empty. */
int engine_run(const struct engine_config *cfg, struct engine_result *out, struct err *e);

void engine_result_free(struct engine_result *r);

/* Ask a running engine to stop now (async-signal-safe): clients stop, what was measured is
 * returned as END_INTERRUPTED. */
void engine_request_stop(void);
/* The same, from a thread (not async-signal-safe), with the cause: a run it stops before every
 * client connected fails with why instead of "interrupted while connecting" (run --agents: the
 * run was lost by another agent, which names its own cause). A stop requested already keeps
 * its cause. */
void engine_request_stop_because(const char *why);

#endif
