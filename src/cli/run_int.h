#ifndef PGARENA_CLI_RUN_INT_H
#define PGARENA_CLI_RUN_INT_H

/* Shared between the run command's files: the parsed options, and turning the engine's
 * statistics into a result. */

#include "engine/engine.h"
#include "pg/pg.h"
#include "result/result.h"
#include "workload/builtin.h"
#include "workload/script.h"

struct run_opts {
    struct pg_connopts conn;
    const struct builtin_workload *workload;
    int64_t scale;              /* 0: detect from pgbench_branches */
    int64_t tables, table_size; /* sysbench workloads; 0: detect from sbtest1..N */
    int64_t clients, threads, duration_s, tx_per_client, progress_s, seed;
    enum protocol protocol;
    double rate, latency_limit_ms;
    int64_t warmup_s, max_tries, timeout_ms;
    int connect_per_tx, per_statement;
    const char *output;
    const char *label;
    int quiet, local, seed_given;
    char *command; /* masked */
    char started_at[40];
    char server_version[64];
};

/* Fill r from the run (r owns copies of everything). */
void run_build_result(const struct run_opts *o, const struct script_set *scripts,
                      const struct engine_result *er, struct result *r);

extern const char *const run_protocol_names[];

/* -s for pgbench's workloads, --tables/--table-size for sysbench's: the others are errors. */
int run_check_sizes(const struct run_opts *o, struct err *e);

/* For a sysbench workload: the tables (sbtest1..N) and rows per table that the options do not
 * give, from the server: N from the sbtest tables present, rows from max(id) of sbtest1.
 * Sets o->scale to 1. ERR_INPUT when there are no such tables. No-op for other workloads. */
int run_sysbench_detect(PGconn *c, struct run_opts *o, struct err *e);

/* For a sysbench workload: one script per table, equal weights. No-op for other workloads. */
int run_sysbench_scripts(const struct run_opts *o, struct script_set *s, struct err *e);

#endif
