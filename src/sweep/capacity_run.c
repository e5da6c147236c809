/* `sweep --max-rate --slo`: the capacity search (sweep/capacity.c) over the sweep's cells. A
 * step finds its cell from an earlier invocation or runs it, and is measured from its result
 * file; its verdict is printed and kept in sweep.json as it comes. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "compare/compare.h"
#include "compare/sweep_figs.h"
#include "stats/hist.h"
#include "sweep/capacity.h"
#include "sweep/sweep.h"

/* A step's client stalls (its summary.client_health; intervals 0: none, or unknown). */
struct cap_stall {
    uint64_t intervals;
    double ms;
    const char *cause;
};

struct cap_glue {
    struct sweep_exec *x;
    size_t k;               /* the cell of the last step */
    struct err *e;          /* the last step's (a failed write of sweep.json sets it, as before) */
    struct cap_stall stall; /* the last step's */
};

/* The steady part's latencies (the whole intervals that cmp_steady_figures kept: its last
 * `seconds` of them): how many, and the share at most the objective's limit, so that trials
 * can be judged pooled. */
static void within_limit(const struct result *r, const struct cmp_steady *st, double limit_us,
                         struct sweep_cap_step *out)
{
    size_t n = result_whole_intervals(r), start;
    double secs = 0;
    for (start = n; start > 0 && secs < st->seconds * (1 - 1e-9);)
        secs += r->intervals[--start].duration_s;
    struct hist *h = hist_new();
    for (size_t i = start; i < n; i++)
        result_interval_add(h, &r->intervals[i]);
    out->transactions = (double)hist_count(h);
    out->within_limit = hist_fraction_below(h, (int64_t)floor(limit_us) + 1);
    hist_free(h);
}

/* The steady figures of cell c's result file. -1 with e when it cannot be read or measured
 * nothing. */
static int measure(struct sweep_exec *x, const struct sweep_cell *c, struct sweep_cap_step *out,
                   struct cap_stall *stall, struct err *e)
{
    char *path = xasprintf("%s/%s", x->o->dir, c->file);
    struct result r;
    int rc = result_read(path, &r, e);
    free(path);
    if (rc < 0)
        return -1;
    struct cmp_steady st;
    rc = cmp_steady_figures(&r, x->o->slo.q, &st);
    if (rc == 0) {
        *out = (struct sweep_cap_step){st.tps, st.quantile_us, st.p50_growth, st.seconds, 0, 0};
        within_limit(&r, &st, x->o->slo.limit_us, out);
        const struct result_client_health *h = &r.client_health;
        *stall = (struct cap_stall){0, 0, NULL};
        if (h->present && h->intervals_stalled > 0)
            *stall = (struct cap_stall){h->intervals_stalled, h->stalled_ms,
                                        result_stall_cause_names[h->worst_cause]};
    }
    result_free(&r);
    if (rc < 0)
        return err_set(e, ERR_RUNTIME, "%s measured nothing", c->file);
    return 0;
}

/* Run (or find from an earlier invocation) the step at rate (0: closed loop), trial t. */
static int step(void *arg, double rate, int trial, struct sweep_cap_step *out, struct err *e)
{
    struct cap_glue *g = arg;
    struct sweep_exec *x = g->x;
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
    g->k = k;
    g->e = e;
    if (measure(x, &x->doc.cells[k], out, &g->stall, e) < 0)
        return -1;
    return g->stall.intervals > 0;
}

/* A step whose client stalled: "sweep: -R 778 trial 1: client stalled 1.6 s (2 intervals),
 * late: " and what the search made of it. */
static void say_stalled(const struct sweep_exec *x, double rate, int trial,
                        const struct cap_stall *s, int met)
{
    char name[48], line[200];
    if (rate > 0)
        snprintf(name, sizeof name, "-R %g", rate);
    else
        snprintf(name, sizeof name, "closed loop");
    cmp_stall_line(line, sizeof line, name, (size_t)trial, s->ms, s->intervals, s->cause);
    if (met < 0)
        sweep_say(x, SWEEP_SAY_LINE, "sweep: %s: run again, not judged\n", line);
    else
        sweep_say(x, SWEEP_SAY_LINE,
                  "sweep: %s: judged all the same (the %d runs before it stalled too)\n", line,
                  SWEEP_CAP_STALL_RETESTS);
}

/* A step's verdict: printed, and kept in its cell (a step whose client stalled: client_stalled,
 * and no slo_met when it was run again instead of judged). */
static void note(void *arg, double rate, int trial, const struct sweep_cap_step *s, int met)
{
    struct cap_glue *g = arg;
    struct sweep_exec *x = g->x;
    struct sweep_cell *c = &x->doc.cells[g->k];
    int stalled = g->stall.intervals > 0;
    if (stalled && !x->o->quiet)
        say_stalled(x, rate, trial, &g->stall, met);
    if (met >= 0 && rate > 0 && !x->o->quiet)
        sweep_say(x, SWEEP_SAY_LINE,
                  "sweep: -R %g: achieved %.1f tps, median latency x%.2f, %s: %.3f ms: %s\n", rate,
                  s->tps, s->p50_growth, x->o->slo.text, s->quantile_us / 1000,
                  met ? "met" : "missed");
    if (c->slo_met != met || c->client_stalled != stalled) {
        c->slo_met = met;
        c->client_stalled = stalled;
        sweep_doc_write(&x->doc, x->json_path, g->e);
    }
    if (met >= 0 && rate <= 0 && !x->o->quiet)
        sweep_say(x, SWEEP_SAY_LINE, "sweep: closed loop: %.1f tps\n", s->tps);
}

int sweep_capacity(struct sweep_exec *x, struct err *e)
{
    struct sweep_max_rate *m = &x->doc.max_rate;
    free(m->slo);
    *m = (struct sweep_max_rate){1, xstrdup(x->o->slo.text), 0, NAN, NAN, 0};
    if (sweep_doc_write(&x->doc, x->json_path, e) < 0)
        return -1;
    struct cap_glue g = {x, 0, e, {0, 0, NULL}};
    struct sweep_cap_params p = sweep_cap_defaults(x->o->slo.limit_us, x->doc.trials);
    p.quantile = x->o->slo.q;
    p.note = note;
    struct sweep_cap_outcome out;
    if (sweep_cap_search(&p, step, &g, &out, e) < 0)
        return -1;
    m->tps = out.tps;
    m->ci_low = out.ci_low;
    m->ci_high = out.ci_high;
    m->failed_at = out.failed_at;
    return sweep_doc_write(&x->doc, x->json_path, e);
}
