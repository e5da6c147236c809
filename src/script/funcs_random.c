/* pgbench's random functions on our per-client generator. The draws differ from pgbench's
 * (another PRNG), but the range and parameter checks, their messages and the distributions
 * follow pgbench 15. Unlike pgbench, results are clamped into [min, max] where rounding of
 * huge ranges (above 2^53) could otherwise step one past max, and NaN or infinite parameters
 * that make pgbench return garbage (or, for zipfian, loop forever) are refused. */

#include <math.h>
#include <stdint.h>

#include "script/funcs_int.h"

#define MIN_GAUSSIAN_PARAM 2.0
#define MIN_ZIPFIAN_PARAM  1.001
#define MAX_ZIPFIAN_PARAM  1000.0
#define PI_VALUE           3.14159265358979323846

/* lo + floor(n * frac), frac in [0, 1), the way pgbench maps a continuous draw onto
 * [lo, hi]; n = hi - lo + 1 fits in int64 (checked by the caller). */
static int64_t scale_into(int64_t lo, int64_t hi, double frac)
{
    int64_t span = hi - lo;
    double x = (double)(span + 1) * frac;
    int64_t off;
    if (!(x >= 0.0))
        off = 0;
    else if (x >= 0x1p63)
        off = span;
    else
        off = (int64_t)x;
    return lo + (off > span ? span : off);
}

/* Truncated normal on [-param, param) by Box-Muller and rejection, rescaled to [0, 1). */
static int64_t gaussian(struct rng *rng, int64_t lo, int64_t hi, double param)
{
    double z;
    do {
        double u1 = 1.0 - rng_double(rng); /* (0, 1]: log(0) is impossible */
        double u2 = 1.0 - rng_double(rng);
        z = sqrt(-2.0 * log(u1)) * sin(2.0 * PI_VALUE * u2);
    } while (z < -param || z >= param);
    return scale_into(lo, hi, (z + param) / (param * 2.0));
}

/* Exponential with rate param truncated to [0, 1) by inverting its CDF: the density at the
 * top of the range is exp(-param) times the density at the bottom. */
static int64_t exponential(struct rng *rng, int64_t lo, int64_t hi, double param)
{
    double cut = exp(-param);
    double u = 1.0 - rng_double(rng);
    double r = -log(cut + (1.0 - cut) * u) / param;
    return scale_into(lo, hi, r);
}

/* Zipf (P(k) proportional to k^-s) on 1..n by Devroye's rejection method ("Non-Uniform
 * Random Variate Generation", p. 550), as pgbench does: slow when s is near 1. */
static int64_t zipf_rank(struct rng *rng, int64_t n, double s)
{
    if (n <= 1)
        return 1;
    double b = pow(2.0, s - 1.0);
    for (;;) {
        double u = rng_double(rng);
        double v = rng_double(rng);
        double x = floor(pow(u, -1.0 / (s - 1.0)));
        double t = pow(1.0 + 1.0 / x, s - 1.0);
        if (v * x * (t - 1.0) / (b - 1.0) <= t / b && x <= (double)n && x < 0x1p63) {
            int64_t k = (int64_t)x;
            return k > n ? n : k; /* (double)n may have rounded up */
        }
    }
}

/* The third argument's checks, with pgbench's messages (%f, NaN spelled as PostgreSQL). */
static int check_param(enum func_id id, double param, char *msg, size_t msg_size)
{
    char shown[400];
    funcs_format_double(shown, sizeof(shown), 1, param);
    if (id == FN_RANDOM_GAUSSIAN && (!(param >= MIN_GAUSSIAN_PARAM) || isinf(param)))
        return funcs_fail(msg, msg_size, "gaussian parameter must be at least %f (not %s)",
                          MIN_GAUSSIAN_PARAM, shown);
    if (id == FN_RANDOM_ZIPFIAN && !(param >= MIN_ZIPFIAN_PARAM && param <= MAX_ZIPFIAN_PARAM))
        return funcs_fail(msg, msg_size, "zipfian parameter must be in range [%.3f, %.0f] (not %s)",
                          MIN_ZIPFIAN_PARAM, MAX_ZIPFIAN_PARAM, shown);
    if (id == FN_RANDOM_EXPONENTIAL && !(param > 0.0))
        return funcs_fail(msg, msg_size, "exponential parameter must be greater than zero (not %s)",
                          shown);
    return 0;
}

int funcs_eval_random(enum func_id id, const struct value *args, struct rng *rng, struct value *out,
                      char *msg, size_t msg_size)
{
    int64_t lo, hi, delta;
    double param = 0.0;
    if (value_to_int(&args[0], &lo, msg, msg_size) < 0 ||
        value_to_int(&args[1], &hi, msg, msg_size) < 0)
        return -1;
    if (lo > hi)
        return funcs_fail(msg, msg_size, "empty range given to random");
    /* hi - lo + 1 must fit in int64: the full int64 range, or [-1, INT64_MAX - 1], do not. */
    if (__builtin_sub_overflow(hi, lo, &delta) || __builtin_add_overflow(delta, 1, &delta))
        return funcs_fail(msg, msg_size, "random range is too large");
    if (id == FN_RANDOM) {
        *out = value_int(rng_range(rng, lo, hi));
        return 0;
    }
    if (value_to_double(&args[2], &param, msg, msg_size) < 0 ||
        check_param(id, param, msg, msg_size) < 0)
        return -1;
    if (id == FN_RANDOM_GAUSSIAN)
        *out = value_int(gaussian(rng, lo, hi, param));
    else if (id == FN_RANDOM_ZIPFIAN)
        *out = value_int(lo - 1 + zipf_rank(rng, hi - lo + 1, param));
    else
        *out = value_int(exponential(rng, lo, hi, param));
    return 0;
}
