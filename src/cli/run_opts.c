/* run's options: the table, the usage, and each option into a plan. */
#include "cli/run_opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/opts.h"
#include "workload/workload.h"

const char cli_run_usage[] =
    "Usage: pgarena run [CONN] [-w WORKLOAD | -f FILE[@W]... | -b NAME[@W]...] [-D NAME=VALUE]\n"
    "                   [-s SCALE | --tables N --table-size ROWS] [-c CLIENTS] [-j THREADS]\n"
    "                   [-T SECONDS | -t TX_PER_CLIENT] [-M simple|extended|prepared]\n"
    "                   [-R TPS] [--latency-limit MS] [--warmup S] [--max-tries N]\n"
    "                   [--timeout MS] [-C] [-r] [-P SECONDS] [-o RESULT.json]\n"
    "                   [--label TEXT] [--report REPORT.html] [--seed N] [--local] [-q]\n"
    "       pgarena run [CONN] -w tpcc [--warehouses W] [--mix 45,43,4,4,4] [--keying-thinking]\n"
    "                   [--procedures] [-c TERMINALS] [run options]\n"
    "       pgarena run [CONN] -w ch [-c TERMINALS] --analytic-clients N [--queries LIST]\n"
    "                   [tpcc options] [run options]\n"
    "                   [-S | -N] [-l [--log-prefix P] [--sampling-rate F]\n"
    "                   [--aggregate-interval S]] [--show-script NAME] [-b list]\n"
    "                   [--sample-ms MS | --no-sampling]\n"
    "\n"
    "Run a workload, measure every transaction, print a summary and write a result file.\n"
    "\n"
    "  -w, --workload NAME   tpcb-like (default), simple-update, select-only (pgbench's);\n"
    "                        oltp-read-write, oltp-read-only, oltp-point-select,\n"
    "                        oltp-write-only (sysbench's, one script per table);\n"
    "                        tpcc (TPC-C's five transactions); ch (CH-benCHmark: TPC-C\n"
    "                        and 22 analytic queries on the same tables)\n"
    "  -f, --file FILE[@W]   a script in pgbench's language, with weight W (repeatable)\n"
    "  -b, --builtin NAME[@W]  a built-in script, with weight W (repeatable, mixes with -f)\n"
    "  -D, --define NAME=VALUE  set a variable for the scripts\n"
    "  -s, --scale N         scale for :scale (default: detected from pgbench_branches)\n"
    "      --tables N        sysbench tables (default: detected, sbtest1..N)\n"
    "      --table-size ROWS rows per sysbench table (default: detected from sbtest1)\n"
    "  -c, --clients N       concurrent client connections (default 1)\n"
    "  -j, --jobs N          threads driving them (default 1)\n"
    "  -T, --time S          run for S seconds (default 10)\n"
    "  -t, --transactions N  run N transactions per client instead\n"
    "  -M, --protocol P      simple (default), extended or prepared\n"
    "  -P, --progress S      progress line every S seconds (default 1 on a terminal)\n"
    "  -o, --output FILE     result file (default pgarena-WORKLOAD-TIME.json)\n"
    "  -R, --rate TPS        open loop: start TPS transactions per second (Poisson arrivals);\n"
    "                        latency counts from the scheduled start\n"
    "  -L, --latency-limit MS  count transactions over MS; with -R, skip those already late\n"
    "      --warmup S        run S seconds first and count none of them\n"
    "      --max-tries N     tries of a transaction failing on serialization or deadlock (1)\n"
    "      --timeout MS      cancel a transaction running longer, counted as a timeout\n"
    "  -C, --connect         open a new connection for every transaction\n"
    "  -r, --report-per-command  print the latency of each statement\n"
    "      --label TEXT      name of this setup, for compare\n"
    "      --report FILE     also write an HTML report of the run (see pgarena report)\n"
    "      --seed N          seed of the random draws\n"
    "      --local           run against a scratch server, loading the workload first;\n"
    "                        it preloads pg_stat_statements\n"
    "      --no-statements   --local without pg_stat_statements\n"
    "  -q, --quiet           print only the summary\n"
    "tpcc:\n"
    "      --warehouses W    warehouses to use (default: all that are loaded); terminal i\n"
    "                        works on warehouse i % W + 1\n"
    "      --mix N,P,O,D,S   New-Order, Payment, Order-Status, Delivery, Stock-Level weights\n"
    "                        in percent (default 45,43,4,4,4)\n"
    "      --keying-thinking the spec's keying and think times (else not TPC-C compliant)\n"
    "      --procedures      call the PL/pgSQL functions init installed (else client-side SQL;\n"
    "                        -M prepared and --max-tries 10 are tpcc's defaults)\n"
    "ch (tpcc's options apply to its terminals):\n"
    "      --analytic-clients N  clients besides -c, each running the 22 queries one after\n"
    "                        another, a seeded permutation per pass; -c 0 --analytic-clients 1\n"
    "                        is the power test (the queries in order). tps and latency are\n"
    "                        the terminals'; the queries are scripts q1..q22 and summary.ch\n"
    "      --queries LIST    only these queries, e.g. 1,6,q14 (default all 22)\n"
    "                        (-t N: N queries per stream; a pass is one query each)\n"
    "pgbench's habits:\n"
    "  -S, -N                -b select-only, -b simple-update\n"
    "  -b list               list the built-in scripts; --show-script NAME prints one\n"
    "  -l, --log             pgbench's transaction log, PREFIX.PID[.THREAD] (pgbench 15 format)\n"
    "      --log-prefix P    (default pgbench_log); --sampling-rate F: log a fraction F\n"
    "      --aggregate-interval S  a line per S seconds instead of per transaction\n"
    "      --failures-detailed  serialization and deadlock failures apart in the log\n"
    "      --progress-timestamp  progress lines with Unix timestamps\n"
    "several load hosts (one run split over N agents, coordinated through PostgreSQL):\n"
    "      --agents N        this process is one of N agents; -c and -R are the whole run's\n"
    "      --agent-index I   which one, 0..N-1 (default: JOB_COMPLETION_INDEX, SLURM_PROCID)\n"
    "      --run-id ID       the run's name, the same for all its agents\n"
    "      --coord CONN      coordination database (default: the target; a writable one)\n"
    "      --merged FILE     agent 0 writes the merged result there (default X.merged.json)\n"
    "      --agent-wait S    wait S seconds for every agent at the start (default 60)\n"
    "why it is as fast as it is:\n"
    "      --sample-ms MS    sample the run's wait events every MS ms (default 100, at most\n"
    "                        the 1000 ms interval), with client and host CPU per interval\n"
    "      --no-sampling     sample nothing (no waits, CPU or pg_stat_statements figures)\n"
    "history:\n"
    "      --meta KEY=VALUE  free metadata in the result (a commit, a build; repeatable)\n"
    "      --store CONN      insert the result into the results store (pgarena store)\n"
    "CONN: -h HOST -p PORT -U USER and a database name, key=value conninfo or postgresql:// URI\n";

