/* Whole and decimal numbers from option values, with one message for a bad one. */
#include "base/num.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

int num_int(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *out, struct err *e)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || isspace((unsigned char)*text) || v < lo || v > hi)
        return err_set(e, ERR_INPUT,
                       "invalid value for %s: '%s' (expected an integer from %lld to %lld)", opt,
                       text, (long long)lo, (long long)hi);
    *out = v;
    return 0;
}

int num_double(const char *opt, const char *text, double lo, double hi, double *out, struct err *e)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || isspace((unsigned char)*text) || !isfinite(v) || v < lo ||
        v > hi)
        return err_set(e, ERR_INPUT, "invalid value for %s: '%s' (expected a number from %g to %g)",
                       opt, text, lo, hi);
    *out = v;
    return 0;
}
