/* The capacity search of `sweep --max-rate --slo`: the highest open-loop rate whose steady part
 * meets the objective with the schedule kept, by bracketing and bisection, then confirmed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "compare/compare.h"
#include "sweep/capacity.h"

struct sweep_cap_params sweep_cap_defaults(double limit_us, int trials)
{
    return (struct sweep_cap_params){.limit_us = limit_us,
                                     .quantile = 0.99,
                                     .trials = trials,
                                     .tolerance = SWEEP_CAP_TOLERANCE,
                                     .max_steps = SWEEP_CAP_MAX_STEPS,
                                     .retries = SWEEP_CAP_RETRIES,
                                     .stall_retests = SWEEP_CAP_STALL_RETESTS,
                                     .growth = SWEEP_CAP_GROWTH};
}

double sweep_cap_round(double r)
{
    char text[32];
    snprintf(text, sizeof text, "%.3g", r);
    return fmax(strtod(text, NULL), 0.001);
}

int sweep_cap_judge(const struct sweep_cap_params *p, double rate, const struct sweep_cap_step *s)
{
    /* A step that completed nothing shows no latency at all, so it cannot show the objective
     * met (at a low rate over a short step, the Poisson allowance alone would keep it). */
    if (!(s->tps > 0))
        return 0;
    int slo = s->quantile_us <= p->limit_us;
    if (rate <= 0)
        return slo;
    /* Poisson arrivals fall short of the rate by chance: two standard deviations of the count
     * over the steady part are the schedule's own noise, not the server's. That leaves short
     * steps lenient, so a queue that grows (latency climbing through the steady part) also
     * says that the server does not keep up. */
    double allowance = s->seconds > 0 ? 2 * sqrt(rate * s->seconds) / s->seconds : 0;
    /* A server that falls behind completes fewer than the schedule asks: latency that climbs
     * while the step still achieved its rate is a stall that passed (a loaded client
     * machine), not a queue that grows. */
    int growing = s->p50_growth > p->growth && s->tps < rate;
    int kept = s->tps >= 0.99 * rate - allowance && !growing;
    return kept && slo;
}

/* The achieved rate of n trials together, and their seconds: transactions over the summed
 * seconds (the mean when no trial knows its seconds). */
static double pooled_rate(const struct sweep_cap_step *s, int n, double *seconds)
{
    double tx = 0, mean = 0;
    *seconds = 0;
    for (int i = 0; i < n; i++) {
        tx += s[i].tps * s[i].seconds;
        *seconds += s[i].seconds;
        mean += s[i].tps / n;
    }
    return *seconds > 0 ? tx / *seconds : mean;
}

struct sweep_cap_step sweep_cap_pool(const struct sweep_cap_params *p,
                                     const struct sweep_cap_step *s, int n)
{
    struct sweep_cap_step all = {0};
    double within = 0, log_growth = 0;
    int shares = 1;
    all.tps = pooled_rate(s, n, &all.seconds);
    for (int i = 0; i < n; i++) {
        all.transactions += s[i].transactions;
        within += s[i].within_limit * s[i].transactions;
        shares &= s[i].transactions > 0;
        all.quantile_us = fmax(all.quantile_us, s[i].quantile_us);
        log_growth += log(fmax(s[i].p50_growth, 1e-9)) / n;
    }
    all.p50_growth = n > 0 ? exp(log_growth) : 1;
    if (shares && n > 0) {
        /* The pooled latencies meet the objective when the share within the limit is at least
         * its quantile (all of them for the maximum): stated as a quantile for the judge. */
        all.within_limit = within / all.transactions;
        int holds = p->quantile >= 1 ? all.within_limit >= 1 : all.within_limit >= p->quantile;
        all.quantile_us =
            holds ? fmin(all.quantile_us, p->limit_us) : fmax(all.quantile_us, p->limit_us + 1);
    }
    return all;
}

