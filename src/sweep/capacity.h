#ifndef PGARENA_SWEEP_CAPACITY_H
#define PGARENA_SWEEP_CAPACITY_H

/*
 * The capacity search of `sweep --max-rate --slo`:
 * the highest open-loop rate whose steady part meets the objective with the schedule kept,
 * by bracketing from the closed-loop rate and bisection, then confirmed over the trials.
 * Under noise a single step can be judged wrongly, so the search retests the step where the
 * verdict flips (the lowest missed rate, next to a met one) and confirms its answer with fresh
 * trials judged pooled; the interval of the achieved rate is computed on the log scale.
 * Pure: a step (one run at a rate) is a callback, so is the note of its verdict; this module
 * runs nothing, reads no file and prints nothing.
 * Ownership: nothing here allocates what the caller must free.
 */

#include "base/err.h"

#define SWEEP_CAP_TOLERANCE 0.05 /* bisection stops when the bracket is this narrow (relative) */
#define SWEEP_CAP_MAX_STEPS 24   /* steps of one bracket, and of one bisection, at most */
#define SWEEP_CAP_RETRIES   3    /* confirmations that may fail before the search gives up */
#define SWEEP_CAP_STALL_RETESTS                                                                    \
    2 /* a trial whose client stalled is run again instead of judged, this many times at most */
#define SWEEP_CAP_GROWTH 1.5 /* median latency climbing more than this through a step: overload */
#define SWEEP_CAP_ABOVE_CLOSED                                                                     \
    4 /* the bracket doubles up to this many times the closed loop's rate */
#define SWEEP_CAP_FLAT                                                                             \
    0.1 /* halving the rate twice with the quantile moving less than this                          \
         * (relative) each time: the latency is not queueing; nothing meets */

/* What a step measured over its steady part. */
struct sweep_cap_step {
    double tps;          /* achieved rate: committed transactions per second */
    double quantile_us;  /* the objective's latency quantile */
    double p50_growth;   /* median latency of its last third over its first (1: flat) */
    double seconds;      /* the steady part's length */
    double transactions; /* latencies recorded in the steady part (0: unknown) */
    double within_limit; /* the share of them at most the objective's limit (0..1) */
};

/* Run (or find from an earlier invocation) the step at rate (0: closed loop), trial (1-based),
 * and fill out. The search asks for each (rate, trial) once; a rate's trials are numbered in
 * the order it asks for them. 0; 1 when the step's client stalled (its figures measured the
 * client as much as the server: the search runs the rate's next trial instead of judging it, up
 * to p->stall_retests times); -1 with e set (interrupted, or the run failed or measured
 * nothing). */
typedef int (*sweep_cap_step_fn)(void *arg, double rate, int trial, struct sweep_cap_step *out,
                                 struct err *e);

/* Told of every step's verdict (met 1 or 0) as soon as it is judged, with the step's arg; met -1:
 * the step's client stalled and the search runs the rate again instead of judging it. A step
 * that stalled and is judged is the last of p->stall_retests retests. */
typedef void (*sweep_cap_note_fn)(void *arg, double rate, int trial, const struct sweep_cap_step *s,
                                  int met);

struct sweep_cap_params {
    double limit_us;        /* the objective: the step's quantile must be at most this */
    double quantile;        /* the objective's quantile (0.99; 1: the maximum) */
    int trials;             /* confirming trials of the answer (at least 1) */
    double tolerance;       /* SWEEP_CAP_TOLERANCE */
    int max_steps;          /* SWEEP_CAP_MAX_STEPS */
    int retries;            /* SWEEP_CAP_RETRIES */
    int stall_retests;      /* SWEEP_CAP_STALL_RETESTS */
    double growth;          /* SWEEP_CAP_GROWTH */
    sweep_cap_note_fn note; /* NULL: none */
};

/* The defaults above with the objective's limit and the trials (quantile 0.99). */
struct sweep_cap_params sweep_cap_defaults(double limit_us, int trials);

/* What the search found: the fields of sweep.json's max_rate that it sets. */
struct sweep_cap_outcome {
    double closed_tps;      /* the closed loop's achieved rate (the first step) */
    double tps;             /* the highest rate found to meet it, 0: none (or it never held) */
    double ci_low, ci_high; /* 95 % interval of the achieved rate over the confirming trials
                             * (NaN when none held, or when nothing measured its noise) */
    double df;              /* the interval's degrees of freedom (0: no interval) */
    double failed_at;       /* the lowest rate that missed it (0: none did) */
};

/* A rate rounded to three significant digits (at least 0.001): a finer answer means nothing
 * within the tolerance, and the cells' file names stay readable. */
double sweep_cap_round(double rate);

/* The verdict on one step at rate (0: closed loop): 1 met, 0 missed. The quantile must be at
 * most the limit; an open loop must also keep its schedule: an achieved rate of at least 99 %
 * of it less two standard deviations of Poisson arrivals over the steady part, and no queue
 * that grows (median latency climbing more than p->growth while it fell short of the rate). */
int sweep_cap_judge(const struct sweep_cap_params *p, double rate, const struct sweep_cap_step *s);

/* n trials of one rate as one step (for the pooled verdict): their transactions and seconds
 * summed, the achieved rate over the whole, the share within the limit over all their
 * latencies (its quantile: the worst trial's when a trial does not know its share), and the
 * geometric mean of the growths. */
struct sweep_cap_step sweep_cap_pool(const struct sweep_cap_params *p,
                                     const struct sweep_cap_step *s, int n);

/* The 95 % interval of the achieved rate of the confirming trials (conf, n of them at rate),
 * on the log scale so that it never reaches below zero: the trials' pooled rate times
 * exp(+-t * s / sqrt(rate * seconds)), where s^2 is the variance of log(achieved / scheduled)
 * per expected transaction, pooled over the confirming trials and the search's met steps
 * within a factor of 2 of rate (others, n_others; they share the machine and its noise), with
 * their count less one degrees of freedom. NaN (and *df 0) with fewer than two. */
void sweep_cap_interval(double rate, const struct sweep_cap_step *conf, int n,
                        const struct sweep_cap_step *others, const double *other_rates,
                        int n_others, double *lo, double *hi, double *df);

/* Search: every step whose client stalled is run again (the rate's next trial) instead of
 * judged, up to p->stall_retests times, and the last one is judged whatever its client did. The
 * closed loop, then bracket from half its rate (doubling while met, up to
 * SWEEP_CAP_ABOVE_CLOSED times the closed loop; halving while missed, until the next rate would
 * lie below 1/1024 of it or the quantile stays flat), bisect to the tolerance, retest the
 * lowest missed rate (a second trial, and a third when they disagree: the majority decides;
 * met, the search goes on above it), and confirm the answer with p->trials fresh trials whose
 * pooled step must meet it. A confirmation that misses makes that rate a miss and the search
 * goes on below it, up to p->retries times. 0 with out set (out->tps 0 when nothing met or
 * held), -1 with e set (a step's error, or a closed loop without throughput). */
int sweep_cap_search(const struct sweep_cap_params *p, sweep_cap_step_fn step, void *arg,
                     struct sweep_cap_outcome *out, struct err *e);

#endif
