#ifndef PGARENA_CLI_RUN_INT_H
#define PGARENA_CLI_RUN_INT_H

/* Shared between the run command's files: the parsed options, and turning the engine's
 * statistics into a result. */

#include <getopt.h>

#include "engine/engine.h"
#include "pg/pg.h"
#include "result/journal.h"
#include "result/result.h"
#include "script/script.h"
#include "server/sampler.h"
#include "server/statements.h"
#include "server/server.h"
#include "workload/builtin.h"
#include "workload/tpcc/tpcc.h"

#define RUN_MAX_SPECS 64

/* A -f FILE[@WEIGHT] or -b NAME[@WEIGHT] as given, and -D NAME=VALUE. */
struct script_spec {
    char kind; /* 'f' or 'b' */
    const char *arg;
};

/* The environment read around the run (run_env.c). */
struct run_env {
    struct srv_env env;
    int have_env;
    struct srv_stats before; /* at the start of the measured part */
    int have_before;
    time_ns capture_ns; /* time spent reading the server, before and after */
};

/* -w tpcc's options and what run reads of its database (run_tpcc.c). */
struct run_tpcc {
    int64_t warehouses; /* 0: all that are loaded */
    int mix[TPCC_N_TX];
    int mix_given, keying_thinking, procedures;
    struct tpcc_db db;
    int64_t before; /* sum(d_next_o_id) at the start of the measured part; -1 unknown */
};

struct run_opts;
struct coord;

/* run --agents (run_agents.c): the options as given, the split, and the coordination. */
struct run_agents {
    int64_t count; /* --agents; 0: a run of one process */
    int64_t index; /* --agent-index, or from JOB_COMPLETION_INDEX / SLURM_PROCID */
    int index_given;
    const char *run_id, *coord, *merged;
    int64_t wait_s;      /* --agent-wait: at the barrier (default 60) */
    int64_t clients_all; /* -c and -R of the whole run (o->clients, o->rate: this agent's) */
    double rate_all;
    struct coord *coord_h;
    double offset_us, uncertainty_us;
    int64_t start_server_us, start_local_us; /* the measured start */
    char lost_why[256];                      /* "" unless the run lost an agent */
};

enum {
    RUN_OPT_AGENTS = 4000, /* apart from sampling's 3000s */
    RUN_OPT_AGENT_INDEX,
    RUN_OPT_RUN_ID,
    RUN_OPT_COORD,
    RUN_OPT_MERGED,
    RUN_OPT_AGENT_WAIT,
};

/* One of the options above: 1 taken, 0 not one of them, -1 with e set. */
int run_agents_option(int opt, const char *arg, struct run_opts *o, struct err *e);
/* After parsing: the index from the environment, the checks (ERR_INPUT), the split of -c
 * and -R, and a seed from the run id when --seed is not given. No-op without --agents. */
int run_agents_check(struct run_opts *o, struct err *e);
/* Before the run: register with the coordination database and measure the clock. */
int run_agents_open(struct run_opts *o, struct err *e);
/* The engine's seed (this agent's) and barrier. */
void run_agents_config(struct run_opts *o, struct engine_config *cfg);
/* The agent object into r; complete false and end_reason "agent-lost" when one was lost.
 * er NULL: the journal's header, before the run (no start yet, nothing lost). */
void run_agents_result(struct run_opts *o, const struct engine_result *er, struct result *r);
/* After the result is written: store it; agent 0 collects and writes the merged result. */
int run_agents_finish(struct run_opts *o, int written, struct err *e);
/* Leave the coordination (nothing ran). */
void run_agents_close(struct run_opts *o);

/* The long options of -w tpcc (above every short option character and other long option). */
enum { RUN_OPT_WAREHOUSES = 1000, RUN_OPT_MIX, RUN_OPT_KEYING_THINKING, RUN_OPT_PROCEDURES };

/* --max-tries for -w tpcc when not given: deadlocks between New-Orders are retried. */
#define RUN_TPCC_MAX_TRIES 10

/* The length of the run's intervals (result intervals[]). */
#define RUN_INTERVAL_MS 1000
/* --sample-ms when not given. */
#define RUN_DEFAULT_SAMPLE_MS 100

/* Sampling during the run (run_sample.c, DESIGN.md "Why, not only how much"). */
struct run_sampling {
    int off;           /* --no-sampling */
    int64_t sample_ms; /* --sample-ms */
    int ms_given;
    atomic_int *pids;           /* the engine's backend PIDs, one per client */
    struct sampler *sampler;    /* running from the start of the run to its end */
    time_ns start_ns;           /* the measured start */
    struct srv_statements pgss; /* pg_stat_statements at the measured start */
};