/* A trial's weight (its expected transactions) and log(achieved / scheduled). */
static int log_ratio(double rate, const struct sweep_cap_step *s, double *w, double *y)
{
    if (!(rate > 0 && s->tps > 0))
        return 0;
    *w = rate * (s->seconds > 0 ? s->seconds : 1);
    *y = log(s->tps / rate);
    return 1;
}

void sweep_cap_interval(double rate, const struct sweep_cap_step *conf, int n,
                        const struct sweep_cap_step *others, const double *other_rates,
                        int n_others, double *lo, double *hi, double *df)
{
    *lo = *hi = NAN;
    *df = 0;
    /* Weighted by expected transactions: a Poisson count's log varies as 1 / (rate seconds),
     * so s^2 is about 1 when the schedule's randomness is all the noise there is. */
    double sw = 0, swy = 0, swyy = 0;
    int k = 0;
    for (int i = 0; i < n + n_others; i++) {
        double r = i < n ? rate : other_rates[i - n], w, y;
        const struct sweep_cap_step *s = i < n ? &conf[i] : &others[i - n];
        if (i >= n && !(r >= rate / 2 && r <= rate * 2))
            continue;
        if (!log_ratio(r, s, &w, &y))
            continue;
        sw += w;
        swy += w * y;
        swyy += w * y * y;
        k++;
    }
    double seconds, tps = pooled_rate(conf, n, &seconds);
    if (k < 2 || !(tps > 0))
        return;
    double s2 = fmax(swyy - swy * swy / sw, 0) / (k - 1);
    double half = cmp_t975(k - 1) * sqrt(s2 / (rate * (seconds > 0 ? seconds : n)));
    *lo = tps * exp(-half);
    *hi = tps * exp(half);
    *df = k - 1;
}

/* ---- the search ---- */

#define MAX_POINTS 256 /* rates judged in one search, at most */

/* A rate the search judged, with its trials so far. */
struct point {
    double rate;
    int trials;      /* asked for so far */
    int met, missed; /* single trials' verdicts */
    int verdict;     /* 1 met, 0 missed: the first trial's, a retest's majority, or a pooled
                      * confirmation's */
    int settled;     /* retested or confirmed: not retested again */
};

/* Every open-loop trial, for the interval's pooled noise. */
struct trial {
    double rate;
    struct sweep_cap_step s;
    int met;
};

struct search {
    const struct sweep_cap_params *p;
    sweep_cap_step_fn step;
    void *arg;
    double closed;
    size_t n_points;
    struct point points[MAX_POINTS];
    size_t n_trials, cap_trials;
    struct trial *trials;
};

static struct point *find(struct search *s, double rate)
{
    for (size_t i = 0; i < s->n_points; i++)
        if (s->points[i].rate == rate)
            return &s->points[i];
    return NULL;
}

/* The next trial at rate, judged on its own: 1 met, 0 missed, -1 with e. */
static int trial(struct search *s, double rate, struct sweep_cap_step *st, struct err *e)
{
    struct point *pt = find(s, rate);
    if (!pt) {
        if (s->n_points == MAX_POINTS)
            return err_set(e, ERR_RUNTIME, "the capacity search judged %d rates without an answer",
                           MAX_POINTS);
        pt = &s->points[s->n_points++];
        *pt = (struct point){.rate = rate, .verdict = -1};
    }
    /* A trial whose client stalled measured the client as much as the server: it is run again
     * rather than judged, a bounded number of times (a machine that always stalls is judged). */
    int t;
    for (int again = 0;; again++) {
        *st = (struct sweep_cap_step){0};
        t = ++pt->trials;
        int rc = s->step(s->arg, rate, t, st, e);
        if (rc < 0)
            return -1;
        if (rc == 0 || again >= s->p->stall_retests)
            break;
        if (s->p->note)
            s->p->note(s->arg, rate, t, st, -1);
        pt = find(s, rate);
    }
    int met = sweep_cap_judge(s->p, rate, st);
    if (s->p->note)
        s->p->note(s->arg, rate, t, st, met);
    pt = find(s, rate);
    met ? pt->met++ : pt->missed++;
    if (pt->verdict < 0)
        pt->verdict = met;
    if (rate > 0) {
        if (s->n_trials == s->cap_trials) {
            s->cap_trials = s->cap_trials ? 2 * s->cap_trials : 32;
            s->trials = xrealloc(s->trials, s->cap_trials * sizeof *s->trials);
        }
        s->trials[s->n_trials++] = (struct trial){rate, *st, met};
    }
    return met;
}

