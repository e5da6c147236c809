#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fdlimit.h"
#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/init_int.h"
#include "cli/run_int.h"
#include "cli/session.h"
#include "report/html.h"
#include "report/text.h"

static const char usage[] =
    "Usage: pgarena run [CONN] [-w WORKLOAD | -f FILE[@W]... | -b NAME[@W]...] [-D NAME=VALUE]\n"
    "                   [-s SCALE | --tables N --table-size ROWS] [-c CLIENTS] [-j THREADS]\n"
    "                   [-T SECONDS | -t TX_PER_CLIENT] [-M simple|extended|prepared]\n"
    "                   [-R TPS] [--latency-limit MS] [--warmup S] [--max-tries N]\n"
    "                   [--timeout MS] [-C] [-r] [-P SECONDS] [-o RESULT.json]\n"
    "                   [--label TEXT] [--report REPORT.html] [--seed N] [--local] [-q]\n"
    "       pgarena run [CONN] -w tpcc [--warehouses W] [--mix 45,43,4,4,4] [--keying-thinking]\n"
    "                   [--procedures] [-c TERMINALS] [run options]\n"
    "                   [-S | -N] [-l [--log-prefix P] [--sampling-rate F]\n"
    "                   [--aggregate-interval S]] [--show-script NAME] [-b list]\n"
    "                   [--sample-ms MS | --no-sampling]\n"
    "\n"
    "Run a workload, measure every transaction, print a summary and write a result file.\n"
    "\n"
    "  -w, --workload NAME   tpcb-like (default), simple-update, select-only (pgbench's);\n"
    "                        oltp-read-write, oltp-read-only, oltp-point-select,\n"
    "                        oltp-write-only (sysbench's, one script per table);\n"
    "                        tpcc (TPC-C's five transactions)\n"
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
    "      --local           run against a scratch server, loading the workload first\n"
    "  -q, --quiet           print only the summary\n"
    "tpcc:\n"
    "      --warehouses W    warehouses to use (default: all that are loaded); terminal i\n"
    "                        works on warehouse i % W + 1\n"
    "      --mix N,P,O,D,S   New-Order, Payment, Order-Status, Delivery, Stock-Level weights\n"
    "                        in percent (default 45,43,4,4,4)\n"
    "      --keying-thinking the spec's keying and think times (else not TPC-C compliant)\n"
    "      --procedures      call the PL/pgSQL functions init installed (else client-side SQL;\n"
    "                        -M prepared and --max-tries 10 are tpcc's defaults)\n"
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
    "CONN: -h HOST -p PORT -U USER and a database name, key=value conninfo or postgresql:// URI\n";

enum {
    OPT_LABEL = 1,
    OPT_SEED,
    OPT_LOCAL,
    OPT_HELP,
    OPT_WARMUP,
    OPT_LATENCY_LIMIT,
    OPT_MAX_TRIES,
    OPT_TIMEOUT,
    OPT_TABLES,
    OPT_TABLE_SIZE,
    OPT_REPORT
};

/* The options that shape measurement; returns 1 if opt was one of them, -1 on a bad value. */
static int parse_measure_option(int opt, const char *arg, struct run_opts *o, struct err *e)
{
    switch (opt) {
    case 'R':
        return args_double("-R", arg, 0.001, 1e9, &o->rate, e) < 0 ? -1 : 1;
    case 'L': /* pgbench's short form */
    case OPT_LATENCY_LIMIT:
        return args_double("--latency-limit", arg, 0.001, 1e9, &o->latency_limit_ms, e) < 0 ? -1
                                                                                            : 1;
    case OPT_WARMUP:
        return args_int("--warmup", arg, 0, 100000000, &o->warmup_s, e) < 0 ? -1 : 1;
    case OPT_MAX_TRIES:
        return args_int("--max-tries", arg, 1, 1000000, &o->max_tries, e) < 0 ? -1 : 1;
    case OPT_TIMEOUT:
        return args_int("--timeout", arg, 1, 100000000, &o->timeout_ms, e) < 0 ? -1 : 1;
    case OPT_TABLES:
        return args_int("--tables", arg, 1, 100000, &o->tables, e) < 0 ? -1 : 1;
    case OPT_TABLE_SIZE:
        return args_int("--table-size", arg, 1, INT32_MAX, &o->table_size, e) < 0 ? -1 : 1;
    case 'C':
        o->connect_per_tx = 1;
        return 1;
    case 'r':
        o->per_statement = 1;
        return 1;
    default:
        return 0;
    }
}

