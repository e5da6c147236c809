/* Series: filter, group, order, figures per run, change points and the gate. */
#include "history/history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "result/field.h"
#include "result/part.h"
#include "result/run_id.h"

/* The default grouping: what makes runs "the same benchmark". "scripts" is the hash of the
 * workload's scripts (not a result path: the texts themselves). The workloads' parts' fields
 * too (result/part.h: a workload without scripts names its input there, so that runs of other
 * inputs are other series); absent in other runs, they are left out of those runs' keys. */
static const char *const default_fixed[] = {"workload.name", "workload.scale",
                                            "scripts",       "options.clients",
                                            "options.rate",  "options.protocol"};
#define N_DEFAULT_FIXED (sizeof default_fixed / sizeof *default_fixed)
#define MAX_DEFAULT_BY  (N_DEFAULT_FIXED + 16)

/* The default grouping's fields into by (MAX_DEFAULT_BY); their number. */
static size_t default_by(const char **by)
{
    size_t n = 0;
    for (; n < N_DEFAULT_FIXED; n++)
        by[n] = default_fixed[n];
    for (size_t i = 0; result_part_field_name(i) && n < MAX_DEFAULT_BY; i++)
        by[n++] = result_part_field_name(i);
    return n;
}

void history_opts_init(struct history_opts *o)
{
    memset(o, 0, sizeof *o);
    o->order = "started_at";
    o->metrics[CMP_TPS] = o->metrics[CMP_P99] = 1;
    detect_config_default(&o->detect);
}

void history_opts_free(struct history_opts *o)
{
    for (size_t i = 0; i < o->n_filters; i++) {
        free(o->filters[i].field);
        free(o->filters[i].value);
    }
    for (size_t i = 0; i < o->n_by; i++)
        free(o->by[i]);
    for (size_t i = 0; i < o->n_accepted; i++)
        free(o->accepted[i]);
    free(o->accepted);
    memset(o, 0, sizeof *o);
}

static int bad_field(const char *what, const char *name, struct err *e)
{
    return err_set(e, ERR_INPUT, "history: %s '%s' is not a field (fields: %s)", what, name,
                   result_field_names());
}

int history_add_filter(struct history_opts *o, const char *arg, struct err *e)
{
    const char *p = strpbrk(arg, "=!<>");
    if (!p || p == arg || (*p == '!' && p[1] != '='))
        return err_set(e, ERR_INPUT,
                       "history: invalid --where '%s' (expected FIELD=VALUE, FIELD!=VALUE, "
                       "FIELD<VALUE or FIELD>VALUE)",
                       arg);
    if (o->n_filters == HISTORY_MAX_FILTERS)
        return err_set(e, ERR_INPUT, "history: too many --where options");
    char *field = xstrndup(arg, (size_t)(p - arg));
    if (!result_field_valid(field)) {
        bad_field("--where", field, e);
        free(field);
        return -1;
    }
    struct history_filter *f = &o->filters[o->n_filters++];
    f->field = field;
    f->op = *p == '=' ? HISTORY_EQ : *p == '!' ? HISTORY_NE : *p == '<' ? HISTORY_LT : HISTORY_GT;
    f->value = xstrdup(p + (*p == '!' ? 2 : 1));
    return 0;
}

int history_set_by(struct history_opts *o, const char *list, struct err *e)
{
    for (size_t i = 0; i < o->n_by; i++)
        free(o->by[i]);
    o->n_by = 0;
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        char *f = xstrndup(p, n);
        if (!result_field_valid(f) && strcmp(f, "scripts") != 0) {
            bad_field("--by", f, e);
            free(f);
            return -1;
        }
        if (o->n_by == HISTORY_MAX_BY) {
            free(f);
            return err_set(e, ERR_INPUT, "history: too many --by fields");
        }
        o->by[o->n_by++] = f;
        p += n + (p[n] == ',');
    }
    if (o->n_by == 0)
        return err_set(e, ERR_INPUT, "history: --by needs at least one field");
    return 0;
}

