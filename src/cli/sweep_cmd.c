/* pgarena sweep: plan the cells, prepare DIR (or resume what it holds), run, print. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/session.h"
#include "cli/sweep_int.h"

/* The command that identifies a sweep: its arguments without those that only change what is
 * printed (--force, -q, --json), password masked. */
static char *identity(int argc, char **argv)
{
    char **kept = xcalloc((size_t)argc + 1, sizeof *kept);
    int n = 0;
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--force") != 0 && strcmp(argv[i], "-q") != 0 &&
            strcmp(argv[i], "--quiet") != 0 && strcmp(argv[i], "--json") != 0)
            kept[n++] = argv[i];
    char *s = args_masked_command(n, kept);
    free(kept);
    return s;
}

/* DIR: created if missing; a sweep.json of the same command is resumed, of another one refused
 * unless --force; anything else in it is refused. Sets *old when there is one to resume. */
static int prepare_dir(struct sweep_exec *x, struct sweep_doc *old, int *have_old, int *created,
                       struct err *e)
{
    const char *dir = x->o->dir;
    struct stat st;
    *have_old = 0;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) == 0)
            *created = 1;
        else
            return err_set(e, ERR_INPUT, "sweep: cannot create the directory %s: %s", dir,
                           strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        return err_set(e, ERR_INPUT, "sweep: %s is not a directory", dir);
    }
    if (access(dir, W_OK | X_OK) != 0)
        return err_set(e, ERR_INPUT, "sweep: cannot write in %s: %s", dir, strerror(errno));
    if (access(x->json_path, F_OK) == 0) {
        if (sweep_doc_read(x->json_path, old, e) < 0) {
            if (!x->o->force)
                return err_set(e, ERR_INPUT,
                               "sweep: %s holds no sweep of pgarena's (%s); "
                               "--force replaces it",
                               dir, e->msg);
            return 0;
        }
        if (strcmp(old->command, x->doc.command) != 0 && !x->o->force) {
            sweep_doc_free(old);
            return err_set(e, ERR_INPUT, "sweep: %s holds another sweep (%s); --force replaces it",
                           dir, "its command differs");
        }
        *have_old = strcmp(old->command, x->doc.command) == 0;
        if (!*have_old)
            sweep_doc_free(old);
    }
    return 0;
}

static void copy_axes(struct sweep_doc *to, const struct sweep_doc *from)
{
    /* The plan moves into the sweep's document; the options keep nothing they free twice. */
    *to = *from;
}

/* The cells of a matrix, in run order: for each trial, for each point, every setup. Points
 * vary clients fastest, then the rate, the scale and the settings (costliest to change). */
static void plan_cells(struct sweep_doc *d)
{
    size_t n_rates = d->n_rates ? d->n_rates : 1, n_scales = d->n_scales ? d->n_scales : 1;
    size_t n_combos = 1;
    for (size_t k = 0; k < d->n_sets; k++)
        n_combos *= d->sets[k].n;
    struct sweep_setting *set = xcalloc(d->n_sets + 1, sizeof *set);
    for (int t = 1; t <= d->trials; t++)
        for (size_t combo = 0; combo < n_combos; combo++) {
            size_t rest = combo;
            for (size_t k = d->n_sets; k-- > 0;) {
                set[k].name = d->sets[k].name;
                set[k].value = d->sets[k].values[rest % d->sets[k].n];
                rest /= d->sets[k].n;
            }
            for (size_t s = 0; s < n_scales; s++)
                for (size_t r = 0; r < n_rates; r++)
                    for (size_t c = 0; c < d->n_clients; c++)
                        for (size_t u = 0; u < d->n_setups; u++) {
                            struct sweep_cell cell = {
                                .setup = u,
                                .clients = d->clients[c],
                                .rate = d->n_rates ? d->rates[r] : 0,
                                .scale = d->n_scales ? d->scales[s] : 0,
                                .n_settings = d->n_sets,
                                .settings = set,
                                .trial = t,
                                .slo_met = -1,
                            };
                            size_t i = sweep_doc_add_cell(d, &cell);
                            free(d->cells[i].file);
                            d->cells[i].file = sweep_cell_file(d, &d->cells[i]);
                        }
        }
    free(set);
}

/* Keep the status of the cells a previous invocation finished. */
static void resume_from(struct sweep_doc *d, const struct sweep_doc *old)
{
    for (size_t i = 0; i < d->n_cells; i++)
        for (size_t k = 0; k < old->n_cells; k++)
            if (strcmp(d->cells[i].file, old->cells[k].file) == 0) {
                d->cells[i].status = old->cells[k].status;
                d->cells[i].slo_met = old->cells[k].slo_met;
            }
}

/* --set on each setup: known, and changeable there (a given server: reload only). */
static int check_settings(struct sweep_exec *x, struct err *e)
{
    for (size_t u = 0; u < x->doc.n_setups; u++)
        for (size_t k = 0; k < x->doc.n_sets; k++) {
            struct pg_connopts conn = {0};
            const char *c = sweep_setup_conn(x, u);
            conn.dbname = c ? xstrdup(c) : NULL;
            const struct pg_connopts *g = &x->o->run.conn;
            conn.host = g->host ? xstrdup(g->host) : NULL;
            conn.port = g->port ? xstrdup(g->port) : NULL;
            conn.user = g->user ? xstrdup(g->user) : NULL;
            char ctx[64] = "";
            const char *name = x->doc.sets[k].name, *label = x->doc.setups[u].label;
            int rc = srv_setting_context(&conn, name, ctx, sizeof ctx, e);
            pg_connopts_free(&conn);
            if (rc < 0)
                return -1;
            if (rc > 0)
                return err_set(e, ERR_INPUT, "sweep: --set %s: no such setting on %s", name, label);
            if (strcmp(ctx, "internal") == 0)
                return err_set(e, ERR_INPUT, "sweep: --set %s: a read-only setting", name);
            if (strcmp(ctx, "postmaster") == 0 && !x->local_conn)
                return err_set(e, ERR_INPUT,
                               "sweep: --set %s needs a server restart; on %s it is refused (use "
                               "--local, or set it on the server between sweeps)",
                               name, label);
        }
    return 0;
}

