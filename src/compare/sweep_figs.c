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
        a->n_settings != b->n_settings)
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

/* The runs of one point, baseline first: what compare needs, and per setup the figures. */
struct point_runs {
    size_t n;
    struct result *runs;
    const char **paths;
    char **owned_paths;
};

static int read_point(const struct sweep_doc *d, const char *dir, size_t first,
                      struct point_runs *pr, struct sweep_fig_point *p, struct err *e)
{
    const struct sweep_cell *key = &d->cells[first];
    pr->runs = xcalloc(d->n_cells, sizeof *pr->runs);
    pr->paths = xcalloc(d->n_cells, sizeof *pr->paths);
    pr->owned_paths = xcalloc(d->n_cells, sizeof *pr->owned_paths);
    double *tps = xcalloc(d->n_cells, sizeof *tps), *p99 = xcalloc(d->n_cells, sizeof *p99);
    int rc = 0;
    for (size_t u = 0; u < d->n_setups && rc == 0; u++) {
        size_t n = 0;
        for (size_t i = first; i < d->n_cells && rc == 0; i++) {
            const struct sweep_cell *c = &d->cells[i];
            if (c->setup != u || c->status != SWEEP_COMPLETE || !sweep_same_point(c, key))
                continue;
            char *path = xasprintf("%s/%s", dir, c->file);
            if (result_read(path, &pr->runs[pr->n], e) < 0) {
                free(path);
                rc = -1;
                break;
            }
            pr->owned_paths[pr->n] = path;
            pr->paths[pr->n] = path;
            tps[n] = pr->runs[pr->n].summary.tps;
            p99[n++] = pr->runs[pr->n].summary.latency_us.p99;
            pr->n++;
        }
        struct sweep_fig_setup *s = &p->setups[u];
        s->n = n;
        mean_ci(tps, n, &s->tps, &s->tps_lo, &s->tps_hi);
        mean_ci(p99, n, &s->p99_us, &s->p99_lo, &s->p99_hi);
    }
    free(tps);
    free(p99);
    return rc;
}

static void point_runs_free(struct point_runs *pr)
{
    for (size_t i = 0; i < pr->n; i++) {
        result_free(&pr->runs[i]);
        free(pr->owned_paths[i]);
    }
    free(pr->runs);
    free(pr->paths);
    free(pr->owned_paths);
}

/* compare's verdicts of each setup against the baseline, when both have complete trials. */
static void compare_point(const struct sweep_doc *d, struct point_runs *pr,
                          struct sweep_fig_point *p)
{
    if (d->n_setups < 2 || p->setups[0].n == 0)
        return;
    struct cmp_config cfg = {CMP_DEFAULT_SEED, CMP_DEFAULT_MARGIN, CMP_RESAMPLES};
    struct cmp_report rep;
    struct err e = {0};
    if (cmp_compare(pr->runs, pr->paths, pr->n, &cfg, &rep, &e) < 0)
        return;
    p->cmp = xcalloc(rep.n_outcomes + 1, sizeof *p->cmp);
    p->cmp_setup = xcalloc(rep.n_outcomes + 1, sizeof *p->cmp_setup);
    for (size_t i = 0; i < rep.n_outcomes; i++) {
        const char *label = rep.sides[rep.outcomes[i].side].label;
        for (size_t u = 1; u < d->n_setups; u++)
            if (strcmp(d->setups[u].label, label) == 0) {
                p->cmp[p->n_cmp] = rep.outcomes[i];
                p->cmp_setup[p->n_cmp++] = u;
            }
    }
    p->n_warnings = rep.n_warnings;
    cmp_report_free(&rep);
}

int sweep_figs_build(const struct sweep_doc *d, const char *dir, struct sweep_figs *f,
                     struct err *e)
{
    memset(f, 0, sizeof *f);
    f->points = xcalloc(d->n_cells + 1, sizeof *f->points);
    for (size_t i = 0; i < d->n_cells; i++) {
        int seen = 0;
        for (size_t k = 0; k < f->n && !seen; k++)
            seen = sweep_same_point(&d->cells[f->points[k].first], &d->cells[i]);
        if (seen)
            continue;
        struct sweep_fig_point *p = &f->points[f->n++];
        p->first = i;
        p->setups = xcalloc(d->n_setups, sizeof *p->setups);
        struct point_runs pr = {0};
        int rc = read_point(d, dir, i, &pr, p, e);
        if (rc == 0)
            compare_point(d, &pr, p);
        point_runs_free(&pr);
        if (rc < 0) {
            sweep_figs_free(f);
            return -1;
        }
    }
    return 0;
}

void sweep_figs_free(struct sweep_figs *f)
{
    for (size_t i = 0; i < f->n; i++) {
        free(f->points[i].setups);
        free(f->points[i].cmp);
        free(f->points[i].cmp_setup);
    }
    free(f->points);
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
    size_t n = r->n_intervals;
    /* Whole intervals only: the last one may be cut short. */
    while (n > 0 && r->intervals[n - 1].duration_s < r->intervals[0].duration_s * 0.999)
        n--;
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
