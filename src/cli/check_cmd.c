#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "cli/init_int.h"
#include "workload/workload.h"

static const char usage[] =
    "Usage: pgarena check [CONN] -w tpcc [--all] [-j JOBS]\n"
    "\n"
    "Check TPC-C's consistency conditions (clause 3.3.2) over every warehouse: 1 to 4, or\n"
    "with --all 1 to 12 (11 only while no Delivery has run). Exit status 0 when they hold,\n"
    "1 naming the first condition that fails and its warehouse/district.\n"
    "\n"
    "  -w, --workload tpcc   the workload whose data to check (tpcc, or ch: TPC-C's tables\n"
    "                        of CH-benCHmark)\n"
    "      --all             all twelve conditions (reads every table; slower)\n"
    "  -j, --jobs N          conditions checked at once, each on a connection of its own\n"
    "                        (default: the number of CPUs)\n"
    "CONN: -h HOST -p PORT -U USER and a database name, key=value conninfo or postgresql:// URI\n";

struct check_opts {
    struct pg_connopts conn;
    const char *workload;
    const struct workload *w;
    int all;
    int jobs;
};

const struct option cli_check_options[] = {
    {"workload", required_argument, NULL, 'w'}, {"all", no_argument, NULL, OPT_ALL},
    {"jobs", required_argument, NULL, 'j'},     {"help", no_argument, NULL, OPT_HELP},
    {"host", required_argument, NULL, 'h'},     {"port", required_argument, NULL, 'p'},
    {"username", required_argument, NULL, 'U'}, {NULL, 0, NULL, 0}};

/* Returns 1 when --help was printed. */
static int parse_options(int argc, char **argv, struct check_opts *o, struct err *e)
{
    int opt;
    *o = (struct check_opts){.workload = NULL, .jobs = load_default_jobs()};
    int64_t v;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":w:j:h:p:U:", cli_check_options, NULL)) != -1) {
        if (args_conn_option(opt, optarg, &o->conn))
            continue;
        switch (opt) {
        case 'w':
            o->workload = optarg;
            break;
        case OPT_ALL:
            o->all = 1;
            break;
        case 'j':
            if (num_int("-j", optarg, 1, 64, &v, e) < 0)
                return -1;
            o->jobs = (int)v;
            break;
        case OPT_HELP:
            fputs(usage, stdout);
            return 1;
        default:
            return args_bad_option("check", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (args_positional(argc, argv, optind, &o->conn, "check", e) < 0)
        return -1;
    if (!o->workload)
        return err_set(e, ERR_INPUT, "check: give the workload: -w tpcc");
    o->w = workload_find(o->workload);
    if (!o->w || !o->w->check)
        return err_set(e, ERR_INPUT,
                       "check: workload '%s' has no consistency conditions (only tpcc and ch)",
                       o->workload);
    return 0;
}

int cli_check_parse(int argc, char **argv, struct err *e)
{
    struct check_opts o;
    int rc = parse_options(argc, argv, &o, e);
    pg_connopts_free(&o.conn);
    return rc < 0 ? -1 : 0;
}

int cli_check(int argc, char **argv, struct err *e)
{
    struct check_opts o;
    int rc = parse_options(argc, argv, &o, e);
    if (rc != 0) {
        pg_connopts_free(&o.conn);
        return rc > 0 ? 0 : -1;
    }
    char report[1400];
    rc = o.w->check(&o.conn, o.all, o.jobs, report, sizeof report, e);
    pg_connopts_free(&o.conn);
    if (rc == 1)
        return err_set(e, ERR_RUNTIME, "check: %s", report);
    if (rc < 0)
        return -1;
    printf("%s\n", report);
    return 0;
}
