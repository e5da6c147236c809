/* The capacity search of `sweep --max-rate --slo`: the highest open-loop rate whose steady part
 * meets the objective with the schedule kept, by bracketing and bisection, then confirmed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "cli/session.h"
#include "cli/sweep_int.h"
#include "compare/cmp_int.h"
#include "compare/sweep_figs.h"

#define CAP_TOLERANCE 0.05 /* bisection stops when the bracket is this narrow (relative) */
#define CAP_MAX_STEPS 24
#define CAP_RETRIES   3   /* confirmations that fail, each lowering the rate by the tolerance */
#define CAP_GROWTH    1.5 /* median latency climbing more than this through a step: overload */

/* Rates tried are rounded to three significant digits: a finer answer means nothing within
 * the tolerance, and the file names stay readable. */
static double round3(double r)
{
    char text[32];
    snprintf(text, sizeof text, "%.3g", r);
    return fmax(strtod(text, NULL), 0.001);
}

/* A step's verdict from its result file: 1 met, 0 missed, -1 with e when it cannot be read or
 * measured nothing. *achieved is the steady part's rate. */
static int judge(struct sweep_exec *x, const struct sweep_cell *c, double *achieved, struct err *e)
{
    char *path = xasprintf("%s/%s", x->o->dir, c->file);
    struct result r;
    int rc = result_read(path, &r, e);
    free(path);
    if (rc < 0)
        return -1;
    struct cmp_steady st;
    rc = cmp_steady_figures(&r, x->o->slo.q, &st);
    result_free(&r);
    if (rc < 0)
        return err_set(e, ERR_RUNTIME, "%s measured nothing", c->file);
    *achieved = st.tps;
    int slo = st.quantile_us <= x->o->slo.limit_us;
    if (c->rate <= 0)
        return slo;
    /* Poisson arrivals fall short of the rate by chance: two standard deviations of the count
     * over the steady part are the schedule's own noise, not the server's. That leaves short
     * steps lenient, so a queue that grows (latency climbing through the steady part) also
     * says that the server does not keep up. */
    double allowance = st.seconds > 0 ? 2 * sqrt(c->rate * st.seconds) / st.seconds : 0;
    /* A server that falls behind completes fewer than the schedule asks: latency that climbs
     * while the step still achieved its rate is a stall that passed (a loaded client
     * machine), not a queue that grows. */
    int growing = st.p50_growth > CAP_GROWTH && st.tps < c->rate;
    int kept = st.tps >= 0.99 * c->rate - allowance && !growing;
    if (!x->o->quiet)
        fprintf(stderr, "sweep: -R %g: achieved %.1f tps, median latency x%.2f, %s: %.3f ms: %s\n",
                c->rate, st.tps, st.p50_growth, x->o->slo.text, st.quantile_us / 1000,
                kept && slo ? "met" : "missed");
    return kept && slo;
}

/* Run (or find from an earlier invocation) the step at rate (0: closed loop), trial t.
 * 1 met, 0 missed, -1 with e set (interrupted, or the run failed). */
static int step(struct sweep_exec *x, double rate, int trial, double *achieved, struct err *e)
{
    struct sweep_cell key = {.setup = 0,
                             .clients = x->doc.clients[0],
                             .rate = rate,
                             .scale = x->doc.n_scales ? x->doc.scales[0] : 0,
                             .trial = trial,
                             .slo_met = -1};
    size_t k = 0;
    for (; k < x->doc.n_cells; k++) {
        const struct sweep_cell *c = &x->doc.cells[k];
        if (sweep_same_point(c, &key) && c->trial == trial)
            break;
    }
    if (k == x->doc.n_cells) {
        k = sweep_doc_add_cell(&x->doc, &key);
        free(x->doc.cells[k].file);
        x->doc.cells[k].file = sweep_cell_file(&x->doc, &x->doc.cells[k]);
    }
    if (x->doc.cells[k].status != SWEEP_COMPLETE) {
        x->n_todo = x->n_done + 1;
        if (sweep_run_cell(x, k) < 0)
            return err_set(e, ERR_RUNTIME, "interrupted");
        if (x->doc.cells[k].status != SWEEP_COMPLETE)
            return err_set(e, ERR_RUNTIME, "the run at -R %g failed", rate);
    }
    int met = judge(x, &x->doc.cells[k], achieved, e);
    if (met >= 0 && x->doc.cells[k].slo_met != met) {
        x->doc.cells[k].slo_met = met;
        sweep_doc_write(&x->doc, x->json_path, e);
    }
    return met;
}

