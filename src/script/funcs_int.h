#ifndef PGARENA_SCRIPT_FUNCS_INT_H
#define PGARENA_SCRIPT_FUNCS_INT_H

/* Shared by funcs.c, funcs_hash.c and funcs_random.c; not part of the funcs.h contract.
 * Ownership: pure functions; the caller owns every buffer and value passed. */

#include <stddef.h>

#include "base/printf.h"
#include "base/rng.h"
#include "script/funcs.h"

/* Format into msg (when not NULL) and return -1. */
int funcs_fail(char *msg, size_t msg_size, const char *fmt, ...) PRINTF_LIKE(3, 4);

/* A double as pgbench prints it: "%.15g" (fixed == 0) or "%f" (fixed != 0), with
 * PostgreSQL's spellings NaN, Infinity and -Infinity. */
void funcs_format_double(char *out, size_t out_size, int fixed, double d);

/* hash, hash_fnv1a, hash_murmur2 (2 arguments) and permute (3); no null arguments. */
int funcs_eval_hash(enum func_id id, const struct value *args, struct value *out, char *msg,
                    size_t msg_size);

/* random (2 arguments), random_exponential, random_gaussian, random_zipfian (3). */
int funcs_eval_random(enum func_id id, const struct value *args, struct rng *rng, struct value *out,
                      char *msg, size_t msg_size);

#endif
