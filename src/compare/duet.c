/* A duet's comparison: the two sides' seconds paired, their log ratios averaged, a batch-means
 * interval over them (docs/compare-method.md §3.8). */
#include "compare/duet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

static const double quantile_of[CMP_N_METRICS] = {0, 0.50, 0.95, 0.99, 0};

/* HdrHistogram's rule (§3.4) on interval t of l alone: the highest value of the bin where the
 * cumulative count reaches max(1, (int64)(q N + 0.5)); 0 when the interval is empty. *count
 * receives N. */
static double interval_quantile(const struct cmp_lat *l, size_t t, double q, uint64_t *count)
{
    uint64_t total = 0, cum = 0;
    for (size_t j = l->off[t]; j < l->off[t + 1]; j++)
        total += l->cnt[j];
    *count = total;
    int64_t target = (int64_t)(q * (double)total + 0.5);
    uint64_t rank = target < 1 ? 1 : (uint64_t)target;
    for (size_t j = l->off[t]; j < l->off[t + 1]; j++) {
        cum += l->cnt[j];
        if (cum >= rank)
            return (double)cmp_lat_highest(l->idx[j]);
    }
    return 0;
}

size_t duet_values_per_s(const struct duet_trial *t, enum cmp_metric_id m)
{
    return m == CMP_TPS && t->half_a && t->half_b ? 2 : 1;
}

size_t duet_pairs(const struct duet_trial *t, enum cmp_metric_id m, double *d)
{
    size_t k = 0;
    if (duet_values_per_s(t, m) == 2) {
        /* The halves of a second cover the same time on both sides: counts stand for rates. */
        for (size_t i = 0; i < 2 * t->n; i++)
            if (t->half_a[i] > 0 && t->half_b[i] > 0)
                d[k++] = log(t->half_b[i] / t->half_a[i]);
        return k;
    }
    for (size_t i = 0; i < t->n; i++) {
        if (m == CMP_TPS) {
            if (t->tps_a[i] > 0 && t->tps_b[i] > 0)
                d[k++] = log(t->tps_b[i] / t->tps_a[i]);
        } else if (m == CMP_FAILURE_RATE) {
            if (t->total_a && t->total_b && t->total_a[i] > 0 && t->total_b[i] > 0)
                d[k++] = t->failed_b[i] / t->total_b[i] - t->failed_a[i] / t->total_a[i];
        } else if (t->lat_a && t->lat_b && i < t->lat_a->n && i < t->lat_b->n) {
            double q = quantile_of[m];
            uint64_t na, nb;
            double va = interval_quantile(t->lat_a, i, q, &na);
            double vb = interval_quantile(t->lat_b, i, q, &nb);
            double need = DUET_MIN_BEYOND / (1 - q) - 1e-9;
            if ((double)na >= need && (double)nb >= need && va > 0 && vb > 0)
                d[k++] = log(vb / va);
        }
    }
    return k;
}

size_t duet_batches(size_t n, size_t per_s)
{
    size_t k = n / per_s / DUET_BATCH_MIN_S;
    /* Ten batches of half-seconds only where the length rule guards a short duet's interval:
     * from DUET_SHORT_PAIRS on, batches of 6 s let the noise that lasts seconds through. */
    size_t least =
        per_s > 1 && n / per_s < DUET_SHORT_PAIRS ? DUET_BATCHES_MIN_HALVES : DUET_BATCHES_MIN;
    k = k < least ? least : k > DUET_BATCHES_MAX ? DUET_BATCHES_MAX : k;
    return k < n ? k : n;
}

void duet_batch_means(const double *d, const size_t *n, size_t nt, size_t per_s,
                      struct duet_ci *out)
{
    memset(out, 0, sizeof *out);
    size_t total = 0;
    for (size_t j = 0; j < nt; j++)
        total += n[j];
    size_t nb = duet_batches(total, per_s);
    out->n_pairs = total;
    out->per_s = per_s;
    out->seconds = (double)total / (double)per_s;
    out->n_batches = nb;
    out->est = out->se = out->lo = out->hi = NAN;
    if (total == 0)
        return;
    /* The trials one after the other, cut into nb batches of near-equal length (the longer
     * ones first). */
    double *bm = xmalloc(nb * sizeof *bm), *bw = xmalloc(nb * sizeof *bw), sum = 0;
    size_t at = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t len = total / nb + (b < total % nb ? 1 : 0);
        double s = 0;
        for (size_t x = 0; x < len; x++)
            s += d[at + x];
        at += len;
        sum += s;
        bm[b] = s / (double)len;
        bw[b] = (double)len;
        double len_s = (double)len / (double)per_s;
        out->batch_s = len_s > out->batch_s ? len_s : out->batch_s;
    }
    out->est = sum / (double)total;
    if (nb >= 2) {
        double ss = 0;
        for (size_t i = 0; i < nb; i++)
            ss += bw[i] * (bm[i] - out->est) * (bm[i] - out->est);
        out->df = (double)(nb - 1);
        out->se = sqrt(ss / out->df / (double)total);
        double h = cmp_t975(out->df) * out->se;
        out->lo = out->est - h;
        out->hi = out->est + h;
    }
    free(bm);
    free(bw);
}

