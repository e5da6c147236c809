#ifndef PGARENA_METRICS_METRICS_H
#define PGARENA_METRICS_METRICS_H

/*
 * --metrics-listen: a run's figures as they stand, served over HTTP (GET /metrics) in the
 * OpenMetrics text format, or Prometheus' 0.0.4 text format when the scraper's Accept header
 * asks for text/plain and not OpenMetrics.
 *
 * Two halves. The registry: one struct metrics_run per run (a sweep registers one per cell,
 * each with its run_id), whose figures its owner accumulates on its own and publishes whole
 * with metrics_run_publish (a copy under a mutex: the server never reads what the run is
 * writing, and nothing of it is on the engine's hot path). The server (metrics_http.c): a
 * thread of its own with a poll loop over nonblocking sockets: at most METRICS_MAX_CONNS
 * clients at once (more are closed at once), a request of at most METRICS_MAX_REQUEST bytes,
 * METRICS_TIMEOUT_S to send it and as long again to read the answer (a slow reader is
 * dropped, never waited for), 400, 404 or 405 for anything but GET or HEAD /metrics, one
 * request per connection.
 * Ownership: the caller owns struct metrics from metrics_open to metrics_close; a
 * struct metrics_run belongs to the struct metrics it was added to.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "stats/hist.h"

#define METRICS_MAX_CONNS   16
#define METRICS_MAX_REQUEST 8192
#define METRICS_TIMEOUT_S   5
/* After the end: the server answers until a scrape has seen the end, at most this long. */
#define METRICS_LINGER_S 5

/* The histograms' upper bounds, in microseconds: 2^k and 1.5 * 2^k from 32 us to 2^25 us
 * (33.6 s), all edges of the HDR histogram's bins (stats/hist.h: 1024 linear sub-buckets per
 * power of two), so that a bucket counts exactly the values below its bound. Then +Inf. */
#define METRICS_N_BOUNDS 41

enum metrics_phase { METRICS_STARTING, METRICS_WARMUP, METRICS_MEASURING, METRICS_DONE };

/* The wait event classes of pg_stat_activity, and CPU (no wait). */
enum {
    METRICS_WAIT_CPU,
    METRICS_WAIT_ACTIVITY,
    METRICS_WAIT_BUFFERPIN,
    METRICS_WAIT_CLIENT,
    METRICS_WAIT_EXTENSION,
    METRICS_WAIT_INJECTIONPOINT,
    METRICS_WAIT_IO,
    METRICS_WAIT_IPC,
    METRICS_WAIT_LOCK,
    METRICS_WAIT_LWLOCK,
    METRICS_WAIT_TIMEOUT,
    METRICS_N_WAITS
};

#define METRICS_MAX_KINDS   8
#define METRICS_MAX_SCRIPTS 16 /* a run's first scripts have their series; the others none */

struct metrics_hist {
    uint64_t bucket[METRICS_N_BOUNDS + 1]; /* values below bound i (not below bound i-1); the
                                              last: at or above every bound */
    uint64_t count;
    double sum_s;
};

/* What a run publishes: every figure since the measured start, cumulative. */
struct metrics_figures {
    enum metrics_phase phase;
    uint64_t transactions; /* successful, the measured part (the warmup is left out) */
    uint64_t statements;
    uint64_t retries;
    uint64_t failures[METRICS_MAX_KINDS];    /* by the run's kinds */
    uint64_t script_tx[METRICS_MAX_SCRIPTS]; /* successful, by the run's scripts */
    struct metrics_hist latency, lag;
    int64_t clients_connected;
    double stalled_s;
    double cpu_user_s, cpu_system_s;
    uint64_t waits[METRICS_N_WAITS];
    uint64_t wal_bytes;
    uint64_t checkpoints;
};

struct metrics;
struct metrics_run;

/* Parse [ADDR:]PORT (PORT alone: 127.0.0.1; [V6ADDR]:PORT). -1 with e (ERR_INPUT). */
int metrics_parse_listen(const char *spec, char *host, size_t host_size, int *port, struct err *e);

/* Listen on spec and start the server's thread: NULL with e (ERR_INPUT: a bad spec, a port in
 * use; ERR_RUNTIME: no thread). */
struct metrics *metrics_open(const char *spec, struct err *e);

/* The runs have ended: answer until one scrape has been answered since, or for at most
 * METRICS_LINGER_S (not at all when no run was added), then stop the thread and free
 * everything. NULL: nothing. */
void metrics_close(struct metrics *m);

/* A run's series, labelled run_id, label (NULL or "": none) and workload; kinds: the names of
 * its failure kinds (at most METRICS_MAX_KINDS, kept by the caller for m's life); scripts:
 * its scripts' names (copied; at most METRICS_MAX_SCRIPTS), for
 * pgarena_script_transactions_total{script}, there from the first scrape that shows the run.
 * All its figures 0, phase starting. */
struct metrics_run *metrics_run_add(struct metrics *m, const char *run_id, const char *label,
                                    const char *workload, const char *const *kinds, int n_kinds,
                                    const char *const *scripts, int n_scripts);

/* The run's figures as they stand now (copied). */
void metrics_run_publish(struct metrics_run *r, const struct metrics_figures *f);

/* The class index of a sampled wait event name ("LWLock:WALWrite", "CPU"), or -1. */
int metrics_wait_class(const char *event);

/* Histograms: the bound i in microseconds; add a sparse histogram's bins (exact); set h to a
 * whole histogram's. */
int64_t metrics_bound_us(int i);
void metrics_hist_add_sparse(struct metrics_hist *h, const struct hist_sparse *s);
void metrics_hist_set(struct metrics_hist *h, const struct hist *src);

/* The text of every run's series: OpenMetrics (openmetrics 1) or Prometheus 0.0.4 (0), into
 * a fresh string (caller frees) of *len bytes. */
char *metrics_render(struct metrics *m, int openmetrics, size_t *len);

#endif
