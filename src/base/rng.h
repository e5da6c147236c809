#ifndef PGARENA_BASE_RNG_H
#define PGARENA_BASE_RNG_H

#include <stdint.h>

/* A small seeded PRNG (xoshiro256**), one per client, so runs with the same --seed draw the
 * same values. Plain data: copy it to save and restore a state (retries repeat their draws).
 * Ownership: nothing is allocated; the caller owns the struct. */
struct rng {
    uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform integer in [lo, hi] inclusive; lo <= hi. */
int64_t rng_range(struct rng *r, int64_t lo, int64_t hi);
/* Uniform double in [0, 1). */
double rng_double(struct rng *r);

#endif
