/* The comparison in the report: compare's table with intervals drawn, verdicts in words. */
#include "report/html_int.h"

#include <math.h>
#include <stdio.h>

#include "compare/compare.h"
#include "report/fmt.h"
#include "report/svg.h"

static const char *const metric_titles[CMP_N_METRICS] = {"throughput", "latency p50", "latency p95",
                                                         "latency p99", "failure rate"};

/* CSS class of a verdict badge: the word says it, the colour only helps. */
static const char *const verdict_class[] = {"v-better", "v-worse", "v-none", "v-inconclusive"};

static const char *verdict_text(enum cmp_verdict v)
{
    return v == CMP_NO_DIFFERENCE ? "no meaningful difference" : cmp_verdict_names[v];
}

/* A metric's value with its unit ("-" when unknown). */
static char *metric_value(char *buf, size_t size, enum cmp_metric_id id, double v)
{
    char n[40];
    if (isnan(v))
        snprintf(buf, size, "-");
    else if (id == CMP_TPS)
        snprintf(buf, size, "%s tps", report_fmt_sig(n, sizeof n, v, 4));
    else if (id == CMP_FAILURE_RATE)
        snprintf(buf, size, "%s%%", report_fmt_sig(n, sizeof n, 100 * v, 3));
    else
        report_fmt_latency(buf, size, v);
    return buf;
}

static char *ci_text(char *buf, size_t size, const struct cmp_metric *m)
{
    char lo[24], hi[24];
    if (isnan(m->ci_low_pct) || isnan(m->ci_high_pct))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%s to %s", report_fmt_change(lo, sizeof lo, m->ci_low_pct),
                 report_fmt_change(hi, sizeof hi, m->ci_high_pct));
    return buf;
}

int report_cmp_window(const struct report_doc *d, double *start_s, double *end_s)
{
    *start_s = *end_s = 0;
    const struct cmp_report *cmp = d->in->cmp;
    if (!cmp || cmp->n_outcomes == 0)
        return -1;
    /* With several setups each comparison has its window; the charts show the first. */
    *start_s = cmp->outcomes[0].window.start_s;
    *end_s = cmp->outcomes[0].window.end_s;
    return 0;
}

void report_verdict_sentence(struct report_doc *d, size_t side)
{
    const struct cmp_report *cmp = d->in->cmp;
    if (!cmp || side >= cmp->n_sides)
        return;
    if (side == 0) {
        buf_puts(d->out, " <b>The baseline of the comparison.</b>");
        return;
    }
    const struct cmp_outcome *o = &cmp->outcomes[side - 1];
    buf_puts(d->out, " <b>Against ");
    report_escape(d->out, cmp->sides[0].label);
    buf_puts(d->out, ":</b> ");
    for (int k = 0; k < CMP_N_METRICS; k++) {
        const struct cmp_metric *m = &o->metrics[k];
        char change[24], ci[64];
        buf_printf(d->out, "%s%s <span class=\"verdict %s\">%s</span>", k ? "; " : "",
                   metric_titles[k], verdict_class[m->verdict], verdict_text(m->verdict));
        if (!isnan(m->change_pct) && !isnan(m->ci_low_pct) && !isnan(m->ci_high_pct))
            buf_printf(d->out, " (%s, 95%% CI %s)",
                       report_fmt_change(change, sizeof change, m->change_pct),
                       ci_text(ci, sizeof ci, m));
        else if (!isnan(m->change_pct))
            buf_printf(d->out, " (%s)", report_fmt_change(change, sizeof change, m->change_pct));
    }
    buf_puts(d->out, ".");
}

#define CI_W 170.0
#define CI_H 18.0

/* The interval of the change drawn on a scale shared by the table's rows, with the
 * equivalence margin shaded around zero. */
