/* run's options: the table, the usage, and each option into a plan. */
#include "cli/run_opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/opts.h"
#include "workload/workload.h"
#include "local/local.h"

/* run's options; sweep takes every one of them too (sweep_opts.c). */

/* -b list: the built-in scripts, as pgbench lists them (on stdout: it is what was asked). */
static void list_builtins(void)
{
    int width = 0;
    for (const struct workload *const *b = workload_all(); *b; b++)
        if ((int)strlen((*b)->name) > width)
            width = (int)strlen((*b)->name);
    printf("Available builtin scripts:\n");
    for (const struct workload *const *b = workload_all(); *b; b++)
        printf("  %*s: %s\n", width, (*b)->name, (*b)->description);
}

/* --show-script NAME: the built-in's text (a unique prefix will do, as in pgbench). */
static int show_script(const char *name, struct err *e)
{
    int n;
    const struct workload *hit = workload_by_prefix(name, &n);
    if (!hit)
        return err_set(e, ERR_INPUT, "run: %s built-in script '%s' (see -b list)",
                       n ? "ambiguous" : "unknown", name);
    char *text = hit->script || !hit->show_script ? NULL : hit->show_script(hit);
    printf("-- %s: %s\n%s\n", hit->name, hit->description,
           hit->script ? hit->script
           : text      ? text
                       : "");
    free(text);
    return 0;
}

static int parse_protocol(const char *s, enum engine_protocol *out, struct err *e)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, bench_protocol_names[i]) == 0) {
            *out = (enum engine_protocol)i;
            return 0;
        }
    }
    return err_set(e, ERR_INPUT,
                   "invalid value for -M: '%s' (expected simple, extended or prepared)", s);
}

/* An option of a workload's own (by its long name in run's table): 1 taken, 0 none's, -1. */
static int workload_option(int opt, const char *arg, struct bench_plan *p, struct err *e)
{
    for (const struct option *o = cli_getopt_table(CLI_RUN, NULL); o->name; o++)
        if (o->val == opt)
            return bench_plan_add_option(p, o->name, arg, e);
    return 0;
}

void cli_run_opts_init(struct cli_run_opts *o)
{
    memset(o, 0, sizeof *o);
    bench_plan_init(&o->plan);
    o->workload = "tpcb-like";
}

/* An option that takes a number: -1 on a bad value, else 1. */
#define TAKE(call) ((call) < 0 ? -1 : 1)

