#include "report/compare_out.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "report/fmt.h"
#include "report/part_out.h"
#include "report/sio.h"

#define WIDTH       100
#define LABEL_WIDTH 33 /* a label in a heading line: two fit in WIDTH with the rest */

static const char *const metric_titles[CMP_N_METRICS] = {"tps", "latency p50", "latency p95",
                                                         "latency p99", "failure rate"};

/* A metric's value with its unit; "-" when unknown. */
static void format_value(char *buf, size_t size, enum cmp_metric_id id, double v)
{
    if (isnan(v))
        snprintf(buf, size, "-");
    else if (id == CMP_TPS)
        snprintf(buf, size, "%.1f tps", v);
    else if (id == CMP_FAILURE_RATE)
        snprintf(buf, size, "%.3f%%", 100 * v);
    else
        snprintf(buf, size, "%.3f ms", v / 1000);
}

/* Print text indented by indent, wrapped at word boundaries to fit WIDTH columns; a word
 * longer than a line is cut. */
static void print_wrapped(FILE *out, const char *lead, int indent, const char *text)
{
    int col = fprintf(out, "%*s%s", indent, "", lead);
    int start = col;
    while (*text) {
        size_t word = strcspn(text, " ");
        if (col > start && col + 1 + (int)word > WIDTH) {
            col = fprintf(out, "\n%*s", start, "") - 1;
        } else if (col > start) {
            fputc(' ', out);
            col++;
        }
        if (col + (int)word > WIDTH) {
            char cut[WIDTH + 1];
            size_t room = (size_t)(WIDTH - col) + 1;
            col += fprintf(out, "%s",
                           report_fmt_cut(cut, room < sizeof cut ? room : sizeof cut, text));
        } else {
            col += fprintf(out, "%.*s", (int)word, text);
        }
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

/* "10 s", or "5-20 s" over several trials. */
static const char *span(char *buf, size_t size, double lo, double hi)
{
    if (lo == hi)
        snprintf(buf, size, "%.0f s", lo);
    else
        snprintf(buf, size, "%.0f-%.0f s", lo, hi);
    return buf;
}

static void print_window(FILE *out, const struct cmp_report *rep, const struct cmp_outcome *o)
{
    const struct cmp_window *w = &o->window;
    char text[400], wa[40], wb[40];
    if (o->duet) { /* duet partners: every complete interval, second against second */
        snprintf(text, sizeof text,
                 "paired by second: duet; %g s paired%s, every complete interval, in %zu "
                 "batches of up to %g s",
                 o->duet_seconds, o->duet_halves ? " (tps by half-second)" : "", o->duet_batches,
                 o->duet_batch_s);
        print_wrapped(out, "window  ", 0, text);
        return;
    }
    int n = snprintf(text, sizeof text, "%.0f s to %.0f s of every run (%.0f s);", w->start_s,
                     w->end_s, w->end_s - w->start_s);
    if (!w->auto_warmup)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      " no warm-up detection (runs too short), nothing left out;");
    else
        n += snprintf(text + n, sizeof text - (size_t)n, " warm-up left out (MSER-5): A %s, B %s;",
                      span(wa, sizeof wa, w->warmup_a_min_s, w->warmup_a_max_s),
                      span(wb, sizeof wb, w->warmup_b_min_s, w->warmup_b_max_s));
    if (w->block > 0)
        snprintf(text + n, sizeof text - (size_t)n,
                 " block bootstrap in blocks of %.0f s, n_eff %.1f / %.1f",
                 (double)w->block * w->interval_s, w->n_eff_a, w->n_eff_b);
    else
        snprintf(text + n, sizeof text - (size_t)n, " trials compared by Welch's t on logs");
    print_wrapped(out, "window  ", 0, text);
    (void)rep;
}

/* A change in percent: one decimal, none from 100 % on (where it means nothing). */
static int format_pct(char *buf, size_t size, double v)
{
    return snprintf(buf, size, fabs(v) < 100 ? "%+.1f%%" : "%+.0f%%", v);
}

#define ROW "%-12s %13s %13s %9s  %-21s %s\n"

/* One row; its detail line unless it repeats the detail given last (said once is enough). */
static void print_metric(FILE *out, enum cmp_metric_id id, const struct cmp_metric *m,
                         const char *said)
{
    char a[32], b[32], change[32], ci[64] = "-";
    format_value(a, sizeof a, id, m->a);
    format_value(b, sizeof b, id, m->b);
    if (isnan(m->change_pct))
        snprintf(change, sizeof change, "-");
    else
        format_pct(change, sizeof change, m->change_pct);
    if (!isnan(m->ci_low_pct) && !isnan(m->ci_high_pct)) {
        int n = snprintf(ci, sizeof ci, "[");
        n += format_pct(ci + n, sizeof ci - (size_t)n, m->ci_low_pct);
        n += snprintf(ci + n, sizeof ci - (size_t)n, ", ");
        n += format_pct(ci + n, sizeof ci - (size_t)n, m->ci_high_pct);
        snprintf(ci + n, sizeof ci - (size_t)n, "]");
    }
    fprintf(out, ROW, metric_titles[id], a, b, change, ci, cmp_verdict_names[m->verdict]);
    if (m->detail[0] && !(said && strcmp(said, m->detail) == 0))
        print_wrapped(out, "", 13, m->detail);
}

/* Per-script latency rows: the script's name, then its p50, p95 and p99 rows. */
static void print_scripts(FILE *out, const struct cmp_outcome *o)
{
    if (o->n_scripts > 0)
        fprintf(out, "\nper script (whole runs):\n");
    const char *said = NULL;
    for (size_t i = 0; i < o->n_scripts; i++) {
        fprintf(out, "script %s\n", o->scripts[i].name);
        for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++) {
            const struct cmp_metric *m = &o->scripts[i].metrics[k];
            print_metric(out, (enum cmp_metric_id)(CMP_P50 + k), m, said);
            said = m->detail;
        }
    }
}