static void ci_bar(struct report_doc *d, const struct cmp_metric *m, size_t side, double margin_pct,
                   double span_pct)
{
    if (isnan(m->ci_low_pct) || isnan(m->ci_high_pct) || isnan(m->change_pct))
        return;
    double mid = CI_W / 2, scale = (CI_W / 2 - 6) / span_pct;
#define X(v) (mid + fmax(-span_pct, fmin(span_pct, (v))) * scale)
    buf_printf(d->out,
               "<svg width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
               "aria-label=\"95%% CI\"><rect x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"%.0f\" "
               "fill=\"#000\" fill-opacity=\"0.08\"/><line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" "
               "y2=\"%.0f\" stroke=\"#777\"/>",
               CI_W, CI_H, CI_W, CI_H, X(-margin_pct), X(margin_pct) - X(-margin_pct), CI_H - 4,
               mid, mid, CI_H);
    buf_printf(d->out,
               "<line x1=\"%.1f\" y1=\"9\" x2=\"%.1f\" y2=\"9\" stroke=\"%s\" stroke-width=\"3\"/>"
               "<circle cx=\"%.1f\" cy=\"9\" r=\"4\" fill=\"%s\"/></svg>",
               X(m->ci_low_pct), X(m->ci_high_pct), svg_color(side), X(m->change_pct),
               svg_color(side));
#undef X
}

/* Half the width of the CI scale: every interval of the outcome fits, and the margin shows. */
static double ci_span(const struct cmp_outcome *o, double margin_pct)
{
    double span = 2 * margin_pct;
    for (int k = 0; k < CMP_N_METRICS; k++) {
        const struct cmp_metric *m = &o->metrics[k];
        if (!isnan(m->ci_low_pct) && !isnan(m->ci_high_pct))
            span = fmax(span, fmax(fabs(m->ci_low_pct), fabs(m->ci_high_pct)));
    }
    return fmin(span * 1.1, 100); /* beyond +-100 % the bar is cut: the numbers say it */
}

/* A row of the table; script names the script of a per-script row (NULL: the whole run). */
static void metric_row(struct report_doc *d, int k, const struct cmp_metric *m, size_t side,
                       double margin_pct, double span, const char *script)
{
    char a[48], b[48], change[24], ci[64];
    buf_puts(d->out, "<tr class=\"metric\"><th>");
    if (script) {
        report_escape(d->out, script);
        buf_puts(d->out, ": ");
    }
    buf_printf(d->out,
               "%s</th><td>%s</td><td>%s</td><td>%s</td>"
               "<td>%s</td><td class=\"ci\">",
               metric_titles[k], metric_value(a, sizeof a, (enum cmp_metric_id)k, m->a),
               metric_value(b, sizeof b, (enum cmp_metric_id)k, m->b),
               report_fmt_change(change, sizeof change, m->change_pct), ci_text(ci, sizeof ci, m));
    ci_bar(d, m, side, margin_pct, span);
    buf_printf(d->out, "</td><td><span class=\"verdict %s\">%s</span></td></tr>\n",
               verdict_class[m->verdict], verdict_text(m->verdict));
    if (m->detail[0]) {
        buf_puts(d->out, "<tr class=\"detail\"><td></td><td colspan=\"6\">");
        report_escape(d->out, m->detail);
        buf_puts(d->out, "</td></tr>\n");
    }
}

/* Which part of the runs was compared, and how. */
static void window_text(struct report_doc *d, const struct cmp_outcome *o)
{
    const struct cmp_window *w = &o->window;
    if (o->duet) { /* duet partners (compare/duet.h) */
        buf_printf(d->out,
                   "<p class=\"meta\">Paired by second: duet; %g s paired%s, every complete "
                   "interval, in %zu batches of up to %g s.</p>\n",
                   o->duet_seconds, o->duet_halves ? " (throughput by half-second)" : "",
                   o->duet_batches, o->duet_batch_s);
        return;
    }
    buf_printf(d->out, "<p class=\"meta\">Compared: %.0f s to %.0f s of every run", w->start_s,
               w->end_s);
    if (!w->auto_warmup)
        buf_puts(d->out, " (too short to look for a warm-up: nothing left out)");
    else if (w->start_s > 0)
        buf_puts(d->out, " (the start left out as warm-up, MSER-5)");
    if (w->block > 0)
        buf_printf(d->out, "; block bootstrap in blocks of %.0f s",
                   (double)w->block * w->interval_s);
    else
        buf_puts(d->out, "; trials compared by Welch's t on logs");
    if (!isnan(o->mwu_p))
        buf_printf(d->out, "; Mann-Whitney p = %.3f on trial throughputs", o->mwu_p);
    buf_puts(d->out, ".</p>\n");
}

