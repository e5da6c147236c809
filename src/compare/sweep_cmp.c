/* A sweep's comparisons along one axis: every other value against the first, per cell of the
 * other axes and metric; pooled over a side's cells where Bartlett's test lets it, else
 * compare's own verdict over the cell's trials (docs/compare-method.md §3.6); a duet sweep's
 * cells paired by second (§3.8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compare/cmp_int.h"
#include "compare/sweep_figs.h"

/* The smallest variance of a cell's log figures: a latency quantile is a histogram bin (128
 * per power of two, so about 0.8 % wide); tps a count of transactions (side.tps_floor). */
#define LAT_FLOOR_VAR (0.0078 * 0.0078 / 12)

const char *sweep_compare_axis(const struct sweep_doc *d)
{
    if (d->compare_axis)
        return strcmp(d->compare_axis, "none") == 0 ? NULL : d->compare_axis;
    if (d->max_rate.have)
        return NULL;
    if (d->n_setups > 1)
        return "setup";
    if (d->n_sets)
        return d->sets[0].name;
    if (d->n_speeds > 1) /* a speed axis: how the workload fares faster */
        return "speed";
    return NULL;
}

/* The values of an axis in d: their number, and the first (the baseline) into buf. */
static size_t axis_values(const struct sweep_doc *d, const char *axis, char *buf, size_t size)
{
    snprintf(buf, size, "%s", "");
    if (strcmp(axis, "setup") == 0) {
        snprintf(buf, size, "%s", d->setups[0].label);
        return d->n_setups;
    }
    if (strcmp(axis, "clients") == 0) {
        if (d->n_clients)
            snprintf(buf, size, "%lld", (long long)d->clients[0]);
        return d->n_clients;
    }
    if (strcmp(axis, "rate") == 0) {
        if (d->n_rates)
            snprintf(buf, size, "%g", d->rates[0]);
        return d->n_rates;
    }
    if (strcmp(axis, "scale") == 0) {
        if (d->n_scales)
            snprintf(buf, size, "%lld", (long long)d->scales[0]);
        return d->n_scales;
    }
    if (strcmp(axis, "speed") == 0) {
        if (d->n_speeds)
            sweep_speed_text(buf, size, d->speeds[0]);
        return d->n_speeds;
    }
    for (size_t k = 0; k < d->n_sets; k++)
        if (strcmp(d->sets[k].name, axis) == 0) {
            snprintf(buf, size, "%s", d->sets[k].values[0]);
            return d->sets[k].n;
        }
    return 0;
}

int sweep_compare_check(const struct sweep_doc *d, const char *axis, struct err *e)
{
    char first[256];
    if (strcmp(axis, "none") == 0)
        return 0;
    int known = strcmp(axis, "setup") == 0 || strcmp(axis, "clients") == 0 ||
                strcmp(axis, "rate") == 0 || strcmp(axis, "scale") == 0 ||
                strcmp(axis, "speed") == 0;
    size_t n = axis_values(d, axis, first, sizeof first);
    if (!known && n == 0)
        return err_set(e, ERR_INPUT,
                       "sweep: --compare %s: no such axis (setup, clients, rate, scale, speed, a "
                       "--set setting's name, or none)",
                       axis);
    if (n < 2)
        return err_set(e, ERR_INPUT, "sweep: --compare %s: the sweep has %s value%s on it", axis,
                       n ? "one" : "no", n ? "" : "s");
    return 0;
}

const char *sweep_axis_value(char *buf, size_t size, const struct sweep_doc *d,
                             const struct sweep_cell *c, const char *axis)
{
    snprintf(buf, size, "%s", "");
    if (strcmp(axis, "setup") == 0)
        snprintf(buf, size, "%s", d->setups[c->setup].label);
    else if (strcmp(axis, "clients") == 0)
        snprintf(buf, size, "%lld", (long long)c->clients);
    else if (strcmp(axis, "rate") == 0)
        snprintf(buf, size, "%g", c->rate);
    else if (strcmp(axis, "scale") == 0)
        snprintf(buf, size, "%lld", (long long)c->scale);
    else if (strcmp(axis, "speed") == 0)
        sweep_speed_text(buf, size, c->speed);
    else
        for (size_t k = 0; k < c->n_settings; k++)
            if (strcmp(c->settings[k].name, axis) == 0)
                snprintf(buf, size, "%s", c->settings[k].value);
    return buf;
}

