/* One cell of a sweep: its server settings and scale, then its plan, run by bench_run. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "bench/bench.h"
#include "result/journal.h"
#include "server/server.h"
#include "sweep/sweep.h"
#include "os/os.h"
#include "sweep/sweep_int.h"

const char *sweep_setup_conn(const struct sweep_exec *x, size_t i)
{
    if (x->local_conn)
        return x->local_conn;
    return x->o->setup_conn[i] ? x->o->setup_conn[i] : x->o->conn;
}

/* Letters, digits, '.', '_' and '-' of s, others as '_', appended to out. */
static void put_safe(struct buf *out, const char *s)
{
    for (; *s; s++) {
        char ch = *s;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '.' || ch == '_' || ch == '-';
        buf_putc(out, ok ? ch : '_');
    }
}

char *sweep_cell_file(const struct sweep_doc *d, const struct sweep_cell *c)
{
    struct buf b;
    buf_init(&b);
    put_safe(&b, d->setups[c->setup].label);
    if (c->speed != 0) { /* at a speed, the clients are the input's sessions: no -c */
        char sp[32];
        buf_printf(&b, "-speed%s", sweep_speed_text(sp, sizeof sp, c->speed));
    } else {
        buf_printf(&b, "-c%lld", (long long)c->clients);
    }
    if (c->rate > 0)
        buf_printf(&b, "-R%g", c->rate);
    if (c->scale)
        buf_printf(&b, "-s%lld", (long long)c->scale);
    for (size_t i = 0; i < c->n_settings; i++) {
        buf_putc(&b, '-');
        put_safe(&b, c->settings[i].name);
        buf_putc(&b, '=');
        put_safe(&b, c->settings[i].value);
    }
    buf_printf(&b, "-t%d.json", c->trial);
    char *s = xstrdup(b.data);
    buf_free(&b);
    return s;
}

void sweep_setup_connopts(const struct sweep_exec *x, size_t setup, struct pg_connopts *conn)
{
    memset(conn, 0, sizeof *conn);
    const struct pg_connopts *given = &x->o->run.conn;
    conn->host = given->host ? xstrdup(given->host) : NULL;
    conn->port = given->port ? xstrdup(given->port) : NULL;
    conn->user = given->user ? xstrdup(given->user) : NULL;
    const char *c = sweep_setup_conn(x, setup);
    conn->dbname = c ? xstrdup(c) : NULL;
}

/* Bring setup s's server to the cell's settings: ALTER SYSTEM, then a reload, or a restart of
 * the scratch server. */
static int apply_settings(struct sweep_exec *x, const struct sweep_cell *c, struct err *e)
{
    size_t n = x->o->plan.n_sets;
    char **applied = x->applied + c->setup * (n ? n : 1);
    int changed = 0, rc = 0;
    struct pg_connopts conn;
    sweep_setup_connopts(x, c->setup, &conn);
    for (size_t k = 0; k < c->n_settings && rc == 0; k++) {
        if (applied[k] && strcmp(applied[k], c->settings[k].value) == 0)
            continue;
        rc = srv_alter_system(&conn, c->settings[k].name, c->settings[k].value, !x->local_conn, e);
        free(applied[k]);
        applied[k] = rc == 0 ? xstrdup(c->settings[k].value) : NULL;
        changed = 1;
        x->applied_any |= rc == 0 && !x->local_conn;
    }
    if (rc == 0 && changed && x->local_conn)
        rc = local_restart(&x->srv, e);
    pg_connopts_free(&conn);
    return rc;
}

/* --init (or --local): load the cell's scale on its setup when another one is loaded. */
static int load_scale(struct sweep_exec *x, const struct sweep_cell *c, struct err *e)
{
    const struct sweep_opts *o = x->o;
    int64_t scale = c->scale ? c->scale : (o->run.scale ? o->run.scale : 1);
    if (!(o->init || o->local) || x->loaded[c->setup] == scale || c->speed != 0)
        return 0;
    int needs_dataset;
    if (bench_plan_check_scripts(&o->run, 0, &needs_dataset, e) < 0)
        return -1;
    if (!needs_dataset) {
        x->loaded[c->setup] = scale; /* custom scripts bring their own tables */
        return 0;
    }
    struct load_options lo;
    struct workload_opts load_opts;
    bench_plan_load_options(&o->run, scale, &lo, &load_opts);
    lo.stop_requested = x->stop;
    struct pg_connopts conn;
    sweep_setup_connopts(x, c->setup, &conn);
    int rc = o->run.workload->load(&conn, &lo, e); /* quietly */
    pg_connopts_free(&conn);
    if (rc == 0)
        x->loaded[c->setup] = scale;
    return rc;
}

void sweep_cell_progress(struct sweep_exec *x, const struct sweep_cell *c, const char *label)
{
    if (x->o->quiet)
        return;
    double elapsed = (double)(clock_now_ns() - x->start_ns) / NS_PER_S;
    char remaining[32] = "?";
    if (x->n_done > 0) {
        double left = elapsed / (double)x->n_done * (double)(x->n_todo - x->n_done);
        snprintf(remaining, sizeof remaining, "%d:%02d", (int)left / 60, (int)left % 60);
    }
    char rate[32] = "", what[64], sp[32];
    if (c->rate > 0)
        snprintf(rate, sizeof rate, ", -R %g", c->rate);
    if (c->speed != 0)
        snprintf(what, sizeof what, "speed %s", sweep_speed_text(sp, sizeof sp, c->speed));
    else
        snprintf(what, sizeof what, "%lld client%s", (long long)c->clients,
                 c->clients == 1 ? "" : "s");
    sweep_say(x, SWEEP_SAY_PROGRESS,
              "sweep: cell %zu of %zu (%s, %s%s, trial %d), elapsed %d:%02d, remaining %s",
              x->n_done + 1, x->n_todo, label, what, rate, c->trial, (int)elapsed / 60,
              (int)elapsed % 60, remaining);
}