static void outcome_table(struct report_doc *d, const struct cmp_outcome *o)
{
    const struct cmp_report *cmp = d->in->cmp;
    const struct cmp_side *a = &cmp->sides[0], *b = &cmp->sides[o->side];
    buf_puts(d->out, "<h3>");
    report_swatch(d, o->side);
    report_escape(d->out, b->label);
    buf_printf(d->out, " (B, %zu run%s) against ", b->n_trials, b->n_trials == 1 ? "" : "s");
    report_swatch(d, 0);
    report_escape(d->out, a->label);
    buf_printf(d->out, " (A, %zu run%s)</h3>\n", a->n_trials, a->n_trials == 1 ? "" : "s");
    window_text(d, o);
    double margin_pct = 100 * cmp->cfg.margin, span = ci_span(o, margin_pct);
    buf_puts(d->out, "<div class=\"scroll\"><table class=\"num cmp\"><thead><tr><th>metric</th>"
                     "<th>A</th><th>B</th><th>change</th><th>95% CI of the change</th>");
    buf_printf(d->out,
               "<th>-%.3g%% &#8230; 0 &#8230; +%.3g%%</th><th>verdict</th></tr></thead>"
               "<tbody>\n",
               span, span);
    for (int k = 0; k < CMP_N_METRICS; k++)
        metric_row(d, k, &o->metrics[k], o->side, margin_pct, span, NULL);
    for (size_t i = 0; i < o->n_scripts; i++)
        for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++)
            metric_row(d, CMP_P50 + k, &o->scripts[i].metrics[k], o->side, margin_pct, span,
                       o->scripts[i].name);
    buf_puts(d->out, "</tbody></table></div>\n");
    report_html_cmp_internals(d, o);
}

void report_html_comparison(struct report_doc *d)
{
    const struct cmp_report *cmp = d->in->cmp;
    if (!cmp && !d->in->no_cmp_reason)
        return; /* one setup: nothing to compare, and nothing to say about it */
    report_section_begin(d, "comparison", "Comparison");
    if (!cmp) {
        buf_puts(d->out, "<p>No comparison: ");
        report_escape(d->out, d->in->no_cmp_reason);
        buf_puts(d->out, "</p>\n");
        report_section_end(d);
        return;
    }
    buf_printf(d->out,
               "<p>Each setup against the baseline <b>A</b> on the same part of every run, with "
               "95%% confidence intervals of the change. Changes within &#177;%.3g%% (shaded) "
               "are no meaningful difference; an interval that crosses that band is "
               "inconclusive. For latency and failures, lower is better. %d bootstrap "
               "resamples, seed %llu.</p>\n",
               100 * cmp->cfg.margin, cmp->cfg.resamples, (unsigned long long)cmp->cfg.seed);
    for (size_t i = 0; i < cmp->n_outcomes; i++)
        outcome_table(d, &cmp->outcomes[i]);
    /* The runs whose client stalled, as compare names them (nothing when none did). */
    if (cmp->n_stalls)
        buf_puts(d->out, "<p>Client stalls behind these verdicts:</p>\n<ul class=\"stalls\">\n");
    for (size_t i = 0; i < cmp->n_stalls; i++) {
        buf_puts(d->out, "<li>");
        report_escape(d->out, cmp->stalls[i].text);
        buf_puts(d->out, "</li>\n");
    }
    if (cmp->n_stalls)
        buf_puts(d->out, "</ul>\n");
    report_section_end(d);
}

size_t report_cmp_warnings(struct report_doc *d)
{
    const struct cmp_report *cmp = d->in->cmp;
    size_t n = cmp ? cmp->n_warnings : 0;
    for (size_t i = 0; i < n; i++) {
        buf_puts(d->out, "<li>");
        report_escape(d->out, cmp->warnings[i]);
        buf_puts(d->out, "</li>\n");
    }
    return n;
}