/* Bracket [lo, hi] from the closed-loop rate: lo met (0: none yet), hi missed (0: none yet). */
static int bracket(struct sweep_exec *x, double closed, double *lo, double *hi, struct err *e)
{
    double r = round3(closed / 2), achieved;
    for (int i = 0; i < CAP_MAX_STEPS; i++) {
        int met = step(x, r, 1, &achieved, e);
        if (met < 0)
            return -1;
        if (met) {
            *lo = r;
            if (*hi > 0)
                return 0;
            r = round3(r * 2);
        } else {
            *hi = r;
            if (*lo > 0)
                return 0;
            r = round3(r / 2);
            if (r < closed / 1024)
                return 0; /* nothing meets it */
        }
    }
    return 0;
}

static int bisect(struct sweep_exec *x, double *lo, double *hi, struct err *e)
{
    double achieved;
    for (int i = 0; i < CAP_MAX_STEPS && (*hi - *lo) / *lo > CAP_TOLERANCE; i++) {
        double mid = round3(sqrt(*lo * *hi));
        if (mid <= *lo || mid >= *hi)
            break;
        int met = step(x, mid, 1, &achieved, e);
        if (met < 0)
            return -1;
        if (met)
            *lo = mid;
        else
            *hi = mid;
    }
    return 0;
}

/* The answer holds in every confirming trial; else it steps down. */
static int confirm(struct sweep_exec *x, double *lo, double *hi, struct err *e)
{
    int n = x->doc.trials;
    double *rates = xcalloc((size_t)n, sizeof *rates);
    int rc = -1;
    for (int attempt = 0; attempt <= CAP_RETRIES; attempt++) {
        int all = 1;
        for (int t = 1; t <= n && all; t++) {
            int met = step(x, *lo, t, &rates[t - 1], e);
            if (met < 0)
                goto out;
            all = met;
        }
        if (all) {
            double mean = 0, ss = 0;
            for (int t = 0; t < n; t++)
                mean += rates[t] / n;
            for (int t = 0; t < n; t++)
                ss += (rates[t] - mean) * (rates[t] - mean);
            double half = n > 1 ? cmp_t975(n - 1) * sqrt(ss / (n - 1) / n) : NAN;
            x->doc.max_rate.tps = *lo;
            x->doc.max_rate.ci_low = mean - half;
            x->doc.max_rate.ci_high = mean + half;
            rc = 0;
            goto out;
        }
        *hi = *lo;
        *lo = round3(*lo * (1 - CAP_TOLERANCE));
    }
    x->doc.max_rate.tps = 0; /* it never held */
    rc = 0;
out:
    free(rates);
    return rc;
}

int sweep_capacity(struct sweep_exec *x, struct err *e)
{
    struct sweep_max_rate *m = &x->doc.max_rate;
    free(m->slo);
    *m = (struct sweep_max_rate){1, xstrdup(x->o->slo.text), 0, NAN, NAN, 0};
    if (sweep_doc_write(&x->doc, x->json_path, e) < 0)
        return -1;
    double closed, lo = 0, hi = 0;
    if (step(x, 0, 1, &closed, e) < 0)
        return -1;
    if (!x->o->quiet)
        fprintf(stderr, "sweep: closed loop: %.1f tps\n", closed);
    if (!(closed > 0))
        return err_set(e, ERR_RUNTIME, "the closed-loop run measured no throughput");
    if (bracket(x, closed, &lo, &hi, e) < 0 || (lo > 0 && bisect(x, &lo, &hi, e) < 0))
        return -1;
    if (lo > 0 && confirm(x, &lo, &hi, e) < 0)
        return -1;
    m->failed_at = hi;
    return sweep_doc_write(&x->doc, x->json_path, e);
}
