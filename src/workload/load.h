#ifndef PGARENA_WORKLOAD_LOAD_H
#define PGARENA_WORKLOAD_LOAD_H

#include <stdint.h>

#include "base/err.h"
#include "pg/pg.h"

/*
 * Dataset loaders. Each creates its workload's tables, loads rows with COPY, then builds
 * primary keys and runs VACUUM ANALYZE, reporting progress through a callback.
 *
 * The interface takes `jobs` so parallel loading (several connections, one COPY stream
 * each) can come without changing callers; today jobs > 1 is accepted and may load serially.
 */

/* Progress: rows loaded so far of rows_total, and the phase ("load", "keys", "vacuum"). */
struct load_progress {
    int64_t rows_done;
    int64_t rows_total;
    const char *phase;
};
typedef void (*load_progress_fn)(const struct load_progress *p, void *arg);

struct load_options {
    int scale;                 /* pgbench scale: 1 branch, 10 tellers, 100000 accounts each */
    int jobs;                  /* connections to load with */
    uint64_t seed;             /* for data that is random (none in pgbench's tables) */
    load_progress_fn progress; /* may be NULL; called at most every ~100 ms and at the end */
    void *progress_arg;
    /* Set asynchronously (signal handler) to ask the loader to stop early: it returns -1
     * with ERR_RUNTIME "interrupted". May be NULL. */
    volatile int *stop_requested;
};

/* pgbench's four tables, exactly as `pgbench -i` makes them (definitions, row counts,
 * filler, primary keys), dropping only pgbench_accounts/branches/tellers/history first. */
int load_pgbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);

#endif
