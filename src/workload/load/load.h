#ifndef PGARENA_WORKLOAD_LOAD_H
#define PGARENA_WORKLOAD_LOAD_H

#include <stdint.h>

#include "base/err.h"
#include "pg/pg.h"

/*
 * Dataset loaders. Each checks that the tables it is about to replace are its own, drops and
 * creates them in one transaction, then loads them over `jobs` connections at once: every
 * table or partition is one unit, truncated and filled with COPY FREEZE in one transaction on
 * one connection, then vacuumed and analyzed and given its keys and indexes, on whichever
 * connection is free. Data is a deterministic function of the options (and the seed).
 * Loaders print nothing (server notices are discarded, messages go to callbacks) and never
 * exit. Ownership: the caller owns the options and everything they point to.
 */

/* Progress, in two phases: "load" counts rows sent of all the rows to load; "finish" counts
 * the vacuums, keys and indexes done (steps) once every row is loaded. */
struct load_progress {
    const char *phase;
    int64_t rows_done;
    int64_t rows_total;
    int steps_done;
    int steps_total;
};
typedef void (*load_progress_fn)(const struct load_progress *p, void *arg);

struct load_options {
    /* What to load: the workload's own init options (its struct, parsed by its init_option:
     * workload/workload.h), plain data the caller owns. */
    const void *opts;

    int jobs;      /* connections to load with (>= 1) */
    uint64_t seed; /* for data that is random (sysbench's k, c and pad, TPC-C's) */
    int force;     /* replace same-named tables even when they are not in the expected shape */
    /* May be NULL. Called from the calling thread at most every ~100 ms and at the end of
     * each phase. */
    load_progress_fn progress;
    void *progress_arg;
    /* May be NULL. Told, in one line, which existing tables are dropped and recreated. */
    void (*notice)(const char *message, void *arg);
    void *notice_arg;
    /* Set asynchronously (signal handler) to ask the loader to stop early: it returns -1
     * with ERR_RUNTIME "interrupted". May be NULL. */
    volatile int *stop_requested;
};

/* The default number of loading connections: the number of CPUs online (1 to 1024). */
int load_default_jobs(void);

#endif