/* The verdict of §5 from the interval, with a duet's details: no trial projection (the remedy
 * is a longer duet), and the paired seconds it stands on. */
static void judge(struct cmp_metric *m, const struct duet_ci *ci, size_t n_trials, int ratio,
                  int lower_better, double margin, const char *gate)
{
    char mt[32];
    snprintf(mt, sizeof mt, "+-%g%s", ratio ? margin * 100 : 0.1, ratio ? "%" : " point");
    if (gate) {
        cmp_set_verdict(m, CMP_INCONCLUSIVE, "%s", gate);
        return;
    }
    if (ci->seconds < DUET_MIN_PAIRS || isnan(ci->lo)) {
        cmp_want_data(m, "too short for a duet verdict: %g paired second%s, needs %d", ci->seconds,
                      ci->seconds == 1 ? "" : "s", DUET_MIN_PAIRS);
        return;
    }
    /* Oriented so that above the null is better for B. */
    double l = ci->lo, u = ci->hi, null = 0, lo, up;
    if (ratio) {
        lo = -log1p(margin);
        up = log1p(margin);
    } else {
        lo = -0.001;
        up = 0.001;
    }
    if (lower_better) {
        double t = l;
        l = -u;
        u = -t;
    }
    enum cmp_class c = cmp_classify(l, u, null, lo, up);
    enum cmp_verdict dir = l > null ? CMP_BETTER : CMP_WORSE;
    if (ci->seconds < DUET_SHORT_PAIRS) {
        double large = log1p(DUET_LARGE);
        if (!ratio)
            cmp_want_data(m, "a duet under %d paired seconds judges no failure rate (%g s)",
                          DUET_SHORT_PAIRS, ci->seconds);
        else if (l > large || u < -large)
            cmp_set_verdict(m, dir,
                            "beyond +-%g%%: a large effect, all that a duet under %d paired "
                            "seconds decides (%g s)",
                            DUET_LARGE * 100, DUET_SHORT_PAIRS, ci->seconds);
        else
            cmp_want_data(m,
                          "a duet under %d paired seconds decides only an effect beyond +-%g%% "
                          "(%g s)",
                          DUET_SHORT_PAIRS, DUET_LARGE * 100, ci->seconds);
        return;
    }
    switch (c) {
    case CMP_C_BETTER:
    case CMP_C_WORSE:
        cmp_set_verdict(m, dir, "beyond the %s margin, paired by second (%g s)", mt, ci->seconds);
        return;
    case CMP_C_BETTER_NEGLIGIBLE:
    case CMP_C_WORSE_NEGLIGIBLE:
        cmp_set_verdict(m, CMP_NO_DIFFERENCE, "real but inside %s", mt);
        return;
    case CMP_C_EQUIVALENT:
        cmp_set_verdict(m, CMP_NO_DIFFERENCE, "inside %s", mt);
        return;
    case CMP_C_BETTER_SMALL:
    case CMP_C_WORSE_SMALL:
        /* As §5 with one trial a side: the direction alone, from one duet, is not a verdict. */
        if (n_trials == 1)
            cmp_set_verdict(
                m, CMP_INCONCLUSIVE,
                "B %s within this duet, size uncertain: the CI reaches inside %s; run longer or "
                "repeat",
                dir == CMP_BETTER ? "better" : "worse", mt);
        else
            cmp_set_verdict(m, dir, "size uncertain: the CI reaches inside %s", mt);
        return;
    default: {
        /* The half-width shrinks as 1/sqrt(seconds): the seconds that would bring it under the
         * gap between the estimate and the nearest edge that decides. */
        double d = fabs(ci->est), gap = d > up ? d - up : up - d, h = (ci->hi - ci->lo) / 2;
        double need = gap > 0 ? ci->seconds * (h / gap) * (h / gap) : INFINITY;
        if (need < 3600 * 24)
            cmp_want_data(m,
                          "the CI reaches past %s; about %.0f paired seconds would "
                          "settle it",
                          mt, ceil(need));
        else
            cmp_set_verdict(m, CMP_INCONCLUSIVE, "the CI reaches past %s: too noisy for a duet",
                            mt);
        return;
    }
    }
}

