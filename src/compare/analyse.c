/* One comparison, side B against baseline A: window, intervals, verdicts (docs/compare-method.md).
 */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "base/printf.h"

#define MIN_RUN     50    /* intervals: MSER-5 needs 10 batches of 5 (§5, TOO_SHORT) */
#define MIN_BLOCKS  20    /* bootstrap blocks a within-run interval needs (§3.2) */
#define DRIFT_MIN   20    /* intervals below which halves say nothing */
#define FAIL_GATE   0.001 /* failure share above which tps counts different work (§5) */
#define FAIL_MARGIN 0.001 /* failure rates within 0.1 percentage point are no difference */
/* A ratio beyond which no plausible run-to-run noise explains a difference, so that gates
 * about run length do not hide it: identical 3-s runs on a loaded 2-core machine have differed
 * by a third, and B at half of A's throughput must still count as worse. This override is
 * pgarena's own, not the sources': docs/compare-method.md §5, "Gross differences". */
#define GROSS       1.75
#define MIN_TAIL    100 /* transactions beyond a quantile needed to judge it (§3.4) */
#define N_QUANTILES 3

static const double quantiles[N_QUANTILES] = {0.50, 0.95, 0.99};
static const enum cmp_metric_id quantile_metric[N_QUANTILES] = {CMP_P50, CMP_P95, CMP_P99};

/* What one comparison works on. */
struct pair {
    struct cmp_report *rep;
    struct cmp_outcome *o;
    const struct cmp_side_runs *a, *b;
    size_t start, end; /* the common window, in intervals */
    char margin_text[32];
};

static void warn_pair(struct pair *p, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* With several sides, a comparison's warnings name the side they are about. */
static void warn_pair(struct pair *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->rep->n_sides > 2)
        cmp_warn(p->rep, "%s: %s", p->rep->sides[p->o->side].label, msg);
    else
        cmp_warn(p->rep, "%s", msg);
}

static void side_warmups(const struct cmp_side_runs *s, double interval_s, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = 0;
    for (size_t i = 0; i < s->n; i++) {
        double w = (double)s->runs[i].mser.warmup * interval_s;
        *lo = w < *lo ? w : *lo;
        *hi = w > *hi ? w : *hi;
    }
}

/* The same time window in every run: from the latest warm-up end to the shortest run's end. */
static void find_window(struct pair *p)
{
    const struct cmp_side_runs *sides[2] = {p->a, p->b};
    struct cmp_window *w = &p->o->window;
    size_t start = 0, end = SIZE_MAX;
    w->auto_warmup = 1;
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < sides[s]->n; i++) {
            const struct cmp_run *r = &sides[s]->runs[i];
            start = r->mser.warmup > start ? r->mser.warmup : start;
            end = r->n < end ? r->n : end;
            if (r->mser.flags & CMP_MSER_TOO_SHORT)
                w->auto_warmup = 0;
        }
    }
    w->interval_s = p->a->runs[0].interval_s;
    side_warmups(p->a, w->interval_s, &w->warmup_a_min_s, &w->warmup_a_max_s);
    side_warmups(p->b, w->interval_s, &w->warmup_b_min_s, &w->warmup_b_max_s);
    if (end < start + 2) {
        warn_pair(p, "leaving out the warm-up would leave no common window: nothing left out");
        start = 0;
    }
    p->start = start;
    p->end = end;
    w->start_s = (double)start * w->interval_s;
    w->end_s = (double)end * w->interval_s;
}

/*
 * A long window (a 24-hour run has 86,400 intervals) is bootstrapped in groups of consecutive
 * intervals, so that a replicate merges at most LAT_MAX_UNITS histograms instead of every
 * interval's: blocks then start at group boundaries and last whole groups. It stays a circular
 * block bootstrap, of blocks at least as long as the rule asked for and still thousands of
 * them; a window of up to LAT_MAX_UNITS intervals is resampled interval by interval as before.
 */
#define LAT_MAX_UNITS 512

static size_t lat_group(size_t len)
{
    return len > LAT_MAX_UNITS ? (len + LAT_MAX_UNITS - 1) / LAT_MAX_UNITS : 1;
}