static int parse_protocol(const char *s, enum protocol *out, struct err *e)
{
    for (int i = 0; i < 3; i++) {
        if (strcmp(s, run_protocol_names[i]) == 0) {
            *out = (enum protocol)i;
            return 0;
        }
    }
    return err_set(e, ERR_INPUT,
                   "invalid value for -M: '%s' (expected simple, extended or prepared)", s);
}

/* run's options; a sweep passes them through to each cell's run. */
const struct option run_longopts[] = {
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
    {"warehouses", required_argument, NULL, RUN_OPT_WAREHOUSES},
    {"mix", required_argument, NULL, RUN_OPT_MIX},
    {"keying-thinking", no_argument, NULL, RUN_OPT_KEYING_THINKING},
    {"procedures", no_argument, NULL, RUN_OPT_PROCEDURES},
    {"select-only", no_argument, NULL, 'S'},
    {"skip-some-updates", no_argument, NULL, 'N'},
    {"show-script", required_argument, NULL, RUN_OPT_SHOW_SCRIPT},
    {"log", no_argument, NULL, 'l'},
    {"log-prefix", required_argument, NULL, RUN_OPT_LOG_PREFIX},
    {"sampling-rate", required_argument, NULL, RUN_OPT_SAMPLING_RATE},
    {"aggregate-interval", required_argument, NULL, RUN_OPT_AGGREGATE_INTERVAL},
    {"failures-detailed", no_argument, NULL, RUN_OPT_FAILURES_DETAILED},
    {"progress-timestamp", no_argument, NULL, RUN_OPT_PROGRESS_TIMESTAMP},
    {"agents", required_argument, NULL, RUN_OPT_AGENTS},
    {"agent-index", required_argument, NULL, RUN_OPT_AGENT_INDEX},
    {"run-id", required_argument, NULL, RUN_OPT_RUN_ID},
    {"coord", required_argument, NULL, RUN_OPT_COORD},
    {"merged", required_argument, NULL, RUN_OPT_MERGED},
    {"agent-wait", required_argument, NULL, RUN_OPT_AGENT_WAIT},
    {"sample-ms", required_argument, NULL, RUN_OPT_SAMPLE_MS},
    {"no-sampling", no_argument, NULL, RUN_OPT_NO_SAMPLING},
    {NULL, 0, NULL, 0}};

const char run_shortopts[] = ":w:s:c:j:T:t:M:P:o:qh:p:U:R:L:Crf:b:D:SNl";

