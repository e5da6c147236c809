#ifndef PGARENA_BENCH_PLAN_H
#define PGARENA_BENCH_PLAN_H

/*
 * A benchmark run's plan: plain data, no live state. cli/ builds one from run's options, the
 * sweep derives one per cell from its base plan and the cell's axes; bench_run() carries it
 * out. Ownership: the strings a plan points to (conn, specs, output, ...) belong to whoever
 * built it and outlive the run; copying a plan by assignment is how a cell is made.
 */

#include <stdint.h>

#include "engine/engine.h"
#include "pg/pg.h"
#include "workload/load/load.h"
#include "workload/workload.h"

#define BENCH_MAX_SPECS 64

/* The length of a run's intervals (result intervals[]). */
#define BENCH_INTERVAL_MS 1000
/* --sample-ms when not given. */
#define BENCH_DEFAULT_SAMPLE_MS 100
/* -T when neither -T nor -t is given. */
#define BENCH_DEFAULT_DURATION_S 10

/* A -f FILE[@WEIGHT] or -b NAME[@WEIGHT] as given. */
struct bench_script_spec {
    char kind; /* 'f' or 'b' */
    const char *arg;
};

/* run --agents: this process is agent `index` of `count`. */
struct bench_agents_opts {
    int64_t count; /* 0: a run of one process */
    int64_t index; /* --agent-index, or from JOB_COMPLETION_INDEX / SLURM_PROCID */
    int index_given;
    const char *run_id, *coord, *merged;
    int64_t wait_s;      /* at the barrier (default 60) */
    int64_t clients_all; /* -c and -R of the whole run (the plan's clients, rate: this agent's) */
    double rate_all;
};

/* Sampling during the run. */
struct bench_sampling_opts {
    int off;           /* --no-sampling */
    int64_t sample_ms; /* --sample-ms */
    int ms_given;
};

/* pgbench's transaction log (-l and its companions). */
struct bench_log_opts {
    int on, failures_detailed;
    const char *prefix; /* NULL: pgbench_log */
    double sampling_rate;
    int64_t aggregate_s;
};

struct bench_plan {
    struct pg_connopts conn;
    const struct workload *workload; /* -w (unused with -f/-b) */
    int workload_given;
    int n_specs;
    struct bench_script_spec specs[BENCH_MAX_SPECS];
    int n_defines;
    const char *defines[BENCH_MAX_SPECS]; /* -D NAME=VALUE */
    int64_t scale;                        /* 0: detected by the workload (pgbench: the branches) */
    int64_t tables, table_size;           /* sysbench workloads; 0: detected by the workload */
    int64_t clients, threads, duration_s, tx_per_client, progress_s, seed;
    int seed_given; /* else bench_run draws one */
    enum engine_protocol protocol;
    double rate, latency_limit_ms;
    int64_t warmup_s, max_tries, timeout_ms;
    int connect_per_tx, per_statement, progress_timestamp;
    const char *output; /* the result file */
    const char *label;
    const char *command; /* the command line, passwords masked */
    struct bench_log_opts log;
    struct workload_tpcc_opts tpcc;
    struct bench_agents_opts agents;
    struct bench_sampling_opts sampling;
    struct workload_ch_opts ch; /* -w ch: --analytic-clients, --queries */
    int n_meta;
    const char *meta[BENCH_MAX_SPECS]; /* --meta KEY=VALUE, checked by bench_plan_add_meta */
    struct replay_opts replay;         /* replay run's (capture NULL: not a replay) */
};

/* A plan with run's defaults: one client, one thread, simple protocol, one try. */
void bench_plan_init(struct bench_plan *p);

/* Which options were given, where a default depends on it (a workload's protocol and tries). */
struct bench_given {
    int duration, protocol, max_tries;
};

/* Once every option is in: the defaults that depend on others (-T 10 without -t, tpcc's
 * mix, protocol and tries), the combinations that are refused, and --agents' split of -c and
 * -R. -1 with e set (ERR_INPUT, messages beginning "run: "). */
int bench_plan_check(struct bench_plan *p, const struct bench_given *given, struct err *e);

/* Remember a -f, -b or -D argument (checked when the scripts are built). */
int bench_plan_add_spec(struct bench_plan *p, char kind, const char *arg, struct err *e);

/* Remember a --meta KEY=VALUE: KEY of letters, digits, '_', '-' and '.', given once. -1 with e
 * set (ERR_INPUT). */
int bench_plan_add_meta(struct bench_plan *p, const char *arg, struct err *e);

/* What loading the plan's workload takes (run --local, sweep --init): its scale, warehouses,
 * tables and rows (1, 1, 1 and sysbench's default where the plan does not say), the default
 * number of connections, the plan's seed; no progress callbacks. */
void bench_plan_load_options(const struct bench_plan *p, struct load_options *lo);

/* -M's names, by enum engine_protocol. */
extern const char *const bench_protocol_names[];

#endif