void duet_metric(const struct duet_trial *tr, size_t nt, enum cmp_metric_id m, double margin,
                 const char *failure_gate, struct cmp_metric *out, struct duet_ci *ci)
{
    /* Half-seconds only when every trial has them: the batches' rule depends on it. */
    size_t cap = 0, per_s = 2;
    for (size_t j = 0; j < nt; j++) {
        cap += tr[j].n;
        if (duet_values_per_s(&tr[j], m) < 2)
            per_s = 1;
    }
    double *d = xmalloc((per_s * cap + 1) * sizeof *d);
    size_t *n = xmalloc((nt + 1) * sizeof *n), at = 0;
    for (size_t j = 0; j < nt; j++) {
        struct duet_trial t = tr[j];
        if (per_s == 1)
            t.half_a = t.half_b = NULL;
        n[j] = duet_pairs(&t, m, d + at);
        at += n[j];
    }
    duet_batch_means(d, n, nt, per_s, ci);
    free(d);
    free(n);
    memset(out, 0, sizeof *out);
    out->a = out->b = NAN;
    out->df = ci->df;
    int ratio = m != CMP_FAILURE_RATE;
    if (ratio) {
        out->change_pct = (exp(ci->est) - 1) * 100;
        out->ci_low_pct = (exp(ci->lo) - 1) * 100;
        out->ci_high_pct = (exp(ci->hi) - 1) * 100;
    } else { /* points */
        out->change_pct = ci->est * 100;
        out->ci_low_pct = ci->lo * 100;
        out->ci_high_pct = ci->hi * 100;
    }
    judge(out, ci, nt, ratio, m != CMP_TPS, margin, m == CMP_TPS ? failure_gate : NULL);
    if (ci->n_pairs == 0 && m != CMP_TPS && m != CMP_FAILURE_RATE && !failure_gate)
        cmp_want_data(
            out,
            "too few transactions a second beyond p%.0f (a paired second needs %d beyond it on "
            "both sides)",
            quantile_of[m] * 100, DUET_MIN_BEYOND);
}

int duet_partners(const struct result *a, const struct result *b)
{
    return a->has_duet && b->has_duet && strcmp(a->duet.id, b->duet.id) == 0 && a->run_id &&
           b->run_id && strcmp(a->duet.partner, b->run_id) == 0 &&
           strcmp(b->duet.partner, a->run_id) == 0;
}

int duet_prepare(struct duet_run *d, const struct result *r, const char *path, struct err *e)
{
    cmp_lat_init(&d->lat);
    d->halves = NULL;
    if (cmp_prepare_run(&d->run, r, path, e) < 0)
        return -1;
    /* The halves of a second: tenths 0-4 and 5-9 of a whole interval (prepare keeps only
     * complete ones, the first run.n). */
    int whole = d->run.n > 0;
    for (size_t t = 0; t < d->run.n && whole; t++)
        whole = r->intervals[t].n_tenths == RESULT_INTERVAL_TENTHS;
    if (whole) {
        d->halves = xcalloc(2 * d->run.n, sizeof *d->halves);
        for (size_t t = 0; t < d->run.n; t++)
            for (size_t k = 0; k < RESULT_INTERVAL_TENTHS; k++)
                d->halves[2 * t + (k < RESULT_INTERVAL_TENTHS / 2 ? 0 : 1)] +=
                    (double)r->intervals[t].tenths[k];
    }
    for (size_t t = 0; t < d->run.n; t++) {
        struct hist_sparse h = {0};
        if (result_interval_decoded(&r->intervals[t], &h) == 0)
            for (size_t k = 0; k < h.n_bins; k++)
                cmp_lat_add(&d->lat, h.bins[k].value_us, h.bins[k].count);
        hist_sparse_free(&h);
        cmp_lat_next(&d->lat);
    }
    return 0;
}

void duet_run_free(struct duet_run *d)
{
    cmp_free_run(&d->run);
    cmp_lat_free(&d->lat);
    free(d->halves);
    d->halves = NULL;
}

/* A side's figure over its trials: tps and the failure rate over all their intervals, a
 * quantile the mean of the trials' quantiles. */
