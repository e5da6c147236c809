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
 * Loaders print nothing (server notices are discarded) and never exit.
 */

/* Progress through the phases "load", "keys" and "vacuum", in that order. In "load",
 * rows_done counts rows sent of all the rows to load; in "keys" and "vacuum" it counts the
 * rows of the tables whose key or vacuum is done (it moves in steps, one per table). */
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
    load_progress_fn progress; /* may be NULL; called from the calling thread at most every
                                  ~100 ms, and once at the end of each phase */
    void *progress_arg;
    /* Set asynchronously (signal handler) to ask the loader to stop early: it returns -1
     * with ERR_RUNTIME "interrupted". May be NULL. */
    volatile int *stop_requested;
};

/* pgbench's four tables, exactly as `pgbench -i` of PostgreSQL 15 makes them (definitions,
 * aid bigint from scale 20000, row counts, filler, frozen accounts, primary keys), dropping
 * only pgbench_accounts/branches/tellers/history first. Loads on one connection whatever
 * opt->jobs says: COPY FREEZE needs the table created in the loading transaction, and that
 * is faster than parallel streams (see load_pgbench.c). Errors are ERR_RUNTIME with the
 * server's message, or ERR_INPUT for a scale below 1. A stop request between chunks or
 * during a key or vacuum (which is cancelled) fails with "interrupted". Stopped in "load",
 * no pgbench tables remain (the drop has committed, the load rolls back) unless the stop
 * came before the drop; stopped later, the loaded tables stay without the remaining keys or
 * vacuums. */
int load_pgbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);

#endif