/* --sample-ms and --no-sampling (above run_pgbench.c's option codes). */
enum { RUN_OPT_SAMPLE_MS = 3000, RUN_OPT_NO_SAMPLING };

struct run_opts {
    struct pg_connopts conn;
    const struct builtin_workload *workload; /* -w (unused with -f/-b) */
    int workload_given;
    int n_specs;
    struct script_spec specs[RUN_MAX_SPECS];
    int n_defines;
    const char *defines[RUN_MAX_SPECS];
    const char *workload_name;  /* for the result: the built-in's name, or "custom" */
    int needs_pgbench;          /* a built-in script on pgbench's tables is used */
    int64_t scale;              /* 0: detect from pgbench_branches */
    int64_t tables, table_size; /* sysbench workloads; 0: detect from sbtest1..N */
    int64_t clients, threads, duration_s, tx_per_client, progress_s, seed;
    enum protocol protocol;
    double rate, latency_limit_ms;
    int64_t warmup_s, max_tries, timeout_ms;
    int connect_per_tx, per_statement;
    const char *output;
    const char *label;
    const char *report; /* --report: the HTML file, or NULL */
    int quiet, local, seed_given;
    /* pgbench habits (run_pgbench.c) */
    int log, failures_detailed, progress_timestamp;
    const char *log_prefix;
    double sampling_rate;
    int64_t aggregate_s;
    int embedded;  /* a sweep's cell: nothing on stdout, no progress, the sweep's signals */
    char *command; /* masked */
    char started_at[40];
    char server_version[64];
    char max_connections[16]; /* SHOW max_connections before the run, "" if unknown */
    struct run_env env;
    struct run_tpcc tpcc;
    struct run_agents agents;
    struct run_sampling sampling;
};

/* Long options of run_pgbench.c: above any other option code of run, and apart from sweep's
 * own (from 1000), which share one getopt table with run's. */
enum {
    RUN_OPT_SHOW_SCRIPT = 2000,
    RUN_OPT_LOG_PREFIX,
    RUN_OPT_SAMPLING_RATE,
    RUN_OPT_AGGREGATE_INTERVAL,
    RUN_OPT_FAILURES_DETAILED,
    RUN_OPT_PROGRESS_TIMESTAMP,
};

/* -S, -N, -b list, --show-script, -l, --log-prefix, --sampling-rate, --aggregate-interval,
 * --failures-detailed, --progress-timestamp: 1 taken, 0 not one of them, 2 printed what was
 * asked (-b list, --show-script: run nothing), -1 with e set. */
int run_parse_pgbench_option(int opt, const char *arg, struct run_opts *o, struct err *e);

/* pgbench's rules for combining them (once every option is read). */
int run_check_pgbench_options(const struct run_opts *o, struct err *e);

/* The engine's -l settings from the options. */
void run_log_config(const struct run_opts *o, struct engine_config *cfg);

/* run's option table (getopt_long) and short options: a sweep parses with them to pass every
 * run option through to its cells. */
extern const struct option run_longopts[];
extern const char run_shortopts[];

/* The run command on argv (argv[0] "run"): cli_run, or with embedded set a sweep's cell, which
 * prints nothing on stdout, shows no progress, leaves signals to the sweep and only writes its
 * result file. Returns as cli_run: 0, 1 when the run was cut short (its result written), -1
 * with e set. The caller resets getopt (optind = 0) first. */
int run_invoke(int argc, char **argv, int embedded, struct err *e);

/* Parse run's options into o as the run command does (the caller resets getopt with optind = 0
 * and frees o->conn). 0, 1 when --help was printed, -1 with e set (ERR_INPUT). */
int run_opts_parse(int argc, char **argv, struct run_opts *o, struct err *e);

/* Fill r from the run (r owns copies of everything). */
void run_build_result(const struct run_opts *o, const struct script_set *scripts,
                      const struct engine_result *er, struct result *r);

extern const char *const run_protocol_names[];

/* Where the intervals go while the run goes on: the journal, or memory when it could not be
 * written (run_journal.c). */
struct run_sink {
    struct run_opts *opts;
    struct journal *journal; /* NULL: none (could not be created, or a write failed) */
    size_t n_journal;        /* interval lines it holds */
    char *journal_path;      /* its path while it exists */
    size_t n_mem, cap_mem;
    struct result_interval *mem; /* intervals after the journal's, in order */
};

/* Create the journal of o->output with the header the run knows before it starts; without
 * one (a warning is printed), intervals are kept in memory. */
void run_sink_open(struct run_sink *s, struct run_opts *o, const struct script_set *scripts);
/* The engine's interval callback (arg: struct run_sink). */
void run_sink_interval(const struct engine_interval *iv, void *arg);
/* Give r the intervals (r->journal, r->intervals; the sink keeps the journal open). */
void run_sink_attach(struct run_sink *s, struct result *r);
/* Close the journal, removing it when the result was written. */
void run_sink_close(struct run_sink *s, int result_written);