/* Returns 1 when --help was printed. */
static int parse_options(int argc, char **argv, struct run_opts *o, struct err *e)
{
    const char *workload = "tpcb-like";
    int opt, got_T = 0, got_M = 0, got_tries = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, run_shortopts, run_longopts, NULL)) != -1) {
        if (args_conn_option(opt, optarg, &o->conn))
            continue;
        got_tries |= opt == OPT_MAX_TRIES;
        got_M |= opt == 'M';
        int rc = parse_measure_option(opt, optarg, o, e);
        if (rc == 0)
            rc = run_sampling_option(opt, optarg, o, e);
        if (rc == 0)
            rc = run_tpcc_option(opt, optarg, o, e);
        if (rc == 0)
            rc = run_parse_pgbench_option(opt, optarg, o, e);
        if (rc == 0)
            rc = run_agents_option(opt, optarg, o, e);
        if (rc < 0)
            return -1;
        if (rc == 2)
            return 1; /* -b list, --show-script: printed, nothing to run */
        if (rc > 0)
            continue;
        switch (opt) {
        case 'w':
            workload = optarg;
            o->workload_given = 1;
            break;
        case 'f':
        case 'b':
        case 'D':
            rc = run_add_spec(o, (char)opt, optarg, e);
            break;
        case 's':
            rc = args_int("-s", optarg, 1, 1000000, &o->scale, e);
            break;
        case 'c':
            rc = args_int("-c", optarg, 1, 100000, &o->clients, e);
            break;
        case 'j':
            rc = args_int("-j", optarg, 1, 1024, &o->threads, e);
            break;
        case 'T':
            rc = args_int("-T", optarg, 1, 100000000, &o->duration_s, e);
            got_T = 1;
            break;
        case 't':
            rc = args_int("-t", optarg, 1, INT64_MAX / 2, &o->tx_per_client, e);
            break;
        case 'M':
            rc = parse_protocol(optarg, &o->protocol, e);
            break;
        case 'P':
            rc = args_int("-P", optarg, 1, 3600, &o->progress_s, e);
            break;
        case 'o':
            o->output = optarg;
            break;
        case OPT_LABEL:
            o->label = optarg;
            break;
        case OPT_REPORT:
            o->report = optarg;
            break;
        case OPT_SEED:
            rc = args_int("--seed", optarg, 0, INT64_MAX, &o->seed, e);
            o->seed_given = 1;
            break;
        case OPT_LOCAL:
            o->local = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case OPT_HELP:
            fputs(usage, stdout);
            return 1;
        default:
            return args_bad_option("run", argc, argv, optind, optopt, opt == ':', e);
        }
        if (rc < 0)
            return -1;
    }
    if (args_positional(argc, argv, optind, &o->conn, "run", e) < 0)
        return -1;
    if (got_T && o->tx_per_client)
        return err_set(e, ERR_INPUT, "run: -T and -t cannot be used together");
    if (!o->tx_per_client && !got_T)
        o->duration_s = 10;
    if (o->latency_limit_ms > 0 && o->timeout_ms > 0 && o->timeout_ms < o->latency_limit_ms)
        return err_set(e, ERR_INPUT, "run: --timeout is shorter than --latency-limit");
    if (o->workload_given && o->n_specs > 0)
        return err_set(e, ERR_INPUT, "run: -w cannot be combined with -f, -b, -S or -N");
    if (run_check_pgbench_options(o, e) < 0 || run_sampling_check(o, e) < 0)
        return -1;
    o->workload = builtin_find(workload);
    if (!o->workload)
        return err_set(e, ERR_INPUT, "run: unknown workload '%s'", workload);
    if (run_tpcc_check_options(o, got_tries, got_M, e) < 0 || run_agents_check(o, e) < 0)
        return -1;
    return o->workload->dataset == DATASET_TPCC ? 0 : run_check_sizes(o, e);
}

/* Whether the directory of path lets us create files in it. */
static int dir_writable(const char *path)
{
    char *copy = xstrdup(path);
    int ok = access(dirname(copy), W_OK | X_OK) == 0;
    free(copy);
    return ok;
}

/* A result or report path that cannot work is refused before anything runs. */
static int check_output(struct run_opts *o, char *fallback, size_t size, struct err *e)
{
    if (!o->output) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(fallback, size, "pgarena-%s-%s.json", o->n_specs ? "custom" : o->workload->name,
                 stamp);
        o->output = fallback;
    }
    struct stat st;
    if (stat(o->output, &st) == 0 && !S_ISREG(st.st_mode))
        return err_set(e, ERR_INPUT, "run: cannot write the result file %s: not a regular file",
                       o->output);
    if (!dir_writable(o->output))
        return err_set(e, ERR_INPUT, "run: cannot write the result file %s: directory %s",
                       o->output, "is missing or not writable");
    if (journal_exists(o->output))
        return err_set(e, ERR_INPUT,
                       "run: %s.journal is left from a run that did not end: run `pgarena "
                       "recover %s`, or remove it",
                       o->output, o->output);
    if (o->report && !dir_writable(o->report))
        return err_set(e, ERR_INPUT, "run: cannot write the report %s: directory %s", o->report,
                       "is missing or not writable");
    return 0;
}