/* Whether a and b lie on the same point but for the axis (the setup is not a point's). */
static int same_but(const struct sweep_cell *a, const struct sweep_cell *b, const char *axis)
{
    if ((strcmp(axis, "clients") != 0 && a->clients != b->clients) ||
        (strcmp(axis, "rate") != 0 && a->rate != b->rate) ||
        (strcmp(axis, "scale") != 0 && a->scale != b->scale) ||
        (strcmp(axis, "speed") != 0 && a->speed != b->speed) || a->n_settings != b->n_settings)
        return 0;
    for (size_t i = 0; i < a->n_settings; i++)
        if (strcmp(a->settings[i].name, b->settings[i].name) != 0 ||
            (strcmp(a->settings[i].name, axis) != 0 &&
             strcmp(a->settings[i].value, b->settings[i].value) != 0))
            return 0;
    return 1;
}

/* A side's per-script figures: the scripts of its first trial, and the logs of their latency
 * p50, p95 and p99 in every trial (docs/compare-method.md §3.7). */
struct side_scripts {
    size_t n;
    const char **names;                  /* borrowed from the first trial's result */
    int *kind;                           /* SCRIPT_* : pooled with the scripts of its kind only */
    int *ok;                             /* every trial ran it and measured it */
    double *logs[CMP_N_SCRIPT_METRICS];  /* [script * trials + trial] */
    int *excluded[CMP_N_SCRIPT_METRICS]; /* refused by the homogeneity test: its own variance */
};

/* Scripts that a weighted mix picks (many short transactions) and scripts of weight 0 that only
 * streams run one after another (CH-benCHmark's queries: a few long executions a trial) differ
 * in noise by orders of magnitude: each kind is pooled on its own. */
enum { SCRIPT_MIX, SCRIPT_STREAM, SCRIPT_KINDS };

/* The trials of one setup at one point: their cells and log figures (metric-major). */
struct side {
    size_t n;
    size_t *cells;
    double *logs[CMP_N_RUN_FIGS];
    size_t group;                 /* the side of the axis it belongs to: (value, setup) */
    int ok;                       /* every trial measured something */
    int excluded[CMP_N_RUN_FIGS]; /* refused by the homogeneity test: its own variance */
    double tps_floor;             /* the resolution of log tps: 1 / (12 tx^2), the fewest */
    struct side_scripts *scripts; /* per-script figures of its trials (§3.7) */
};

/* What the comparisons of one sweep work on. */
struct matrix {
    const struct sweep_doc *d;
    const struct result *res;
    const char *const *paths;
    const char *axis;
    struct sweep_figs *f;
    size_t n_setups;
    struct side *sides; /* point-major: sides[p * n_setups + u] */
    size_t n_groups;
    struct cmp_pooled (*pools)[CMP_N_RUN_FIGS];
    double *floors; /* per group: the resolution of its log tps */
    /* per group, script metric and kind: the scripts' pool (§3.7) */
    struct cmp_pooled (*script_pools)[CMP_N_SCRIPT_METRICS][SCRIPT_KINDS];
};

static double floor_of(const struct matrix *mx, size_t group, int metric)
{
    /* 1e-12: a side whose runs counted nothing still has a variance to take the log of */
    return metric == CMP_TPS ? (mx->floors[group] > 1e-12 ? mx->floors[group] : 1e-12)
                             : LAT_FLOOR_VAR;
}

