#ifndef PGARENA_ENGINE_SCHED_H
#define PGARENA_ENGINE_SCHED_H

#include "base/clock.h"
#include "base/rng.h"

/*
 * The rate schedule for -R: Poisson arrivals (exponential gaps) at a given mean rate. A
 * worker owns one and its clients take arrivals from it in turn, so the intended start of a
 * transaction does not depend on when the previous one finished. Plain data.
 */
struct sched {
    double mean_gap_ns; /* 1e9 / rate */
    time_ns next;       /* the next arrival handed out */
    double carry_ns;    /* fraction of a nanosecond not yet added: no drift at high rates */
    struct rng rng;
};

/* rate_per_s > 0; the first arrival follows start by one random gap. */
void sched_init(struct sched *s, double rate_per_s, time_ns start, uint64_t seed);

/* The next arrival time (non-decreasing). */
time_ns sched_next(struct sched *s);

#endif