/* Read what the run needs from the server before it starts: the scale and the version, and
 * the environment the result records. */
static int prepare_server(struct run_opts *o, struct err *e)
{
    struct pg_conn *c = pg_connect(&o->conn, e);
    if (!c)
        return -1;
    const char *v = pg_parameter(c, "server_version");
    snprintf(o->server_version, sizeof o->server_version, "%s", v ? v : "");
    char value[64];
    struct err qe = {0};
    int rc = 0;
    if (o->n_specs == 0 && o->workload->dataset == DATASET_SYSBENCH) {
        rc = run_sysbench_detect(c, o, e);
    } else if (o->n_specs == 0 && o->workload->dataset == DATASET_TPCC) {
        rc = run_tpcc_prepare(c, o, e);
    } else if (!o->needs_pgbench) { /* custom scripts: :scale is -s, or 1 as in pgbench */
        if (o->scale == 0)
            o->scale = 1;
    } else if (pg_query_value(c, "SELECT count(*) FROM pgbench_branches", value, sizeof value,
                              &qe) < 0) {
        rc = err_set(e, ERR_INPUT, "run: workload %s needs pgbench's tables (run pgarena init): %s",
                     o->workload_name, qe.msg);
    } else if (o->scale == 0 && (o->scale = atoll(value)) < 1) {
        rc = err_set(e, ERR_INPUT, "run: pgbench_branches is empty (run pgarena init)");
    }
    if (rc == 0) {
        struct err ignored = {0};
        if (pg_query_value(c, "SHOW max_connections", o->max_connections, sizeof o->max_connections,
                           &ignored) < 0)
            o->max_connections[0] = '\0';
        run_env_before(o, c);
    }
    pg_finish(c);
    return rc;
}

/* How the progress line is shown: in place on a terminal; --progress-timestamp gives the
 * time as a Unix timestamp (as pgbench) instead of the seconds since the start. */
struct progress_style {
    int tty, timestamp;
};

static void print_progress(const struct engine_progress *p, void *arg)
{
    const struct progress_style *st = arg;
    int tty = st->tty;
    double t = p->elapsed_s;
    if (st->timestamp) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        t = (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1000.0;
    }
    fprintf(stderr,
            st->timestamp ? "%sprogress: %.3f s, %.1f tps, lat %.3f ms stddev %.3f, %llu failed%s"
                          : "%sprogress: %.1f s, %.1f tps, lat %.3f ms stddev %.3f, %llu failed%s",
            tty ? "\r\033[K" : "", t, (double)p->n_tx / p->period_s, p->latency_mean_us / 1000.0,
            p->latency_stddev_us / 1000.0, (unsigned long long)p->n_failed, tty ? "" : "\n");
    fflush(stderr);
}

/* --report: from the file just written, which holds the intervals the run did not keep. */
static int report_after_run(const struct run_opts *o, struct err *e)
{
    struct result back;
    if (result_read(o->output, &back, e) < 0)
        return -1;
    const char *path = o->output;
    int rc = report_html_write(&back, &path, 1, NULL, o->report, e);
    result_free(&back);
    if (rc == 0 && !o->embedded)
        printf("report:              %s\n", o->report);
    return rc;
}

/* Open files a run needs besides its clients' sockets. */
#define FILES_BESIDES_CLIENTS 64

