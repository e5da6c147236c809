/* The capacity search of `sweep --max-rate --slo`: the highest open-loop rate whose steady part
 * meets the objective with the schedule kept, by bracketing and bisection, then confirmed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "compare/cmp_int.h"
#include "sweep/capacity.h"

struct sweep_cap_params sweep_cap_defaults(double limit_us, int trials)
{
    return (struct sweep_cap_params){.limit_us = limit_us,
                                     .trials = trials,
                                     .tolerance = SWEEP_CAP_TOLERANCE,
                                     .max_steps = SWEEP_CAP_MAX_STEPS,
                                     .retries = SWEEP_CAP_RETRIES,
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

/* The search's state: its parameters and callbacks. */
struct search {
    const struct sweep_cap_params *p;
    sweep_cap_step_fn step;
    void *arg;
};

/* One step judged: 1 met, 0 missed, -1 with e set. *achieved is the steady part's rate. */
static int step(struct search *s, double rate, int trial, double *achieved, struct err *e)
{
    struct sweep_cap_step st = {0};
    if (s->step(s->arg, rate, trial, &st, e) < 0)
        return -1;
    *achieved = st.tps;
    int met = sweep_cap_judge(s->p, rate, &st);
    if (s->p->note)
        s->p->note(s->arg, rate, trial, &st, met);
    return met;
}

/* Bracket [lo, hi] from the closed-loop rate: lo met (0: none yet), hi missed (0: none yet). */
static int bracket(struct search *s, double closed, double *lo, double *hi, struct err *e)
{
    double r = sweep_cap_round(closed / 2), achieved;
    for (int i = 0; i < s->p->max_steps; i++) {
        int met = step(s, r, 1, &achieved, e);
        if (met < 0)
            return -1;
        if (met) {
            *lo = r;
            if (*hi > 0)
                return 0;
            r = sweep_cap_round(r * 2);
        } else {
            *hi = r;
            if (*lo > 0)
                return 0;
            r = sweep_cap_round(r / 2);
            if (r < closed / 1024)
                return 0; /* nothing meets it */
        }
    }
    return 0;
}

static int bisect(struct search *s, double *lo, double *hi, struct err *e)
{
    double achieved;
    for (int i = 0; i < s->p->max_steps && (*hi - *lo) / *lo > s->p->tolerance; i++) {
        double mid = sweep_cap_round(sqrt(*lo * *hi));
        if (mid <= *lo || mid >= *hi)
            break;
        int met = step(s, mid, 1, &achieved, e);
        if (met < 0)
            return -1;
        if (met)
            *lo = mid;
        else
            *hi = mid;
    }
    return 0;
}

/* The answer holds in every confirming trial; else it steps down. */
static int confirm(struct search *s, double *lo, double *hi, struct sweep_cap_outcome *out,
                   struct err *e)
{
    int n = s->p->trials;
    double *rates = xcalloc((size_t)n, sizeof *rates);
    int rc = -1;
    for (int attempt = 0; attempt <= s->p->retries; attempt++) {
        int all = 1;
        for (int t = 1; t <= n && all; t++) {
            int met = step(s, *lo, t, &rates[t - 1], e);
            if (met < 0)
                goto out;
            all = met;
        }
        if (all) {
            double mean = 0, ss = 0;
            for (int t = 0; t < n; t++)
                mean += rates[t] / n;
            for (int t = 0; t < n; t++)
                ss += (rates[t] - mean) * (rates[t] - mean);
            double half = n > 1 ? cmp_t975(n - 1) * sqrt(ss / (n - 1) / n) : NAN;
            out->tps = *lo;
            out->ci_low = mean - half;
            out->ci_high = mean + half;
            rc = 0;
            goto out;
        }
        *hi = *lo;
        *lo = sweep_cap_round(*lo * (1 - s->p->tolerance));
    }
    out->tps = 0; /* it never held */
    rc = 0;
out:
    free(rates);
    return rc;
}

int sweep_cap_search(const struct sweep_cap_params *p, sweep_cap_step_fn step_fn, void *arg,
                     struct sweep_cap_outcome *out, struct err *e)
{
    struct search s = {p, step_fn, arg};
    *out = (struct sweep_cap_outcome){0, 0, NAN, NAN, 0};
    double closed, lo = 0, hi = 0;
    if (step(&s, 0, 1, &closed, e) < 0)
        return -1;
    out->closed_tps = closed;
    if (!(closed > 0))
        return err_set(e, ERR_RUNTIME, "the closed-loop run measured no throughput");
    if (bracket(&s, closed, &lo, &hi, e) < 0 || (lo > 0 && bisect(&s, &lo, &hi, e) < 0))
        return -1;
    if (lo > 0 && confirm(&s, &lo, &hi, out, e) < 0)
        return -1;
    out->failed_at = hi;
    return 0;
}
