#ifndef PGARENA_WORKLOAD_WORKLOAD_INT_H
#define PGARENA_WORKLOAD_WORKLOAD_INT_H

/* Shared by the workloads' folders: which tables an entry runs on, sysbench's statement
 * groups, the entries the table lists, and the refusals several workloads share. Nothing
 * here allocates, except sysbench_script (caller frees). */

#include "workload/workload.h"

/* struct workload's dataset. */
enum workload_dataset {
    DATASET_PGBENCH,  /* pgbench_accounts, _branches, _tellers, _history */
    DATASET_SYSBENCH, /* sbtest1..N */
    DATASET_TPCC,     /* TPC-C's nine tables (workload/tpcc/tpcc.h) */
    DATASET_CH,       /* TPC-C's and supplier, nation, region (workload/ch/ch.h) */
    DATASET_REPLAY,   /* whatever the captured application's database holds */
    DATASET_OWN,      /* tables of its own (a workload added by its folder, as kv) */
};

/* The statement groups of a sysbench OLTP transaction (oltp_common.lua). */
#define SB_POINT_SELECTS 1  /* 10 primary-key lookups */
#define SB_RANGES        2  /* 4 range queries of 100 rows: simple, sum, order, distinct */
#define SB_WRITES        4  /* index update, non-index update, delete + insert */
#define SB_TRX           8  /* in BEGIN ... COMMIT */
#define SB_ONE_POINT     16 /* oltp_point_select: 1 lookup, not 10 */

/* The entries (workloads.def lists them). */
#define W(name) extern const struct workload workload_##name;
#include "workload/workloads.def"
#undef W

/* A sysbench workload's script for table sbtest<table> of table_size rows (one script per
 * table: the transaction picks a table by picking a script). Caller frees. */
char *sysbench_script(const struct workload *w, int table, int64_t table_size);

/* sysbench's sizes, run's --tables and --table-size (sysbench_run.c): the others' datasets
 * refuse them in their own words (their foreign_option). */
extern const struct workload_option_group sysbench_size_options;

/* pgbench -i's options of the tables' definition (-I, -F, -n, --foreign-keys,
 * --unlogged-tables, the tablespaces: pgbench.c), which the other datasets refuse. */
extern const struct workload_option_group pgbench_init_options;

/* Whether group g has the option `name`. */
int workload_group_has(const struct workload_option_group *g, const char *name);

/* init: --warehouses given to another workload than tpcc. */
int workload_refuse_warehouses(const struct workload *w, const struct workload_init_given *g,
                               struct err *e);
/* init: pgbench -i's options given to another workload than pgbench's. */
int workload_refuse_pgbench_init(const struct workload *w, const struct workload_init_given *g,
                                 struct err *e);

#endif
