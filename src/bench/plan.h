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
#include "metrics/metrics.h"
#include "pg/pg.h"
#include "result/run_id.h"
#include "workload/load/load.h"
#include "workload/workload.h"

#define BENCH_MAX_SPECS 64
/* The workload's own options a plan holds (--map-db and --map-user take 32 each). */
#define BENCH_MAX_OPTIONS 128

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

/* sweep --duet: the run is one half of a duet, started at the same instant as the other half
 * (another process). The caller owns it; the barrier fills wall_offset_ns. */
struct bench_duet {
    char run_id[RUN_ID_LEN + 1];  /* this half's run_id, chosen before the run */
    char id[RUN_ID_LEN + 1];      /* the duet's, the same in both halves */
    char partner[RUN_ID_LEN + 1]; /* the other half's run_id */
    char role;                    /* 'a' or 'b' */
    /* The engine's barrier (engine_config.barrier): every client connected, it returns the go
     * instant both halves share. */
    int (*barrier)(void *arg, time_ns *go_ns, struct err *e);
    void *barrier_arg;
    /* The wall clock minus the monotonic one, read once for both halves (0: unknown): both
     * write the same measured_start_at. */
    int64_t wall_offset_ns;
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
    int64_t clients, threads, duration_s, tx_per_client, progress_s, seed;
    int seed_given; /* else bench_run draws one */
    enum engine_protocol protocol;
    double rate, latency_limit_ms;
    int64_t warmup_s, max_tries, timeout_ms;
    int connect_per_tx, per_statement, progress_timestamp;
    int exit_on_abort, debug; /* pgbench's --exit-on-abort and --debug */
    const char *output;       /* the result file */
    const char *label;
    const char *command; /* the command line, passwords masked */
    struct bench_log_opts log;
    struct bench_agents_opts agents;
    struct bench_sampling_opts sampling;
    int n_meta;
    const char *meta[BENCH_MAX_SPECS]; /* --meta KEY=VALUE, checked by bench_plan_add_meta */
    /* The workload's own options: as given (bench_plan_add_option), and parsed by the
     * workload into its own struct by bench_plan_check (opaque here). */
    int n_options;
    struct workload_option options[BENCH_MAX_OPTIONS];
    struct workload_opts wopts;
    /* Out of bench_plan_check: the clients the workload runs besides -c (analytic streams). */
    int64_t stream_clients;
    struct bench_duet *duet; /* NULL: a solo run */
    /* --metrics-listen: as given, and the server the command opened on it (NULL: none); the
     * run publishes its figures there (bench/bench_metrics.c). */
    const char *metrics_listen;
    struct metrics *metrics;
};

/* A plan with run's defaults: one client, one thread, simple protocol, one try. */
void bench_plan_init(struct bench_plan *p);

/* Which options were given, where a default depends on it (a workload's protocol and tries). */
struct bench_given {
    int duration, protocol, max_tries, clients;
    int local; /* run --local: a fresh server */
};

/* Once every option is in: the workload's options parsed by it, the defaults that depend on
 * others (-T 10 without -t, the workload's protocol and tries), the combinations that are
 * refused, and --agents' split of -c and -R. -1 with e set (ERR_INPUT, messages beginning
 * "run: "). */
int bench_plan_check(struct bench_plan *p, const struct bench_given *given, struct err *e);

/* Remember a -f, -b or -D argument (checked when the scripts are built). */
int bench_plan_add_spec(struct bench_plan *p, char kind, const char *arg, struct err *e);

/* Remember an option of a workload's own (`name` its long name, arg NULL for a flag), its
 * value checked by the workload that takes it: 0 when no workload takes it, 1 taken, -1 with
 * e (ERR_INPUT). Which workload it is for is checked by bench_plan_check. */
int bench_plan_add_option(struct bench_plan *p, const char *name, const char *arg, struct err *e);

/* Whether the workload option `name` was given. */
int bench_plan_option_given(const struct bench_plan *p, const char *name);

/* One option of the workload's own into a checked plan's parsed options (a sweep cell's
 * --speed); arg need not outlive the call unless the workload keeps it as a string. -1 with
 * e (ERR_INPUT). */
int bench_plan_set_option(struct bench_plan *p, const char *name, const char *arg, struct err *e);

/* Remember a --meta KEY=VALUE: KEY of letters, digits, '_', '-' and '.', given once. -1 with e
 * set (ERR_INPUT). */
int bench_plan_add_meta(struct bench_plan *p, const char *arg, struct err *e);

/* What run --local or sweep --init loads for the plan: the workload's init options at their
 * defaults, with what its run options and the scale (0: the plan's -s) give (its
 * load_sizes), into load_opts (lo->opts points there); the default number of connections, the
 * plan's seed; no progress callbacks. */
void bench_plan_load_options(const struct bench_plan *p, int64_t scale, struct load_options *lo,
                             struct workload_opts *load_opts);

/* -M's names, by enum engine_protocol. */
extern const char *const bench_protocol_names[];

#endif
