#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/init_int.h"
#include "cli/session.h"
#include "workload/builtin.h"
#include "workload/load.h"

static const char usage[] =
    "Usage: pgarena init [CONN] [-w WORKLOAD | -f INIT.sql] [-s SCALE] [-j JOBS] [--seed N] [--local] [-q]\n"
    "\n"
    "Create and load a workload's tables (pgbench's tables for tpcb-like, simple-update and\n"
    "select-only), then build primary keys and VACUUM ANALYZE.\n"
    "\n"
    "  -w, --workload NAME   tpcb-like (default), simple-update, select-only\n"
    "  -f, --file FILE       run an init script (pgbench's language) instead of a workload's\n"
    "                        loader; :scale is -s\n"
    "  -s, --scale N         pgbench scale: N branches, 10*N tellers, 100000*N accounts\n"
    "  -j, --jobs N          connections to load with (default 1)\n"
    "      --seed N          seed for generated data\n"
    "      --local           load into a scratch server (started and removed afterwards)\n"
    "  -q, --quiet           no progress line\n"
    "CONN: -h HOST -p PORT -U USER and a database name, key=value conninfo or postgresql:// URI\n";

struct progress_state {
    time_ns start, last;
    int tty;
};

static void print_progress(const struct load_progress *p, void *arg)
{
    struct progress_state *ps = arg;
    time_ns now = clock_now_ns();
    int done = p->rows_done >= p->rows_total && strcmp(p->phase, "load") == 0;
    /* Off a terminal, one line per second is plenty for a log. */
    if (!ps->tty && !done && now - ps->last < NS_PER_S)
        return;
    ps->last = now;
    double elapsed = (double)(now - ps->start) / NS_PER_S;
    double frac = p->rows_total > 0 ? (double)p->rows_done / (double)p->rows_total : 1.0;
    double remaining = frac > 0 ? elapsed / frac - elapsed : 0;
    if (strcmp(p->phase, "load") != 0) {
        fprintf(stderr, "%s%s (elapsed %.1f s)%s", ps->tty ? "\r\033[K" : "",
                strcmp(p->phase, "keys") == 0 ? "creating primary keys" : "vacuum analyze", elapsed,
                ps->tty ? "" : "\n");
        return;
    }
    fprintf(stderr,
            "%s%lld of %lld rows (%.0f %%), %.0f rows/s, elapsed %.1f s, remaining %.1f s%s",
            ps->tty ? "\r\033[K" : "", (long long)p->rows_done, (long long)p->rows_total,
            100.0 * frac, elapsed > 0 ? (double)p->rows_done / elapsed : 0.0, elapsed, remaining,
            ps->tty ? "" : "\n");
}

int init_load(const struct pg_connopts *conn, const struct builtin_workload *wl, int64_t scale,
              int64_t jobs, uint64_t seed, int quiet, struct err *e)
{
    struct progress_state ps = {clock_now_ns(), 0, isatty(2)};
    struct load_options opt = {
        .scale = (int)scale,
        .jobs = (int)jobs,
        .seed = seed,
        .progress = quiet ? NULL : print_progress,
        .progress_arg = &ps,
        .stop_requested = &session_interrupted,
    };
    (void)wl; /* every built-in so far uses pgbench's dataset */
    int rc = load_pgbench(conn, &opt, e);
    if (!quiet && ps.tty)
        fputs("\n", stderr);
    if (rc == 0 && !quiet)
        fprintf(stderr, "done in %.2f s\n", (double)(clock_now_ns() - ps.start) / NS_PER_S);
    return rc;
}

int cli_init(int argc, char **argv, struct err *e)
{
    static const struct option longopts[] = {{"workload", required_argument, NULL, 'w'},
                                             {"scale", required_argument, NULL, 's'},
                                             {"jobs", required_argument, NULL, 'j'},
                                             {"seed", required_argument, NULL, 1},
                                             {"local", no_argument, NULL, 2},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 3},
                                             {"host", required_argument, NULL, 'h'},
                                             {"port", required_argument, NULL, 'p'},
                                             {"username", required_argument, NULL, 'U'},
                                             {"file", required_argument, NULL, 'f'},
                                             {NULL, 0, NULL, 0}};
    const char *init_file = NULL;
    struct pg_connopts conn = {0};
    const char *workload = "tpcb-like";
    int64_t scale = 1, jobs = 1, seed = 0;
    int local = 0, quiet = 0, opt, rc = -1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":w:s:j:qh:p:U:f:", longopts, NULL)) != -1) {
        if (args_conn_option(opt, optarg, &conn))
            continue;
        switch (opt) {
        case 'w':
            workload = optarg;
            break;
        case 'f':
            init_file = optarg;
            break;
        case 's':
            if (args_int("-s", optarg, 1, 1000000, &scale, e) < 0)
                goto out;
            break;
        case 'j':
            if (args_int("-j", optarg, 1, 1024, &jobs, e) < 0)
                goto out;
            break;
        case 1:
            if (args_int("--seed", optarg, 0, INT64_MAX, &seed, e) < 0)
                goto out;
            break;
        case 2:
            local = 1;
            break;
        case 'q':
            quiet = 1;
            break;
        case 3:
            fputs(usage, stdout);
            rc = 0;
            goto out;
        default:
            args_bad_option("init", argc, argv, optind, optopt, opt == ':', e);
            goto out;
        }
    }
    if (args_positional(argc, argv, optind, &conn, "init", e) < 0)
        goto out;
    const struct builtin_workload *wl = builtin_find(workload);
    if (!wl) {
        err_set(e, ERR_INPUT, "init: unknown workload '%s'", workload);
        goto out;
    }
    session_signals_install();
    struct local_server srv = {0};
    if (local && session_local_start(&srv, &conn, e) < 0)
        goto out;
    if (init_file)
        rc = init_run_script(&conn, init_file, scale, (uint64_t)seed, e);
    else
        rc = init_load(&conn, wl, scale, jobs, (uint64_t)seed, quiet, e);
    if (local)
        session_local_stop(&srv);
out:
    pg_connopts_free(&conn);
    return rc;
}
