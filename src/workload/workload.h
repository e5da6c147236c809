#ifndef PGARENA_WORKLOAD_BUILTIN_H
#define PGARENA_WORKLOAD_BUILTIN_H

#include <stdint.h>

/* Built-in workloads: a dataset and transaction scripts in pgbench's language.
 * The workloads are static data; generated script text is the caller's to free. */

enum dataset {
    DATASET_PGBENCH,  /* pgbench_accounts, _branches, _tellers, _history */
    DATASET_SYSBENCH, /* sbtest1..N */
    DATASET_TPCC,     /* TPC-C's nine tables (workload/tpcc/tpcc.h) */
};

/* The statement groups of a sysbench OLTP transaction (oltp_common.lua). */
#define SB_POINT_SELECTS 1  /* 10 primary-key lookups */
#define SB_RANGES        2  /* 4 range queries of 100 rows: simple, sum, order, distinct */
#define SB_WRITES        4  /* index update, non-index update, delete + insert */
#define SB_TRX           8  /* in BEGIN ... COMMIT */
#define SB_ONE_POINT     16 /* oltp_point_select: 1 lookup, not 10 */

struct builtin_workload {
    const char *name;        /* as given to -w / -b */
    const char *description; /* one line for --help */
    enum dataset dataset;
    const char *script; /* pgbench script text; NULL for sysbench's, which are generated */
    int sysbench;       /* SB_* groups of a sysbench workload */
};

/* The workload called `name`, or NULL. */
const struct builtin_workload *builtin_find(const char *name);

/* Rows per sysbench table (sbtest1..N) when --table-size does not say: sysbench's own default.
 * init --help states it. */
#define BUILTIN_SYSBENCH_TABLE_SIZE 10000

/* A sysbench workload's script for table sbtest<table> of table_size rows (one script per
 * table: the transaction picks a table by picking a script). Caller frees. */
char *builtin_sysbench_script(const struct builtin_workload *w, int table, int64_t table_size);

/* All built-ins, NULL-terminated. */
const struct builtin_workload *const *builtin_all(void);

#endif