static double side_value(const struct duet_run *s, size_t nt, enum cmp_metric_id m)
{
    double num = 0, den = 0;
    for (size_t j = 0; j < nt; j++) {
        const struct cmp_run *r = &s[j].run;
        for (size_t t = 0; t < r->n; t++) {
            if (m == CMP_TPS) {
                num += r->tps[t] * r->interval_s;
                den += r->interval_s;
            } else if (m == CMP_FAILURE_RATE) {
                num += r->failed[t];
                den += r->total[t];
            }
        }
        if (m != CMP_TPS && m != CMP_FAILURE_RATE) {
            num += cmp_lat_quantile(&s[j].lat, quantile_of[m]);
            den += 1;
        }
    }
    return den > 0 ? num / den : NAN;
}

void duet_compare(const struct duet_run *a, const struct duet_run *b, size_t nt, double margin,
                  struct cmp_metric out[CMP_N_METRICS], struct duet_ci *tps_ci)
{
    struct duet_trial *tr = xcalloc(nt + 1, sizeof *tr);
    for (size_t j = 0; j < nt; j++) {
        const struct cmp_run *ra = &a[j].run, *rb = &b[j].run;
        tr[j] = (struct duet_trial){ra->n < rb->n ? ra->n : rb->n,
                                    ra->tps,
                                    rb->tps,
                                    ra->failed,
                                    ra->total,
                                    rb->failed,
                                    rb->total,
                                    &a[j].lat,
                                    &b[j].lat,
                                    a[j].halves,
                                    b[j].halves};
    }
    struct duet_ci ci;
    duet_metric(tr, nt, CMP_FAILURE_RATE, margin, NULL, &out[CMP_FAILURE_RATE], &ci);
    out[CMP_FAILURE_RATE].a = side_value(a, nt, CMP_FAILURE_RATE);
    out[CMP_FAILURE_RATE].b = side_value(b, nt, CMP_FAILURE_RATE);
    char gate[200];
    const char *hard = cmp_failure_gate(&out[CMP_FAILURE_RATE], gate, sizeof gate);
    for (int m = 0; m < CMP_FAILURE_RATE; m++) {
        duet_metric(tr, nt, (enum cmp_metric_id)m, margin, hard, &out[m], &ci);
        if (m == CMP_TPS && tps_ci)
            *tps_ci = ci;
    }
    for (int m = 0; m < CMP_FAILURE_RATE; m++) {
        out[m].a = side_value(a, nt, (enum cmp_metric_id)m);
        out[m].b = side_value(b, nt, (enum cmp_metric_id)m);
    }
    free(tr);
}

/* Side b's runs matched with their partners on side a: pa[i] is the index in a of b's run i's
 * partner. 1 when every run of both sides has its partner on the other, one to one. */
static int match_partners(const struct cmp_side *a, const struct cmp_side *b, size_t *pa)
{
    if (a->n_trials != b->n_trials || a->n_trials == 0)
        return 0;
    for (size_t i = 0; i < b->n_trials; i++) {
        pa[i] = a->n_trials;
        for (size_t j = 0; j < a->n_trials; j++)
            if (duet_partners(a->runs[j], b->runs[i]))
                pa[i] = j;
        if (pa[i] == a->n_trials)
            return 0;
        for (size_t k = 0; k < i; k++)
            if (pa[k] == pa[i])
                return 0;
    }
    return 1;
}

void cmp_duet(struct cmp_report *rep, size_t side, struct cmp_outcome *o)
{
    const struct cmp_side *a = &rep->sides[0], *b = &rep->sides[side];
    size_t nt = b->n_trials;
    size_t *pa = xcalloc(nt + 1, sizeof *pa);
    if (!match_partners(a, b, pa)) {
        free(pa);
        return;
    }
    struct duet_run *ra = xcalloc(nt, sizeof *ra), *rb = xcalloc(nt, sizeof *rb);
    size_t ready = 0;
    struct err e = {0};
    for (; ready < nt; ready++) {
        if (duet_prepare(&ra[ready], a->runs[pa[ready]], a->paths[pa[ready]], &e) < 0)
            break;
        if (duet_prepare(&rb[ready], b->runs[ready], b->paths[ready], &e) < 0) {
            duet_run_free(&ra[ready]);
            break;
        }
    }
    if (ready == nt) {
        struct duet_ci ci;
        duet_compare(ra, rb, nt, rep->cfg.margin, o->metrics, &ci);
        o->duet = 1;
        o->duet_seconds = ci.seconds * ra[0].run.interval_s;
        o->duet_halves = ci.per_s == 2;
        o->duet_batches = ci.n_batches;
        o->duet_batch_s = ci.batch_s * ra[0].run.interval_s;
        o->mwu_p = NAN; /* the trials are paired: an unpaired test of them says nothing */
    }
    for (size_t i = 0; i < ready; i++) {
        duet_run_free(&ra[i]);
        duet_run_free(&rb[i]);
    }
    free(ra);
    free(rb);
    free(pa);
}