static const struct result_script_figures *script_of(const struct result *r, const char *name)
{
    for (size_t i = 0; i < r->summary.n_scripts; i++)
        if (r->summary.scripts[i].name && strcmp(r->summary.scripts[i].name, name) == 0)
            return &r->summary.scripts[i];
    return NULL;
}

/* The per-script figures of side s's trials (its cells). */
static struct side_scripts *side_scripts(const struct matrix *mx, const struct side *s)
{
    struct side_scripts *ss = xcalloc(1, sizeof *ss);
    if (s->n == 0)
        return ss;
    const struct result *first = &mx->res[s->cells[0]];
    ss->n = first->summary.n_scripts;
    ss->names = xcalloc(ss->n + 1, sizeof *ss->names);
    ss->kind = xcalloc(ss->n + 1, sizeof *ss->kind);
    ss->ok = xcalloc(ss->n + 1, sizeof *ss->ok);
    for (int m = 0; m < CMP_N_SCRIPT_METRICS; m++) {
        ss->logs[m] = xcalloc(ss->n * s->n + 1, sizeof *ss->logs[m]);
        ss->excluded[m] = xcalloc(ss->n + 1, sizeof *ss->excluded[m]);
    }
    for (size_t j = 0; j < ss->n; j++) {
        const struct result_script_figures *f0 = &first->summary.scripts[j];
        ss->names[j] = f0->name ? f0->name : "";
        ss->kind[j] = f0->weight == 0 ? SCRIPT_STREAM : SCRIPT_MIX;
        ss->ok[j] = f0->name != NULL;
        for (size_t t = 0; t < s->n && ss->ok[j]; t++) {
            const struct result_script_figures *f = script_of(&mx->res[s->cells[t]], f0->name);
            ss->ok[j] = f && f->transactions > 0;
            for (int m = 0; m < CMP_N_SCRIPT_METRICS && ss->ok[j]; m++) {
                double v = cmp_part_value(f, m);
                ss->ok[j] = v > 0;
                ss->logs[m][j * s->n + t] = ss->ok[j] ? log(v) : 0;
            }
        }
    }
    return ss;
}

static void side_scripts_free(struct side_scripts *ss)
{
    if (!ss)
        return;
    free(ss->names);
    free(ss->kind);
    free(ss->ok);
    for (int m = 0; m < CMP_N_SCRIPT_METRICS; m++) {
        free(ss->logs[m]);
        free(ss->excluded[m]);
    }
    free(ss);
}

static void side_figures(struct matrix *mx, size_t p, size_t u, struct side *s)
{
    const struct sweep_doc *d = mx->d;
    const struct sweep_cell *key = &d->cells[mx->f->points[p].first];
    s->cells = xcalloc(d->n_cells + 1, sizeof *s->cells);
    for (int m = 0; m < CMP_N_RUN_FIGS; m++)
        s->logs[m] = xcalloc(d->n_cells + 1, sizeof *s->logs[m]);
    s->ok = 1;
    for (size_t i = 0; i < d->n_cells; i++) {
        const struct sweep_cell *c = &d->cells[i];
        if (c->setup != u || c->status != SWEEP_COMPLETE || !mx->paths[i] ||
            !sweep_same_point(c, key))
            continue;
        struct cmp_run run;
        struct err e = {0};
        if (cmp_prepare_run(&run, &mx->res[i], mx->paths[i], &e) < 0) {
            s->ok = 0;
            continue;
        }
        double fig[CMP_N_RUN_FIGS];
        cmp_run_figures(&run, fig);
        for (int m = 0; m < CMP_N_RUN_FIGS; m++) {
            s->ok &= fig[m] > 0;
            s->logs[m][s->n] = fig[m] > 0 ? log(fig[m]) : 0;
        }
        double tx = fig[0] * (double)run.n * run.interval_s;
        if (tx >= 1 && 1 / (12 * tx * tx) > s->tps_floor)
            s->tps_floor = 1 / (12 * tx * tx);
        cmp_free_run(&run);
        s->cells[s->n++] = i;
    }
    s->scripts = side_scripts(mx, s);
}

