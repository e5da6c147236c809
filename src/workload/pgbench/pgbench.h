#ifndef PGARENA_WORKLOAD_PGBENCH_PGBENCH_H
#define PGARENA_WORKLOAD_PGBENCH_PGBENCH_H

/* pgbench's tables: init's options for them (pgbench.c parses them) and their loader. */

#include "workload/load/load.h"

enum pgbench_partitioning { PGBENCH_PART_RANGE, PGBENCH_PART_HASH };

/* init's options of pgbench's tables (plain data: the strings point into argv). */
struct pgbench_init_opts {
    int scale;      /* -s: 1 branch, 10 tellers, 100000 accounts each */
    int partitions; /* 0: pgbench_accounts is not partitioned */
    enum pgbench_partitioning partition_method;
    /* pgbench -i's -I STEPS: d drop, t create, g generate client-side (COPY), G generate
     * server-side, v vacuum, p primary keys, f foreign keys, in this order; ' ' ignored.
     * NULL: "dtgvp". -n blanks out v, --foreign-keys adds f (pgbench_steps). */
    const char *init_steps;
    int no_vacuum, foreign_keys;
    int unlogged;                 /* --unlogged-tables */
    int fillfactor;               /* -F: 10..100; 0 is 100 */
    const char *tablespace;       /* --tablespace: of the tables (NULL: the default) */
    const char *index_tablespace; /* --index-tablespace: of the primary keys */
};

/*
 * pgbench's four tables, as `pgbench -i` of PostgreSQL 15 makes them (opt->opts: a struct
 * pgbench_init_opts): the same definitions (aid bigint from scale 20000), rows, filler, primary
 * keys, and with partitions the same partitioned pgbench_accounts (`--partitions N
 * --partition-method range|hash`). Accounts are written frozen (partitions too, which pgbench
 * does not do), then everything is vacuumed and analyzed. Errors: ERR_INPUT for a bad option or
 * for an existing table of one of these names that is not in pgbench's shape (nothing is
 * changed then; opt->force overrides); ERR_RUNTIME with the server's message otherwise. Stopped
 * or failed after the drop, the tables exist but may be empty or lack keys.
 */
int load_pgbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);

#endif
