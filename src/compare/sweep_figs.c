/* A sweep's figures per point, and the steady-state figures of a capacity search's steps. */
#include "compare/sweep_figs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compare/cmp_int.h"
#include "stats/hist.h"

int sweep_same_point(const struct sweep_cell *a, const struct sweep_cell *b)
{
    if (a->clients != b->clients || a->rate != b->rate || a->scale != b->scale ||
        a->speed != b->speed || a->n_settings != b->n_settings)
        return 0;
    for (size_t i = 0; i < a->n_settings; i++)
        if (strcmp(a->settings[i].name, b->settings[i].name) != 0 ||
            strcmp(a->settings[i].value, b->settings[i].value) != 0)
            return 0;
    return 1;
}

/* Mean of x[0..n) and its 95 % t interval (NaN bounds below two values). */
static void mean_ci(const double *x, size_t n, double *mean, double *lo, double *hi)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = n ? s / (double)n : NAN;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    if (n < 2) {
        *lo = *hi = NAN;
        return;
    }
    double half = cmp_t975((double)n - 1) * sqrt(ss / (double)(n - 1) / (double)n);
    *lo = *mean - half;
    *hi = *mean + half;
}

/* Each setup's figures at the point of cell `first` from the complete cells' results. */
static void point_figures(const struct sweep_doc *d, const struct result *res, const int *have,
                          struct sweep_fig_point *p)
{
    const struct sweep_cell *key = &d->cells[p->first];
    double *tps = xcalloc(d->n_cells, sizeof *tps), *p99 = xcalloc(d->n_cells, sizeof *p99);
    for (size_t u = 0; u < d->n_setups; u++) {
        size_t n = 0;
        for (size_t i = p->first; i < d->n_cells; i++) {
            const struct sweep_cell *c = &d->cells[i];
            if (c->setup != u || !have[i] || !sweep_same_point(c, key))
                continue;
            tps[n] = res[i].summary.tps;
            p99[n++] = res[i].summary.latency_us.p99;
        }
        struct sweep_fig_setup *s = &p->setups[u];
        s->n = n;
        mean_ci(tps, n, &s->tps, &s->tps_lo, &s->tps_hi);
        mean_ci(p99, n, &s->p99_us, &s->p99_lo, &s->p99_hi);
    }
    free(tps);
    free(p99);
}

int sweep_figs_build(const struct sweep_doc *d, const char *dir, struct sweep_figs *f,
                     struct err *e)
{
    memset(f, 0, sizeof *f);
    struct result *res = xcalloc(d->n_cells + 1, sizeof *res);
    char **paths = xcalloc(d->n_cells + 1, sizeof *paths);
    int *have = xcalloc(d->n_cells + 1, sizeof *have), rc = 0;
    for (size_t i = 0; i < d->n_cells && rc == 0; i++) {
        if (d->cells[i].status != SWEEP_COMPLETE)
            continue;
        paths[i] = xasprintf("%s/%s", dir, d->cells[i].file);
        rc = result_read(paths[i], &res[i], e);
        have[i] = rc == 0;
    }
    f->points = xcalloc(d->n_cells + 1, sizeof *f->points);
    for (size_t i = 0; i < d->n_cells && rc == 0; i++) {
        int seen = 0;
        for (size_t k = 0; k < f->n && !seen; k++)
            seen = sweep_same_point(&d->cells[f->points[k].first], &d->cells[i]);
        if (seen)
            continue;
        struct sweep_fig_point *p = &f->points[f->n++];
        p->first = i;
        p->setups = xcalloc(d->n_setups, sizeof *p->setups);
        point_figures(d, res, have, p);
    }
    if (rc == 0) {
        const char *axis = sweep_compare_axis(d);
        f->axis = axis ? xstrdup(axis) : NULL;
        if (axis)
            sweep_figs_compare(d, res, (const char *const *)paths, f);
    }
    for (size_t i = 0; i < d->n_cells; i++) {
        if (have[i])
            result_free(&res[i]);
        free(paths[i]);
    }
    free(res);
    free(paths);
    free(have);
    if (rc < 0)
        sweep_figs_free(f);
    return rc;
}

void sweep_figs_free(struct sweep_figs *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->points[i].setups);
    free(f->points);
    for (size_t i = 0; i < f->n_cmps; i++)
        sweep_comparison_free(&f->cmps[i]);
    free(f->cmps);
    free(f->axis);
    memset(f, 0, sizeof *f);
}

/* The median latency of intervals [from, to) merged. */
static double p50_of(const struct result *r, size_t from, size_t to)
{
    struct hist *h = hist_new();
    for (size_t i = from; i < to; i++)
        result_interval_add(h, &r->intervals[i]);
    double v = (double)hist_percentile(h, 50);
    hist_free(h);
    return v;
}

int cmp_steady_figures(const struct result *r, double q, struct cmp_steady *out)
{
    size_t n = result_whole_intervals(r); /* the last one may be cut short */
    *out = (struct cmp_steady){0, 0, 0, 1};
    if (n == 0)
        return -1;
    double *x = xmalloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = r->intervals[i].tps;
    struct cmp_mser m;
    cmp_mser5(x, n, &m, NULL, NULL);
    free(x);
    /* Short runs are too short for MSER: their first second (connections, cold caches) goes. */
    size_t start = m.warmup > 0 ? m.warmup : (n > 2 ? 1 : 0);
    struct hist *h = hist_new();
    double tx = 0, secs = 0;
    for (size_t i = start; i < n; i++) {
        tx += (double)r->intervals[i].transactions;
        secs += r->intervals[i].duration_s;
        result_interval_add(h, &r->intervals[i]);
    }
    out->tps = secs > 0 ? tx / secs : 0;
    out->seconds = secs;
    out->quantile_us = q >= 1 ? (double)hist_max(h) : (double)hist_percentile(h, q * 100);
    hist_free(h);
    /* A queue that grows makes latency climb through the steady part: the middle third's
     * median lies between the first's and the last's. A queue that only fluctuates (busy
     * periods near the knee, seconds long) moves the thirds' medians in any order, and its
     * ratio alone would often read as growth in a short step. */
    size_t third = (n - start) / 3;
    if (third > 0) {
        double first = p50_of(r, start, start + third), last = p50_of(r, n - third, n);
        double mid = p50_of(r, start + third, n - third);
        if (first > 0 && first <= mid && mid <= last)
            out->p50_growth = last / first;
    }
    return secs > 0 ? 0 : -1;
}