static int measure(struct run_opts *o, struct script_set *scripts, struct err *e)
{
    int tty = isatty(2);
    if (o->embedded)
        o->quiet = 1;
    struct progress_style style = {tty, o->progress_timestamp};
    if (o->progress_s == 0 && tty && !o->quiet)
        o->progress_s = 1;
    struct engine_config cfg = {
        .conn = &o->conn,
        .scripts = scripts,
        .scale = o->scale,
        .clients = (int)o->clients,
        .threads = (int)o->threads,
        .duration_s = o->duration_s,
        .tx_per_client = o->tx_per_client,
        .protocol = o->protocol,
        .interval_us = (int64_t)RUN_INTERVAL_MS * 1000,
        .progress_s = o->quiet ? 0 : (double)o->progress_s,
        .seed = (uint64_t)o->seed,
        .rate = o->rate,
        .latency_limit_us = (int64_t)(o->latency_limit_ms * 1000),
        .warmup_s = o->warmup_s,
        .max_tries = (int)o->max_tries,
        .timeout_us = o->timeout_ms * 1000,
        .connect_per_tx = o->connect_per_tx,
        .sleep_is_terminal_time = o->tpcc.keying_thinking,
        .progress = print_progress,
        .progress_arg = &style,
        .measure_start = run_env_measure_start,
        .measure_start_arg = o,
        .interval_done = run_sink_interval,
    };
    /* Checked before anything is opened or allocated for the run. A socket per client, plus what
     * the process itself keeps open (epoll, timers, files): the common soft limit of 1024 files
     * would refuse a thousand clients. */
    long files = fdlimit_ensure(o->clients + FILES_BESIDES_CLIENTS);
    if (files >= 0 && files < o->clients + FILES_BESIDES_CLIENTS)
        return err_set(e, ERR_RUNTIME,
                       "%lld clients need %lld open files, the limit is %ld (ulimit -Hn)",
                       (long long)o->clients, (long long)o->clients + FILES_BESIDES_CLIENTS, files);
    run_log_config(o, &cfg);
    run_agents_config(o, &cfg);
    run_sampling_configure(o, &cfg);
    struct engine_result er;
    struct run_sink sink;
    clock_wall_iso8601(o->started_at, sizeof o->started_at);
    run_sink_open(&sink, o, scripts);
    cfg.interval_arg = &sink;
    if (engine_run(&cfg, &er, e) < 0) {
        run_sink_close(&sink, 1); /* nothing ran: nothing to keep */
        run_agents_close(o);
        run_sampling_finish(o, NULL);
        if (strstr(e->msg, "too many clients") && o->max_connections[0])
            err_set(e, ERR_RUNTIME,
                    "the server refused connections: %lld clients, max_connections = %s (%s)",
                    (long long)o->clients, o->max_connections, "too many clients already");
        return -1;
    }
    if (cfg.progress_s > 0 && tty)
        fputs("\n", stderr);
    struct result r;
    run_build_result(o, scripts, &er, &r);
    run_sampling_finish(o, &r);
    run_tpcc_result(o, &r);
    run_agents_result(o, &er, &r);
    run_sink_attach(&sink, &r);
    run_env_after(o, &er, &r);
    if (!o->embedded)
        report_text_summary(stdout, &r);
    if (o->per_statement && !o->embedded)
        report_text_statements(stdout, &r);
    if (r.summary.failed > 0 && er.first_error[0] && !o->embedded)
        fprintf(stderr, "pgarena: first failure: %s\n", er.first_error);
    if (er.n_latency_out_of_range > 0)
        fprintf(stderr,
                "pgarena: %llu transactions took longer than the latency histogram holds "
                "(%lld s) and are missing from the latency figures\n",
                (unsigned long long)er.n_latency_out_of_range, (long long)(HIST_MAX_US / 1000000));
    int rc = r.complete ? 0 : 1;
    if (er.log_error[0]) { /* the run is measured and kept, but the log the user asked is not */
        fprintf(stderr, "pgarena: %s\n", er.log_error);
        rc = 1;
    }
    engine_result_free(&er);
    int written = result_write(&r, o->output, e) == 0;
    run_sink_close(&sink, written);
    if (!written)
        rc = -1;
    else if (!o->embedded)
        printf("result:              %s\n", o->output);
    if (rc >= 0 && run_agents_finish(o, written, e) < 0)
        rc = -1;
    if (rc >= 0 && o->report && report_after_run(o, e) < 0)
        rc = -1;
    if (rc >= 0 && !r.complete && !o->embedded)
        fprintf(stderr, "pgarena: run cut short (%s); the result file holds what was measured\n",
                r.end_reason);
    result_free(&r);
    return rc;
}