static void lat_window(const struct cmp_run *r, size_t s, size_t e, struct cmp_lat *l)
{
    size_t g = lat_group(e - s);
    struct hist_sparse acc = {0};
    cmp_lat_init(l);
    for (size_t t = s; t < e; t++) {
        result_interval_merge(&acc, &r->r->intervals[t]);
        if ((t - s + 1) % g != 0 && t + 1 < e)
            continue;
        for (size_t k = 0; k < acc.n_bins; k++)
            cmp_lat_add(l, acc.bins[k].value_us, acc.bins[k].count);
        cmp_lat_next(l);
        hist_sparse_free(&acc);
    }
}

static double pct(double ratio)
{
    return (ratio - 1) * 100;
}

static void ratio_judge(double margin, const char *margin_text, struct cmp_judge *j, int single)
{
    *j = (struct cmp_judge){.single = single,
                            .null = 1,
                            .lo = 1 / (1 + margin),
                            .up = 1 + margin,
                            .gross_lo = 1 / GROSS,
                            .gross_up = GROSS,
                            .margin = log1p(margin),
                            .margin_text = margin_text};
}

static void base_judge(struct pair *p, struct cmp_judge *j, int single)
{
    ratio_judge(p->rep->cfg.margin, p->margin_text, j, single);
}

/* A ratio metric (tps, latency quantiles) from its interval of B/A. */
static void fill_ratio(struct cmp_metric *m, const struct cmp_ci *ci, int lower_better,
                       struct cmp_judge *j)
{
    m->a = ci->a;
    m->b = ci->b;
    m->change_pct = pct(ci->est);
    m->ci_low_pct = pct(ci->lo);
    m->ci_high_pct = pct(ci->hi);
    if (!(ci->a > 0) || !(ci->b > 0) || !isfinite(ci->est)) {
        m->change_pct = m->ci_low_pct = m->ci_high_pct = NAN;
        cmp_set_verdict(m, CMP_INCONCLUSIVE, "nothing measured on %s",
                        ci->a > 0 ? "B's side" : "A's side");
        return;
    }
    j->d = fabs(log(ci->est));
    if (lower_better)
        cmp_judge_metric(m, 1 / ci->hi, 1 / ci->lo, j);
    else
        cmp_judge_metric(m, ci->lo, ci->hi, j);
}

/* The failure rate is judged on the difference B - A in points, not as a ratio: a ratio of
 * two tiny rates is noise, and of a zero rate undefined. The change is still given in % of A
 * when A had failures. */
static void fill_failure(struct cmp_metric *m, const struct cmp_ci *ci, int single,
                         const struct cmp_judge *trials)
{
    m->a = ci->a;
    m->b = ci->b;
    m->change_pct = ci->a > 0 ? (ci->b - ci->a) / ci->a * 100 : NAN;
    m->ci_low_pct = ci->a > 0 ? ci->lo / ci->a * 100 : NAN;
    m->ci_high_pct = ci->a > 0 ? ci->hi / ci->a * 100 : NAN;
    if (ci->a == 0 && ci->b == 0) {
        m->change_pct = 0;
        cmp_set_verdict(m, CMP_NO_DIFFERENCE, "no failures on either side");
        return;
    }
    struct cmp_judge j = {.single = single,
                          .lo = -FAIL_MARGIN,
                          .up = FAIL_MARGIN,
                          .gross_lo = -10 * FAIL_MARGIN,
                          .gross_up = 10 * FAIL_MARGIN,
                          .d = fabs(ci->est),
                          .margin = FAIL_MARGIN,
                          .var_a = trials ? trials->var_a : 0,
                          .var_b = trials ? trials->var_b : 0,
                          .n_trials = trials ? trials->n_trials : 1,
                          .margin_text = "±0.1 points"};
    cmp_judge_metric(m, -ci->hi, -ci->lo, &j);
}

