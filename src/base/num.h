#ifndef PGARENA_BASE_NUM_H
#define PGARENA_BASE_NUM_H

#include <stdint.h>

#include "base/err.h"

/* Numbers from option values. Errors are ERR_INPUT with a message that names the option,
 * e.g. "invalid value for -c: 'x' (expected an integer from 1 to 100000)". */

/* A whole decimal integer in [lo, hi], nothing after it. */
int num_int(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *out, struct err *e);

/* A finite decimal number in [lo, hi], nothing after it. */
int num_double(const char *opt, const char *text, double lo, double hi, double *out, struct err *e);

#endif
