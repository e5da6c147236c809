#ifndef PGARENA_WORKLOAD_SYSBENCH_SYSBENCH_H
#define PGARENA_WORKLOAD_SYSBENCH_SYSBENCH_H

/* sysbench's tables: their sizes (init's and run's --tables and --table-size, parsed by
 * sysbench_run.c) and their loader. */

#include <stdint.h>

#include "workload/load/load.h"

/* Rows per table (sbtest1..N) when --table-size does not say: sysbench's own default. init
 * --help states it. */
#define SYSBENCH_TABLE_SIZE 10000

/* The tables and rows in each: init's (defaults 1 and SYSBENCH_TABLE_SIZE), run's (0: detected). */
struct sysbench_sizes {
    int64_t tables, table_size;
};

/*
 * sysbench 1.0's tables sbtest1..N for the pgsql driver (opt->opts: a struct sysbench_sizes), as
 * `sysbench oltp_* prepare` makes them: id serial primary key, k integer, c char(120), pad
 * char(60), index k_N on k; ids 1 to table_size in order, k drawn as sysbench's default
 * ("special") distribution does, c and pad groups of random digits; the id sequences where
 * sysbench leaves them. Then vacuumed and analyzed (sysbench does not). Errors as load_pgbench.
 */
int load_sysbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);

#endif
