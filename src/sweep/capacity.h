#ifndef PGARENA_SWEEP_CAPACITY_H
#define PGARENA_SWEEP_CAPACITY_H

/*
 * The capacity search of `sweep --max-rate --slo` (DESIGN.md "Sweeps, matrices and capacity"):
 * the highest open-loop rate whose steady part meets the objective with the schedule kept,
 * by bracketing from the closed-loop rate and bisection, then confirmed over the trials.
 * Pure: a step (one run at a rate) is a callback, so is the note of its verdict; this module
 * runs nothing, reads no file and prints nothing.
 * Ownership: nothing here allocates what the caller must free.
 */

#include "base/err.h"

#define SWEEP_CAP_TOLERANCE 0.05 /* bisection stops when the bracket is this narrow (relative) */
#define SWEEP_CAP_MAX_STEPS 24   /* steps of the bracket, and of the bisection, at most */
#define SWEEP_CAP_RETRIES   3 /* confirmations that fail, each lowering the rate by the tolerance */
#define SWEEP_CAP_GROWTH    1.5 /* median latency climbing more than this through a step: overload */

/* What a step measured over its steady part. */
struct sweep_cap_step {
    double tps;         /* achieved rate: committed transactions per second */
    double quantile_us; /* the objective's latency quantile */
    double p50_growth;  /* median latency of its last third over its first (1: flat) */
    double seconds;     /* the steady part's length */
};

/* Run (or find from an earlier invocation) the step at rate (0: closed loop), trial (1-based),
 * and fill out. The search may ask for a (rate, trial) it asked for before (the confirmation's
 * first trial is the bisection's step): the answer is what that step measured. 0, or -1 with
 * e set (interrupted, or the run failed or measured nothing). */
typedef int (*sweep_cap_step_fn)(void *arg, double rate, int trial, struct sweep_cap_step *out,
                                 struct err *e);

/* Told of every step's verdict (met 1 or 0) as soon as it is judged, with the step's arg. */
typedef void (*sweep_cap_note_fn)(void *arg, double rate, int trial, const struct sweep_cap_step *s,
                                  int met);

struct sweep_cap_params {
    double limit_us;        /* the objective: the step's quantile must be at most this */
    int trials;             /* confirming trials of the answer (at least 1) */
    double tolerance;       /* SWEEP_CAP_TOLERANCE */
    int max_steps;          /* SWEEP_CAP_MAX_STEPS */
    int retries;            /* SWEEP_CAP_RETRIES */
    double growth;          /* SWEEP_CAP_GROWTH */
    sweep_cap_note_fn note; /* NULL: none */
};

/* The defaults above with the objective's limit and the trials. */
struct sweep_cap_params sweep_cap_defaults(double limit_us, int trials);

/* What the search found: the fields of sweep.json's max_rate that it sets. */
struct sweep_cap_outcome {
    double closed_tps;      /* the closed loop's achieved rate (the first step) */
    double tps;             /* the highest rate found to meet it, 0: none (or it never held) */
    double ci_low, ci_high; /* 95 % interval of the achieved rate over the confirming trials
                             * (NaN when none held, or with one trial) */
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

/* Search: the closed loop, then bracket from half its rate (doubling while met, halving while
 * missed until the next rate would lie below 1/1024 of it), bisect to the tolerance, and confirm
 * the answer over p->trials, lowering it by the tolerance up to p->retries times when a trial
 * misses. 0 with out set (out->tps 0 when nothing met or held), -1 with e set (a step's error, or a
 * closed loop without throughput). */
int sweep_cap_search(const struct sweep_cap_params *p, sweep_cap_step_fn step, void *arg,
                     struct sweep_cap_outcome *out, struct err *e);

#endif