/* Failures change what throughput means (retries, aborted work): then tps is not judged. */
const char *cmp_failure_gate(const struct cmp_metric *f, char *buf, size_t size)
{
    if (f->a <= FAIL_GATE && f->b <= FAIL_GATE &&
        (f->verdict == CMP_NO_DIFFERENCE || f->verdict == CMP_INCONCLUSIVE))
        return NULL;
    snprintf(buf, size,
             "failures differ or exceed 0.1%% (A %.2f%%, B %.2f%%): tps counts "
             "different work",
             100 * f->a, 100 * f->b);
    return buf;
}

static void warn_drift(struct pair *p, const struct cmp_run *r, const struct cmp_drift *d)
{
    warn_pair(p,
              "%s: throughput drifts %+.1f%% from the first to the second half of the window "
              "(z = %.1f): one number misrepresents this run",
              r->path, pct(d->m2 / d->m1), d->z);
}

/* Whether the run drifts inside the window (warned); s2lr from the block-length rule. */
static int drifts(struct pair *p, const struct cmp_run *r, double s2lr)
{
    size_t len = p->end - p->start;
    if (len < DRIFT_MIN)
        return 0;
    struct cmp_drift d;
    cmp_drift_check(r->tps + p->start, len, s2lr, p->rep->cfg.margin, &d);
    if (d.flagged)
        warn_drift(p, r, &d);
    return d.flagged;
}

static void check_hac(struct pair *p, const struct cmp_ci *boot, const struct cmp_lrv *la,
                      const struct cmp_lrv *lb, size_t len)
{
    struct cmp_ci hac;
    cmp_hac_ci(boot->a, la->s2lr, len, boot->b, lb->s2lr, len, &hac);
    double hw_boot = (log(boot->hi) - log(boot->lo)) / 2;
    double hw_hac = (log(hac.hi) - log(hac.lo)) / 2;
    if (!(hw_boot > 0) || !(hw_hac > 0))
        return;
    if (hw_boot / hw_hac > 1.5 || hw_hac / hw_boot > 1.5)
        warn_pair(p,
                  "the bootstrap and HAC intervals of tps disagree (±%.1f%% against ±%.1f%%): "
                  "the dependence estimate is unstable; run longer",
                  100 * hw_boot, 100 * hw_hac);
}

/* Latency of one trial per side: one bootstrap gives every quantile (§3.4). */
static void single_latency(struct pair *p, size_t b, const char *cap)
{
    const struct cmp_run *ra = &p->a->runs[0], *rb = &p->b->runs[0];
    struct cmp_lat la, lb;
    lat_window(ra, p->start, p->end, &la);
    lat_window(rb, p->start, p->end, &lb);
    struct cmp_ci ci[N_QUANTILES];
    size_t g = lat_group(p->end - p->start);
    cmp_lat_ci(&la, &lb, (b + g - 1) / g, quantiles, N_QUANTILES, p->rep->cfg.resamples,
               p->rep->cfg.seed + 1, ci);
    for (int k = 0; k < N_QUANTILES; k++) {
        char thin[160];
        double tail_a = (double)la.total * (1 - quantiles[k]);
        double tail_b = (double)lb.total * (1 - quantiles[k]);
        struct cmp_judge j;
        base_judge(p, &j, 1);
        j.cap = cap;
        if (tail_a < MIN_TAIL || tail_b < MIN_TAIL) {
            snprintf(thin, sizeof thin,
                     "too few transactions beyond p%.0f (A %.0f, B %.0f; needs %d): run longer",
                     100 * quantiles[k], tail_a, tail_b, MIN_TAIL);
            j.hard = thin;
        }
        fill_ratio(&p->o->metrics[quantile_metric[k]], &ci[k], 1, &j);
    }
    cmp_lat_free(&la);
    cmp_lat_free(&lb);
}

