/* A sweep's table and JSON. */
#include "report/sweep_out.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "base/mem.h"
#include "report/compare_out.h"
#include "report/fmt.h"

char *report_sweep_point(char *buf, size_t size, const struct sweep_doc *d,
                         const struct sweep_cell *c)
{
    char sp[32];
    int n = c->speed != 0
                ? snprintf(buf, size, "speed %s", sweep_speed_text(sp, sizeof sp, c->speed))
                : snprintf(buf, size, "%lld client%s", (long long)c->clients,
                           c->clients == 1 ? "" : "s");
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

/* "+12.0% [+8.1%, +16.0%] better pooled" */
static void change_cell(char *buf, size_t size, const struct sweep_comparison *r)
{
    char c[16], lo[16], hi[16];
    pct(c, sizeof c, r->change_pct);
    pct(lo, sizeof lo, r->ci_low);
    pct(hi, sizeof hi, r->ci_high);
    snprintf(buf, size, "%s [%s, %s] %s %s", c, lo, hi, r->verdict, r->method);
}

const struct sweep_comparison *report_sweep_find(const struct sweep_figs *f, size_t point,
                                                 size_t setup, const char *metric)
{
    for (size_t k = 0; k < f->n_cmps; k++)
        if (f->cmps[k].fig_point == point && f->cmps[k].fig_setup == setup && !f->cmps[k].script &&
            !f->cmps[k].stmt_class && strcmp(f->cmps[k].metric, metric) == 0)
            return &f->cmps[k];
    return NULL;
}

size_t report_sweep_first_cmp_setup(const struct sweep_figs *f)
{
    return f->axis && strcmp(f->axis, "setup") == 0 ? 1 : 0;
}

/* Columns on a terminal: UTF-8 code points (a label may hold any). */
static size_t text_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* A table whose columns are as wide as their widest text, the header included: nothing is
 * ever cut. Cells are kept as text; the first columns (the axes) are right-aligned, the
 * comparisons left-aligned after a bar. */
struct grid {
    size_t rows, cols;
    char **text;   /* rows x cols */
    size_t *width; /* per column */
    int *bar;      /* a " | " before the column */
    int *left;     /* left-aligned */
};

static void grid_init(struct grid *g, size_t rows, size_t cols)
{
    g->rows = rows;
    g->cols = cols;
    g->text = xcalloc(rows * cols + 1, sizeof *g->text);
    g->width = xcalloc(cols + 1, sizeof *g->width);
    g->bar = xcalloc(cols + 1, sizeof *g->bar);
    g->left = xcalloc(cols + 1, sizeof *g->left);
}

static void grid_set(struct grid *g, size_t row, size_t col, const char *text)
{
    free(g->text[row * g->cols + col]);
    g->text[row * g->cols + col] = xstrdup(text);
    size_t w = text_width(text);
    g->width[col] = w > g->width[col] ? w : g->width[col];
}

static void grid_row(FILE *out, const struct grid *g, size_t row)
{
    for (size_t c = 0; c < g->cols; c++) {
        const char *t = g->text[row * g->cols + c] ? g->text[row * g->cols + c] : "";
        int pad = (int)(g->width[c] - text_width(t));
        int last = c + 1 == g->cols;
        fputs(c == 0 ? "" : g->bar[c] ? " | " : " ", out);
        if (g->left[c])
            fprintf(out, "%s%*s", t, last ? 0 : pad, "");
        else
            fprintf(out, "%*s%s", pad, "", t);
    }
    fputc('\n', out);
}

static void grid_free(struct grid *g)
{
    for (size_t i = 0; i < g->rows * g->cols; i++)
        free(g->text[i]);
    free(g->text);
    free(g->width);
    free(g->bar);
    free(g->left);
}

/* The name of a value side in the table: its setup's label, or axis=value (and the label with
 * several setups). */
static void side_name(char *buf, size_t size, const struct sweep_doc *d, const char *axis,
                      const char *value, size_t setup)
{
    if (strcmp(axis, "setup") == 0)
        snprintf(buf, size, "%s", value);
    else if (d->n_setups > 1)
        snprintf(buf, size, "%s %s=%s", d->setups[setup].label, axis, value);
    else
        snprintf(buf, size, "%s=%s", axis, value);
}

/* A record's script, or with classes set its statement class (NULL: not such a record). */
static const char *part_of(const struct sweep_comparison *r, int classes)
{
    return classes ? r->stmt_class : r->script;
}

/* Per-script p50 and p99 changes (records exist only when the runs had two or more scripts):
 * which scripts the compared axis moved; with classes set, the statement classes. */
static void script_block(FILE *out, const struct sweep_doc *d, const struct sweep_figs *f,
                         int classes)
{
    int header = 0;
    for (size_t k = 0; k < f->n_cmps; k++) {
        const struct sweep_comparison *r = &f->cmps[k];
        if (!part_of(r, classes) || strcmp(r->metric, "latency_p50") != 0)
            continue;
        const struct sweep_comparison *p99 = NULL;
        for (size_t j = k + 1; j < f->n_cmps && !p99; j++)
            if (part_of(&f->cmps[j], classes) && f->cmps[j].fig_point == r->fig_point &&
                f->cmps[j].fig_setup == r->fig_setup &&
                strcmp(part_of(&f->cmps[j], classes), part_of(r, classes)) == 0 &&
                strcmp(f->cmps[j].metric, "latency_p99") == 0)
                p99 = &f->cmps[j];
        if (!header++)
            fprintf(out, "per %s: latency change [95%% CI] verdict method\n",
                    classes ? "statement class" : "script");
        char where[600], a[160], b[160] = "-";
        report_sweep_point(where, sizeof where, d, &d->cells[f->points[r->fig_point].first]);
        change_cell(a, sizeof a, r);
        if (p99)
            change_cell(b, sizeof b, p99);
        fprintf(out, "  %s%s%s %s: p50 %s; p99 %s\n",
                d->n_setups > 1 ? d->setups[r->fig_setup].label : "", d->n_setups > 1 ? " " : "",
                where, part_of(r, classes), a, b);
    }
}

int report_sweep_stall_line(char *buf, size_t size, const struct sweep_doc *d, const char *axis,
                            size_t setup, const struct sweep_comparison *r,
                            const struct sweep_stall *s)
{
    char name[300];
    side_name(name, sizeof name, d, axis, strcmp(s->side, "baseline") == 0 ? r->baseline : r->value,
              setup);
    return cmp_stall_line(buf, size, name, (size_t)s->trial, s->stalled_ms, s->intervals, s->cause);
}

/* The trials a cell's verdicts stood on whose client stalled, one line each (none: nothing). */
static void stall_lines(FILE *out, const struct sweep_doc *d, const char *axis, size_t u,
                        const struct sweep_comparison *r)
{
    for (size_t k = 0; r && k < r->n_stalled; k++) {
        char line[400];
        report_sweep_stall_line(line, sizeof line, d, axis, u, r, &r->stalled[k]);
        fprintf(out, "        %s\n", line);
    }
}

void report_sweep_text(FILE *out, const struct sweep_doc *d, const struct sweep_figs *f)
{
    const char *axis = f->axis;
    size_t u0 = report_sweep_first_cmp_setup(f);
    size_t n_cmp_cols = axis ? 2 * (d->n_setups - u0) : 0;
    if (axis && strcmp(axis, "setup") == 0)
        fprintf(out,
                "baseline %s; changes against it: 95 %% CI and verdict over each cell's "
                "trials\n",
                d->setups[0].label);
    else if (axis)
        fprintf(out,
                "baseline %s=%s; changes against it: 95 %% CI and verdict over each cell's "
                "trials\n",
                axis, f->n_cmps ? f->cmps[0].baseline : "?");
    size_t has_rate = d->n_rates || d->max_rate.have, has_scale = d->n_scales != 0;
    size_t has_speed = d->n_speeds != 0, has_clients = !has_speed; /* a speed axis: no -c */
    size_t n_axes = has_clients + has_speed + has_rate + has_scale + d->n_sets;
    struct grid g;
    grid_init(&g, f->n + 1, n_axes + 2 * d->n_setups + n_cmp_cols);
    size_t col = 0;
    if (has_clients)
        grid_set(&g, 0, col++, "clients");
    if (has_speed)
        grid_set(&g, 0, col++, "speed");
    if (has_rate)
        grid_set(&g, 0, col++, "rate");
    if (has_scale)
        grid_set(&g, 0, col++, "scale");
    for (size_t k = 0; k < d->n_sets; k++)
        grid_set(&g, 0, col++, d->sets[k].name);
    for (size_t u = 0; u < d->n_setups; u++) {
        char title[300];
        snprintf(title, sizeof title, "%s tps", d->setups[u].label);
        g.bar[col] = 1;
        grid_set(&g, 0, col++, title);
        grid_set(&g, 0, col++, "p99");
    }
    for (size_t u = u0; axis && u < d->n_setups; u++) {
        char title[300];
        if (strcmp(axis, "setup") == 0)
            snprintf(title, sizeof title, "%s: tps change [95%% CI] verdict method",
                     d->setups[u].label);
        else if (d->n_setups > 1)
            snprintf(title, sizeof title, "%s: tps change [95%% CI] verdict method",
                     d->setups[u].label);
        else
            snprintf(title, sizeof title, "tps change [95%% CI] verdict method");
        g.bar[col] = 1;
        g.left[col] = g.left[col + 1] = 1;
        grid_set(&g, 0, col++, title);
        grid_set(&g, 0, col++, "p99 change [95% CI] verdict method");
    }
    for (size_t i = 0; i < f->n; i++) {
        const struct sweep_fig_point *p = &f->points[i];
        const struct sweep_cell *c = &d->cells[p->first];
        char buf[300];
        col = 0;
        if (has_clients) {
            snprintf(buf, sizeof buf, "%lld", (long long)c->clients);
            grid_set(&g, i + 1, col++, buf);
        }
        if (has_speed)
            grid_set(&g, i + 1, col++, sweep_speed_text(buf, sizeof buf, c->speed));
        if (has_rate) {
            snprintf(buf, sizeof buf, "%g", c->rate);
            grid_set(&g, i + 1, col++, buf);
        }
        if (has_scale) {
            snprintf(buf, sizeof buf, "%lld", (long long)c->scale);
            grid_set(&g, i + 1, col++, buf);
        }
        for (size_t k = 0; k < c->n_settings; k++)
            grid_set(&g, i + 1, col++, c->settings[k].value);
        for (size_t u = 0; u < d->n_setups; u++) {
            char tps[32] = "-", p99[32] = "-";
            if (p->setups[u].n) {
                report_fmt_sig(tps, sizeof tps, p->setups[u].tps, 5);
                if (p->setups[u].tps > 0) /* -c 0: no terminal, no latency */
                    report_fmt_latency(p99, sizeof p99, p->setups[u].p99_us);
            }
            grid_set(&g, i + 1, col++, tps);
            grid_set(&g, i + 1, col++, p99);
        }
        for (size_t u = u0; axis && u < d->n_setups; u++) {
            const struct sweep_comparison *t = report_sweep_find(f, i, u, "tps");
            const struct sweep_comparison *l = report_sweep_find(f, i, u, "latency_p99");
            char a[160] = "-", b[160] = "-", v[256];
            struct sweep_cell vc = *c;
            vc.setup = u;
            if (!t && strcmp(axis, "setup") != 0 && f->n_cmps &&
                strcmp(sweep_axis_value(v, sizeof v, d, &vc, axis), f->cmps[0].baseline) == 0)
                snprintf(a, sizeof a, "baseline");
            if (t)
                change_cell(a, sizeof a, t);
            if (l)
                change_cell(b, sizeof b, l);
            grid_set(&g, i + 1, col++, a);
            grid_set(&g, i + 1, col++, b);
        }
    }
    grid_row(out, &g, 0);
    int cell_method = 0, pooled = 0, duet = 0;
    for (size_t i = 0; i < f->n; i++) {
        grid_row(out, &g, i + 1);
        for (size_t u = u0; axis && u < d->n_setups; u++) {
            const char *metrics[2] = {"tps", "latency_p99"};
            for (int m = 0; m < 2; m++) {
                const struct sweep_comparison *r = report_sweep_find(f, i, u, metrics[m]);
                if (!r)
                    continue;
                cell_method |= strcmp(r->method, "cell") == 0 && r->homogeneous == 0;
                pooled |= strcmp(r->method, "pooled") == 0;
                duet |= strcmp(r->method, "duet") == 0;
                if (r->more_data) {
                    char name[300];
                    side_name(name, sizeof name, d, axis, r->value, u);
                    fprintf(out, "        %s %s: %s\n", name, m ? "latency_p99" : "tps", r->detail);
                }
            }
            stall_lines(out, d, axis, u, report_sweep_find(f, i, u, "tps"));
        }
    }
    grid_free(&g);
    script_block(out, d, f, 0);
    script_block(out, d, f, 1);
    if (pooled)
        fputs("pooled: the interval takes each side's between-trial variance pooled over its "
              "cells (log scale, Bartlett's test); cell: the cell's own trials\n",
              out);
    if (duet)
        fputs("duet: the two setups ran at once, each second of one paired with the same second "
              "of the other (log ratio; throughput by half-second where the files count each "
              "100 ms), a batch-means interval over "
              "them\n",
              out);
    if (cell_method)
        fputs("cell where pooling was refused: the trials' noise differs between a side's "
              "cells\n",
              out);
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

static json_t *point_json(const struct sweep_doc *d, const struct sweep_figs *f, size_t pi)
{
    const struct sweep_fig_point *p = &f->points[pi];
    const struct sweep_cell *c = &d->cells[p->first];
    json_t *o = json_object(), *settings = json_object(), *setups = json_array(),
           *cmps = json_array();
    json_object_set_new(o, "clients", d->n_clients ? json_integer(c->clients) : json_null());
    if (c->speed != 0) {
        char sp[32];
        sweep_speed_text(sp, sizeof sp, c->speed);
        json_object_set_new(o, "speed", c->speed > 0 ? json_real(c->speed) : json_string(sp));
    }
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
    for (size_t u = report_sweep_first_cmp_setup(f); f->axis && u < d->n_setups; u++) {
        if (!report_sweep_find(f, pi, u, "tps"))
            continue;
        json_t *j = json_object(), *metrics = json_array();
        char name[300];
        side_name(name, sizeof name, d, f->axis, report_sweep_find(f, pi, u, "tps")->value, u);
        json_object_set_new(j, "side", json_string(name));
        for (int m = 0; m < CMP_N_METRICS; m++) {
            const struct sweep_comparison *r = report_sweep_find(f, pi, u, cmp_metric_names[m]);
            if (!r)
                continue;
            struct cmp_metric x = {r->a,      r->b,       r->change_pct,
                                   r->ci_low, r->ci_high, CMP_INCONCLUSIVE,
                                   "",        r->df,      r->more_data};
            for (int v = 0; v < 4; v++)
                if (strcmp(cmp_verdict_names[v], r->verdict) == 0)
                    x.verdict = (enum cmp_verdict)v;
            snprintf(x.detail, sizeof x.detail, "%s", r->detail);
            json_t *mj = report_metric_json(&x, m, NULL);
            json_object_set_new(mj, "method", json_string(r->method));
            json_array_append_new(metrics, mj);
        }
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
        json_array_append_new(points, point_json(d, f, i));
    json_object_set_new(root, "points", points);
    struct sweep_doc view = {.n_comparisons = f->n_cmps, .comparisons = f->cmps};
    json_object_set_new(root, "compare", f->axis ? json_string(f->axis) : json_null());
    json_object_set_new(root, "comparisons", sweep_comparisons_json(&view));
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
