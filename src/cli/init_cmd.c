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

#define INIT_MAX_OPTIONS 64

/* What init was asked, before it is checked against the workload. */
struct init_opts {
    struct pg_connopts conn;
    const char *workload;
    const char *init_file; /* -f */
    int scale;             /* -s for -f's :scale (the workload's own too, as given) */
    struct load_options load;
    int local, quiet;
    int n_given; /* the workload's options, as given (workload/workload.h) */
    struct workload_option given[INIT_MAX_OPTIONS];
    struct workload_opts wopts; /* the workload's, parsed: load.opts */
};

/* A workload's init option (by its long name in init's table): 1 taken, 0 none's, -1. */
static int workload_option(int opt, const char *arg, struct init_opts *o, struct err *e)
{
    for (const struct option *l = cli_getopt_table(CLI_INIT, NULL); l->name; l++) {
        if (l->val != opt)
            continue;
        int rc = workload_init_option_check(l->name, arg, e);
        if (rc <= 0)
            return rc;
        if (o->n_given == INIT_MAX_OPTIONS)
            return err_set(e, ERR_INPUT, "init: too many options");
        o->given[o->n_given++] = (struct workload_option){l->name, arg};
        return 1;
    }
    return 0;
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
        if (opt == 's' && workload_parse_scale(optarg, &o->scale, e) < 0)
            return -1;
        int rc = opt == '?' || opt == ':' ? 0 : workload_option(opt, optarg, o, e);
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

/* Parse and check the options; 1 when --help was printed, -1 with e set. */
static int parse_and_check(int argc, char **argv, struct init_opts *o, const struct workload **wl,
                           struct err *e)
{
    *o = (struct init_opts){.workload = "tpcb-like", .scale = 1};
    o->load = (struct load_options){.opts = o->wopts.bytes, .jobs = load_default_jobs()};
    int rc = parse_options(argc, argv, o, e);
    if (rc != 0)
        return rc;
    *wl = workload_find(o->workload);
    if (!*wl)
        return err_set(e, ERR_INPUT, "init: unknown workload '%s'", o->workload);
    struct workload_init_given g = {o->given, o->n_given, o->init_file != NULL};
    return workload_init_options_parse(*wl, &g, &o->wopts, e);
}

int cli_init_parse(int argc, char **argv, struct err *e)
{
    struct init_opts o;
    const struct workload *wl;
    int rc = parse_and_check(argc, argv, &o, &wl, e);
    pg_connopts_free(&o.conn);
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
        rc = bench_init_script(&o.conn, o.init_file, o.scale, o.load.seed, e);
    else
        rc = init_load(&o.conn, wl, &o.load, o.quiet, e);
    if (rc < 0 && session_interrupted && !o.init_file)
        wl->interrupted(&o.load, e);
    if (o.local)
        session_local_stop(&srv);
out:
    pg_connopts_free(&o.conn);
    return rc;
}