/* The verdict on rate: its earlier one, else its first trial's. */
static int judge(struct search *s, double rate, struct err *e)
{
    const struct point *pt = find(s, rate);
    if (pt && pt->verdict >= 0)
        return pt->verdict;
    struct sweep_cap_step st;
    return trial(s, rate, &st, e);
}

/* Retest rate, judged once so far: a second trial, and a third when the two disagree; the
 * majority is its verdict. */
static int retest(struct search *s, double rate, struct err *e)
{
    struct sweep_cap_step st;
    struct point *pt = find(s, rate);
    pt->settled = 1;
    for (int i = 0; i < 2; i++) {
        if (trial(s, rate, &st, e) < 0)
            return -1;
        pt = find(s, rate);
        if (pt->met != pt->missed)
            break; /* two alike, or two of three */
    }
    pt->verdict = pt->met > pt->missed;
    return pt->verdict;
}

/* The lowest rate above r judged missed, the highest below r judged met (0: none). */
static double missed_above(const struct search *s, double r)
{
    double best = 0;
    for (size_t i = 0; i < s->n_points; i++) {
        const struct point *pt = &s->points[i];
        if (pt->rate > r && pt->verdict == 0 && (best == 0 || pt->rate < best))
            best = pt->rate;
    }
    return best;
}

static double met_below(const struct search *s, double r)
{
    double best = 0;
    for (size_t i = 0; i < s->n_points; i++) {
        const struct point *pt = &s->points[i];
        if (pt->rate > 0 && pt->rate < r && pt->verdict == 1 && pt->rate > best)
            best = pt->rate;
    }
    return best;
}

/* Bracket from rate r: lo met (0: none yet), hi missed (0: none yet). Doubling stops above
 * SWEEP_CAP_ABOVE_CLOSED times the closed loop (the clients went no faster closed-loop);
 * halving below 1/1024 of it, or when the quantile stayed flat twice: latency that does not
 * fall with the rate is not queueing, and no lower rate will meet it. */
static int bracket(struct search *s, double r, double *lo, double *hi, struct err *e)
{
    double last_q = NAN;
    int flat = 0;
    for (int i = 0; i < s->p->max_steps; i++) {
        if (*lo > 0 && r > SWEEP_CAP_ABOVE_CLOSED * s->closed)
            return 0; /* none missed */
        int met = judge(s, r, e);
        if (met < 0)
            return -1;
        if (met) {
            *lo = r;
            if (*hi > 0)
                return 0;
            r = sweep_cap_round(r * 2);
            continue;
        }
        *hi = r;
        if (*lo > 0)
            return 0;
        const struct trial *t = s->n_trials ? &s->trials[s->n_trials - 1] : NULL;
        double q = t && t->rate == r ? t->s.quantile_us : NAN;
        flat = q > s->p->limit_us && q >= last_q * (1 - SWEEP_CAP_FLAT) ? flat + 1 : 0;
        if (flat == 2)
            return 0; /* nothing meets it */
        last_q = q;
        r = sweep_cap_round(r / 2);
        if (r < s->closed / 1024)
            return 0; /* nothing meets it */
    }
    return 0;
}

static int bisect(struct search *s, double *lo, double *hi, struct err *e)
{
    for (int i = 0; i < s->p->max_steps && (*hi - *lo) / *lo > s->p->tolerance; i++) {
        double mid = sweep_cap_round(sqrt(*lo * *hi));
        if (mid <= *lo || mid >= *hi)
            break;
        int met = judge(s, mid, e);
        if (met < 0)
            return -1;
        if (met)
            *lo = mid;
        else
            *hi = mid;
    }
    return 0;
}

