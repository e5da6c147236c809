/* A sweep's table and JSON. */
#include "report/sweep_out.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "report/compare_out.h"
#include "report/fmt.h"

char *report_sweep_point(char *buf, size_t size, const struct sweep_doc *d,
                         const struct sweep_cell *c)
{
    int n = snprintf(buf, size, "%lld client%s", (long long)c->clients, c->clients == 1 ? "" : "s");
    if (c->rate > 0 && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, ", -R %g", c->rate);
    if (d->n_scales && n >= 0 && (size_t)n < size)
        n += snprintf(buf + n, size - (size_t)n, ", scale %lld", (long long)c->scale);
    for (size_t i = 0; i < c->n_settings && n >= 0 && (size_t)n < size; i++)
        n += snprintf(buf + n, size - (size_t)n, ", %s=%s", c->settings[i].name,
                      c->settings[i].value);
    return buf;
}

static void pct(char *buf, size_t size, double v)
{
    if (!isfinite(v))
        snprintf(buf, size, "-");
    else if (v >= 1000) /* an interval this wide says only "far wider than the change" */
        snprintf(buf, size, ">+999%%");
    else
        snprintf(buf, size, fabs(v) < 100 ? "%+.1f%%" : "%+.0f%%", v);
}

static void change_cell(char *buf, size_t size, const struct cmp_metric *m)
{
    char c[16], lo[16], hi[16];
    pct(c, sizeof c, m->change_pct);
    pct(lo, sizeof lo, m->ci_low_pct);
    pct(hi, sizeof hi, m->ci_high_pct);
    snprintf(buf, size, "%s [%s, %s] %s", c, lo, hi, cmp_verdict_names[m->verdict]);
}

static void header(FILE *out, const struct sweep_doc *d)
{
    fprintf(out, "%-7s", "clients");
    if (d->n_rates || d->max_rate.have)
        fprintf(out, " %9s", "rate");
    if (d->n_scales)
        fprintf(out, " %6s", "scale");
    for (size_t k = 0; k < d->n_sets; k++)
        fprintf(out, " %12.12s", d->sets[k].name);
    for (size_t u = 0; u < d->n_setups; u++)
        fprintf(out, " | %10.10s tps %9s", d->setups[u].label, "p99");
    for (size_t u = 1; u < d->n_setups; u++) {
        char title[64];
        snprintf(title, sizeof title, "%.20s: tps change [95%% CI] verdict", d->setups[u].label);
        fprintf(out, " | %-40s %s", title, "p99 change [95% CI] verdict");
    }
    fputc('\n', out);
}