/* run's options; sweep takes every one of them too (sweep_opts.c). */
const struct option cli_run_options[] = {
    {"workload", required_argument, NULL, 'w'},
    {"scale", required_argument, NULL, 's'},
    {"clients", required_argument, NULL, 'c'},
    {"client", required_argument, NULL, 'c'}, /* pgbench's */
    {"jobs", required_argument, NULL, 'j'},
    {"time", required_argument, NULL, 'T'},
    {"transactions", required_argument, NULL, 't'},
    {"protocol", required_argument, NULL, 'M'},
    {"progress", required_argument, NULL, 'P'},
    {"output", required_argument, NULL, 'o'},
    {"label", required_argument, NULL, OPT_LABEL},
    {"report", required_argument, NULL, OPT_REPORT},
    {"seed", required_argument, NULL, OPT_SEED},
    {"random-seed", required_argument, NULL, OPT_SEED}, /* pgbench's, integers only */
    {"local", no_argument, NULL, OPT_LOCAL},
    {"no-statements", no_argument, NULL, OPT_NO_STATEMENTS},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, OPT_HELP},
    {"host", required_argument, NULL, 'h'},
    {"port", required_argument, NULL, 'p'},
    {"username", required_argument, NULL, 'U'},
    {"rate", required_argument, NULL, 'R'},
    {"latency-limit", required_argument, NULL, 'L'},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"max-tries", required_argument, NULL, OPT_MAX_TRIES},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"connect", no_argument, NULL, 'C'},
    {"report-per-command", no_argument, NULL, 'r'},
    {"file", required_argument, NULL, 'f'},
    {"builtin", required_argument, NULL, 'b'},
    {"define", required_argument, NULL, 'D'},
    {"tables", required_argument, NULL, OPT_TABLES},
    {"table-size", required_argument, NULL, OPT_TABLE_SIZE},
    {"warehouses", required_argument, NULL, OPT_WAREHOUSES},
    {"mix", required_argument, NULL, OPT_MIX},
    {"keying-thinking", no_argument, NULL, OPT_KEYING_THINKING},
    {"procedures", no_argument, NULL, OPT_PROCEDURES},
    {"select-only", no_argument, NULL, 'S'},
    {"skip-some-updates", no_argument, NULL, 'N'},
    {"show-script", required_argument, NULL, OPT_SHOW_SCRIPT},
    {"log", no_argument, NULL, 'l'},
    {"log-prefix", required_argument, NULL, OPT_LOG_PREFIX},
    {"sampling-rate", required_argument, NULL, OPT_SAMPLING_RATE},
    {"aggregate-interval", required_argument, NULL, OPT_AGGREGATE_INTERVAL},
    {"failures-detailed", no_argument, NULL, OPT_FAILURES_DETAILED},
    {"progress-timestamp", no_argument, NULL, OPT_PROGRESS_TIMESTAMP},
    {"agents", required_argument, NULL, OPT_AGENTS},
    {"agent-index", required_argument, NULL, OPT_AGENT_INDEX},
    {"run-id", required_argument, NULL, OPT_RUN_ID},
    {"coord", required_argument, NULL, OPT_COORD},
    {"merged", required_argument, NULL, OPT_MERGED},
    {"agent-wait", required_argument, NULL, OPT_AGENT_WAIT},
    {"sample-ms", required_argument, NULL, OPT_SAMPLE_MS},
    {"meta", required_argument, NULL, OPT_META},
    {"store", required_argument, NULL, OPT_STORE},
    {"no-sampling", no_argument, NULL, OPT_NO_SAMPLING},
    {"analytic-clients", required_argument, NULL, OPT_ANALYTIC_CLIENTS},
    {"queries", required_argument, NULL, OPT_QUERIES},
    {NULL, 0, NULL, 0}};

