#ifndef PGARENA_WORKLOAD_FUNCS_H
#define PGARENA_WORKLOAD_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "workload/value.h"

/*
 * The semantics of pgbench's expression language: its operators and functions, with
 * pgbench 15's rules for integer/double/boolean coercion, overflow ("bigint out of range")
 * and errors, and bit-exact results for the deterministic functions (hash, hash_fnv1a,
 * hash_murmur2, permute) and conversions. The parser (expr.c) builds trees whose nodes name
 * a func_id; the evaluator calls func_eval with already-evaluated arguments.
 * Lazy constructs (AND, OR, CASE) are evaluated by the caller, not here.
 * Pure code: no allocation, no I/O except debug() writing to stderr.
 */

enum func_id {
    /* operators */
    FN_ADD, FN_SUB, FN_MUL, FN_DIV, FN_MOD_OP, /* + - * / % */
    FN_NEG,                                    /* unary - */
    FN_EQ, FN_NE, FN_LT, FN_LE, FN_GT, FN_GE,  /* = <> (or !=) < <= > >= */
    FN_NOT,                                    /* NOT (boolean) */
    FN_BITAND, FN_BITOR, FN_BITXOR, FN_BITNOT, /* & | # ~ */
    FN_LSHIFT, FN_RSHIFT,                      /* << >> */
    FN_IS,                                     /* a IS b, b being NULL, TRUE or FALSE */
    /* functions, callable by name */
    FN_ABS, FN_DEBUG, FN_DOUBLE, FN_EXP, FN_GREATEST, FN_HASH, FN_HASH_FNV1A,
    FN_HASH_MURMUR2, FN_INT, FN_LEAST, FN_LN, FN_MOD, FN_PERMUTE, FN_PI, FN_POW,
    FN_RANDOM, FN_RANDOM_EXPONENTIAL, FN_RANDOM_GAUSSIAN, FN_RANDOM_ZIPFIAN, FN_SQRT,
    FN__COUNT
};

/* A function callable by name in scripts. nargs: exact count, or -1 for variadic (at least
 * min_args). hash, hash_fnv1a, hash_murmur2 take 1 or 2 arguments and permute 2 or 3: the
 * parser appends :default_seed when the seed is left out, as pgbench does, so func_eval
 * always sees the full count (min_args/max_args give the range accepted in scripts). */
struct func_def {
    const char *name;
    enum func_id id;
    int min_args;
    int max_args; /* -1: no upper bound */
};

/* The function called `name` (case-insensitive, as pgbench), or NULL. "power" is pow. */
const struct func_def *func_lookup(const char *name, size_t len);

/* Evaluate id on args (nargs of them). rng is the client's generator for the random
 * functions. Returns 0 with *out set, or -1 with msg set to pgbench's kind of message
 * ("bigint out of range", "division by zero", "random range is too large",
 * "gaussian parameter must be at least 2.0", ...). */
int func_eval(enum func_id id, int nargs, const struct value *args, struct rng *rng,
              struct value *out, char *msg, size_t msg_size);

/* Coercions used by the evaluator too (pgbench's coerceToBool/Int/Double): -1 with msg when
 * the value cannot be coerced (e.g. null to int, a double out of int64 range). */
int value_to_bool(const struct value *v, int *out, char *msg, size_t msg_size);
int value_to_int(const struct value *v, int64_t *out, char *msg, size_t msg_size);
int value_to_double(const struct value *v, double *out, char *msg, size_t msg_size);

/* Parse a variable's text as pgbench does when a variable set from SQL (\gset) or -D is used
 * in an expression: an integer if it is one (with optional sign and surrounding spaces),
 * else a double if strtod takes all of it, else -1 (not a number). */
int value_from_text(const char *text, struct value *out);

/* The text a value substitutes into SQL or a parameter as, exactly as pgbench prints it
 * (integers with %lld, doubles with %.*g and DBL_DIG digits, booleans "true"/"false",
 * null as an empty string?—follow pgbench 15's valueToString/putVariableValue). */
void value_to_text(const struct value *v, char *out, size_t out_size);

#endif
