/* Per-script latency rows: summary.scripts[] of both sides, script by script. */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

static const double script_quantiles[CMP_N_SCRIPT_METRICS] = {50, 95, 99};

static const struct result_script_figures *find_script(const struct result *r, const char *name)
{
    for (size_t i = 0; i < r->summary.n_scripts; i++)
        if (r->summary.scripts[i].name && strcmp(r->summary.scripts[i].name, name) == 0)
            return &r->summary.scripts[i];
    return NULL;
}

/* Whether every run of both sides ran exactly the scripts of the first run of A (by name),
 * and there are at least two of them (one script is the whole run). */
static int same_scripts(const struct cmp_side *a, const struct cmp_side *b)
{
    const struct result *first = a->runs[0];
    if (first->summary.n_scripts < 2)
        return 0;
    const struct cmp_side *sides[2] = {a, b};
    for (int s = 0; s < 2; s++) {
        for (size_t t = 0; t < sides[s]->n_trials; t++) {
            const struct result *r = sides[s]->runs[t];
            if (r->summary.n_scripts != first->summary.n_scripts)
                return 0;
            for (size_t i = 0; i < first->summary.n_scripts; i++)
                if (!first->summary.scripts[i].name ||
                    !find_script(r, first->summary.scripts[i].name))
                    return 0;
        }
    }
    return 1;
}

/* A script's latency at quantile q (percent) in one run: from its histogram when the file has
 * it, else the figure the file gives. */
double cmp_part_value(const struct result_script_figures *s, int k)
{
    if (s->histogram.n_bins == 0) {
        const double v[CMP_N_SCRIPT_METRICS] = {s->latency_us.p50, s->latency_us.p95,
                                                s->latency_us.p99};
        return v[k];
    }
    struct hist *h = hist_new();
    double v = NAN;
    if (hist_add_sparse(h, &s->histogram) == 0)
        v = (double)hist_percentile(h, script_quantiles[k]);
    hist_free(h);
    return v;
}

static void side_values(const struct cmp_side *side, const char *name, int k, double *y)
{
    for (size_t t = 0; t < side->n_trials; t++)
        y[t] = cmp_part_value(find_script(side->runs[t], name), k);
}

/* One trial per side: the two values and the change, no interval. */
static void single_row(struct cmp_metric *m, double a, double b)
{
    *m = (struct cmp_metric){a, b, NAN, NAN, NAN, CMP_INCONCLUSIVE, "", 0, 0};
    if (a > 0 && b > 0)
        m->change_pct = (b / a - 1) * 100;
    snprintf(m->detail, sizeof m->detail,
             "whole runs, one trial per side: no interval (the file keeps no per-script "
             "intervals); repeat each side for a verdict");
}

void cmp_scripts(struct cmp_report *rep, size_t side, struct cmp_outcome *o)
{
    const struct cmp_side *a = &rep->sides[0], *b = &rep->sides[side];
    if (!same_scripts(a, b))
        return;
    const struct result *first = a->runs[0];
    o->n_scripts = first->summary.n_scripts;
    o->scripts = xcalloc(o->n_scripts, sizeof *o->scripts);
    double *ya = xmalloc(a->n_trials * sizeof *ya), *yb = xmalloc(b->n_trials * sizeof *yb);
    for (size_t i = 0; i < o->n_scripts; i++) {
        struct cmp_script_row *row = &o->scripts[i];
        row->name = xstrdup(first->summary.scripts[i].name);
        for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++) {
            struct cmp_metric *m = &row->metrics[k];
            side_values(a, row->name, k, ya);
            side_values(b, row->name, k, yb);
            if (a->n_trials == 1 && b->n_trials == 1) {
                single_row(m, ya[0], yb[0]);
                continue;
            }
            *m = (struct cmp_metric){NAN, NAN, NAN, NAN, NAN, CMP_INCONCLUSIVE, "", 0, 0};
            cmp_trial_ratio(rep->cfg.margin, ya, a->n_trials, yb, b->n_trials, 1, NULL, m);
        }
    }
    free(ya);
    free(yb);
}