void report_sweep_text(FILE *out, const struct sweep_doc *d, const struct sweep_figs *f)
{
    if (d->n_setups > 1)
        fprintf(out,
                "baseline %s; changes against it: 95 %% CI and verdict over each cell's "
                "trials\n",
                d->setups[0].label);
    header(out, d);
    for (size_t i = 0; i < f->n; i++) {
        const struct sweep_fig_point *p = &f->points[i];
        const struct sweep_cell *c = &d->cells[p->first];
        fprintf(out, "%7lld", (long long)c->clients);
        if (d->n_rates || d->max_rate.have)
            fprintf(out, " %9g", c->rate);
        if (d->n_scales)
            fprintf(out, " %6lld", (long long)c->scale);
        for (size_t k = 0; k < c->n_settings; k++)
            fprintf(out, " %12.12s", c->settings[k].value);
        for (size_t u = 0; u < d->n_setups; u++) {
            char tps[32] = "-", p99[32] = "-";
            if (p->setups[u].n) {
                report_fmt_sig(tps, sizeof tps, p->setups[u].tps, 5);
                report_fmt_latency(p99, sizeof p99, p->setups[u].p99_us);
            }
            fprintf(out, " | %14s %9s", tps, p99);
        }
        for (size_t u = 1; u < d->n_setups; u++) {
            char a[96] = "-", b[96] = "-";
            for (size_t k = 0; k < p->n_cmp; k++)
                if (p->cmp_setup[k] == u) {
                    change_cell(a, sizeof a, &p->cmp[k].metrics[CMP_TPS]);
                    change_cell(b, sizeof b, &p->cmp[k].metrics[CMP_P99]);
                }
            fprintf(out, " | %-40s %s", a, b);
        }
        fputc('\n', out);
        for (size_t k = 0; k < p->n_cmp; k++)
            for (int m = 0; m < CMP_N_METRICS; m++) {
                const struct cmp_metric *x = &p->cmp[k].metrics[m];
                if ((m == CMP_TPS || m == CMP_P99) && x->verdict == CMP_INCONCLUSIVE &&
                    strstr(x->detail, "trials per side"))
                    fprintf(out, "        %s %s: %s\n", d->setups[p->cmp_setup[k]].label,
                            cmp_metric_names[m], x->detail);
            }
    }
    if (d->max_rate.have && d->max_rate.tps > 0) {
        char lo[32] = "-", hi[32] = "-";
        if (isfinite(d->max_rate.ci_low))
            report_fmt_sig(lo, sizeof lo, d->max_rate.ci_low, 4);
        if (isfinite(d->max_rate.ci_high))
            report_fmt_sig(hi, sizeof hi, d->max_rate.ci_high, 4);
        char tps[32];
        fprintf(out, "max rate meeting %s: %s tps (95%% CI of the achieved rate [%s, %s])",
                d->max_rate.slo, report_fmt_sig(tps, sizeof tps, d->max_rate.tps, 4), lo, hi);
        if (d->max_rate.failed_at > 0)
            fprintf(out, "; %g tps missed it", d->max_rate.failed_at);
        fputc('\n', out);
    } else if (d->max_rate.have) {
        fprintf(out, "max rate meeting %s: none found (even the lowest rate tried missed it)\n",
                d->max_rate.slo);
    }
}

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *point_json(const struct sweep_doc *d, const struct sweep_fig_point *p)
{
    const struct sweep_cell *c = &d->cells[p->first];
    json_t *o = json_object(), *settings = json_object(), *setups = json_array(),
           *cmps = json_array();
    json_object_set_new(o, "clients", json_integer(c->clients));
    json_object_set_new(o, "rate", c->rate > 0 ? json_real(c->rate) : json_null());
    json_object_set_new(o, "scale", c->scale ? json_integer(c->scale) : json_null());
    for (size_t k = 0; k < c->n_settings; k++)
        json_object_set_new(settings, c->settings[k].name, json_string(c->settings[k].value));
    json_object_set_new(o, "settings", settings);
    for (size_t u = 0; u < d->n_setups; u++) {
        const struct sweep_fig_setup *s = &p->setups[u];
        json_t *j = json_object();
        json_object_set_new(j, "label", json_string(d->setups[u].label));
        json_object_set_new(j, "trials", json_integer((json_int_t)s->n));
        json_object_set_new(j, "tps", number(s->tps));
        json_object_set_new(j, "tps_ci_low", number(s->tps_lo));
        json_object_set_new(j, "tps_ci_high", number(s->tps_hi));
        json_object_set_new(j, "p99_us", number(s->p99_us));
        json_object_set_new(j, "p99_ci_low", number(s->p99_lo));
        json_object_set_new(j, "p99_ci_high", number(s->p99_hi));
        json_array_append_new(setups, j);
    }
    json_object_set_new(o, "setups", setups);
    for (size_t k = 0; k < p->n_cmp; k++) {
        json_t *j = json_object(), *metrics = json_array();
        json_object_set_new(j, "side", json_string(d->setups[p->cmp_setup[k]].label));
        for (int m = 0; m < CMP_N_METRICS; m++)
            json_array_append_new(metrics, report_metric_json(&p->cmp[k].metrics[m], m, NULL));
        json_object_set_new(j, "metrics", metrics);
        json_array_append_new(cmps, j);
    }
    json_object_set_new(o, "comparisons", cmps);
    return o;
}

int report_sweep_json(FILE *out, const struct sweep_doc *d, const struct sweep_figs *f,
                      struct err *e)
{
    json_t *root = json_object(), *points = json_array();
    for (size_t i = 0; i < f->n; i++)
        json_array_append_new(points, point_json(d, &f->points[i]));
    json_object_set_new(root, "points", points);
    if (d->max_rate.have) {
        json_t *m = json_object();
        json_object_set_new(m, "tps",
                            d->max_rate.tps > 0 ? json_real(d->max_rate.tps) : json_null());
        json_object_set_new(m, "slo", json_string(d->max_rate.slo ? d->max_rate.slo : ""));
        json_object_set_new(m, "ci_low", number(d->max_rate.ci_low));
        json_object_set_new(m, "ci_high", number(d->max_rate.ci_high));
        json_object_set_new(root, "max_rate", m);
    } else {
        json_object_set_new(root, "max_rate", json_null());
    }
    int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    fputc('\n', out);
    return rc == 0 ? 0 : err_set(e, ERR_RUNTIME, "cannot write the JSON output");
}