/* Remember a -f, -b or -D argument (checked when the scripts are built). */
int run_add_spec(struct run_opts *o, char kind, const char *arg, struct err *e);

/* The scripts of the run: the -w workload, or the -f and -b scripts with their weights, and
 * the -D variables; also sets workload_name and needs_pgbench. -1 with e (ERR_INPUT) for an
 * unreadable or invalid script. */
int run_build_scripts(struct run_opts *o, struct script_set *set, struct err *e);

/* Read a whole file into a fresh string (caller frees); -1 with e (ERR_INPUT). */
int cli_read_file(const char *path, char **out, struct err *e);

/* Before the run, on the setup connection c: the server's environment, and its statistics
 * unless a warmup comes first. Failures are noted on stderr; the run goes on without. */
void run_env_before(struct run_opts *o, struct pg_conn *c);

/* The engine's measure_start callback (arg: struct run_opts): after a warmup, read the
 * statistics on a connection of its own. */
void run_env_measure_start(void *arg);

/* After the run: read the statistics again on a new connection once the clients' backends
 * are gone, and fill r's client machine, server, server_stats and warnings. */
void run_env_after(struct run_opts *o, const struct engine_result *er, struct result *r);

/* What the environment is before the run, for the journal's header (no statistics). */
void run_env_header(struct run_opts *o, struct result *r);
void run_env_free(struct run_env *env);

/* --sample-ms, --no-sampling: 1 taken, 0 not one of them, -1 with e set. */
int run_sampling_option(int opt, const char *arg, struct run_opts *o, struct err *e);
/* Once every option is read: --sample-ms within the interval, not with --no-sampling. */
int run_sampling_check(const struct run_opts *o, struct err *e);
/* The engine's settings for sampling: where clients publish their backend PIDs, and the
 * start callback that starts the sampler. Nothing with --no-sampling. */
void run_sampling_configure(struct run_opts *o, struct engine_config *cfg);
/* Interval idx (ending t_s after the measured start): the sampler's figures into it. */
void run_sampling_interval(struct run_opts *o, size_t idx, double t_s, struct result_interval *it);
/* After the run: stop the sampler and fill r's waits and client_cpu. */
void run_sampling_finish(struct run_opts *o, struct result *r);
/* At the measured start, on the connection c: pg_stat_statements as it is then. */
void run_sampling_measure_start(struct run_opts *o, struct pg_conn *c);
/* After the run, on c: pg_stat_statements' deltas (or the reason for none) into r. */
void run_sampling_statements(struct run_opts *o, struct pg_conn *c, struct result *r);

/* -s for pgbench's workloads, --tables/--table-size for sysbench's: the others are errors. */
int run_check_sizes(const struct run_opts *o, struct err *e);

/* For a sysbench workload: the tables (sbtest1..N) and rows per table that the options do not
 * give, from the server: N from the sbtest tables present, rows from max(id) of sbtest1.
 * Sets o->scale to 1. ERR_INPUT when there are no such tables. No-op for other workloads. */
int run_sysbench_detect(struct pg_conn *c, struct run_opts *o, struct err *e);

/* For a sysbench workload: one script per table, equal weights. No-op for other workloads. */
int run_sysbench_scripts(const struct run_opts *o, struct script_set *s, struct err *e);

/* A -w tpcc option: 1 when opt was one, -1 on a bad value, 0 when not one. */
int run_tpcc_option(int opt, const char *arg, struct run_opts *o, struct err *e);

/* After parsing: tpcc's options only with -w tpcc, not -s/--tables; its defaults (the mix,
 * prepared statements, --max-tries) where the user gave none. */
int run_tpcc_check_options(struct run_opts *o, int max_tries_given, int protocol_given,
                           struct err *e);

/* Before the run, on the setup connection: the tables (ERR_INPUT naming what is missing),
 * the warehouses (detected, or checked against --warehouses), the functions for
 * --procedures, and sum(d_next_o_id) when no warmup comes first. No-op for other workloads
 * (the caller checks). */
int run_tpcc_prepare(struct pg_conn *c, struct run_opts *o, struct err *e);

/* At the start of the measured part after a warmup: sum(d_next_o_id). */
void run_tpcc_measure_start(struct run_opts *o);

/* The five scripts with the mix as weights. No-op for other workloads. */
int run_tpcc_scripts(const struct run_opts *o, struct script_set *s, struct err *e);

/* After the run: summary.tpcc into r (reads sum(d_next_o_id) again). No-op for others. */
void run_tpcc_result(const struct run_opts *o, struct result *r);

#endif