/* Each group's per-script variance, per script metric and kind, pooled over the scripts of
 * its sides (the units), the scripts of one side sharing its trials (§3.7). */
static void pool_scripts(struct matrix *mx)
{
    size_t n_sides = mx->f->n * mx->n_setups, n_units = 0, n_values = 0;
    for (size_t k = 0; k < n_sides; k++) {
        n_units += mx->sides[k].scripts->n;
        n_values += mx->sides[k].scripts->n * mx->sides[k].n;
    }
    mx->script_pools = xcalloc(mx->n_groups + 1, sizeof *mx->script_pools);
    double *y = xcalloc(n_values + 1, sizeof *y);
    size_t *n = xcalloc(n_units + 1, sizeof *n), *run = xcalloc(n_units + 1, sizeof *run);
    size_t *of_side = xcalloc(n_units + 1, sizeof *of_side);
    size_t *of_script = xcalloc(n_units + 1, sizeof *of_script);
    int *excluded = xcalloc(n_units + 1, sizeof *excluded);
    for (size_t g = 0; g < mx->n_groups; g++)
        for (int m = 0; m < CMP_N_SCRIPT_METRICS; m++)
            for (int kind = 0; kind < SCRIPT_KINDS; kind++) {
                size_t nc = 0, at = 0;
                for (size_t k = 0; k < n_sides; k++) {
                    const struct side *s = &mx->sides[k];
                    const struct side_scripts *ss = s->scripts;
                    if (s->group != g)
                        continue;
                    for (size_t j = 0; j < ss->n; j++) {
                        if (!ss->ok[j] || ss->kind[j] != kind)
                            continue;
                        memcpy(y + at, ss->logs[m] + j * s->n, s->n * sizeof *y);
                        at += s->n;
                        n[nc] = s->n;
                        run[nc] = k;
                        of_side[nc] = k;
                        of_script[nc++] = j;
                    }
                }
                cmp_pool_parts(y, n, run, nc, LAT_FLOOR_VAR, excluded,
                               &mx->script_pools[g][m][kind]);
                for (size_t c = 0; c < nc; c++)
                    mx->sides[of_side[c]].scripts->excluded[m][of_script[c]] = excluded[c];
            }
    free(y);
    free(n);
    free(run);
    free(of_side);
    free(of_script);
    free(excluded);
}

/* Sides are grouped by (axis value, setup); each group's variance is pooled per metric. */
static void pool_groups(struct matrix *mx)
{
    const struct sweep_doc *d = mx->d;
    size_t n_sides = mx->f->n * mx->n_setups;
    char(*keys)[256] = xcalloc(n_sides + 1, sizeof *keys);
    size_t *key_setup = xcalloc(n_sides + 1, sizeof *key_setup);
    for (size_t k = 0; k < n_sides; k++) {
        size_t p = k / mx->n_setups, u = k % mx->n_setups;
        char v[256];
        struct sweep_cell c = d->cells[mx->f->points[p].first];
        c.setup = u;
        sweep_axis_value(v, sizeof v, d, &c, mx->axis);
        size_t g = 0;
        while (g < mx->n_groups && !(key_setup[g] == u && strcmp(keys[g], v) == 0))
            g++;
        if (g == mx->n_groups) {
            snprintf(keys[g], sizeof keys[g], "%s", v);
            key_setup[g] = u;
            mx->n_groups++;
        }
        mx->sides[k].group = g;
    }
    mx->pools = xcalloc(mx->n_groups + 1, sizeof *mx->pools);
    double *y = xcalloc(d->n_cells + 1, sizeof *y);
    size_t *n = xcalloc(n_sides + 1, sizeof *n), *of = xcalloc(n_sides + 1, sizeof *of);
    int *excluded = xcalloc(n_sides + 1, sizeof *excluded);
    mx->floors = xcalloc(mx->n_groups + 1, sizeof *mx->floors);
    for (size_t k = 0; k < n_sides; k++) {
        double *f = &mx->floors[mx->sides[k].group];
        *f = mx->sides[k].tps_floor > *f ? mx->sides[k].tps_floor : *f;
    }
    for (size_t g = 0; g < mx->n_groups; g++)
        for (int m = 0; m < CMP_N_RUN_FIGS; m++) {
            size_t nc = 0, at = 0;
            for (size_t k = 0; k < n_sides; k++) {
                const struct side *s = &mx->sides[k];
                if (s->group != g || !s->ok || s->n == 0)
                    continue;
                memcpy(y + at, s->logs[m], s->n * sizeof *y);
                at += s->n;
                of[nc] = k;
                n[nc++] = s->n;
            }
            cmp_pool(y, n, nc, floor_of(mx, g, m), excluded, &mx->pools[g][m]);
            for (size_t c = 0; c < nc; c++)
                mx->sides[of[c]].excluded[m] = excluded[c];
        }
    free(y);
    free(n);
    free(of);
    free(excluded);
    free(keys);
    free(key_setup);
    pool_scripts(mx);
}