/* One trial per side: circular block bootstrap within the runs (§3.3). */
static void analyse_single(struct pair *p)
{
    const struct cmp_run *ra = &p->a->runs[0], *rb = &p->b->runs[0];
    size_t s = p->start, len = p->end - p->start;
    int reps = p->rep->cfg.resamples;
    struct cmp_lrv la, lb;
    cmp_pw_block(ra->tps + s, len, &la);
    cmp_pw_block(rb->tps + s, len, &lb);
    size_t b = la.b > lb.b ? la.b : lb.b;
    b = b > len ? len : b;
    p->o->window.block = b;
    p->o->window.n_eff_a = la.n_eff;
    p->o->window.n_eff_b = lb.n_eff;
    char cap[200];
    const char *capped = NULL;
    size_t shortest = ra->n < rb->n ? ra->n : rb->n;
    if (shortest < MIN_RUN) {
        snprintf(cap, sizeof cap,
                 "runs of %zu interval%s, too short for a within-run CI (needs %d)", shortest,
                 shortest == 1 ? "" : "s", MIN_RUN);
        capped = cap;
    } else if (len / b < MIN_BLOCKS) {
        snprintf(cap, sizeof cap,
                 "window holds %zu blocks of %zu intervals, too few for a "
                 "within-run CI (needs %d)",
                 len / b, b, MIN_BLOCKS);
        capped = cap;
    }
    int drift = drifts(p, ra, la.s2lr) | drifts(p, rb, lb.s2lr);
    if (drift && !capped)
        capped = "throughput drifts within a run (see warnings)";
    cmp_warn(p->rep,
             "one trial per side: the CIs cover the noise within each run only, between-run "
             "noise is unknown; repeat each side 3 or more times, interleaved (A B A B A B), "
             "and compare all the files");

    struct cmp_ci fr, tps;
    cmp_rate_diff_ci(ra->failed + s, ra->total + s, rb->failed + s, rb->total + s, len, b, reps,
                     p->rep->cfg.seed + 3, &fr);
    fill_failure(&p->o->metrics[CMP_FAILURE_RATE], &fr, 1, NULL);

    cmp_ratio_ci(ra->tps + s, len, rb->tps + s, len, b, reps, p->rep->cfg.seed, &tps);
    if (!capped)
        check_hac(p, &tps, &la, &lb, len);
    struct cmp_judge j;
    char gate[200];
    base_judge(p, &j, 1);
    j.cap = capped;
    j.hard = cmp_failure_gate(&p->o->metrics[CMP_FAILURE_RATE], gate, sizeof gate);
    fill_ratio(&p->o->metrics[CMP_TPS], &tps, 0, &j);
    single_latency(p, b, capped);
}

static void mean_sd(const double *x, size_t n, double *mean, double *sd)
{
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    *mean = s / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *sd = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
}

/* The between-run variances of both sides as cmp_welch uses them: a side with one trial
 * borrows the other's. */
static void trial_vars(const double *a, size_t na, const double *b, size_t nb, struct cmp_judge *j)
{
    double ma, sa, mb, sb;
    mean_sd(a, na, &ma, &sa);
    mean_sd(b, nb, &mb, &sb);
    j->var_a = na > 1 ? sa * sa : sb * sb;
    j->var_b = nb > 1 ? sb * sb : sa * sa;
    j->n_trials = (int)(na > nb ? na : nb);
}

/* y[i] > 0 for all i: then their logs into l, and 1. */
static int logs(const double *y, size_t n, double *l)
{
    for (size_t i = 0; i < n; i++) {
        if (!(y[i] > 0))
            return 0;
        l[i] = log(y[i]);
    }
    return 1;
}

void cmp_trial_ratio(double margin, const double *ya, size_t na, const double *yb, size_t nb,
                     int lower_better, const char *hard, struct cmp_metric *m)
{
    double *la = xmalloc(na * sizeof *la), *lb = xmalloc(nb * sizeof *lb);
    int ok = logs(ya, na, la) & logs(yb, nb, lb);
    if (!ok) {
        cmp_set_verdict(m, CMP_INCONCLUSIVE, "a trial measured nothing in the window");
    } else {
        struct cmp_welch w;
        double mean_a, mean_b, sd;
        char margin_text[32];
        snprintf(margin_text, sizeof margin_text, "±%g%%", 100 * margin);
        cmp_welch(la, na, lb, nb, &w);
        mean_sd(la, na, &mean_a, &sd);
        mean_sd(lb, nb, &mean_b, &sd);
        struct cmp_ci ci = {exp(mean_a), exp(mean_b), exp(w.d), exp(w.lo), exp(w.hi)};
        struct cmp_judge j;
        ratio_judge(margin, margin_text, &j, 0);
        trial_vars(la, na, lb, nb, &j);
        j.hard = hard;
        fill_ratio(m, &ci, lower_better, &j);
        m->df = w.df;
    }
    free(la);
    free(lb);
}

