/* pgarena run: options into a plan, bench_run, and what the run shows on the terminal. */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/mem.h"
#include "bench/bench.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/init_int.h"
#include "cli/opts.h"
#include "cli/run_opts.h"
#include "cli/session.h"
#include "cli/store_cmd.h"
#include "os/os.h"
#include "report/html.h"
#include "report/text.h"
#include "result/journal.h"

/* Whether the directory of path lets us create files in it. */
static int dir_writable(const char *path)
{
    char *copy = xstrdup(path);
    int ok = os_access(dirname(copy), W_OK | X_OK) == 0;
    free(copy);
    return ok;
}

/* A result or report path that cannot work is refused before anything runs. */
int cli_run_check_output(struct cli_run_opts *o, char *fallback, size_t size, struct err *e)
{
    if (!o->plan.output) {
        time_t t = time(NULL);
        struct tm tm;
        localtime_r(&t, &tm);
        char stamp[32];
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(fallback, size, "pgarena-%s-%s.json",
                 o->plan.n_specs ? "custom" : o->plan.workload->name, stamp);
        o->plan.output = fallback;
    }
    struct stat st;
    if (os_stat(o->plan.output, &st) == 0 && !S_ISREG(st.st_mode))
        return err_set(e, ERR_INPUT, "run: cannot write the result file %s: not a regular file",
                       o->plan.output);
    if (!dir_writable(o->plan.output))
        return err_set(e, ERR_INPUT, "run: cannot write the result file %s: directory %s",
                       o->plan.output, "is missing or not writable");
    if (journal_exists(o->plan.output))
        return err_set(e, ERR_INPUT,
                       "run: %s.journal is left from a run that did not end: run `pgarena "
                       "recover %s`, or remove it",
                       o->plan.output, o->plan.output);
    if (o->report && !dir_writable(o->report))
        return err_set(e, ERR_INPUT, "run: cannot write the report %s: directory %s", o->report,
                       "is missing or not writable");
    return 0;
}

/* How the progress line is shown: in place on a terminal; --progress-timestamp gives the
 * time as a Unix timestamp (as pgbench) instead of the seconds since the start. */
struct progress_style {
    int tty, timestamp;
};

/* What the hooks print from: the options, and how progress is shown. */
struct run_view {
    const struct cli_run_opts *o;
    struct progress_style style;
    int store_failed; /* --store: the store's error, reported once the run is done */
    struct err store_err;
    struct cli_store_live live; /* --store: the run's intervals as they close */
};

/* --store: the file just written, into the store (an agent's own share is not stored: agent
 * 0 stores the merged result). */
static void store_written(struct run_view *v, const char *path)
{
    if (!v->o->store || v->store_failed)
        return;
    if (cli_store_files(v->o->store, &path, 1, v->o->quiet, &v->store_err) < 0)
        v->store_failed = 1;
}

