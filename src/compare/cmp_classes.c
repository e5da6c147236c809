/* Per-class latency rows of statement classes: summary.classes[] of both sides, class by
 * class, as the per-script rows are made. */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

static const struct result_script_figures *find_class(const struct result *r, const char *name)
{
    for (size_t i = 0; i < r->summary.n_classes; i++)
        if (r->summary.classes[i].name && strcmp(r->summary.classes[i].name, name) == 0)
            return &r->summary.classes[i];
    return NULL;
}

/* Whether every run of both sides has the class, with successful statements. */
static int everywhere(const struct cmp_report *rep, size_t side, const char *name)
{
    const struct cmp_side *sides[2] = {&rep->sides[0], &rep->sides[side]};
    for (int s = 0; s < 2; s++) {
        for (size_t t = 0; t < sides[s]->n_trials; t++) {
            const struct result_script_figures *c = find_class(sides[s]->runs[t], name);
            if (!c || c->transactions <= c->failed)
                return 0;
        }
    }
    return 1;
}

static void values(const struct cmp_side *side, const char *name, int k, double *y)
{
    for (size_t t = 0; t < side->n_trials; t++)
        y[t] = cmp_part_value(find_class(side->runs[t], name), k);
}

static void row(const struct cmp_report *rep, const struct cmp_side *a, const struct cmp_side *b,
                struct cmp_script_row *r, double *ya, double *yb)
{
    for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++) {
        struct cmp_metric *m = &r->metrics[k];
        values(a, r->name, k, ya);
        values(b, r->name, k, yb);
        *m = (struct cmp_metric){NAN, NAN, NAN, NAN, NAN, CMP_INCONCLUSIVE, "", 0, 0};
        if (a->n_trials >= 2 && b->n_trials >= 2) {
            cmp_trial_ratio(rep->cfg.margin, ya, a->n_trials, yb, b->n_trials, 1, NULL, m);
            continue;
        }
        m->a = ya[0];
        m->b = yb[0];
        if (ya[0] > 0 && yb[0] > 0)
            m->change_pct = (yb[0] / ya[0] - 1) * 100;
        snprintf(m->detail, sizeof m->detail,
                 "a plain change, without CI: a CI needs at least two replays per side");
    }
}

static int by_change_desc(const void *x, const void *y)
{
    const struct cmp_script_row *a = x, *b = y;
    double ca = fabs(a->metrics[0].change_pct), cb = fabs(b->metrics[0].change_pct);
    ca = isnan(ca) ? -1 : ca;
    cb = isnan(cb) ? -1 : cb;
    return ca < cb ? 1 : ca > cb ? -1 : 0;
}

void cmp_classes(struct cmp_report *rep, size_t side, struct cmp_outcome *o)
{
    const struct cmp_side *a = &rep->sides[0], *b = &rep->sides[side];
    const struct result *first = a->runs[0];
    if (first->summary.n_classes == 0)
        return;
    struct cmp_script_row *rows = xcalloc(first->summary.n_classes, sizeof *rows);
    size_t n = 0;
    double *ya = xmalloc(a->n_trials * sizeof *ya), *yb = xmalloc(b->n_trials * sizeof *yb);
    for (size_t i = 0; i < first->summary.n_classes; i++) {
        const char *name = first->summary.classes[i].name;
        if (!name || strcmp(name, "other") == 0 || !everywhere(rep, side, name))
            continue;
        rows[n].name = xstrdup(name);
        row(rep, a, b, &rows[n++], ya, yb);
    }
    free(ya);
    free(yb);
    qsort(rows, n, sizeof *rows, by_change_desc);
    for (size_t i = CMP_MAX_CLASSES; i < n; i++)
        free(rows[i].name);
    o->n_classes = n < CMP_MAX_CLASSES ? n : CMP_MAX_CLASSES;
    o->classes = rows;
}