int history_set_metrics(struct history_opts *o, const char *list, struct err *e)
{
    memset(o->metrics, 0, sizeof o->metrics);
    const char *p = list;
    int any = 0;
    while (*p) {
        size_t n = strcspn(p, ",");
        int found = -1;
        for (int m = 0; m < CMP_N_METRICS; m++)
            if (strlen(cmp_metric_names[m]) == n && strncmp(p, cmp_metric_names[m], n) == 0)
                found = m;
        if (found < 0)
            return err_set(e, ERR_INPUT,
                           "history: unknown metric '%.*s' (tps, latency_p50, latency_p95, "
                           "latency_p99, failure_rate)",
                           (int)n, p);
        o->metrics[found] = any = 1;
        p += n + (p[n] == ',');
    }
    return any ? 0 : err_set(e, ERR_INPUT, "history: --metric needs at least one metric");
}

int history_set_order(struct history_opts *o, const char *key, struct err *e)
{
    if (strcmp(key, "started_at") != 0 && !(strncmp(key, "meta.", 5) == 0 && key[5]))
        return err_set(e, ERR_INPUT, "history: --order takes started_at or meta.KEY, not '%s'",
                       key);
    o->order = key;
    return 0;
}

/* A value's comparison with another: as numbers when both are, else as text. */
static int compare_values(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (*a && *b && !*ea && !*eb)
        return (x > y) - (x < y);
    return strcmp(a, b);
}

static char *scripts_hash(const struct result *r)
{
    struct run_id_hash h;
    char id[RUN_ID_LEN + 1];
    run_id_hash_init(&h);
    for (size_t i = 0; i < r->workload.n_scripts; i++) {
        const struct result_script_text *s = &r->workload.scripts[i];
        run_id_hash_add(&h, &s->weight, sizeof s->weight);
        if (s->text)
            run_id_hash_add(&h, s->text, strlen(s->text) + 1);
    }
    run_id_hash_uuid(&h, id);
    return xstrndup(id, 8);
}

/* A default grouping field that only some runs have, left out of a key where absent. */
static int omitted(const char *field, const char *value, int defaults)
{
    if (!defaults || value)
        return 0;
    for (size_t i = 0; result_part_field_name(i); i++)
        if (strcmp(result_part_field_name(i), field) == 0)
            return 1;
    return 0;
}

/* A grouping field's value: a result field, or the scripts' hash. */
static int group_value(const struct result *r, const char *field, char **value)
{
    if (strcmp(field, "scripts") == 0) {
        *value = scripts_hash(r);
        return 1;
    }
    return result_field_value(r, field, value);
}

static int passes(const struct result *r, const struct history_opts *o)
{
    for (size_t i = 0; i < o->n_filters; i++) {
        const struct history_filter *f = &o->filters[i];
        char *v;
        int present = result_field_value(r, f->field, &v), ok;
        if (!present)
            ok = f->op == HISTORY_NE;
        else {
            int c = compare_values(v, f->value);
            ok = f->op == HISTORY_EQ   ? c == 0
                 : f->op == HISTORY_NE ? c != 0
                 : f->op == HISTORY_LT ? c < 0
                                       : c > 0;
        }
        free(v);
        if (!ok)
            return 0;
    }
    return 1;
}

/* A run's figure of a metric, and a CI from the spread of its intervals (approximate: the
 * intervals are taken as independent). */
static void figure(const struct result *r, int metric, struct history_point *p)
{
    uint64_t all = r->summary.transactions + r->summary.failed;
    double v;
    switch (metric) {
    case CMP_TPS:
        v = r->summary.tps;
        break;
    case CMP_P50:
        v = r->summary.latency_us.p50;
        break;
    case CMP_P95:
        v = r->summary.latency_us.p95;
        break;
    case CMP_P99:
        v = r->summary.latency_us.p99;
        break;
    default:
        v = all ? (double)r->summary.failed / (double)all : 0;
        break;
    }
    p->value = v;
    p->ci_low = p->ci_high = NAN;
    if (metric == CMP_FAILURE_RATE) {
        if (all) {
            double h = 1.96 * sqrt(v * (1 - v) / (double)all);
            p->ci_low = fmax(0, v - h);
            p->ci_high = v + h;
        }
        return;
    }
    double s = 0, ss = 0;
    size_t n = 0;
    for (size_t i = 0; i < r->n_intervals; i++) {
        const struct result_interval *it = &r->intervals[i];
        if (it->duration_s <= 0 || it->transactions == 0)
            continue;
        double x = metric == CMP_TPS ? it->tps : metric == CMP_P50 ? it->p50_us : it->p99_us;
        s += x;
        ss += x * x;
        n++;
    }
    if (n < 2 || s <= 0)
        return;
    double mean = s / (double)n, sd = sqrt(fmax(0, (ss - s * mean) / (double)(n - 1)));
    double h = 1.96 * sd / mean / sqrt((double)n) * v;
    p->ci_low = v - h;
    p->ci_high = v + h;
}