const char cli_run_shortopts[] = ":w:s:c:j:T:t:M:P:o:qh:p:U:R:L:Crf:b:D:SNl";

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

/* --mix: five whole numbers summing to 100. */
static int parse_mix(const char *arg, int mix[TPCC_N_TX], struct err *e)
{
    const char *p = arg;
    int sum = 0;
    for (int i = 0; i < TPCC_N_TX; i++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 100 || (i < TPCC_N_TX - 1 && *end != ',') ||
            (i == TPCC_N_TX - 1 && *end != '\0'))
            return err_set(e, ERR_INPUT,
                           "invalid value for --mix: '%s' (expected five numbers summing to 100, "
                           "e.g. 45,43,4,4,4)",
                           arg);
        mix[i] = (int)v;
        sum += (int)v;
        p = end + 1;
    }
    if (sum != 100)
        return err_set(e, ERR_INPUT, "invalid value for --mix: '%s' sums to %d, not 100", arg, sum);
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
    case 'S':
        return TAKE(bench_plan_add_spec(p, 'b', "select-only", e));
    case 'N':
        return TAKE(bench_plan_add_spec(p, 'b', "simple-update", e));
    case OPT_SHOW_SCRIPT:
        return show_script(arg, e) < 0 ? -1 : 2;
    case 's':
        return TAKE(num_int("-s", arg, 1, 1000000, &p->scale, e));
    case 'c': /* 0 only with --analytic-clients (bench_plan_check) */
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
        return 1;
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
    case OPT_TABLES:
        return TAKE(num_int("--tables", arg, 1, 100000, &p->tables, e));
    case OPT_TABLE_SIZE:
        return TAKE(num_int("--table-size", arg, 1, INT32_MAX, &p->table_size, e));
    case 'C':
        p->connect_per_tx = 1;
        return 1;
    case 'r':
        p->per_statement = 1;
        return 1;
    case OPT_WAREHOUSES:
        return TAKE(num_int("--warehouses", arg, 1, 100000, &p->tpcc.warehouses, e));
    case OPT_MIX:
        p->tpcc.mix_given = 1;
        return TAKE(parse_mix(arg, p->tpcc.mix, e));
    case OPT_KEYING_THINKING:
        p->tpcc.keying_thinking = 1;
        return 1;
    case OPT_ANALYTIC_CLIENTS:
        return TAKE(num_int("--analytic-clients", arg, 0, 10000, &p->ch.analytic_clients, e));
    case OPT_QUERIES:
        p->ch.queries = arg;
        return 1;
    case OPT_PROCEDURES:
        p->tpcc.procedures = 1;
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
    default:
        return 0;
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
    return bench_plan_check(p, &o->given, e);
}

int cli_run_parse_argv(int argc, char **argv, struct cli_run_opts *o, struct err *e)
{
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, cli_run_shortopts, cli_run_options, NULL)) != -1) {
        int rc = cli_run_option(opt, optarg, o, e);
        if (rc < 0)
            return -1;
        if (rc == 3)
            fputs(cli_run_usage, stdout);
        if (rc >= 2)
            return 1;
        if (rc == 0)
            return args_bad_option("run", argc, argv, optind, optopt, opt == ':', e);
    }
    if (args_positional(argc, argv, optind, &o->plan.conn, "run", e) < 0)
        return -1;
    return cli_run_opts_check(o, e);
}