void cmp_pooled_ratio(double margin, double mean_a, size_t na, const struct cmp_pooled *pa,
                      double mean_b, size_t nb, const struct cmp_pooled *pb, int lower_better,
                      const char *hard, struct cmp_metric *m)
{
    struct cmp_welch w;
    char margin_text[32];
    snprintf(margin_text, sizeof margin_text, "±%g%%", 100 * margin);
    cmp_pooled_welch(mean_b - mean_a, na, pa, nb, pb, &w);
    struct cmp_ci ci = {exp(mean_a), exp(mean_b), exp(w.d), exp(w.lo), exp(w.hi)};
    struct cmp_judge j;
    ratio_judge(margin, margin_text, &j, 0);
    j.var_a = pa->var;
    j.var_b = pb->var;
    j.n_trials = (int)(na > nb ? na : nb);
    j.pool_a = pa;
    j.pool_b = pb;
    j.n_a = na;
    j.n_b = nb;
    j.hard = hard;
    fill_ratio(m, &ci, lower_better, &j);
    m->df = w.df;
}

/* A ratio metric over trials: Welch's t on the logs of the per-trial values (§3.5). */
static void trial_ratio(struct pair *p, enum cmp_metric_id id, const double *ya, const double *yb,
                        int lower_better, const char *hard)
{
    cmp_trial_ratio(p->rep->cfg.margin, ya, p->a->n, yb, p->b->n, lower_better, hard,
                    &p->o->metrics[id]);
}

/* Per-trial figures over the window. */
struct trial_figs {
    double *tps, *rate;
    double *q[N_QUANTILES];
};

static void trial_figures(struct pair *p, const struct cmp_side_runs *s, struct trial_figs *f)
{
    size_t len = p->end - p->start;
    f->tps = xmalloc(s->n * sizeof *f->tps);
    f->rate = xmalloc(s->n * sizeof *f->rate);
    for (int k = 0; k < N_QUANTILES; k++)
        f->q[k] = xmalloc(s->n * sizeof *f->q[k]);
    for (size_t i = 0; i < s->n; i++) {
        const struct cmp_run *r = &s->runs[i];
        double tps = 0, failed = 0, total = 0;
        for (size_t t = p->start; t < p->end; t++) {
            tps += r->tps[t];
            failed += r->failed[t];
            total += r->total[t];
        }
        f->tps[i] = tps / (double)len;
        f->rate[i] = total > 0 ? failed / total : 0;
        struct cmp_lat l;
        lat_window(r, p->start, p->end, &l);
        for (int k = 0; k < N_QUANTILES; k++)
            f->q[k][i] = cmp_lat_quantile(&l, quantiles[k]);
        cmp_lat_free(&l);
        struct cmp_lrv lrv;
        cmp_pw_block(r->tps + p->start, len, &lrv);
        drifts(p, r, lrv.s2lr); /* a warning only: the trial's mean still counts */
    }
}

static void trial_figs_free(struct trial_figs *f)
{
    free(f->tps);
    free(f->rate);
    for (int k = 0; k < N_QUANTILES; k++)
        free(f->q[k]);
}

static double median(const double *x, size_t n)
{
    double *v = xmalloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = x[i];
    cmp_sort(v, n);
    double m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    free(v);
    return m;
}

