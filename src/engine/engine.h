#ifndef PGARENA_ENGINE_ENGINE_H
#define PGARENA_ENGINE_ENGINE_H

#include <stdint.h>

#include "base/clock.h"
#include "base/err.h"
#include "pg/pg.h"
#include "stats/hist.h"
#include "stats/series.h"
#include "workload/script.h"

/*
 * The load generator: `threads` workers, each an epoll loop over its clients' non-blocking
 * libpq connections; each client a state machine running scripts. Nothing here prints:
 * progress goes to a callback, results to struct engine_result.
 * Ownership: the caller owns config and everything it points to; engine_result is filled by
 * engine_run and freed by engine_result_free.
 */

enum protocol { PROTO_SIMPLE, PROTO_EXTENDED, PROTO_PREPARED };

/* What the progress callback sees, once per progress period, on the calling thread. */
struct engine_progress {
    double elapsed_s;       /* since the measured start */
    double period_s;        /* length of this period */
    uint64_t n_tx;          /* transactions completed in this period */
    uint64_t n_failed;      /* failed in this period */
    double latency_mean_us; /* of this period's transactions */
    double latency_stddev_us;
};

struct engine_config {
    const struct pg_connopts *conn;
    const struct script_set *scripts;
    int64_t scale;
    int clients;
    int threads;
    int64_t duration_s;    /* -T; 0 when running a transaction count */
    int64_t tx_per_client; /* -t; 0 when running for a duration */
    enum protocol protocol;
    int64_t interval_us; /* length of one interval of the series */
    double progress_s;   /* 0: no progress callback */
    uint64_t seed;
    void (*progress)(const struct engine_progress *p, void *arg);
    void *progress_arg;
};

enum end_reason { END_FINISHED, END_INTERRUPTED, END_SERVER_LOST, END_ERROR };

struct client_result {
    uint64_t n_tx;
    uint64_t n_failed;
};

struct engine_result {
    time_ns duration_ns; /* measured part: from the start to the last completion */
    uint64_t n_tx;       /* successful transactions */
    uint64_t n_failed;
    uint64_t n_retried;
    uint64_t errors[PGF__COUNT];
    struct hist *latency; /* successful transactions, microseconds */
    struct series series;
    int n_clients;
    struct client_result *clients;
    enum end_reason end_reason;
    char first_error[256]; /* first failure message seen, "" if none */
};

/* Connect every client (and prepare statements in prepared mode), then run until the duration
 * or transaction count is reached, or engine_request_stop. Returns 0 with out filled (also
 * when interrupted: out->end_reason says so), or -1 with e set when the run could not start
 * (connection failure, ERR_RUNTIME); out is then empty. */
int engine_run(const struct engine_config *cfg, struct engine_result *out, struct err *e);

void engine_result_free(struct engine_result *r);

/* Ask a running engine to stop now (async-signal-safe): clients stop, what was measured is
 * returned as END_INTERRUPTED. */
void engine_request_stop(void);

#endif