/* Leave a given server's settings as ALTER SYSTEM found them: RESET what the sweep set. */
static void reset_settings(struct sweep_exec *x)
{
    if (!x->applied_any)
        return;
    for (size_t u = 0; u < x->doc.n_setups; u++)
        for (size_t k = 0; k < x->doc.n_sets; k++) {
            if (!x->applied[u * x->doc.n_sets + k])
                continue;
            struct pg_connopts conn = {0};
            const char *c = sweep_setup_conn(x, u);
            conn.dbname = c ? xstrdup(c) : NULL;
            struct err e = {0};
            if (srv_alter_system(&conn, x->doc.sets[k].name, NULL, 1, &e) < 0)
                fprintf(stderr, "pgarena: sweep: resetting %s on %s: %s\n", x->doc.sets[k].name,
                        x->doc.setups[u].label, e.msg);
            pg_connopts_free(&conn);
        }
}

static int run_cells(struct sweep_exec *x)
{
    for (size_t i = 0; i < x->doc.n_cells; i++)
        x->n_todo += x->doc.cells[i].status != SWEEP_COMPLETE;
    for (size_t i = 0; i < x->doc.n_cells; i++)
        if (x->doc.cells[i].status != SWEEP_COMPLETE && sweep_run_cell(x, i) < 0)
            return -1;
    return 0;
}

static int execute(struct sweep_exec *x, struct err *e)
{
    struct sweep_opts *o = x->o;
    if (o->local) {
        struct pg_connopts conn = {0};
        if (session_local_start(&x->srv, &conn, e) < 0)
            return -1;
        x->local_conn = conn.dbname;
    }
    int rc = check_settings(x, e);
    size_t n_applied = x->doc.n_setups * (x->doc.n_sets ? x->doc.n_sets : 1);
    x->applied = xcalloc(n_applied, sizeof *x->applied);
    x->loaded = xcalloc(x->doc.n_setups, sizeof *x->loaded);
    x->start_ns = clock_now_ns();
    int stopped = 0;
    if (rc == 0 && o->max_rate) {
        rc = sweep_capacity(x, e);
    } else if (rc == 0) {
        if ((rc = sweep_doc_write(&x->doc, x->json_path, e)) == 0)
            stopped = run_cells(x) < 0;
    }
    if (!o->quiet && x->n_done && isatty(2))
        fputs("\n", stderr);
    reset_settings(x);
    if (o->local)
        session_local_stop(&x->srv);
    for (size_t i = 0; i < n_applied; i++)
        free(x->applied[i]);
    free(x->applied);
    free(x->loaded);
    free(x->local_conn);
    if (rc < 0)
        return -1;
    return stopped ? 2 : 0;
}

int cli_sweep_parse(int argc, char **argv, struct err *e)
{
    struct sweep_opts o;
    memset(&o, 0, sizeof o);
    int rc = sweep_parse(argc, argv, &o, e);
    sweep_opts_free(&o);
    return rc < 0 ? -1 : 0;
}

int cli_sweep(int argc, char **argv, struct err *e)
{
    struct sweep_opts o;
    memset(&o, 0, sizeof o);
    int rc = sweep_parse(argc, argv, &o, e);
    if (rc != 0) {
        sweep_opts_free(&o);
        return rc > 0 ? 0 : -1;
    }
    struct sweep_exec x = {.o = &o};
    copy_axes(&x.doc, &o.plan);
    memset(&o.plan, 0, sizeof o.plan);
    x.doc.command = identity(argc, argv);
    x.json_path = xasprintf("%s/sweep.json", o.dir);
    struct sweep_doc old;
    int have_old = 0, created = 0;
    rc = prepare_dir(&x, &old, &have_old, &created, e);
    if (rc == 0) {
        if (!o.max_rate)
            plan_cells(&x.doc);
        if (have_old && !o.max_rate)
            resume_from(&x.doc, &old);
        else if (have_old) /* a capacity search replays its steps from the old cells */
            for (size_t i = 0; i < old.n_cells; i++)
                sweep_doc_add_cell(&x.doc, &old.cells[i]);
        if (have_old)
            sweep_doc_free(&old);
        session_signals_install();
        rc = execute(&x, e);
        /* Refused before any cell ran (a --set that cannot be): leave no directory behind. */
        if (rc < 0 && created && x.n_done == 0) {
            unlink(x.json_path);
            rmdir(o.dir);
        }
    }
    if (rc >= 0) {
        struct err pe = {0};
        if (sweep_print(&x.doc, o.dir, o.json, &pe) < 0)
            fprintf(stderr, "pgarena: %s\n", pe.msg);
        if (rc == 2)
            fprintf(stderr, "pgarena: sweep interrupted; the same command resumes it\n");
        else if (x.n_failed)
            fprintf(stderr,
                    "pgarena: sweep: %d cell%s failed (see above); the same command "
                    "reruns them\n",
                    x.n_failed, x.n_failed > 1 ? "s" : "");
        rc = rc == 2 || x.n_failed ? 1 : 0;
    }
    sweep_doc_free(&x.doc);
    free(x.json_path);
    sweep_opts_free(&o);
    return rc;
}