/* Flag, never drop, a trial far from its side's median (modified z-score over 3.5). */
static void check_outliers(struct pair *p, const struct cmp_side_runs *s, const double *y)
{
    if (s->n < 3)
        return;
    double med = median(y, s->n);
    double *dev = xmalloc(s->n * sizeof *dev);
    for (size_t i = 0; i < s->n; i++)
        dev[i] = fabs(y[i] - med);
    double mad = median(dev, s->n);
    free(dev);
    for (size_t i = 0; mad > 0 && i < s->n; i++) {
        double z = 0.6745 * (y[i] - med) / mad;
        if (fabs(z) > 3.5)
            warn_pair(p,
                      "%s: %.1f tps is far from its side's median of %.1f (modified z %.1f): "
                      "an outlier trial, kept",
                      s->runs[i].path, y[i], med, z);
    }
}

/* 2 / C(na + nb, na): the smallest two-sided Mann-Whitney p these counts allow. */
static double mwu_min_p(size_t na, size_t nb)
{
    double c = 1;
    for (size_t i = 1; i <= na; i++)
        c = c * (double)(nb + i) / (double)i;
    return 2 / c;
}

/* Several trials on a side: the trial is the unit (§3.5). */
static void analyse_trials(struct pair *p)
{
    struct trial_figs fa, fb;
    size_t na = p->a->n, nb = p->b->n;
    trial_figures(p, p->a, &fa);
    trial_figures(p, p->b, &fb);
    if (na == 1 || nb == 1)
        warn_pair(p, "%s has one trial: its run-to-run noise is assumed to be the other side's",
                  na == 1 ? "A" : "B");
    check_outliers(p, p->a, fa.tps);
    check_outliers(p, p->b, fb.tps);

    struct cmp_welch w;
    cmp_welch(fa.rate, na, fb.rate, nb, &w);
    double ma, mb, sd;
    mean_sd(fa.rate, na, &ma, &sd);
    mean_sd(fb.rate, nb, &mb, &sd);
    struct cmp_ci fr = {ma, mb, w.d, w.lo, w.hi};
    struct cmp_judge spread;
    trial_vars(fa.rate, na, fb.rate, nb, &spread);
    fill_failure(&p->o->metrics[CMP_FAILURE_RATE], &fr, 0, &spread);

    char gate[200];
    trial_ratio(p, CMP_TPS, fa.tps, fb.tps, 0,
                cmp_failure_gate(&p->o->metrics[CMP_FAILURE_RATE], gate, sizeof gate));
    for (int k = 0; k < N_QUANTILES; k++)
        trial_ratio(p, quantile_metric[k], fa.q[k], fb.q[k], 1, NULL);
    p->o->mwu_p = cmp_mwu_p(fa.tps, na, fb.tps, nb);
    p->o->mwu_min_p = mwu_min_p(na, nb);
    trial_figs_free(&fa);
    trial_figs_free(&fb);
}

void cmp_analyse(struct cmp_report *rep, const struct cmp_side_runs *a,
                 const struct cmp_side_runs *b, struct cmp_outcome *o)
{
    struct pair p = {.rep = rep, .o = o, .a = a, .b = b};
    snprintf(p.margin_text, sizeof p.margin_text, "±%g%%", 100 * rep->cfg.margin);
    o->mwu_p = o->mwu_min_p = NAN;
    for (int k = 0; k < CMP_N_METRICS; k++)
        o->metrics[k] = (struct cmp_metric){NAN, NAN, NAN, NAN, NAN, CMP_INCONCLUSIVE, "", 0, 0};
    find_window(&p);
    if (a->n == 1 && b->n == 1)
        analyse_single(&p);
    else
        analyse_trials(&p);
}

void cmp_run_figures(const struct cmp_run *r, double fig[CMP_N_RUN_FIGS])
{
    /* The run's own steady part: its warm-up left out, unless nothing would remain. */
    size_t start = r->mser.warmup + 2 <= r->n ? r->mser.warmup : 0;
    double tps = 0;
    for (size_t t = start; t < r->n; t++)
        tps += r->tps[t];
    fig[0] = tps / (double)(r->n - start);
    struct cmp_lat l;
    lat_window(r, start, r->n, &l);
    for (int k = 0; k < N_QUANTILES; k++)
        fig[1 + k] = cmp_lat_quantile(&l, quantiles[k]);
    cmp_lat_free(&l);
}