/* Higher is better for throughput only. */
static double goodness(int metric, double pct)
{
    return metric == CMP_TPS ? pct : -pct;
}

/* compare's words for a change whose CI (in goodness terms) is [l, u], margin m (%). */
static enum cmp_verdict verdict(double l, double u, double m)
{
    if (isnan(l) || isnan(u))
        return CMP_INCONCLUSIVE;
    if (l > 0)
        return u <= m ? CMP_NO_DIFFERENCE : CMP_BETTER;
    if (u < 0)
        return l >= -m ? CMP_NO_DIFFERENCE : CMP_WORSE;
    if (-m <= l && u <= m)
        return CMP_NO_DIFFERENCE;
    return CMP_INCONCLUSIVE;
}

static int is_accepted(const struct history_opts *o, const char *run_id)
{
    for (size_t i = 0; run_id && i < o->n_accepted; i++)
        if (strcmp(o->accepted[i], run_id) == 0)
            return 1;
    return 0;
}

/* Few earlier runs: compare's verdict on the newest against them all. */
static void gate_by_compare(const struct result *runs, struct history_metric *hm,
                            const struct history_opts *o)
{
    size_t n = hm->n_points;
    struct result *copy = xcalloc(n, sizeof *copy);
    const char **paths = xcalloc(n, sizeof *paths);
    for (size_t i = 0; i < n; i++) {
        copy[i] = runs[hm->points[i].run]; /* shallow: compare only reads */
        copy[i].label = (char *)(i + 1 < n ? "earlier" : "newest");
        paths[i] = copy[i].run_id ? copy[i].run_id : "run";
    }
    struct cmp_config cfg = {o->detect.seed, o->detect.min_effect, CMP_RESAMPLES};
    struct cmp_report rep;
    struct err e = {0};
    if (cmp_compare(copy, paths, n, &cfg, &rep, &e) == 0) {
        const struct cmp_metric *m = &rep.outcomes[0].metrics[hm->metric];
        if (m->verdict == CMP_WORSE) {
            hm->regressed = hm->by_compare = 1;
            hm->first = n - 1;
            hm->change_pct = m->change_pct;
            hm->ci_low = m->ci_low_pct;
            hm->ci_high = m->ci_high_pct;
        }
        cmp_report_free(&rep);
    }
    free(copy);
    free(paths);
}

/* The share of stalled intervals over the runs (in %), NAN when none recorded its health. */
static double stalled_pct(const struct result *runs, const size_t *idx, size_t n)
{
    double all = 0, stalled = 0;
    for (size_t i = 0; i < n; i++) {
        const struct result_client_health *h = &runs[idx[i]].client_health;
        if (!h->present)
            continue;
        all += (double)h->intervals;
        stalled += (double)h->intervals_stalled;
    }
    return all > 0 ? 100 * stalled / all : NAN;
}

static const char *client_value(const struct result *r, int kernel)
{
    const char *v = kernel ? r->client.kernel : r->client.cpu_model;
    return v ? v : "?";
}

/* The runs' values of the client's kernel (or CPU model) joined by ", " in the order met, each
 * once ("?" for unknown); caller frees. */
static char *values_of(const struct result *runs, const size_t *idx, size_t n, int kernel)
{
    char *out = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *v = client_value(&runs[idx[i]], kernel);
        size_t j = 0;
        while (j < i && strcmp(client_value(&runs[idx[j]], kernel), v) != 0)
            j++;
        if (j < i)
            continue;
        char *more = xasprintf("%s%s%s", out ? out : "", out ? ", " : "", v);
        free(out);
        out = more;
    }
    return out ? out : xstrdup("");
}

