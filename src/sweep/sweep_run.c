/* A sweep carried out: its cells planned in run order, resumed from an earlier invocation,
 * the settings checked, applied and reset, and every cell (or the capacity search) run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "server/server.h"
#include "sweep/sweep.h"
#include "sweep/sweep_int.h"

/* The cells of a matrix, in run order: for each trial, for each point, every setup. Points
 * vary clients fastest, then the speed (a speed axis has no clients), the rate, the scale
 * and the settings (costliest to change). */
void sweep_plan_cells(struct sweep_doc *d)
{
    size_t n_rates = d->n_rates ? d->n_rates : 1, n_scales = d->n_scales ? d->n_scales : 1;
    size_t n_clients = d->n_clients ? d->n_clients : 1;
    size_t n_inner = n_clients * (d->n_speeds ? d->n_speeds : 1); /* clients within speeds */
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
                    for (size_t c = 0; c < n_inner; c++)
                        for (size_t u = 0; u < d->n_setups; u++) {
                            struct sweep_cell cell = {
                                .setup = u,
                                .clients = d->n_clients ? d->clients[c % n_clients] : 0,
                                .speed = d->n_speeds ? d->speeds[c / n_clients] : 0,
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
void sweep_resume_from(struct sweep_doc *d, const struct sweep_doc *old)
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
            struct pg_connopts conn;
            sweep_setup_connopts(x, u, &conn);
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
            struct pg_connopts conn;
            sweep_setup_connopts(x, u, &conn);
            struct err e = {0};
            if (srv_alter_system(&conn, x->doc.sets[k].name, NULL, 1, &e) < 0)
                sweep_say(x, SWEEP_SAY_LINE, "pgarena: sweep: resetting %s on %s: %s\n",
                          x->doc.sets[k].name, x->doc.setups[u].label, e.msg);
            pg_connopts_free(&conn);
        }
}

/* sweep --duet: the cells in pairs (the two setups of a point and trial, in plan order); a
 * pair runs again whole when either half is not complete. */
static int run_duets(struct sweep_exec *x)
{
    const struct sweep_cell *c = x->doc.cells;
    for (size_t i = 0; i + 1 < x->doc.n_cells; i += 2)
        x->n_todo += c[i].status != SWEEP_COMPLETE || c[i + 1].status != SWEEP_COMPLETE ? 2 : 0;
    sweep_duet_check_same(x);
    for (size_t i = 0; i + 1 < x->doc.n_cells; i += 2)
        if ((c[i].status != SWEEP_COMPLETE || c[i + 1].status != SWEEP_COMPLETE) &&
            sweep_run_duet(x, i) < 0)
            return -1;
    return 0;
}

static int run_cells(struct sweep_exec *x)
{
    if (x->doc.duet)
        return run_duets(x);
    for (size_t i = 0; i < x->doc.n_cells; i++)
        x->n_todo += x->doc.cells[i].status != SWEEP_COMPLETE;
    for (size_t i = 0; i < x->doc.n_cells; i++)
        if (x->doc.cells[i].status != SWEEP_COMPLETE && sweep_run_cell(x, i) < 0)
            return -1;
    return 0;
}

int sweep_execute(struct sweep_exec *x, struct err *e)
{
    struct sweep_opts *o = x->o;
    if (o->local) {
        const char *preload = o->no_statements ? NULL : LOCAL_STATEMENTS;
        if (local_start_preload(&x->srv, NULL, preload, e) < 0)
            return -1;
        if (preload && local_create_extension(&x->srv, preload, e) < 0) {
            struct err le = {0};
            local_stop(&x->srv, &le);
            return -1;
        }
        x->local_conn = xstrdup(x->srv.conninfo);
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
    if (!o->quiet && x->n_done)
        sweep_say(x, SWEEP_SAY_END, "%s", "");
    reset_settings(x);
    struct err le = {0};
    if (o->local && x->srv.dir[0] && local_stop(&x->srv, &le) < 0)
        sweep_say(x, SWEEP_SAY_LINE, "pgarena: stopping the scratch server: %s\n", le.msg);
    for (size_t i = 0; i < n_applied; i++)
        free(x->applied[i]);
    free(x->applied);
    free(x->loaded);
    free(x->local_conn);
    if (rc < 0)
        return -1;
    return stopped ? 2 : 0;
}
