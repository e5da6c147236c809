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

enum load_partitioning { LOAD_PART_RANGE, LOAD_PART_HASH };

struct load_options {
    /* pgbench (tpcb-like and friends) */
    int scale;      /* 1 branch, 10 tellers, 100000 accounts each */
    int partitions; /* 0: pgbench_accounts is not partitioned */
    enum load_partitioning partition_method;
    /* pgbench -i's -I STEPS: d drop, t create, g generate client-side (COPY), G generate
     * server-side, v vacuum, p primary keys, f foreign keys, in this order; ' ' ignored.
     * NULL: "dtgvp". */
    const char *init_steps;
    int unlogged;                 /* --unlogged-tables */
    int fillfactor;               /* -F: 10..100; 0 is 100 */
    const char *tablespace;       /* --tablespace: of the tables (NULL: the default) */
    const char *index_tablespace; /* --index-tablespace: of the primary keys */
    /* sysbench (oltp-*) */
    int tables;         /* sbtest1..sbtestN */
    int64_t table_size; /* rows per table */
    /* TPC-C: warehouses; partitions (above) hash-partitions order_line and stock */
    int warehouses;

    int jobs;      /* connections to load with (>= 1) */
    uint64_t seed; /* for data that is random (sysbench's k, c and pad) */
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

/*
 * pgbench's four tables, as `pgbench -i` of PostgreSQL 15 makes them: the same definitions
 * (aid bigint from scale 20000), rows, filler, primary keys, and with opt->partitions the same
 * partitioned pgbench_accounts (`--partitions N --partition-method range|hash`). Accounts are
 * written frozen (partitions too, which pgbench does not do), then everything is vacuumed and
 * analyzed. Errors: ERR_INPUT for a bad option or for an existing table of one of these names
 * that is not in pgbench's shape (nothing is changed then; opt->force overrides);
 * ERR_RUNTIME with the server's message otherwise. Stopped or failed after the drop, the
 * tables exist but may be empty or lack keys.
 */
int load_pgbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);

/*
 * sysbench 1.0's tables sbtest1..N for the pgsql driver, as `sysbench oltp_* prepare` makes
 * them: id serial primary key, k integer, c char(120), pad char(60), index k_N on k; ids 1 to
 * table_size in order, k drawn as sysbench's default ("special") distribution does, c and pad
 * groups of random digits; the id sequences where sysbench leaves them. Then vacuumed and
 * analyzed (sysbench does not). Errors as load_pgbench.
 */
int load_sysbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);

/* The default number of loading connections: the number of CPUs online (1 to 1024). */
int load_default_jobs(void);

#endif
