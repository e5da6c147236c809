#include "engine/sched.h"

#include <math.h>

void sched_init(struct sched *s, double rate_per_s, time_ns start, uint64_t seed)
{
    s->mean_gap_ns = (double)NS_PER_S / rate_per_s;
    s->next = start;
    s->carry_ns = 0;
    rng_seed(&s->rng, seed);
}

time_ns sched_next(struct sched *s)
{
    /* Inverse transform: -ln(U) with U in (0, 1] is exponential with mean 1. */
    double u = 1.0 - rng_double(&s->rng);
    double gap = -log(u) * s->mean_gap_ns + s->carry_ns;
    double whole = floor(gap);
    s->carry_ns = gap - whole;
    s->next += (time_ns)whole;
    return s->next;
}
