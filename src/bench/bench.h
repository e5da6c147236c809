#ifndef PGARENA_BENCH_BENCH_H
#define PGARENA_BENCH_BENCH_H

/*
 * A benchmark run as a function: a plan in, a result file out. bench_run configures the
 * engine, reads the server's environment around the run, runs the sampler, keeps the journal,
 * coordinates the agents of a run split over several processes, and writes the result file
 * atomically. It parses no option and prints nothing: what a command shows comes through the
 * hooks, warnings included (a sampler that could not start, statistics that could not be
 * read: the run goes on without).
 * Ownership: the plan stays the caller's; the result is the caller's to result_free.
 */

#include "base/err.h"
#include "bench/plan.h"
#include "engine/engine.h"
#include "result/result.h"

/* A run followed as it goes (run --store): begun with the result as known before the run (the
 * journal's header: run_id, environment, options) returns the run's handle (NULL: not
 * followed); interval gives each interval as it closes, from the engine's thread (it must not
 * wait); ended comes once the run is over, before the result's written hook (ran 0: the run
 * never ran). An agent's share of a run is not followed. */
struct bench_live {
    void *(*begun)(const struct result *header, void *arg);
    void (*interval)(void *run, const struct result_interval *it);
    void (*ended)(void *run, int ran);
    void *arg;
};

struct bench_hooks {
    /* A progress line every plan->progress_s seconds (NULL: none). */
    void (*progress)(const struct engine_progress *p, void *arg);
    /* The result as measured, before it is written; first_error is the first failure's
     * message ("" without one). */
    void (*measured)(const struct result *r, const char *first_error, void *arg);
    /* The result file is written at path. */
    void (*written)(const char *path, void *arg);
    /* --agents, agent 0: everyone's results merged and written at path. */
    void (*merged)(const struct result *r, const char *path, void *arg);
    /* A warning or note, one line ("pgarena: ...\n"); it may come from the sampler's or the
     * engine's thread. NULL: not shown. */
    void (*warning)(const char *line, void *arg);
    void *arg;
    struct bench_live live; /* begun NULL: none */
};

/* Run the plan. 0 when the run finished and its result is written, 1 when it was cut short
 * (interrupted, the server lost, an agent lost, the -l log not written) with its result
 * written; -1 with e set when it could not run or its result could not be written. r holds
 * the result whenever it was built (r->started_at set); hooks may be NULL. */
int bench_run(const struct bench_plan *plan, const struct bench_hooks *hooks, struct result *r,
              struct err *e);

/* The scripts a plan runs, built and checked as bench_run builds them, without touching a
 * server (the scripts a workload makes from its tables are not built); with
 * read_files 0, not at all when a -f file is among them. *needs_dataset (may be NULL): the
 * scripts run on a built-in workload's tables, which run --local loads. For the checks before
 * a run. -1 with e (ERR_INPUT). */
int bench_plan_check_scripts(const struct bench_plan *plan, int read_files, int *needs_dataset,
                             struct err *e);

/* Ask the run in progress to stop (async-signal-safe: for SIGINT and SIGTERM). Its result is
 * written, marked incomplete. */
void bench_request_stop(void);

/* init -f FILE: run an init script once (pgbench's language, simple protocol, one client). */
int bench_init_script(const struct pg_connopts *conn, const char *path, int64_t scale,
                      uint64_t seed, struct err *e);

#endif
