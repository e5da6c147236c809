#ifndef PGARENA_SWEEP_SWEEP_H
#define PGARENA_SWEEP_SWEEP_H

/* Matrices and the capacity search, over plans: a sweep's options (plain data, built by
 * cli/), the state of a sweep being run, its cells (each a plan derived from the base plan and
 * the cell's axis values), and the pure parsers (axis lists, the objective).
 * Ownership: struct sweep_opts owns its plan's axes and setups (sweep_opts_free); the argv
 * strings it points into belong to main. */

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/printf.h"
#include "bench/bench.h"
#include "bench/plan.h"
#include "local/local.h"
#include "result/sweep.h"
#include "workload/load/load.h"
#include "workload/workload.h"

#define SWEEP_MAX_VALUES 1000
#define SWEEP_MAX_SETUPS 16

/* Parse a LIST for option opt: `1,2,4,8` (distinct values) or the geometric range `A..BxF` (A,
 * A F, A F^2, ... up to B; integral lists round each step and drop repeats). Every value must
 * lie in [lo, hi] and be whole when integral. Caller frees *vals. -1 with e (ERR_INPUT). */
int sweep_parse_list(const char *opt, const char *text, int integral, double lo, double hi,
                     double **vals, size_t *n, struct err *e);

/* Parse the LIST of a workload's sweep axis a (--NAME LIST): distinct values in a's range and
 * its top (SWEEP_SPEED_MAX), as 1,2,4,max, or a geometric range 0.5..8x2. Caller frees *vals.
 * -1 with e (ERR_INPUT). */
int sweep_parse_axis(const struct workload_sweep_axis *a, const char *text, double **vals,
                     size_t *n, struct err *e);

/* Value v of axis a as its option's argument: a's top, else "%.17g" into buf. */
const char *sweep_axis_arg(const struct workload_sweep_axis *a, double v, char *buf, size_t size);

/* A service-level objective: the quantile q (0.5, 0.95, 0.99, 0.999, or 1 for max) of the
 * latency must be at most limit_us. */
struct sweep_slo {
    double q;
    double limit_us;
    const char *text; /* as given */
};

/* Parse `p99<=5ms` (quantiles p50, p95, p99, p99.9, max; units ms, us). -1 with e (ERR_INPUT). */
int sweep_parse_slo(const char *text, struct sweep_slo *slo, struct err *e);

struct sweep_opts {
    const char *conn;                         /* the positional CONN, or NULL */
    const char *setup_conn[SWEEP_MAX_SETUPS]; /* --setup's connections, unmasked (argv) */
    const char *label; /* --label: the name of the one setup without --setup */
    const char *dir;
    int force, init, local, quiet, json, max_rate;
    int duet;     /* --duet: the two setups of a cell at the same time (plan.duet too) */
    int64_t jobs; /* -j as given, 0: min(clients, CPUs) per cell */
    struct sweep_slo slo;
    struct bench_plan run; /* the base plan: every run option given, checked as run checks it */
    struct sweep_doc plan; /* axes, setups and command; cells are made by the command */
    const char *store;     /* --store CONN: cells' intervals live, their results after */
    int no_statements;     /* --no-statements: --local preloads no pg_stat_statements */
};

void sweep_opts_free(struct sweep_opts *o);

struct sweep_exec;

/* What a sweep says, for the command to show (sweep/ prints nothing itself). */
enum sweep_say {
    SWEEP_SAY_PROGRESS, /* the cell line: in place on a terminal, else a line of its own */
    SWEEP_SAY_CLEAR,    /* a line that replaces the progress line on a terminal */
    SWEEP_SAY_BREAK,    /* a line after the progress line (ended first on a terminal) */
    SWEEP_SAY_LINE,     /* a line as it is */
    SWEEP_SAY_END,      /* the progress line is done: end it on a terminal */
};
typedef void (*sweep_say_fn)(const struct sweep_exec *x, enum sweep_say kind, const char *text);

/* A sweep being run. */
struct sweep_exec {
    struct sweep_opts *o;
    volatile int *stop;  /* set by a signal: the sweep ends after the cell it is in */
    sweep_say_fn say;    /* progress and notes (NULL: none); text ends in \n but for PROGRESS */
    const char *command; /* the sweep's command, masked: the cells' results record it */
    struct sweep_doc doc;
    char *json_path; /* DIR/sweep.json */
    struct local_server srv;
    char *local_conn; /* --local: the scratch server's conninfo */
    char **applied;   /* per setup and --set axis: the value set on the server (NULL: not yet) */
    int64_t *loaded;  /* per setup: the scale loaded by --init (0: none yet) */
    int applied_any;  /* a setting was changed on a given server (reset at the end) */
    time_ns start_ns;
    size_t n_todo, n_done; /* cells to run in this invocation, and run so far */
    int n_failed;
    int manifest_failed;    /* a write of sweep.json failed (named once): the sweep exits 1 */
    struct bench_live live; /* --store: each cell's intervals as they close (begun NULL: none) */
};

/* The connection string of setup i, unmasked (NULL: PG* environment variables). */
const char *sweep_setup_conn(const struct sweep_exec *x, size_t i);

/* The connection to setup i: -h, -p and -U as given, its CONN as the database (caller frees
 * with pg_connopts_free). The cells, --init and --set all reach a setup through this. */
void sweep_setup_connopts(const struct sweep_exec *x, size_t setup, struct pg_connopts *conn);

/* The result file name of a cell, relative to DIR (caller frees). */
char *sweep_cell_file(const struct sweep_doc *d, const struct sweep_cell *c);

/* The plan of a cell: the base plan with the cell's clients, threads (-j, at most the
 * clients), rate, scale, result file (path), label, connection and the sweep's command. The
 * plan's conn is the caller's to free (pg_connopts_free); the rest points into x. */
void sweep_cell_plan(const struct sweep_exec *x, const struct sweep_cell *c, const char *path,
                     struct bench_plan *p);

/* Run cell k of x->doc (settings and scale first when they differ), set its status, and write
 * sweep.json. 0 when it ran (complete, or failed: its setup's server is gone or refused), -1
 * when the sweep must stop (interrupted by a signal). */
int sweep_run_cell(struct sweep_exec *x, size_t k);

/* The capacity search (--max-rate): its cells are added to x->doc as it goes. 0 done (with
 * doc.max_rate set), -1 interrupted or failed with e set. */
int sweep_capacity(struct sweep_exec *x, struct err *e);

/* Say something through x->say: the formatted text. */
void sweep_say(const struct sweep_exec *x, enum sweep_say kind, const char *fmt, ...)
    PRINTF_LIKE(3, 4);

/* The cells of a matrix, in run order: for each trial, for each point, every setup. */
void sweep_plan_cells(struct sweep_doc *d);

/* Keep the status of the cells a previous invocation finished. */
void sweep_resume_from(struct sweep_doc *d, const struct sweep_doc *old);

/* Run the sweep x (its doc planned): the scratch server of --local, the settings' checks,
 * every cell not complete (or the capacity search, with the sweep's capacity callback), the
 * settings reset. 0 done, 2 interrupted (the same command resumes), -1 with e set. */
int sweep_execute(struct sweep_exec *x, struct err *e);

#endif