static double mean(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

static void add_cell_axis(struct sweep_comparison *r, const char *name, const char *value)
{
    r->cell = xrealloc(r->cell, (r->n_cell + 1) * sizeof *r->cell);
    r->cell[r->n_cell++] = (struct sweep_setting){xstrdup(name), xstrdup(value)};
}

/* The record's fixed part: axis, values and the other axes of the value's cell. */
static void record_cell(const struct matrix *mx, const struct sweep_cell *vc,
                        struct sweep_comparison *r)
{
    const struct sweep_doc *d = mx->d;
    char buf[256];
    r->axis = xstrdup(mx->axis);
    axis_values(d, mx->axis, buf, sizeof buf);
    r->baseline = xstrdup(buf);
    r->value = xstrdup(sweep_axis_value(buf, sizeof buf, d, vc, mx->axis));
    if (strcmp(mx->axis, "setup") != 0)
        add_cell_axis(r, "setup", d->setups[vc->setup].label);
    const char *axes[4] = {"clients", "rate", "scale", "speed"};
    int present[4] = {vc->clients > 0, d->n_rates > 0 || vc->rate > 0, d->n_scales > 0,
                      d->n_speeds > 0};
    for (int k = 0; k < 4; k++)
        if (present[k] && strcmp(axes[k], mx->axis) != 0)
            add_cell_axis(r, axes[k], sweep_axis_value(buf, sizeof buf, d, vc, axes[k]));
    for (size_t k = 0; k < vc->n_settings; k++)
        if (strcmp(vc->settings[k].name, mx->axis) != 0)
            add_cell_axis(r, vc->settings[k].name, vc->settings[k].value);
    /* -c 0 (analytic streams alone) is a clients value too, though present[] skips it. */
    if (vc->clients == 0 && d->n_clients > 0 && strcmp(mx->axis, "clients") != 0)
        add_cell_axis(r, "clients", "0");
}

static struct sweep_comparison *new_record(struct sweep_figs *f)
{
    f->cmps = xrealloc(f->cmps, (f->n_cmps + 1) * sizeof *f->cmps);
    struct sweep_comparison *r = &f->cmps[f->n_cmps++];
    memset(r, 0, sizeof *r);
    return r;
}

static void fill_metric(struct sweep_comparison *r, int id, const struct cmp_metric *m,
                        const char *method, int homogeneous)
{
    r->metric = xstrdup(cmp_metric_names[id]);
    r->a = m->a;
    r->b = m->b;
    r->change_pct = m->change_pct;
    r->ci_low = m->ci_low_pct;
    r->ci_high = m->ci_high_pct;
    r->verdict = xstrdup(cmp_verdict_names[m->verdict]);
    r->method = xstrdup(method);
    r->df = m->df > 0 ? m->df : NAN;
    r->homogeneous = homogeneous;
    r->detail = xstrdup(m->detail);
    r->more_data = m->more_data;
}

/* compare over the cell's trials: the baseline's runs first. 0 with out filled. */
static int cell_compare(const struct matrix *mx, const struct side *a, const struct side *b,
                        struct cmp_report *out)
{
    size_t n = a->n + b->n;
    struct result *runs = xcalloc(n, sizeof *runs);
    const char **paths = xcalloc(n, sizeof *paths), **names = xcalloc(n, sizeof *names);
    for (size_t i = 0; i < n; i++) {
        size_t c = i < a->n ? a->cells[i] : b->cells[i - a->n];
        runs[i] = mx->res[c]; /* a shallow copy: compare only reads */
        paths[i] = mx->paths[c];
        names[i] = i < a->n ? "baseline" : "value";
    }
    struct cmp_config cfg = {CMP_DEFAULT_SEED, CMP_DEFAULT_MARGIN, CMP_RESAMPLES};
    struct err e = {0};
    int rc = cmp_compare_named(runs, paths, names, n, &cfg, out, &e);
    free(runs);
    free(paths);
    free(names);
    return rc;
}

static size_t script_index(const struct side_scripts *ss, const char *name)
{
    for (size_t j = 0; j < ss->n; j++)
        if (strcmp(ss->names[j], name) == 0)
            return j;
    return ss->n;
}

/* Script j's metric m on side s judged with its pool: 1 with v set (its pool, or its own
 * variance where the test refused it), 0 when it has its own variance only, -1 none. */
static int script_var(const struct matrix *mx, const struct side *s, size_t j, int m,
                      struct cmp_pooled *v)
{
    const struct side_scripts *ss = s->scripts;
    if (j >= ss->n || !ss->ok[j])
        return -1;
    const struct cmp_pooled *pool = &mx->script_pools[s->group][m][ss->kind[j]];
    return cmp_pool_cell(pool, ss->excluded[m][j], ss->logs[m] + j * s->n, s->n, LAT_FLOOR_VAR, v);
}

/* Whether no trial of side s ran script name at all (-c 0: the terminals' scripts). */
static int never_ran(const struct matrix *mx, const struct side *s, const char *name)
{
    for (size_t t = 0; t < s->n; t++) {
        const struct result_script_figures *f = script_of(&mx->res[s->cells[t]], name);
        if (f && (f->transactions > 0 || f->failed > 0))
            return 0;
    }
    return 1;
}

/* Per-script records for each script both sides ran (none unless they ran the same two or
 * more, and none for a script that no trial of a side ran: -c 0's terminal scripts): pooled
 * over the scripts of each side where Bartlett's test lets it (§3.7), else compare's
 * per-script latency verdicts over the cell's trials. */
static void script_records(struct matrix *mx, size_t p, size_t u, const struct side *a,
                           const struct side *b, const struct sweep_cell *vc,
                           const struct cmp_outcome *o)
{
    for (size_t k = 0; k < o->n_scripts; k++) {
        const char *name = o->scripts[k].name;
        size_t ja = script_index(a->scripts, name), jb = script_index(b->scripts, name);
        if (never_ran(mx, a, name) || never_ran(mx, b, name))
            continue;
        for (int m = 0; m < CMP_N_SCRIPT_METRICS; m++) {
            struct sweep_comparison *r = new_record(mx->f);
            record_cell(mx, vc, r);
            r->fig_point = p;
            r->fig_setup = u;
            r->script = xstrdup(name);
            struct cmp_pooled va, vb;
            int sa = script_var(mx, a, ja, m, &va), sb = script_var(mx, b, jb, m, &vb);
            if (sa < 0 || sb < 0 || (sa == 0 && sb == 0)) {
                fill_metric(r, CMP_P50 + m, &o->scripts[k].metrics[m], "cell", -1);
                continue;
            }
            int refused = (sa == 0 && va.homogeneous == 0) || (sb == 0 && vb.homogeneous == 0);
            struct cmp_metric pooled;
            cmp_pooled_ratio(CMP_DEFAULT_MARGIN, mean(a->scripts->logs[m] + ja * a->n, a->n), a->n,
                             &va, mean(b->scripts->logs[m] + jb * b->n, b->n), b->n, &vb, 1, NULL,
                             &pooled);
            fill_metric(r, CMP_P50 + m, &pooled, "pooled", !refused);
        }
    }
}

/* Per-class records (runs with statement classes): compare's class rows over the cell's trials (the
 * classes of every run of both sides whose p50 changed most). */
static void class_records(struct matrix *mx, size_t p, size_t u, const struct sweep_cell *vc,
                          const struct cmp_outcome *o)
{
    for (size_t k = 0; k < o->n_classes; k++)
        for (int m = 0; m < CMP_N_SCRIPT_METRICS; m++) {
            struct sweep_comparison *r = new_record(mx->f);
            record_cell(mx, vc, r);
            r->fig_point = p;
            r->fig_setup = u;
            r->stmt_class = xstrdup(o->classes[k].name);
            fill_metric(r, CMP_P50 + m, &o->classes[k].metrics[m], "cell", -1);
        }
}

/* Whether side s is of a -c 0 cell (analytic streams alone): its run's totals count
 * the terminals only, so it has none of the whole-run figures. */
static int no_terminals(const struct matrix *mx, const struct side *s)
{
    return mx->d->n_clients > 0 && mx->d->cells[s->cells[0]].clients == 0;
}

/* The trials of the cell's comparison whose client stalled, into the record r. */
static void record_stalls(const struct matrix *mx, const struct side *a, const struct side *b,
                          const struct cmp_report *rep, struct sweep_comparison *r)
{
    if (!rep->n_stalls)
        return;
    r->stalled = xcalloc(rep->n_stalls, sizeof *r->stalled);
    for (size_t k = 0; k < rep->n_stalls; k++) {
        const struct cmp_stall *st = &rep->stalls[k];
        const struct side *s = st->side == 0 ? a : b;
        const struct sweep_cell *c = &mx->d->cells[s->cells[st->trial - 1]];
        r->stalled[r->n_stalled++] =
            (struct sweep_stall){xstrdup(mx->d->setups[c->setup].label),
                                 xstrdup(st->side == 0 ? "baseline" : "value"),
                                 c->trial,
                                 st->stalled_ms,
                                 st->intervals,
                                 xstrdup(result_stall_cause_names[st->cause])};
    }
}

/* The records of the value side b against the baseline side a: one per whole-run metric
 * (none when a side has no terminals: -c 0), then the per-script and per-class ones. */
static void compare_sides(struct matrix *mx, size_t p, size_t u, const struct side *a,
                          const struct side *b)
{
    struct cmp_report rep;
    if (cell_compare(mx, a, b, &rep) < 0)
        return;
    const struct cmp_metric *cell = rep.outcomes[0].metrics;
    const struct sweep_cell *vc = &mx->d->cells[b->cells[0]];
    int whole_run = !no_terminals(mx, a) && !no_terminals(mx, b);
    /* A duet sweep's cell whose trials pair up: compare paired them by second (duet.h). */
    int duet = mx->d->duet && rep.outcomes[0].duet;
    for (int m = 0; whole_run && m < CMP_N_METRICS; m++) {
        struct sweep_comparison *r = new_record(mx->f);
        record_cell(mx, vc, r);
        r->fig_point = p;
        r->fig_setup = u;
        record_stalls(mx, a, b, &rep, r);
        if (duet) {
            fill_metric(r, m, &cell[m], "duet", -1);
            continue;
        }
        if (m >= CMP_N_RUN_FIGS || !a->ok || !b->ok) {
            fill_metric(r, m, &cell[m], "cell", -1);
            continue;
        }
        /* Each side's variance: its pool, or the cell's own where the test refused it. */
        const struct cmp_pooled *pool_a = &mx->pools[a->group][m];
        const struct cmp_pooled *pool_b = &mx->pools[b->group][m];
        struct cmp_pooled va, vb;
        int sa =
            cmp_pool_cell(pool_a, a->excluded[m], a->logs[m], a->n, floor_of(mx, a->group, m), &va);
        int sb =
            cmp_pool_cell(pool_b, b->excluded[m], b->logs[m], b->n, floor_of(mx, b->group, m), &vb);
        int refused = (a->excluded[m] && pool_a->homogeneous == 0) ||
                      (b->excluded[m] && pool_b->homogeneous == 0);
        if (sa >= 0 && sb >= 0 && (sa == 1 || sb == 1)) {
            struct cmp_metric pooled;
            char gate[200];
            const char *hard =
                m == CMP_TPS ? cmp_failure_gate(&cell[CMP_FAILURE_RATE], gate, sizeof gate) : NULL;
            cmp_pooled_ratio(CMP_DEFAULT_MARGIN, mean(a->logs[m], a->n), a->n, &va,
                             mean(b->logs[m], b->n), b->n, &vb, m != CMP_TPS, hard, &pooled);
            fill_metric(r, m, &pooled, "pooled", !refused);
        } else {
            fill_metric(r, m, &cell[m], "cell", refused ? 0 : -1);
        }
    }
    if (!duet) { /* a duet's records are its whole-run metrics, paired */
        script_records(mx, p, u, a, b, vc, &rep.outcomes[0]);
        class_records(mx, p, u, vc, &rep.outcomes[0]);
    }
    cmp_report_free(&rep);
}

void sweep_figs_compare(const struct sweep_doc *d, const struct result *res,
                        const char *const *paths, struct sweep_figs *f)
{
    struct matrix mx = {
        .d = d, .res = res, .paths = paths, .axis = f->axis, .f = f, .n_setups = d->n_setups};
    size_t n_sides = f->n * d->n_setups;
    mx.sides = xcalloc(n_sides + 1, sizeof *mx.sides);
    for (size_t k = 0; k < n_sides; k++)
        side_figures(&mx, k / d->n_setups, k % d->n_setups, &mx.sides[k]);
    pool_groups(&mx);
    char base[256], v[256];
    axis_values(d, f->axis, base, sizeof base);
    int by_setup = strcmp(f->axis, "setup") == 0;
    for (size_t p = 0; p < f->n; p++) {
        const struct sweep_cell *pc = &d->cells[f->points[p].first];
        for (size_t u = by_setup ? 1 : 0; u < d->n_setups; u++) {
            struct sweep_cell vc = *pc;
            vc.setup = u;
            if (!by_setup && strcmp(sweep_axis_value(v, sizeof v, d, &vc, f->axis), base) == 0)
                continue;
            /* The baseline: the first setup at this point, or this setup at the point with
             * the axis's first value. */
            size_t q = p, bu = by_setup ? 0 : u;
            if (!by_setup)
                for (q = 0; q < f->n; q++) {
                    struct sweep_cell qc = d->cells[f->points[q].first];
                    qc.setup = u;
                    if (same_but(&qc, pc, f->axis) &&
                        strcmp(sweep_axis_value(v, sizeof v, d, &qc, f->axis), base) == 0)
                        break;
                }
            if (q == f->n)
                continue;
            const struct side *a = &mx.sides[q * d->n_setups + bu];
            const struct side *b = &mx.sides[p * d->n_setups + u];
            if (a->n && b->n)
                compare_sides(&mx, p, u, a, b);
        }
    }
    for (size_t k = 0; k < n_sides; k++) {
        free(mx.sides[k].cells);
        for (int m = 0; m < CMP_N_RUN_FIGS; m++)
            free(mx.sides[k].logs[m]);
        side_scripts_free(mx.sides[k].scripts);
    }
    free(mx.sides);
    free(mx.pools);
    free(mx.floors);
    free(mx.script_pools);
}