/* The statement classes whose latency changed most, as the per-script rows. */
static void print_classes(FILE *out, const struct cmp_outcome *o)
{
    if (o->n_classes > 0)
        fprintf(out, "\nstatement classes whose latency changed most:\n");
    const char *said = NULL;
    for (size_t i = 0; i < o->n_classes; i++) {
        fprintf(out, "class %s\n", o->classes[i].name);
        for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++) {
            const struct cmp_metric *m = &o->classes[i].metrics[k];
            print_metric(out, (enum cmp_metric_id)(CMP_P50 + k), m, said);
            said = m->detail;
        }
    }
}

/* Why: the wait events whose share of the sampled backends changed most. */
static void print_waits(FILE *out, const struct cmp_outcome *o)
{
    if (!o->waits_sampled)
        return;
    if (o->n_waits == 0) {
        fprintf(out, "\nwait events: no share changed by a point or more\n");
        return;
    }
    fprintf(out, "\nwait events whose share of the sampled backends changed most:\n");
    for (size_t i = 0; i < o->n_waits; i++) {
        const struct cmp_wait_change *w = &o->waits[i];
        char name[41];
        fprintf(out, "  %-40s %5.1f %% \u2192 %5.1f %%  (%+.1f points)\n",
                report_fmt_cut(name, sizeof name, w->name), 100 * w->a_share, 100 * w->b_share,
                w->change_points);
    }
}

/* Why, inside the server: the internals that changed most. */
static void print_internals(FILE *out, const struct cmp_outcome *o)
{
    if (!o->internals_sampled)
        return;
    if (o->n_internals == 0) {
        fprintf(out, "\nserver internals: none changed by 5 %% or more\n");
        return;
    }
    fprintf(out, "\nserver internals that changed most:\n");
    for (size_t i = 0; i < o->n_internals; i++) {
        const struct cmp_internal_change *c = &o->internals[i];
        char a[32], b[32];
        report_internal_value(a, sizeof a, c->id, c->a);
        report_internal_value(b, sizeof b, c->id, c->b);
        fprintf(out, "  %-34s %10s \u2192 %s", report_internal_label(c->id), a, b);
        if (isfinite(c->change_pct) && c->id != CMP_IN_FPI_SHARE && c->id != CMP_IN_HIT_RATIO)
            fprintf(out, "  (%+.0f %%)", c->change_pct);
        fputc('\n', out);
    }
}

static void print_outcome(FILE *out, const struct cmp_report *rep, const struct cmp_outcome *o)
{
    const struct cmp_side *b = &rep->sides[o->side];
    char lb[LABEL_WIDTH], la[LABEL_WIDTH];
    fprintf(out, "\nB = %s (%zu trial%s) against A = %s\n", report_fmt_cut(lb, sizeof lb, b->label),
            b->n_trials, b->n_trials == 1 ? "" : "s",
            report_fmt_cut(la, sizeof la, rep->sides[0].label));
    print_window(out, rep, o);
    fprintf(out, "\n" ROW, "metric", "A", "B", "change", "95% CI of change", "verdict");
    for (int k = 0; k < CMP_N_METRICS; k++)
        print_metric(out, (enum cmp_metric_id)k, &o->metrics[k], NULL);
    if (!isnan(o->mwu_p)) {
        char text[200];
        snprintf(text, sizeof text,
                 "secondary: Mann-Whitney p = %.3f on trial throughputs (the smallest p "
                 "possible with these trial counts is %.3f)",
                 o->mwu_p, o->mwu_min_p);
        print_wrapped(out, "", 0, text);
    }
    print_scripts(out, o);
    print_classes(out, o);
    print_waits(out, o);
    print_internals(out, o);
}