/* p->trials fresh trials at lo, judged pooled: 1 met (out's rate and interval set), 0 missed
 * (lo is a miss from now on), -1 with e. */
static int confirm(struct search *s, double lo, struct sweep_cap_outcome *out, struct err *e)
{
    int n = s->p->trials;
    struct sweep_cap_step *st = xcalloc((size_t)n, sizeof *st);
    int met = -1;
    for (int t = 0; t < n; t++)
        if (trial(s, lo, &st[t], e) < 0)
            goto out;
    struct sweep_cap_step pooled = sweep_cap_pool(s->p, st, n);
    met = sweep_cap_judge(s->p, lo, &pooled);
    struct point *pt = find(s, lo);
    pt->verdict = met;
    pt->settled = 1;
    if (met) {
        /* The search's other met trials near lo (the confirming ones are the last n). */
        size_t m = s->n_trials - (size_t)n, k = 0;
        struct sweep_cap_step *others = xcalloc(m + 1, sizeof *others);
        double *rates = xcalloc(m + 1, sizeof *rates);
        for (size_t i = 0; i < m; i++)
            if (s->trials[i].met) {
                others[k] = s->trials[i].s;
                rates[k++] = s->trials[i].rate;
            }
        out->tps = lo;
        sweep_cap_interval(lo, st, n, others, rates, (int)k, &out->ci_low, &out->ci_high, &out->df);
        free(others);
        free(rates);
    }
out:
    free(st);
    return met;
}

/* From the bracket to a confirmed answer in out (out->tps 0: none held); *hi the lowest rate
 * that missed. */
static int settle(struct search *s, double lo, double *hi, struct sweep_cap_outcome *out,
                  struct err *e)
{
    int failed = 0;
    while (lo > 0) {
        if (bisect(s, &lo, hi, e) < 0)
            return -1;
        /* The verdict flips between lo and hi: one wrong judgement there moves the answer, and
         * a miss is the likelier one to be wrong (a passing stall), so hi is retested. */
        struct point *top = *hi > 0 ? find(s, *hi) : NULL;
        if (top && !top->settled) {
            int met = retest(s, *hi, e);
            if (met < 0)
                return -1;
            if (met) {
                lo = *hi;
                *hi = missed_above(s, lo);
                if (*hi == 0 && bracket(s, sweep_cap_round(lo * 2), &lo, hi, e) < 0)
                    return -1;
                continue;
            }
        }
        int met = confirm(s, lo, out, e);
        if (met != 0)
            return met < 0 ? -1 : 0;
        *hi = lo;
        if (++failed > s->p->retries)
            break;
        lo = met_below(s, *hi);
        if (lo == 0 && bracket(s, sweep_cap_round(*hi / 2), &lo, hi, e) < 0)
            return -1;
    }
    out->tps = 0; /* nothing met, or it never held */
    return 0;
}

int sweep_cap_search(const struct sweep_cap_params *p, sweep_cap_step_fn step_fn, void *arg,
                     struct sweep_cap_outcome *out, struct err *e)
{
    struct search *s = xcalloc(1, sizeof *s);
    *s = (struct search){.p = p, .step = step_fn, .arg = arg};
    *out = (struct sweep_cap_outcome){0, 0, NAN, NAN, 0, 0};
    struct sweep_cap_step st;
    double lo = 0, hi = 0;
    int rc = -1;
    if (trial(s, 0, &st, e) < 0)
        goto out;
    s->closed = out->closed_tps = st.tps;
    if (!(s->closed > 0)) {
        err_set(e, ERR_RUNTIME, "the closed-loop run measured no throughput");
        goto out;
    }
    if (bracket(s, sweep_cap_round(s->closed / 2), &lo, &hi, e) < 0 ||
        settle(s, lo, &hi, out, e) < 0)
        goto out;
    out->failed_at = hi;
    rc = 0;
out:
    free(s->trials);
    free(s);
    return rc;
}
