#ifndef PGARENA_CLI_RUN_OPTS_H
#define PGARENA_CLI_RUN_OPTS_H

/* run's options into a plan: one option at a time (sweep parses run's options with the same
 * function, so that every run option works in a sweep), then the checks once all are in.
 * Ownership: the plan points into argv, which outlives it; conn's strings are the plan's
 * (pg_connopts_free). */

#include "base/err.h"
#include "bench/plan.h"

/* What run's options say besides the plan. */
struct cli_run_opts {
    struct bench_plan plan;
    struct bench_given given;
    const char *workload; /* -w as given (default tpcb-like) */
    const char *report;   /* --report: the HTML file, or NULL */
    int local, quiet;
    const char *store; /* --store CONN: the results store, or NULL */
    int no_statements; /* --no-statements: --local preloads no pg_stat_statements */
};

void cli_run_opts_init(struct cli_run_opts *o);

/* One option as getopt_long returned it, with run's getopt table (cli_getopt_table): 1 taken, 0 not
 * one of run's, 2 printed what was asked (-b list, --show-script: run nothing), 3 --help, -1 with e
 * set. */
int cli_run_option(int opt, const char *arg, struct cli_run_opts *o, struct err *e);

/* Once every option is in: -w looked up, and the plan's checks. -1 with e (ERR_INPUT). */
int cli_run_opts_check(struct cli_run_opts *o, struct err *e);

/* run's whole command line (argv[0] "run"; the caller resets getopt with optind = 0 when it
 * is not the process's first parse): every option, CONN, and the checks. 0, 1 when --help,
 * -b list or --show-script printed what was asked, -1 with e set (ERR_INPUT). */
int cli_run_parse_argv(int argc, char **argv, struct cli_run_opts *o, struct err *e);

/* A result or report path that cannot work is refused before anything runs; without -o, the
 * result is named from the workload and the time into fallback. -1 with e (ERR_INPUT). */
int cli_run_check_output(struct cli_run_opts *o, char *fallback, size_t size, struct err *e);

/* Carry out a checked plan as run does: --local's server (its dataset loaded when
 * needs_dataset), progress, the summary, the result file and --report. As cli_run returns. */
int cli_run_plan(struct cli_run_opts *o, int argc, char **argv, int needs_dataset, struct err *e);

#endif