/* Columns of the differences table, so that a row fits WIDTH: "  PATH A VALUE B VALUE  !". */
#define DIFF_PATH  28
#define DIFF_VALUE 30

static void print_diffs(FILE *out, const struct cmp_report *rep)
{
    fprintf(out, "\nenvironment differences%s\n", rep->n_diffs ? ":" : ": none recorded");
    for (size_t i = 0; i < rep->n_diffs; i++) {
        const struct cmp_diff *d = &rep->diffs[i];
        char path[DIFF_PATH + 1], a[DIFF_VALUE + 1], b[DIFF_VALUE + 1], side[DIFF_VALUE + 1];
        report_fmt_cut(path, sizeof path, d->path);
        report_fmt_cut(a, sizeof a, d->a);
        if (rep->n_sides > 2) {
            char *both = xasprintf("%s: %s", rep->sides[d->side].label, d->b);
            report_fmt_cut(side, sizeof side, both);
            free(both);
            fprintf(out, "  %-*s %-*s %s%s\n", DIFF_PATH, path, DIFF_VALUE + 2, a, side,
                    d->unfair ? "  !" : "");
        } else {
            fprintf(out, "  %-*s A %-*s B %s%s\n", DIFF_PATH, path, DIFF_VALUE, a,
                    report_fmt_cut(b, sizeof b, d->b), d->unfair ? "  !" : "");
        }
    }
}

/* The workloads' lines for the sides (result/part.h). */
static void print_parts(FILE *out, const struct cmp_report *rep)
{
    struct result_part_side *sides = xcalloc(rep->n_sides, sizeof *sides);
    for (size_t i = 0; i < rep->n_sides; i++)
        sides[i] = (struct result_part_side){rep->sides[i].label, rep->sides[i].runs,
                                             rep->sides[i].n_trials};
    report_parts_compare(sides, rep->n_sides, out);
    free(sides);
}

void report_compare_text(FILE *out, const struct cmp_report *rep)
{
    const struct cmp_side *a = &rep->sides[0];
    char la[LABEL_WIDTH];
    fprintf(out, "compare  A = %s (baseline, %zu trial%s)\n",
            report_fmt_cut(la, sizeof la, a->label), a->n_trials, a->n_trials == 1 ? "" : "s");
    char text[300];
    snprintf(text, sizeof text,
             "95%% confidence intervals of B against A; changes within ±%g%% are no meaningful "
             "difference; %d bootstrap resamples, seed %llu",
             100 * rep->cfg.margin, rep->cfg.resamples, (unsigned long long)rep->cfg.seed);
    print_wrapped(out, "method   ", 0, text);
    for (size_t i = 0; i < rep->n_outcomes; i++)
        print_outcome(out, rep, &rep->outcomes[i]);
    if (rep->n_stalls) /* nothing when no run stalled: the output stays as it was */
        fprintf(out, "\nclient stalls behind these verdicts:\n");
    for (size_t i = 0; i < rep->n_stalls; i++)
        print_wrapped(out, "", 2, rep->stalls[i].text);
    print_parts(out, rep);
    print_diffs(out, rep);
    if (rep->n_warnings)
        fprintf(out, "\nwarnings:\n");
    for (size_t i = 0; i < rep->n_warnings; i++)
        print_wrapped(out, "! ", 2, rep->warnings[i]);
}

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* One metric; script names the script of a per-script row (NULL for the whole run), side the
 * side of a compare of more than two (NULL otherwise). */
static json_t *metric_json(const struct cmp_metric *m, int k, const char *side, const char *script)
{
    json_t *j = json_object();
    if (script)
        json_object_set_new(j, "script", json_string(script));
    json_object_set_new(j, "name", json_string(cmp_metric_names[k]));
    if (side)
        json_object_set_new(j, "side", json_string(side));
    json_object_set_new(j, "a", number(m->a));
    json_object_set_new(j, "b", number(m->b));
    json_object_set_new(j, "change_pct", number(m->change_pct));
    json_object_set_new(j, "ci_low_pct", number(m->ci_low_pct));
    json_object_set_new(j, "ci_high_pct", number(m->ci_high_pct));
    json_object_set_new(j, "verdict", json_string(cmp_verdict_names[m->verdict]));
    json_object_set_new(j, "detail", json_string(m->detail));
    return j;
}

json_t *report_metric_json(const struct cmp_metric *m, int k, const char *side)
{
    return metric_json(m, k, side, NULL);
}

static json_t *waits_json(const struct cmp_wait_change *w, const char *side)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(w->name));
    if (side)
        json_object_set_new(j, "side", json_string(side));
    json_object_set_new(j, "a_share", number(w->a_share));
    json_object_set_new(j, "b_share", number(w->b_share));
    json_object_set_new(j, "change_points", number(w->change_points));
    return j;
}