char *history_machine_line(const struct result *runs, const size_t *idx, size_t n_before, size_t n)
{
    char *line = NULL;
    double a = stalled_pct(runs, idx, n_before),
           b = stalled_pct(runs, idx + n_before, n - n_before);
    if (!isnan(a) && !isnan(b) && fabs(b - a) >= HISTORY_STALL_POINTS)
        line = xasprintf("client stalled in %.1f %% of intervals -> %.1f %%", a, b);
    for (int kernel = 1; kernel >= 0; kernel--) {
        char *va = values_of(runs, idx, n_before, kernel);
        char *vb = values_of(runs, idx + n_before, n - n_before, kernel);
        if (strcmp(va, vb) != 0) {
            char *more = xasprintf("%s%s%s %s -> %s", line ? line : "", line ? "; " : "",
                                   kernel ? "kernel" : "cpu", va, vb);
            free(line);
            line = more;
        }
        free(va);
        free(vb);
    }
    if (!line)
        return NULL;
    char *out = xasprintf("the machine changed too: %s", line);
    free(line);
    return out;
}

static void analyse_metric(const struct result *runs, const size_t *order, size_t n, int metric,
                           const struct history_opts *o, struct history_metric *hm)
{
    hm->metric = metric;
    hm->n_points = n;
    hm->points = xcalloc(n + 1, sizeof *hm->points);
    double *x = xcalloc(n + 1, sizeof *x);
    for (size_t i = 0; i < n; i++) {
        struct history_point *p = &hm->points[i];
        p->run = order[i];
        figure(&runs[order[i]], metric, p);
        x[i] = p->value;
    }
    struct detect_change *ch = xcalloc(n / DETECT_MIN_SEGMENT + 2, sizeof *ch);
    hm->n_changes = detect_changes(x, n, &o->detect, ch);
    hm->changes = xcalloc(hm->n_changes + 1, sizeof *hm->changes);
    double margin = 100 * o->detect.min_effect;
    for (size_t k = 0; k < hm->n_changes; k++) {
        struct history_change *c = &hm->changes[k];
        c->d = ch[k];
        double l = goodness(metric, ch[k].ci_low), u = goodness(metric, ch[k].ci_high);
        c->verdict = verdict(fmin(l, u), fmax(l, u), margin);
        size_t from = k ? ch[k - 1].index : 0, to = k + 1 < hm->n_changes ? ch[k + 1].index : n;
        c->machine = history_machine_line(runs, order + from, ch[k].index - from, to - from);
    }
    free(ch);
    free(x);
    if (n >= 1 && n - 1 < HISTORY_MIN_EARLIER) {
        if (n >= 2)
            gate_by_compare(runs, hm, o);
    } else if (hm->n_changes > 0) {
        const struct history_change *last = &hm->changes[hm->n_changes - 1];
        if (goodness(metric, last->d.change_pct) < 0 || isnan(last->d.change_pct)) {
            hm->regressed = 1;
            hm->first = last->d.index;
            hm->change_pct = last->d.change_pct;
            hm->ci_low = last->d.ci_low;
            hm->ci_high = last->d.ci_high;
        }
    }
    if (hm->regressed)
        for (size_t i = hm->first; i < n; i++)
            if (is_accepted(o, runs[hm->points[i].run].run_id))
                hm->accepted = 1;
}

struct keyed {
    size_t run;
    char *key;   /* the grouping values joined */
    char *order; /* the order key */
};

/* Order within a series: by the order key, then by started_at, then by run id. */
static const struct result *sort_runs;
static int by_order(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    c = compare_values(x->order, y->order);
    if (c)
        return c;
    const struct result *rx = &sort_runs[x->run], *ry = &sort_runs[y->run];
    c = strcmp(rx->started_at ? rx->started_at : "", ry->started_at ? ry->started_at : "");
    return c ? c : strcmp(rx->run_id ? rx->run_id : "", ry->run_id ? ry->run_id : "");
}