int cli_run_option(int opt, const char *arg, struct cli_run_opts *o, struct err *e)
{
    struct bench_plan *p = &o->plan;
    if (args_conn_option(opt, arg, &p->conn))
        return 1;
    switch (opt) {
    case 'w':
        o->workload = arg;
        p->workload_given = 1;
        return 1;
    case 'b':
        if (strcmp(arg, "list") == 0) {
            list_builtins();
            return 2;
        }
        /* fall through */
    case 'f':
    case 'D':
        return TAKE(bench_plan_add_spec(p, (char)opt, arg, e));
    case 'n': /* pgbench's: pgarena vacuums nothing before a run */
        return 1;
    case 'S':
        return TAKE(bench_plan_add_spec(p, 'b', "select-only", e));
    case 'N':
        return TAKE(bench_plan_add_spec(p, 'b', "simple-update", e));
    case OPT_SHOW_SCRIPT:
        return show_script(arg, e) < 0 ? -1 : 2;
    case 's':
        return TAKE(num_int("-s", arg, 1, 1000000, &p->scale, e));
    case 'c': /* 0 only with --analytic-clients (bench_plan_check) */
        o->given.clients = 1;
        return TAKE(num_int("-c", arg, 0, 100000, &p->clients, e));
    case 'j':
        return TAKE(num_int("-j", arg, 1, 1024, &p->threads, e));
    case 'T':
        o->given.duration = 1;
        return TAKE(num_int("-T", arg, 1, 100000000, &p->duration_s, e));
    case 't':
        return TAKE(num_int("-t", arg, 1, INT64_MAX / 2, &p->tx_per_client, e));
    case 'M':
        o->given.protocol = 1;
        return TAKE(parse_protocol(arg, &p->protocol, e));
    case 'P':
        return TAKE(num_int("-P", arg, 1, 3600, &p->progress_s, e));
    case 'o':
        p->output = arg;
        return 1;
    case OPT_LABEL:
        p->label = arg;
        return 1;
    case OPT_REPORT:
        o->report = arg;
        return 1;
    case OPT_SEED:
        p->seed_given = 1;
        return TAKE(num_int("--seed", arg, 0, INT64_MAX, &p->seed, e));
    case OPT_LOCAL:
        o->local = 1;
        return local_available(e) < 0 ? -1 : 1;
    case OPT_NO_STATEMENTS:
        o->no_statements = 1;
        return 1;
    case 'q':
        o->quiet = 1;
        return 1;
    case OPT_HELP:
        return 3;
    case 'R':
        return TAKE(num_double("-R", arg, 0.001, 1e9, &p->rate, e));
    case 'L': /* pgbench's short form of --latency-limit */
        return TAKE(num_double("--latency-limit", arg, 0.001, 1e9, &p->latency_limit_ms, e));
    case OPT_WARMUP:
        return TAKE(num_int("--warmup", arg, 0, 100000000, &p->warmup_s, e));
    case OPT_MAX_TRIES:
        o->given.max_tries = 1;
        return TAKE(num_int("--max-tries", arg, 1, 1000000, &p->max_tries, e));
    case OPT_TIMEOUT:
        return TAKE(num_int("--timeout", arg, 1, 100000000, &p->timeout_ms, e));
    case 'C':
        p->connect_per_tx = 1;
        return 1;
    case 'r':
        p->per_statement = 1;
        return 1;
    case 'l':
        p->log.on = 1;
        return 1;
    case OPT_LOG_PREFIX:
        p->log.prefix = arg;
        return 1;
    case OPT_SAMPLING_RATE:
        return TAKE(num_double("--sampling-rate", arg, 1e-9, 1, &p->log.sampling_rate, e));
    case OPT_AGGREGATE_INTERVAL:
        return TAKE(num_int("--aggregate-interval", arg, 1, 100000000, &p->log.aggregate_s, e));
    case OPT_EXIT_ON_ABORT:
        p->exit_on_abort = 1;
        return 1;
    case OPT_DEBUG:
        p->debug = 1;
        return 1;
    case OPT_FAILURES_DETAILED:
        p->log.failures_detailed = 1;
        return 1;
    case OPT_PROGRESS_TIMESTAMP:
        p->progress_timestamp = 1;
        return 1;
    case OPT_AGENTS:
        return TAKE(num_int("--agents", arg, 1, 10000, &p->agents.count, e));
    case OPT_AGENT_INDEX:
        p->agents.index_given = 1;
        return TAKE(num_int("--agent-index", arg, INT32_MIN, INT32_MAX, &p->agents.index, e));
    case OPT_RUN_ID:
        p->agents.run_id = arg;
        return 1;
    case OPT_COORD:
        p->agents.coord = arg;
        return 1;
    case OPT_MERGED:
        p->agents.merged = arg;
        return 1;
    case OPT_AGENT_WAIT:
        return TAKE(num_int("--agent-wait", arg, 1, 86400, &p->agents.wait_s, e));
    case OPT_SAMPLE_MS:
        p->sampling.ms_given = 1;
        return TAKE(num_int("--sample-ms", arg, 1, INT32_MAX, &p->sampling.sample_ms, e));
    case OPT_NO_SAMPLING:
        p->sampling.off = 1;
        return 1;
    case OPT_META:
        return TAKE(bench_plan_add_meta(p, arg, e));
    case OPT_STORE:
        o->store = arg;
        return 1;
    case OPT_METRICS_LISTEN: {
        char host[256];
        int port;
        if (metrics_parse_listen(arg, host, sizeof host, &port, e) < 0)
            return -1;
        p->metrics_listen = arg;
        return 1;
    }
    default:
        return workload_option(opt, arg, p, e);
    }
}

int cli_run_opts_check(struct cli_run_opts *o, struct err *e)
{
    struct bench_plan *p = &o->plan;
    p->workload = workload_find(o->workload);
    if (!p->workload)
        return err_set(e, ERR_INPUT, "run: unknown workload '%s'", o->workload);
    if (o->no_statements && !o->local)
        return err_set(e, ERR_INPUT, "run: --no-statements is for --local");
    if (o->local && p->agents.count)
        return err_set(e, ERR_INPUT, "run: --agents cannot be combined with --local");
    o->given.local = o->local;
    return bench_plan_check(p, &o->given, e);
}

int cli_run_parse_argv(int argc, char **argv, struct cli_run_opts *o, struct err *e)
{
    int opt;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_RUN, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        int rc = cli_run_option(opt, optarg, o, e);
        if (rc < 0)
            return -1;
        if (rc == 3)
            cli_help(CLI_RUN, stdout);
        if (rc >= 2)
            return 1;
        if (rc == 0)
            return args_bad_option("run", argc, argv, optind, optopt, opt == ':', e);
    }
    if (args_positional(argc, argv, optind, &o->plan.conn, "run", e) < 0)
        return -1;
    return cli_run_opts_check(o, e);
}
