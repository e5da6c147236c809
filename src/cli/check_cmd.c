#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "cli/init_int.h"
#include "workload/workload.h"

struct check_opts {
    struct pg_connopts conn;
    const char *workload;
    const struct workload *w;
    int all;
    int jobs;
};

/* The workloads that have consistency conditions, as "a, b and c" into buf; the first's
 * name returned. */
static const char *checked_workloads(char *buf, size_t size)
{
    const struct workload *w[16];
    int n = 0;
    for (const struct workload *const *p = workload_all(); *p; p++)
        if ((*p)->check && n < 16)
            w[n++] = *p;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s",
                                i == 0       ? ""
                                : i == n - 1 ? " and "
                                             : ", ",
                                w[i]->name);
    return n ? w[0]->name : "";
}

/* Returns 1 when --help was printed. */
static int parse_options(int argc, char **argv, struct check_opts *o, struct err *e)
{
    int opt;
    *o = (struct check_opts){.workload = NULL, .jobs = load_default_jobs()};
    int64_t v;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_CHECK, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
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
            cli_help(CLI_CHECK, stdout);
            return 1;
        default:
            return args_bad_option("check", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (args_positional(argc, argv, optind, &o->conn, "check", e) < 0)
        return -1;
    char which[256];
    const char *first = checked_workloads(which, sizeof which);
    if (!o->workload)
        return err_set(e, ERR_INPUT, "check: give the workload: -w %s", first);
    o->w = workload_find(o->workload);
    if (!o->w || !o->w->check)
        return err_set(e, ERR_INPUT, "check: workload '%s' has no consistency conditions (only %s)",
                       o->workload, which);
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
