/* pgarena replay run CAPTURE: a front of `run -w replay --capture CAPTURE`. Its options (the
 * workload's and the run options that apply) are taken by run's own option function into the
 * same plan; the run is carried out as run carries out its plans. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/opts.h"
#include "cli/replay.h"
#include "cli/run_opts.h"

/* The whole command line into o: 0, 1 when --help was printed, -1 with e set. */
static int parse(int argc, char **argv, struct cli_run_opts *o, struct err *e)
{
    cli_run_opts_init(o);
    o->workload = "replay";
    o->plan.workload_given = 1;
    optind = 0;
    opterr = 0;
    int opt;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_REPLAY_RUN, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == OPT_HELP) {
            cli_help(CLI_REPLAY_RUN, stdout);
            return 1;
        }
        int rc = opt == '?' || opt == ':' ? 0 : cli_run_option(opt, optarg, o, e);
        if (rc < 0)
            return -1;
        if (rc != 1)
            return args_bad_option("replay run", argc, argv, optind, optopt, opt == ':', e);
    }
    if (optind >= argc)
        return err_set(e, ERR_INPUT,
                       "replay run: expected a CAPTURE (see pgarena replay run --help)");
    if (bench_plan_add_option(&o->plan, "capture", argv[optind], e) < 0)
        return -1;
    if (args_positional(argc, argv, optind + 1, &o->plan.conn, "replay run", e) < 0)
        return -1;
    if (bench_plan_option_given(&o->plan, "reset-from") && o->local)
        return err_set(e, ERR_INPUT,
                       "replay run: --reset-from needs the template on the target, "
                       "not a fresh --local server");
    return cli_run_opts_check(o, e);
}

int cli_replay_run_parse(int argc, char **argv, struct err *e)
{
    struct cli_run_opts o;
    char fallback[256];
    int rc = parse(argc, argv, &o, e);
    if (rc == 0)
        rc = cli_run_check_output(&o, fallback, sizeof fallback, e);
    pg_connopts_free(&o.plan.conn);
    return rc < 0 ? -1 : 0;
}

int cli_replay_run(int argc, char **argv, struct err *e)
{
    struct cli_run_opts o;
    char fallback[256];
    int rc = parse(argc, argv, &o, e);
    if (rc == 0)
        rc = cli_run_check_output(&o, fallback, sizeof fallback, e);
    if (rc == 0)
        rc = cli_run_plan(&o, argc + 1, argv - 1, 0, e); /* from "replay": the command line */
    else if (rc > 0)
        rc = 0;
    pg_connopts_free(&o.plan.conn);
    return rc;
}
