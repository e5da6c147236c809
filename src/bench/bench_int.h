#ifndef PGARENA_BENCH_BENCH_INT_H
#define PGARENA_BENCH_BENCH_INT_H

/* Shared between bench/'s files: a run's live state (struct bench), built around a copy of
 * its plan whose detected values (scale, tables, warehouses) the workload fills in. Ownership: a
 * struct bench lives for one bench_run and frees all it holds; the plan's strings stay the
 * caller's. */

#include <stdatomic.h>

#include "base/printf.h"
#include "bench/bench.h"
#include "engine/engine.h"
#include "pg/pg.h"
#include "result/journal.h"
#include "result/result.h"
#include "result/run_id.h"
#include "script/script.h"
#include "server/sampler.h"
#include "server/selfhealth.h"
#include "server/server.h"
#include "server/statements.h"
#include "workload/workload.h"

/* The environment read around the run (bench_env.c). */
struct bench_env {
    struct srv_env env;
    int have_env;
    struct srv_stats before; /* at the start of the measured part */
    int have_before;
    time_ns capture_ns; /* time spent reading the server, before and after */
    int silent_after;   /* the server did not answer after the run (a frozen server) */
};

struct coord;

/* The coordination of --agents (agents.c). */
struct bench_agents {
    struct coord *coord_h;
    double offset_us, uncertainty_us;
    int64_t start_server_us, start_local_us; /* the measured start */
    char lost_why[256];                      /* "" unless the run lost an agent */
};

/* Sampling (sample.c). */
struct bench_sampling {
    atomic_int *pids;           /* the engine's backend PIDs, one per client */
    int n_pids;                 /* the engine's clients: -c's and any analytic streams */
    struct sampler *sampler;    /* running from the start of the run to its end */
    time_ns start_ns;           /* the measured start */
    struct srv_statements pgss; /* pg_stat_statements at the measured start */
    /* server_io (bench_sio.c): the intervals' sum and the events, for the result */
    struct result_sio sio_total;
    size_t n_events;
    struct result_event *events;
    char measured_start_at[64];    /* the measured start on the wall clock, "" unknown */
    struct journal_sampler so_far; /* as of the last interval taken, for the journal */
};

/* The engine's started and measure_start callbacks as they were before one of bench/'s files
 * put its own in their place (bench_chain_wrap), which call them (bench/bench_health.c). */
struct bench_chain {
    void (*started)(time_ns measured_start_ns, void *arg);
    void *started_arg;
    void (*measure_start)(void *arg);
    void *measure_start_arg;
};

void bench_chain_wrap(struct bench_chain *c, struct engine_config *cfg,
                      void (*started)(time_ns measured_start_ns, void *arg),
                      void (*measure_start)(void *arg), void *arg);
void bench_chain_started(const struct bench_chain *c, time_ns measured_start_ns);
void bench_chain_measure_start(const struct bench_chain *c);

/* --metrics-listen (bench_metrics.c): the run's series and what it has published. */
struct bench_metrics {
    struct metrics_run *run; /* NULL: no --metrics-listen */
    struct metrics_figures f;
    int n_clients;
    int feed; /* a replay: its transactions are statements */
    struct bench_chain chain;
};

struct bench {
    struct bench_plan p; /* the caller's plan, with what was detected filled in */
    const struct bench_hooks *hooks;
    const char *workload_name; /* for the result: the built-in's name, or "custom" */
    /* The workload whose tables the scripts run on: -w's, or the -b scripts' (NULL: -f
     * scripts only), and what it was given and detected. */
    const struct workload *tables_of;
    struct workload_params wl;
    char *own_dbname; /* p.conn.dbname when the workload gave it one (own_dbname), else NULL */
    char started_at[40];
    char run_id[RUN_ID_LEN +
                1]; /* drawn before the run (bench_run_id): journal, result, store, metrics */
    char server_version[64];
    char max_connections[16]; /* SHOW max_connections before the run, "" if unknown */
    struct bench_env env;
    struct bench_agents agents;
    struct bench_sampling sampling;
    struct bench_metrics metrics;
};

