#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/mem.h"
#include "bench/bench.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/init_int.h"
#include "cli/opts.h"
#include "cli/session.h"
#include "workload/load/load.h"
#include "workload/workload.h"
#include "local/local.h"

struct progress_state {
    time_ns start, last;
    int tty;
    int64_t last_done; /* the count last printed, in last_phase: ends are printed once */
    const char *last_phase;
};

static void print_progress(const struct load_progress *p, void *arg)
{
    struct progress_state *ps = arg;
    time_ns now = clock_now_ns();
    int load = strcmp(p->phase, "load") == 0;
    int end = load ? p->rows_done >= p->rows_total : p->steps_done >= p->steps_total;
    int64_t done = load ? p->rows_done : p->steps_done;
    if (end && ps->last_phase && strcmp(ps->last_phase, p->phase) == 0 && ps->last_done == done)
        return;
    /* Off a terminal, one line per second is plenty for a log. */
    if (!ps->tty && !end && now - ps->last < NS_PER_S)
        return;
    ps->last = now;
    ps->last_phase = p->phase;
    ps->last_done = done;
    double elapsed = (double)(now - ps->start) / NS_PER_S;
    const char *lead = ps->tty ? "\r\033[K" : "", *tail = ps->tty ? "" : "\n";
    if (!load) {
        fprintf(stderr, "%svacuum, keys and indexes: %d of %d done (elapsed %.1f s)%s", lead,
                p->steps_done, p->steps_total, elapsed, tail);
        return;
    }
    double frac = p->rows_total > 0 ? (double)p->rows_done / (double)p->rows_total : 1.0;
    double remaining = frac > 0 ? elapsed / frac - elapsed : 0;
    fprintf(stderr,
            "%s%lld of %lld rows (%.0f %%), %.0f rows/s, elapsed %.1f s, remaining %.1f s%s", lead,
            (long long)p->rows_done, (long long)p->rows_total, 100.0 * frac,
            elapsed > 0 ? (double)p->rows_done / elapsed : 0.0, elapsed, remaining, tail);
}

static void print_notice(const char *message, void *arg)
{
    (void)arg;
    fprintf(stderr, "%s\n", message);
}

int init_load(const struct pg_connopts *conn, const struct workload *wl, struct load_options *opt,
              int quiet, struct err *e)
{
    struct progress_state ps = {clock_now_ns(), 0, isatty(2), -1, NULL};
    opt->progress = quiet ? NULL : print_progress;
    opt->progress_arg = &ps;
    opt->notice = quiet ? NULL : print_notice;
    opt->stop_requested = &session_interrupted;
    int rc = wl->load(conn, opt, e);
    if (!quiet && ps.tty)
        fputs("\n", stderr);
    if (rc == 0 && !quiet)
        fprintf(stderr, "done in %.2f s\n", (double)(clock_now_ns() - ps.start) / NS_PER_S);
    return rc;
}

/* What init was asked, before it is checked against the workload. */
struct init_opts {
    struct pg_connopts conn;
    const char *workload;
    const char *init_file; /* -f */
    struct load_options load;
    int local, quiet;
    int got_scale, got_partitions, got_method, got_tables, got_size, got_warehouses;
    int no_vacuum, foreign_keys, got_pgbench_init; /* pgbench -i's options were given */
    char *steps;                                   /* owned: -I with -n and --foreign-keys */
};

/* pgbench -i's options of the dataset's definition; 1 if opt was one, -1 on a bad value. */
static int parse_pgbench_option(int opt, const char *arg, struct init_opts *o, struct err *e)
{
    int64_t v = 0;
    switch (opt) {
    case 'I':
        for (const char *c = arg; *c; c++)
            if (!strchr("dtgGvpf ", *c))
                return err_set(e, ERR_INPUT,
                               "init: unrecognized initialization step \"%c\" (allowed: "
                               "\"dtgGvpf\")",
                               *c);
        o->load.init_steps = arg;
        break;
    case 'F':
        if (num_int("-F", arg, 10, 100, &v, e) < 0)
            return -1;
        o->load.fillfactor = (int)v;
        break;
    case 'n':
        o->no_vacuum = 1;
        break;
    case OPT_FOREIGN_KEYS:
        o->foreign_keys = 1;
        break;
    case OPT_UNLOGGED:
        o->load.unlogged = 1;
        break;
    case OPT_TABLESPACE:
        o->load.tablespace = arg;
        break;
    case OPT_INDEX_TABLESPACE:
        o->load.index_tablespace = arg;
        break;
    default:
        return 0;
    }
    o->got_pgbench_init = 1;
    return 1;
}

/* The steps to run, as pgbench makes them: -n blanks out v, --foreign-keys adds f. */
static void final_steps(struct init_opts *o)
{
    if (!o->no_vacuum && !o->foreign_keys)
        return;
    const char *given = o->load.init_steps ? o->load.init_steps : "dtgvp";
    o->steps = xasprintf("%s%s", given, o->foreign_keys && !strchr(given, 'f') ? "f" : "");
    for (char *c = o->steps; o->no_vacuum && *c; c++)
        if (*c == 'v')
            *c = ' ';
    o->load.init_steps = o->steps;
}

