#ifndef PGARENA_ENGINE_TXLOG_H
#define PGARENA_ENGINE_TXLOG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "base/rng.h"

/*
 * run -l: pgbench 15's transaction log, one file per thread, in its formats, so that the
 * tools that read pgbench's logs read ours. Per transaction (without an aggregate interval):
 *
 *   client_id transaction_no time script_no time_epoch time_us [schedule_lag] [retries]
 *
 * time in microseconds, or "skipped", or "failed" ("serialization", "deadlock" with
 * --failures-detailed); schedule_lag with -R; retries when --max-tries is not 1. With
 * --aggregate-interval, one line per interval:
 *
 *   interval_start num_transactions sum_latency sum_latency_2 min_latency max_latency
 *   sum_lag sum_lag_2 min_lag max_lag skipped retried retries serialization_failures
 *   deadlock_failures
 *
 * where the lag fields are 0 without -R, skipped 0 without --latency-limit, retried and
 * retries 0 with --max-tries 1, and the failures 0 without --failures-detailed (as pgbench).
 * Ownership: a struct txlog is its thread's alone (no locking); txlog_close frees it.
 */

struct txlog_opts {
    double sampling_rate;  /* --sampling-rate, (0, 1]; 0 stands for 1 */
    int64_t aggregate_s;   /* --aggregate-interval; 0: a line per transaction */
    int rate;              /* -R given: schedule lag is logged */
    int latency_limit;     /* --latency-limit given: skipped counted in aggregates */
    int max_tries;         /* --max-tries: retries logged unless 1 */
    int failures_detailed; /* --failures-detailed */
};

enum txlog_status { TXLOG_OK, TXLOG_FAILED, TXLOG_SERIALIZATION, TXLOG_DEADLOCK, TXLOG_SKIPPED };

/* One finished (or skipped) transaction. */
struct txlog_tx {
    int client;
    uint64_t number; /* the client's transactions so far, this one included */
    int script;
    int64_t end_epoch_us; /* when it ended (was skipped), microseconds since the Unix epoch */
    int64_t latency_us;
    int64_t lag_us; /* -R: how late it started */
    int tries;
    enum txlog_status status;
};

/* The aggregate of one interval (plain data). */
struct txlog_agg {
    int64_t start_epoch_us;
    uint64_t count; /* successful transactions */
    double sum, sum2, min, max;
    double lag_sum, lag_sum2, lag_min, lag_max;
    uint64_t skipped, retried, retries, serialization, deadlock;
};

struct txlog;

/* Open path for writing (truncating it); seed drives the sampling. NULL with e set
 * (ERR_INPUT) when it cannot be opened. */
struct txlog *txlog_open(const char *path, const struct txlog_opts *o, uint64_t seed,
                         struct err *e);

/* The measured part begins: the first aggregate interval starts here. */
void txlog_start(struct txlog *l, int64_t start_epoch_us);

/* Log one transaction: a line now, or into the aggregate (writing the intervals that ended
 * before it first). */
void txlog_record(struct txlog *l, const struct txlog_tx *t);

/* Write the aggregate intervals complete by end_epoch_us (a last, partial one is not written,
 * as pgbench does), close and free. -1 with e set (ERR_RUNTIME) when writing failed. */
int txlog_close(struct txlog *l, int64_t end_epoch_us, struct err *e);

/* The line of one transaction (newline included) into buf; returns its length. */
size_t txlog_format_tx(char *buf, size_t size, const struct txlog_opts *o,
                       const struct txlog_tx *t);

/* The line of one aggregate interval (newline included) into buf; returns its length. */
size_t txlog_format_agg(char *buf, size_t size, const struct txlog_opts *o,
                        const struct txlog_agg *a);

/* Add t to the aggregate a, as pgbench's accumStats does. */
void txlog_agg_add(struct txlog_agg *a, const struct txlog_opts *o, const struct txlog_tx *t);

#endif