static void print_progress(const struct engine_progress *p, void *arg)
{
    const struct progress_style *st = &((const struct run_view *)arg)->style;
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

static void print_measured(const struct result *r, const char *first_error, void *arg)
{
    const struct run_view *v = arg;
    const struct cli_run_opts *o = v->o;
    if (!o->quiet && o->plan.progress_s > 0 && v->style.tty)
        fputs("\n", stderr); /* after the progress line shown in place */
    report_text_summary(stdout, r);
    if (o->plan.per_statement)
        report_text_statements(stdout, r);
    if (first_error[0])
        fprintf(stderr, "pgarena: first failure: %s\n", first_error);
}

static void print_written(const char *path, void *arg)
{
    struct run_view *v = arg;
    printf("result:              %s\n", path);
    if (v->o->plan.agents.count == 0)
        store_written(v, path);
}

static void print_warning(const char *line, void *arg)
{
    (void)arg;
    fputs(line, stderr);
}

static void print_merged(const struct result *r, const char *path, void *arg)
{
    printf("merged result of %zu agents:\n", r->n_agents);
    report_text_summary(stdout, r);
    printf("merged:              %s\n", path);
    store_written(arg, path);
}

/* --report: from the file just written, which holds the intervals the run did not keep. */
static int report_after_run(const struct cli_run_opts *o, struct err *e)
{
    struct result back;
    if (result_read(o->plan.output, &back, e) < 0)
        return -1;
    const char *path = o->plan.output;
    int rc = report_html_write(&back, &path, 1, NULL, o->report, e);
    result_free(&back);
    if (rc == 0)
        printf("report:              %s\n", o->report);
    return rc;
}

/* The checks cli_run makes before anything starts, but -f files are not read (a fuzzed file
 * name could be /dev/zero): their scripts are checked when a run starts. */
int cli_run_parse(int argc, char **argv, struct err *e)
{
    struct cli_run_opts o;
    cli_run_opts_init(&o);
    char fallback[256];
    int rc = cli_run_parse_argv(argc, argv, &o, e);
    if (rc == 0)
        rc = cli_run_check_output(&o, fallback, sizeof fallback, e);
    if (rc == 0)
        rc = bench_plan_check_scripts(&o.plan, 0, NULL, e);
    if (rc == 0)
        free(args_masked_command(argc, argv));
    pg_connopts_free(&o.plan.conn);
    return rc < 0 ? -1 : 0;
}

/* run --local: a scratch server with the workload's dataset loaded. */
static int start_local(struct cli_run_opts *o, struct local_server *srv, int needs_dataset,
                       struct err *e)
{
    struct bench_plan *p = &o->plan;
    if (session_local_start_run(srv, &p->conn, !o->no_statements, e) < 0)
        return -1;
    struct load_options lo;
    struct workload_opts load_opts;
    bench_plan_load_options(p, 0, &lo, &load_opts);
    return needs_dataset ? init_load(&p->conn, p->workload, &lo, o->quiet, e) : 0;
}

int cli_run(int argc, char **argv, struct err *e)
{
    struct cli_run_opts o;
    cli_run_opts_init(&o);
    struct bench_plan *p = &o.plan;
    char fallback[256];
    int needs_dataset = 0;
    int rc = cli_run_parse_argv(argc, argv, &o, e);
    if (rc != 0) {
        rc = rc > 0 ? 0 : -1; /* 1: --help was printed */
        goto out;
    }
    rc = -1;
    if (!p->seed_given) { /* drawn here so that --local loads with the run's seed */
        p->seed = (int64_t)(clock_now_ns() & 0x7fffffff);
        p->seed_given = 1;
    }
    if (cli_run_check_output(&o, fallback, sizeof fallback, e) < 0 ||
        bench_plan_check_scripts(p, 1, &needs_dataset, e) < 0)
        goto out;
    rc = cli_run_plan(&o, argc, argv, needs_dataset, e);
out:
    pg_connopts_free(&p->conn);
    return rc;
}

int cli_run_plan(struct cli_run_opts *o, int argc, char **argv, int needs_dataset, struct err *e)
{
    struct bench_plan *p = &o->plan;
    struct local_server srv = {0};
    int rc = -1;
    char *command = NULL;
    p->command = command = args_masked_command(argc, argv);
    /* Listening before anything starts: a port in use refuses the run. */
    if (p->metrics_listen && !(p->metrics = metrics_open(p->metrics_listen, e))) {
        free(command);
        return -1;
    }
    session_signals_install();
    if (o->local && start_local(o, &srv, needs_dataset, e) < 0)
        goto out_local;
    int tty = isatty(2);
    if (p->progress_s == 0 && tty && !o->quiet)
        p->progress_s = 1;
    struct run_view view = {
        o, {tty, p->progress_timestamp}, 0, {0}, {o->store, print_warning, NULL}};
    struct bench_hooks hooks = {.progress = o->quiet ? NULL : print_progress,
                                .measured = print_measured,
                                .written = print_written,
                                .merged = print_merged,
                                .warning = print_warning,
                                .arg = &view};
    if (o->store)
        hooks.live = cli_store_live(&view.live);
    struct result r;
    rc = bench_run(p, &hooks, &r, e);
    if (rc >= 0 && view.store_failed) {
        *e = view.store_err;
        rc = -1;
    }
    if (rc >= 0 && o->report && report_after_run(o, e) < 0)
        rc = -1;
    if (rc >= 0 && r.started_at && !r.complete)
        fprintf(stderr, "pgarena: run cut short (%s); the result file holds what was measured\n",
                r.end_reason);
    result_free(&r);
out_local:
    if (o->local)
        session_local_stop(&srv);
    metrics_close(p->metrics); /* until a scrape has seen the end */
    p->metrics = NULL;
    free(command);
    return rc;
}