/* The options about the dataset's size and shape; 1 if opt was one, -1 on a bad value. */
static int parse_size_option(int opt, const char *arg, struct init_opts *o, struct err *e)
{
    int64_t v = 0;
    int rc = 1;
    switch (opt) {
    case 's':
        rc = num_int("-s", arg, 1, 1000000, &v, e) < 0 ? -1 : (o->load.scale = (int)v, 1);
        o->got_scale = 1;
        break;
    case OPT_PARTITIONS:
        rc = num_int("--partitions", arg, 0, 100000, &v, e) < 0 ? -1
                                                                : (o->load.partitions = (int)v, 1);
        o->got_partitions = 1;
        break;
    case OPT_PARTITION_METHOD:
        if (strcmp(arg, "range") != 0 && strcmp(arg, "hash") != 0)
            return err_set(e, ERR_INPUT,
                           "invalid value for --partition-method: '%s' (expected range or hash)",
                           arg);
        o->load.partition_method = strcmp(arg, "hash") == 0 ? LOAD_PART_HASH : LOAD_PART_RANGE;
        o->got_method = 1;
        break;
    case OPT_TABLES:
        rc = num_int("--tables", arg, 1, 100000, &v, e) < 0 ? -1 : (o->load.tables = (int)v, 1);
        o->got_tables = 1;
        break;
    case OPT_TABLE_SIZE:
        rc = num_int("--table-size", arg, 1, INT32_MAX, &o->load.table_size, e) < 0 ? -1 : 1;
        o->got_size = 1;
        break;
    case OPT_WAREHOUSES:
        rc = num_int("--warehouses", arg, 1, 100000, &v, e) < 0 ? -1
                                                                : (o->load.warehouses = (int)v, 1);
        o->got_warehouses = 1;
        break;
    default:
        return 0;
    }
    return rc;
}

/* Returns 1 when --help was printed. */
static int parse_options(int argc, char **argv, struct init_opts *o, struct err *e)
{
    int opt;
    int64_t v;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_INIT, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (args_conn_option(opt, optarg, &o->conn))
            continue;
        int rc = parse_size_option(opt, optarg, o, e);
        if (rc == 0)
            rc = parse_pgbench_option(opt, optarg, o, e);
        if (rc < 0)
            return -1;
        if (rc > 0)
            continue;
        switch (opt) {
        case 'w':
            o->workload = optarg;
            break;
        case 'f':
            o->init_file = optarg;
            break;
        case 'j':
            if (num_int("-j", optarg, 1, 1024, &v, e) < 0)
                return -1;
            o->load.jobs = (int)v;
            break;
        case OPT_SEED:
            if (num_int("--seed", optarg, 0, INT64_MAX, &v, e) < 0)
                return -1;
            o->load.seed = (uint64_t)v;
            break;
        case OPT_FORCE:
            o->load.force = 1;
            break;
        case OPT_LOCAL:
            if (local_available(e) < 0)
                return -1;
            o->local = 1;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case OPT_HELP:
            cli_help(CLI_INIT, stdout);
            return 1;
        default:
            return args_bad_option("init", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    return args_positional(argc, argv, optind, &o->conn, "init", e);
}

/* Options that do not fit the workload's dataset are usage errors, as in pgbench. */
static int check_options(const struct init_opts *o, const struct workload *wl, struct err *e)
{
    struct workload_init_given g = {o->got_scale,       o->got_partitions, o->got_method,
                                    o->got_tables,      o->got_size,       o->got_warehouses,
                                    o->got_pgbench_init};
    if (wl->check_init && wl->check_init(wl, &g, e) < 0)
        return -1;
    if (o->init_file && o->got_pgbench_init)
        return err_set(e, ERR_INPUT,
                       "init: -f runs an init script: pgbench's -I, -F, -n, --foreign-keys, "
                       "--unlogged-tables and tablespaces do not apply");
    if (o->got_method && o->load.partitions < 1)
        return err_set(e, ERR_INPUT, "init: --partition-method requires --partitions above 0");
    return 0;
}

/* Parse and check the options; 1 when --help was printed, -1 with e set. */
static int parse_and_check(int argc, char **argv, struct init_opts *o, const struct workload **wl,
                           struct err *e)
{
    *o = (struct init_opts){.workload = "tpcb-like"};
    o->load = (struct load_options){.scale = 1,
                                    .tables = 1,
                                    .table_size = WORKLOAD_SYSBENCH_TABLE_SIZE,
                                    .warehouses = 1,
                                    .jobs = load_default_jobs()};
    int rc = parse_options(argc, argv, o, e);
    if (rc != 0)
        return rc;
    *wl = workload_find(o->workload);
    if (!*wl)
        return err_set(e, ERR_INPUT, "init: unknown workload '%s'", o->workload);
    final_steps(o);
    return check_options(o, *wl, e);
}

int cli_init_parse(int argc, char **argv, struct err *e)
{
    struct init_opts o;
    const struct workload *wl;
    int rc = parse_and_check(argc, argv, &o, &wl, e);
    pg_connopts_free(&o.conn);
    free(o.steps);
    return rc < 0 ? -1 : 0;
}

int cli_init(int argc, char **argv, struct err *e)
{
    struct init_opts o;
    const struct workload *wl;
    int rc = parse_and_check(argc, argv, &o, &wl, e);
    if (rc != 0) {
        rc = rc > 0 ? 0 : -1; /* 1: --help was printed */
        goto out;
    }
    rc = -1;
    session_signals_install();
    struct local_server srv = {0};
    if (o.local && session_local_start(&srv, &o.conn, e) < 0)
        goto out;
    if (o.init_file)
        rc = bench_init_script(&o.conn, o.init_file, o.load.scale, o.load.seed, e);
    else
        rc = init_load(&o.conn, wl, &o.load, o.quiet, e);
    if (rc < 0 && session_interrupted && !o.init_file)
        wl->interrupted(&o.load, e);
    if (o.local)
        session_local_stop(&srv);
out:
    pg_connopts_free(&o.conn);
    free(o.steps);
    return rc;
}
