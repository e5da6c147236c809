/* Shared by the simulation unit tests (pooling over cells and over scripts): seeded noise. */
#ifndef PGARENA_TESTS_SIM_NOISE_H
#define PGARENA_TESTS_SIM_NOISE_H

#include <math.h>

#include "base/rng.h"

/* A standard normal draw (Box-Muller). */
static inline double gauss(struct rng *g)
{
    double u = (double)(rng_next(g) >> 11) * 0x1.0p-53 + 0x1.0p-54;
    double v = (double)(rng_next(g) >> 11) * 0x1.0p-53;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Student's t on 3 degrees of freedom scaled to unit variance: heavy tails. */
static inline double heavy(struct rng *g)
{
    double z = gauss(g), c = 0;
    for (int i = 0; i < 3; i++) {
        double x = gauss(g);
        c += x * x;
    }
    return z / sqrt(c / 3) / sqrt(3.0);
}

#endif