/* A warning through the hooks: "pgarena: " and the formatted text, one line. */
void bench_warn(const struct bench *b, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* agents.c: around the engine, for --agents (each a no-op without). */
/* Before the run: register with the coordination database and measure the clock. */
int bench_agents_open(struct bench *b, struct err *e);
/* The engine's seed (this agent's) and barrier. */
void bench_agents_config(struct bench *b, struct engine_config *cfg);
/* The agent object into r; complete false and end_reason "agent-lost" when one was lost.
 * er NULL: the journal's header, before the run (no start yet, nothing lost). */
void bench_agents_result(struct bench *b, const struct engine_result *er, struct result *r);
/* After the result is written: store it; agent 0 collects and writes the merged result. */
int bench_agents_finish(struct bench *b, int written, struct err *e);
/* Leave the coordination (nothing ran). */
void bench_agents_close(struct bench *b);
/* The run cannot start here (why): the other agents are told (coord_abandon). */
void bench_agents_abandon(struct bench *b, const char *why);
/* Whether another agent lost the run (coord_lost): its failure is then the cause here. */
int bench_agents_lost(const struct bench *b);

/* pgbench_log.c: the engine's -l settings from the plan. */
void bench_log_config(const struct bench *b, struct engine_config *cfg);

/* result.c: the engine's error counts in the result's classes (summary.errors). */
void bench_error_counts(const struct engine_result *er, uint64_t out[RESULT_N_ERRORS]);
/* result.c: the run's id, drawn once (random, or for an agent derived from --run-id and its
 * index): the journal's header and the result carry it, and so does the store's row. */
void bench_run_id(struct bench *b);
/* result.c: fill r from the run (r owns copies of everything). */
void bench_build_result(const struct bench *b, const struct script_set *scripts,
                        const struct engine_result *er, struct result *r);

/* bench_journal.c: where the intervals go while the run goes on: the journal, or memory when it
 * could not be written. */
struct bench_sink {
    struct bench *b;
    void *live;              /* the hooks' live handle (NULL: the run is not followed) */
    struct journal *journal; /* NULL: none (could not be created, or a write failed) */
    size_t n_journal;        /* interval lines it holds */
    char *journal_path;      /* its path while it exists */
    size_t n_mem, cap_mem;
    struct result_interval *mem;   /* intervals after the journal's, in order */
    size_t n_unjournaled;          /* intervals kept in memory, also once given to the result */
    double snap_t_s, snap_every_s; /* the workload's last snapshot line, and the next's gap */
    double counters_t_s, counters_every_s;    /* the same for the counters lines */
    size_t n_events_journaled;                /* server events in its events lines */
    int events_line;                          /* one was written */
    struct journal_sampler sampler_journaled; /* its last sampler line's (present 0: none) */
    struct self_edges health;                 /* the client's health (bench/bench_health.c) */
    struct result_client_health health_summary;
    struct bench_chain chain; /* the engine's callbacks health's own call after its reading */
    struct hist *latency;     /* an interval's latencies, refilled for each (NULL until one) */
};

/* bench/bench_health.c: the sink reads the client's health at each interval edge (the engine's
 * interval_edge), and, until edge 0 comes, where the measured part begins (the engine's started
 * and, with --warmup, measure_start callbacks, which it wraps); each worker keeps its own run
 * delay as it ends (thread_end). */
void bench_health_configure(struct bench_sink *s, struct engine_config *cfg);
/* bench/bench_health.c: the first reading, as the sink opens (before the run's threads). */
void bench_health_open(struct bench_sink *s);

/* bench/bench_health.c: interval iv's client_health into it, added to the sink's summary. */
void bench_health_interval(struct bench_sink *s, const struct engine_interval *iv,
                           struct result_interval *it);

/* Create the journal of the output with the header the run knows before it starts; without
 * one (a warning is printed), intervals are kept in memory. */
void bench_sink_open(struct bench_sink *s, struct bench *b, const struct script_set *scripts);
/* The engine's interval callback (arg: struct bench_sink). */
void bench_sink_interval(const struct engine_interval *iv, void *arg);
/* Give r the intervals (r->journal, r->intervals; the sink keeps the journal open). */
void bench_sink_attach(struct bench_sink *s, struct result *r);
/* Close the journal, removing it when the result was written, and end the hooks' live
 * following (ran 0: the run never ran). */
void bench_sink_close(struct bench_sink *s, int result_written, int ran);

/* bench_metrics.c: --metrics-listen. Register adds the run's series (phase starting, every
 * figure 0) once its scripts are known, before a client connects; configure follows the engine's
 * started and measure_start callbacks (which it wraps) for the phase; interval publishes the
 * figures as they stand after interval it (and waits the sampler's events of it); end publishes the
 * run's final figures from er (NULL: it never ran), phase done. Each a no-op without
 * --metrics-listen. */
void bench_metrics_register(struct bench *b, const struct script_set *scripts);
void bench_metrics_configure(struct bench *b, struct engine_config *cfg);
void bench_metrics_waits(struct bench *b, const struct sample_interval *si);
void bench_metrics_interval(struct bench *b, const struct engine_interval *iv,
                            const struct result_interval *it);
void bench_metrics_end(struct bench *b, const struct engine_result *er);

/* bench_scripts.c: the scripts of the run: the -w workload, or the -f and -b scripts with their
 * weights, and the -D variables; also sets workload_name and tables_of. read_files 0:
 * -f scripts are skipped (option checks). -1 with e (ERR_INPUT). */
int bench_build_scripts(struct bench *b, struct script_set *set, int read_files, struct err *e);

/* Read a whole file into a fresh string (caller frees); -1 with e (ERR_INPUT). */
int bench_read_file(const char *path, char **out, struct err *e);

/* bench_env.c */
/* Before the run, on the setup connection c: the server's environment, and its statistics
 * unless a warmup comes first. Failures are noted on stderr; the run goes on without. */
void bench_env_before(struct bench *b, struct pg_conn *c);
/* The engine's measure_start callback (arg: struct bench): after a warmup, read the
 * statistics on a connection of its own. */
void bench_env_measure_start(void *arg);
/* After the run: read the statistics again on a new connection once the clients' backends
 * are gone, and fill r's client machine, server, server_stats and warnings. */
void bench_env_after(struct bench *b, const struct engine_result *er, struct result *r);
/* What the environment is before the run, for the journal's header (no statistics). */
void bench_env_header(struct bench *b, struct result *r);
void bench_env_free(struct bench_env *env);

/* sample.c */
/* bench_sio.c: an interval's server_io and events out of the sampler's interval (moved), and
 * at the end the result's server_io_fields, events[] and summary figures (the totals'
 * owner is b; bench_server_io_free frees what a run without a result kept). */
void bench_server_io_interval(struct bench *b, struct sample_interval *si,
                              struct result_interval *it);
void bench_server_io_finish(struct bench *b, const struct sample_totals *t, struct result *r);
void bench_server_io_free(struct bench *b);
/* The measured start (monotonic) on the wall clock, for the result's measured_start_at (a duet
 * half's from the offset both halves share). */
void bench_server_io_started(struct bench *b, time_ns measured_start_ns);

/* The engine's settings for sampling: where clients publish their backend PIDs, and the
 * start callback that starts the sampler. Nothing with --no-sampling. */
void bench_sampling_configure(struct bench *b, struct engine_config *cfg);
/* Interval idx (ending t_s after the measured start): the sampler's figures into it. */
void bench_sampling_interval(struct bench *b, size_t idx, double t_s, struct result_interval *it);
/* After the run: stop the sampler and fill r's waits and client_cpu (r NULL: nothing ran). */
void bench_sampling_finish(struct bench *b, struct result *r);
/* At the measured start, on the connection c: pg_stat_statements as it is then. */
void bench_sampling_measure_start(struct bench *b, struct pg_conn *c);
/* After the run, on c: pg_stat_statements' deltas (or the reason for none) into r. */
void bench_sampling_statements(struct bench *b, struct pg_conn *c, struct result *r);

/* bench_workload.c: the workload's part of the run. */
/* Before the run, on the setup connection: the workload detects its tables and sizes (the
 * plan's scale, tables, table_size and warehouses are filled in); without one, :scale is -s
 * or 1. */
/* CONN without a database: the one the workload gives pgarena's own connections, into
 * b->p.conn (workload.h's own_dbname). */
void bench_workload_own_dbname(struct bench *b);
int bench_workload_detect(struct pg_conn *c, struct bench *b, struct err *e);
/* The scripts the workload makes from its tables (none for the others). */
int bench_workload_scripts(struct bench *b, struct script_set *s, struct err *e);
/* At the measured start after a warmup; after the run, its figures into r. */
void bench_workload_measure_start(struct bench *b);
void bench_workload_result(struct bench *b, struct result *r);
void bench_workload_free(struct bench *b);
/* The feed the engine runs instead of the scripts (the workload's input), or NULL. */
const struct engine_feed *bench_workload_feed(struct bench *b);
/* While the run goes on: the workload's own figures as they stand into r (its
 * summary.duration_s the run's time so far). 0 when the workload has none. */
int bench_workload_snapshot(struct bench *b, struct result *r);

#endif