static json_t *internal_json(const struct cmp_internal_change *c, const char *side)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(cmp_internal_names[c->id]));
    if (side)
        json_object_set_new(j, "side", json_string(side));
    json_object_set_new(j, "a", number(c->a));
    json_object_set_new(j, "b", number(c->b));
    json_object_set_new(j, "change_pct", number(c->change_pct));
    return j;
}

/* stalled[]: the runs whose client stalled, as the text names them. */
static json_t *stalls_json(const struct cmp_report *rep)
{
    json_t *a = json_array();
    for (size_t i = 0; i < rep->n_stalls; i++) {
        const struct cmp_stall *st = &rep->stalls[i];
        json_t *j = json_object();
        json_object_set_new(j, "side", json_string(rep->sides[st->side].label));
        json_object_set_new(j, "trial", json_integer((json_int_t)st->trial));
        json_object_set_new(j, "path", json_string(rep->sides[st->side].paths[st->trial - 1]));
        json_object_set_new(j, "stalled_ms", number(st->stalled_ms));
        json_object_set_new(j, "intervals", json_integer((json_int_t)st->intervals));
        json_object_set_new(j, "cause", json_string(result_stall_cause_names[st->cause]));
        json_array_append_new(a, j);
    }
    return a;
}

int report_compare_json(FILE *out, const struct cmp_report *rep, struct err *e)
{
    json_t *metrics = json_array(), *warnings = json_array(), *scripts = json_array();
    json_t *waits = NULL, *internals = NULL;
    json_t *classes = json_array();
    for (size_t i = 0; i < rep->n_outcomes; i++) {
        const struct cmp_outcome *o = &rep->outcomes[i];
        const char *side = rep->n_sides > 2 ? rep->sides[o->side].label : NULL;
        if (o->waits_sampled && !waits)
            waits = json_array();
        for (size_t w = 0; w < o->n_waits; w++)
            json_array_append_new(waits, waits_json(&o->waits[w], side));
        if (o->internals_sampled && !internals)
            internals = json_array();
        for (size_t k = 0; k < o->n_internals; k++)
            json_array_append_new(internals, internal_json(&o->internals[k], side));
        for (int k = 0; k < CMP_N_METRICS; k++)
            json_array_append_new(metrics, metric_json(&o->metrics[k], k, side, NULL));
        for (size_t s = 0; s < o->n_scripts; s++)
            for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++)
                json_array_append_new(scripts, metric_json(&o->scripts[s].metrics[k], CMP_P50 + k,
                                                           side, o->scripts[s].name));
        for (size_t s = 0; s < o->n_classes; s++)
            for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++)
                json_array_append_new(classes, metric_json(&o->classes[s].metrics[k], CMP_P50 + k,
                                                           side, o->classes[s].name));
    }
    for (size_t i = 0; i < rep->n_warnings; i++)
        json_array_append_new(warnings, json_string(rep->warnings[i]));
    json_t *root = json_object();
    json_object_set_new(root, "metrics", metrics);
    for (size_t i = 0; i < rep->n_outcomes; i++)
        if (rep->outcomes[i].duet) { /* only for duet partners */
            const struct cmp_outcome *o = &rep->outcomes[i];
            json_t *p = json_object();
            json_object_set_new(p, "method", json_string("duet"));
            double s = o->duet_seconds;
            json_object_set_new(p, "seconds",
                                s == floor(s) ? json_integer((json_int_t)s) : json_real(s));
            json_object_set_new(p, "tps_paired_by",
                                json_string(o->duet_halves ? "half-second" : "second"));
            json_object_set_new(p, "batches", json_integer((json_int_t)o->duet_batches));
            json_object_set_new(p, "batch_s", number(o->duet_batch_s));
            json_object_set_new(root, "paired", p);
            break;
        }
    if (json_array_size(scripts) > 0) /* only when both sides ran the same scripts */
        json_object_set_new(root, "scripts", json_incref(scripts));
    json_decref(scripts);
    if (json_array_size(classes) > 0) /* the statement classes whose latency changed most */
        json_object_set_new(root, "classes", json_incref(classes));
    json_decref(classes);
    if (waits) /* only when the runs were sampled */
        json_object_set_new(root, "waits", waits);
    if (internals) /* only when every run has server_io */
        json_object_set_new(root, "internals", internals);
    json_object_set_new(root, "warnings", warnings);
    if (rep->n_stalls) /* only when a run's client stalled */
        json_object_set_new(root, "stalled", stalls_json(rep));
    int rc = json_dumpf(root, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(root);
    if (rc < 0)
        return err_set(e, ERR_RUNTIME, "compare: cannot write the JSON output");
    return 0;
}