static void opts_init(struct run_opts *o)
{
    *o = (struct run_opts){.clients = 1, .threads = 1, .protocol = PROTO_SIMPLE, .max_tries = 1};
    o->sampling.sample_ms = RUN_DEFAULT_SAMPLE_MS;
}

int run_opts_parse(int argc, char **argv, struct run_opts *o, struct err *e)
{
    opts_init(o);
    return parse_options(argc, argv, o, e);
}

/* The checks cli_run makes before anything starts, but -f files are not read (a fuzzed file
 * name could be /dev/zero): their scripts are checked when a run starts. */
int cli_run_parse(int argc, char **argv, struct err *e)
{
    struct run_opts o;
    opts_init(&o);
    char fallback[256];
    int rc = parse_options(argc, argv, &o, e);
    if (rc == 0)
        rc = check_output(&o, fallback, sizeof fallback, e);
    int reads_files = 0;
    for (int i = 0; i < o.n_specs; i++)
        reads_files |= o.specs[i].kind == 'f';
    if (rc == 0 && !reads_files) {
        struct script_set scripts;
        script_set_init(&scripts);
        rc = run_build_scripts(&o, &scripts, e);
        script_set_free(&scripts);
    }
    if (rc == 0)
        free(args_masked_command(argc, argv));
    pg_connopts_free(&o.conn);
    return rc < 0 ? -1 : 0;
}

int cli_run(int argc, char **argv, struct err *e)
{
    return run_invoke(argc, argv, 0, e);
}

int run_invoke(int argc, char **argv, int embedded, struct err *e)
{
    struct run_opts o;
    opts_init(&o);
    o.embedded = embedded;
    struct script_set scripts;
    struct local_server srv = {0};
    char fallback[256];
    int rc = parse_options(argc, argv, &o, e);
    if (rc != 0) {
        rc = rc > 0 ? 0 : -1; /* 1: --help was printed */
        goto out_opts;
    }
    rc = -1;
    if (!o.seed_given)
        o.seed = (int64_t)(clock_now_ns() & 0x7fffffff);
    if (check_output(&o, fallback, sizeof fallback, e) < 0)
        goto out_opts;
    script_set_init(&scripts);
    if (run_build_scripts(&o, &scripts, e) < 0) /* sysbench's come once the tables are known */
        goto out_scripts;
    o.command = args_masked_command(argc, argv);
    if (!embedded)
        session_signals_install();
    if (o.local) {
        if (session_local_start(&srv, &o.conn, e) < 0)
            goto out_scripts;
        struct load_options lo = {.scale = o.scale ? (int)o.scale : 1,
                                  .warehouses = o.tpcc.warehouses ? (int)o.tpcc.warehouses : 1,
                                  .tables = o.tables ? (int)o.tables : 1,
                                  .table_size =
                                      o.table_size ? o.table_size : BUILTIN_SYSBENCH_TABLE_SIZE,
                                  .jobs = init_default_jobs(),
                                  .seed = (uint64_t)o.seed};
        /* Custom scripts bring their own tables; built-in ones get their dataset loaded. */
        if ((o.n_specs == 0 || o.needs_pgbench) &&
            init_load(&o.conn, o.workload, &lo, o.quiet, e) < 0)
            goto out_local;
    }
    if (prepare_server(&o, e) == 0 && run_sysbench_scripts(&o, &scripts, e) == 0 &&
        run_tpcc_scripts(&o, &scripts, e) == 0 && run_agents_open(&o, e) == 0)
        rc = measure(&o, &scripts, e);
    run_agents_close(&o);
out_local:
    if (o.local)
        session_local_stop(&srv);
out_scripts:
    script_set_free(&scripts);
out_opts:
    free(o.command);
    run_env_free(&o.env);
    srv_statements_free(&o.sampling.pgss);
    pg_connopts_free(&o.conn);
    return rc;
}