static void add_series(const struct result *runs, const struct keyed *k, size_t n,
                       const char *const *by, size_t n_by, const struct history_opts *o,
                       struct history_out *out)
{
    struct history_series *s = &out->series[out->n_series++];
    s->key = xstrdup(k[0].key);
    s->fields = xcalloc(n_by, sizeof *s->fields);
    s->values = xcalloc(n_by, sizeof *s->values);
    for (size_t f = 0; f < n_by; f++) {
        char *v;
        group_value(&runs[k[0].run], by[f], &v);
        if (omitted(by[f], v, !o->n_by))
            continue;
        s->fields[s->n_fields] = xstrdup(by[f]);
        s->values[s->n_fields++] = v;
    }
    size_t *order = xcalloc(n, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = k[i].run;
    s->metrics = xcalloc(CMP_N_METRICS, sizeof *s->metrics);
    for (int m = 0; m < CMP_N_METRICS; m++)
        if (o->metrics[m])
            analyse_metric(runs, order, n, m, o, &s->metrics[s->n_metrics++]);
    for (size_t m = 0; m < s->n_metrics; m++)
        for (size_t i = 0; i < n; i++)
            s->metrics[m].points[i].order = xstrdup(k[i].order);
    free(order);
}

int history_analyse(const struct result *runs, size_t n, const struct history_opts *o,
                    struct history_out *out, struct err *e)
{
    (void)e;
    memset(out, 0, sizeof *out);
    const char *defaults[MAX_DEFAULT_BY];
    size_t n_defaults = default_by(defaults);
    const char *const *by = o->n_by ? (const char *const *)o->by : defaults;
    size_t n_by = o->n_by ? o->n_by : n_defaults, nk = 0;
    struct keyed *k = xcalloc(n + 1, sizeof *k);
    for (size_t i = 0; i < n; i++) {
        if (runs[i].has_duet) { /* ran beside its partner: not comparable with solo runs */
            out->n_duet++;
            continue;
        }
        if (!passes(&runs[i], o)) {
            out->n_filtered++;
            continue;
        }
        char *ord;
        if (!result_field_value(&runs[i], o->order, &ord)) {
            out->n_unordered++;
            continue;
        }
        size_t len = 1;
        char **vals = xcalloc(n_by, sizeof *vals);
        for (size_t f = 0; f < n_by; f++) {
            group_value(&runs[i], by[f], &vals[f]);
            len += strlen(by[f]) + (vals[f] ? strlen(vals[f]) : 8) + 3;
        }
        char *key = xcalloc(len, 1);
        for (size_t f = 0; f < n_by; f++) {
            if (omitted(by[f], vals[f], !o->n_by))
                continue;
            if (*key)
                strcat(key, ", ");
            strcat(key, by[f]);
            strcat(key, "=");
            strcat(key, vals[f] ? vals[f] : "(absent)");
            free(vals[f]);
        }
        free(vals);
        k[nk++] = (struct keyed){i, key, ord};
    }
    sort_runs = runs;
    qsort(k, nk, sizeof *k, by_order);
    out->series = xcalloc(nk + 1, sizeof *out->series);
    for (size_t i = 0; i < nk;) {
        size_t j = i;
        while (j < nk && strcmp(k[j].key, k[i].key) == 0)
            j++;
        add_series(runs, k + i, j - i, by, n_by, o, out);
        i = j;
    }
    for (size_t i = 0; i < nk; i++) {
        free(k[i].key);
        free(k[i].order);
    }
    free(k);
    return 0;
}

int history_regressed(const struct history_out *out)
{
    for (size_t s = 0; s < out->n_series; s++)
        for (size_t m = 0; m < out->series[s].n_metrics; m++)
            if (out->series[s].metrics[m].regressed && !out->series[s].metrics[m].accepted)
                return 1;
    return 0;
}

void history_out_free(struct history_out *out)
{
    for (size_t s = 0; s < out->n_series; s++) {
        struct history_series *hs = &out->series[s];
        for (size_t m = 0; m < hs->n_metrics; m++) {
            for (size_t i = 0; i < hs->metrics[m].n_points; i++)
                free(hs->metrics[m].points[i].order);
            free(hs->metrics[m].points);
            for (size_t k = 0; k < hs->metrics[m].n_changes; k++)
                free(hs->metrics[m].changes[k].machine);
            free(hs->metrics[m].changes);
        }
        free(hs->metrics);
        for (size_t f = 0; f < hs->n_fields; f++) {
            free(hs->fields[f]);
            free(hs->values[f]);
        }
        free(hs->fields);
        free(hs->values);
        free(hs->key);
    }
    free(out->series);
    memset(out, 0, sizeof *out);
}