void sweep_say(const struct sweep_exec *x, enum sweep_say kind, const char *fmt, ...)
{
    if (!x->say)
        return;
    char text[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    x->say(x, kind, text);
}

void sweep_cell_warning(const char *line, void *arg)
{
    const struct sweep_exec *x = arg;
    sweep_say(x, SWEEP_SAY_LINE, "%s", line);
}

void sweep_cell_plan(const struct sweep_exec *x, const struct sweep_cell *c, const char *path,
                     struct bench_plan *p)
{
    const struct sweep_opts *o = x->o;
    *p = o->run;
    sweep_setup_connopts(x, c->setup, &p->conn);
    long cpus = os_cpus();
    int64_t jobs = o->jobs ? o->jobs : (cpus > 0 ? cpus : 1);
    if (c->speed != 0) {
        /* At a speed: the clients come from the input's sessions (the engine clamps the
         * threads to them). */
        const struct workload_sweep_axis *a = o->run.workload->sweep_axis;
        assert(a); /* a cell has a speed only when its workload declares the axis */
        char arg[32];
        struct err ignored = {0}; /* the values were checked as a list */
        bench_plan_set_option(p, a->name, sweep_axis_arg(a, c->speed, arg, sizeof arg), &ignored);
        p->threads = jobs;
    } else {
        p->clients = c->clients;
        p->threads = jobs < c->clients ? jobs : c->clients;
    }
    if (c->rate > 0)
        p->rate = c->rate;
    if (c->scale)
        p->scale = c->scale;
    p->output = path;
    p->label = x->doc.setups[c->setup].label;
    p->command = x->command;
    p->progress_s = 0;
    /* -c 0 (-w ch's power test): the analytic streams are the clients the threads drive. */
    int64_t streams = o->run.stream_clients;
    if (c->clients == 0 && streams > 0)
        p->threads = jobs < streams ? jobs : streams;
}

void sweep_cell_status(struct sweep_exec *x, struct sweep_cell *c, enum sweep_status s)
{
    c->status = s;
    struct err e = {0};
    if (sweep_doc_write(&x->doc, x->json_path, &e) < 0 && !x->manifest_failed++)
        sweep_say(x, SWEEP_SAY_LINE, "\npgarena: %s\n", e.msg);
}

/* A cell whose run was killed (SIGKILL, a crash) left its journal: the cell is incomplete and
 * runs again, so the journal goes (run refuses to start over one). */
static int discard_stale_journal(const struct sweep_exec *x, const char *path, struct err *e)
{
    int rc = journal_discard_stale(path, e);
    if (rc > 0 && !x->o->quiet)
        sweep_say(x, SWEEP_SAY_CLEAR,
                  "sweep: %s.journal was left by a run that did not end: removed, the cell runs "
                  "again\n",
                  path);
    return rc < 0 ? -1 : 0;
}

int sweep_cell_prepare(struct sweep_exec *x, const struct sweep_cell *c, const char *path,
                       struct err *e)
{
    int rc = apply_settings(x, c, e);
    if (rc == 0)
        rc = load_scale(x, c, e);
    if (rc == 0)
        rc = discard_stale_journal(x, path, e);
    return rc;
}

int sweep_cell_finish(struct sweep_exec *x, struct sweep_cell *c, int rc, const char *msg)
{
    if (*x->stop) {
        sweep_cell_status(x, c, SWEEP_INCOMPLETE);
        return -1;
    }
    if (rc != 0) {
        /* The server is gone or refused: this cell fails, the sweep goes on. */
        char what[64], sp[32];
        if (c->speed != 0)
            snprintf(what, sizeof what, "speed %s", sweep_speed_text(sp, sizeof sp, c->speed));
        else
            snprintf(what, sizeof what, "%lld client(s)", (long long)c->clients);
        sweep_say(x, SWEEP_SAY_BREAK, "pgarena: sweep: %s, %s, trial %d failed: %s\n",
                  x->doc.setups[c->setup].label, what, c->trial,
                  rc < 0 ? msg : "the run was cut short");
        x->n_failed++;
        sweep_cell_status(x, c, SWEEP_FAILED);
        return 0;
    }
    sweep_cell_status(x, c, SWEEP_COMPLETE);
    return 0;
}

int sweep_run_cell(struct sweep_exec *x, size_t k)
{
    struct sweep_cell *c = &x->doc.cells[k];
    if (*x->stop)
        return -1;
    sweep_cell_progress(x, c, x->doc.setups[c->setup].label);
    struct err e = {0};
    char *path = xasprintf("%s/%s", x->o->dir, c->file);
    int rc = sweep_cell_prepare(x, c, path, &e);
    if (rc == 0 && !*x->stop) {
        struct bench_plan plan;
        sweep_cell_plan(x, c, path, &plan);
        struct result r;
        struct bench_hooks hooks = {.warning = sweep_cell_warning, .arg = x, .live = x->live};
        rc = bench_run(&plan, &hooks, &r, &e);
        result_free(&r);
        pg_connopts_free(&plan.conn);
    }
    free(path);
    x->n_done++;
    return sweep_cell_finish(x, c, rc, e.msg);
}
