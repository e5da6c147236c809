#ifndef PGARENA_CLI_SWEEP_INT_H
#define PGARENA_CLI_SWEEP_INT_H

/* Shared between the sweep command's files: its options, the state of a sweep being run, and
 * the pure parsers (axis lists, the objective) that the unit tests call.
 * Ownership: struct sweep_opts owns pass[] and the strings it copied (sweep_opts_free); the
 * argv strings it points into belong to main. */

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/err.h"
#include "cli/run_int.h"
#include "local/local.h"
#include "result/sweep.h"

#define SWEEP_MAX_VALUES 1000
#define SWEEP_MAX_SETUPS 16

/* Parse a LIST for option opt: `1,2,4,8` (distinct values) or the geometric range `A..BxF` (A,
 * A F, A F^2, ... up to B; integral lists round each step and drop repeats). Every value must
 * lie in [lo, hi] and be whole when integral. Caller frees *vals. -1 with e (ERR_INPUT). */
int sweep_parse_list(const char *opt, const char *text, int integral, double lo, double hi,
                     double **vals, size_t *n, struct err *e);

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
    int n_pass;
    char **pass;                              /* run options for every cell, as given (copies) */
    const char *conn;                         /* the positional CONN, or NULL */
    const char *setup_conn[SWEEP_MAX_SETUPS]; /* --setup's connections, unmasked (argv) */
    const char *label; /* --label: the name of the one setup without --setup */
    const char *dir;
    int force, init, local, quiet, json, max_rate;
    int64_t jobs; /* -j as given, 0: min(clients, CPUs) per cell */
    struct sweep_slo slo;
    struct run_opts run;   /* the cells' run options as run parses them */
    struct sweep_doc plan; /* axes, setups and command; cells are made by the command */
};

/* Parse the sweep's options into o: its own, and run's (passed through). 1 when --help was
 * printed, -1 with e set (ERR_INPUT). */
int sweep_parse(int argc, char **argv, struct sweep_opts *o, struct err *e);

void sweep_opts_free(struct sweep_opts *o);

/* A sweep being run. */
struct sweep_exec {
    struct sweep_opts *o;
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
};

/* The connection string of setup i, unmasked (NULL: PG* environment variables). */
const char *sweep_setup_conn(const struct sweep_exec *x, size_t i);

/* The result file name of a cell, relative to DIR (caller frees). */
char *sweep_cell_file(const struct sweep_doc *d, const struct sweep_cell *c);

/* Run cell k of x->doc (settings and scale first when they differ), set its status, and write
 * sweep.json. 0 when it ran (complete, or failed: its setup's server is gone or refused), -1
 * when the sweep must stop (interrupted by a signal). */
int sweep_run_cell(struct sweep_exec *x, size_t k);

/* The capacity search (--max-rate): its cells are added to x->doc as it goes. 0 done (with
 * doc.max_rate set), -1 interrupted or failed with e set. */
int sweep_capacity(struct sweep_exec *x, struct err *e);

/* Print the per-point table of a sweep's directory (or --json). -1 with e when a result file
 * of a complete cell cannot be read. */
int sweep_print(const struct sweep_doc *d, const char *dir, int json, struct err *e);

#endif
