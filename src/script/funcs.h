#ifndef PGARENA_SCRIPT_FUNCS_H
#define PGARENA_SCRIPT_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "script/value.h"

/*
 * The semantics of pgbench's expression language: its operators and functions, with
 * pgbench 15's rules for integer/double/boolean coercion, overflow ("bigint add out of
 * range", ...) and errors, and bit-exact results for the deterministic functions (hash,
 * hash_fnv1a, hash_murmur2, permute) and conversions. The parser (expr.c) builds trees whose
 * nodes name a func_id; the evaluator calls func_eval with already-evaluated arguments.
 * Implemented in funcs.c, funcs_hash.c (hashes, permute) and funcs_random.c. Ownership: pure
 * functions over values; the caller owns every buffer passed (msg, out).
 *
 * Lazy constructs are evaluated by the caller, not here. pgbench's rules for them:
 * - a AND b: a null -> null (b not evaluated); a not boolean -> "cannot coerce int to
 *   boolean" (value_to_bool); a false -> false; else b null -> null, b boolean -> b, else error.
 * - a OR b: the same, with a true -> true.
 * - CASE WHEN c THEN x ... [ELSE e] END: the first c that is "truthy" (pgbench's valueTruth:
 *   null false, boolean itself, int != 0, double != 0.0) selects its x; no ELSE means NULL.
 * - \if / \elif use the same truth test as CASE (ints and doubles are fine there).
 * Order: pgbench parses a > b as b < a and a >= b as b <= a, so it evaluates b first (visible
 * with debug() or random draws); -x is 0 - x and ~x is -1 # x (see FN_NEG, FN_BITNOT).
 * Pure code: no allocation and no I/O (debug() hands its text back, see func_eval).
 */

enum func_id {
    /* operators */
    FN_ADD,
    FN_SUB,
    FN_MUL,
    FN_DIV,
    FN_MOD_OP, /* + - * / % */
    FN_NEG,    /* unary -, computed as 0 - x */
    FN_EQ,
    FN_NE,
    FN_LT,
    FN_LE,
    FN_GT,
    FN_GE,  /* = <> (or !=) < <= > >= */
    FN_NOT, /* NOT (boolean) */
    FN_BITAND,
    FN_BITOR,
    FN_BITXOR,
    FN_BITNOT, /* & | # ~ */
    FN_LSHIFT,
    FN_RSHIFT, /* << >> */
    FN_IS,     /* a IS b, b being NULL, TRUE or FALSE */
    /* functions, callable by name */
    FN_ABS,
    FN_DEBUG,
    FN_DOUBLE,
    FN_EXP,
    FN_GREATEST,
    FN_HASH,
    FN_HASH_FNV1A,
    FN_HASH_MURMUR2,
    FN_INT,
    FN_LEAST,
    FN_LN,
    FN_MOD,
    FN_PERMUTE,
    FN_PI,
    FN_POW,
    FN_RANDOM,
    FN_RANDOM_EXPONENTIAL,
    FN_RANDOM_GAUSSIAN,
    FN_RANDOM_ZIPFIAN,
    FN_SQRT,
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
 * functions. Returns 0 with *out set, or -1 with msg set to pgbench's own message, without
 * its "pgbench: error: " prefix ("bigint add out of range", "bigint mul out of range",
 * "division by zero", "cannot coerce boolean to int", "double to int overflow for Infinity",
 * "random range is too large", "gaussian parameter must be at least 2.000000 (not 1.500000)"
 * ...). A null argument makes the result null before any check (except for FN_IS, FN_DEBUG).
 * FN_DEBUG returns its argument and, unlike pgbench, prints nothing: it writes into msg the
 * text pgbench prints after its prefix ("int 5", "double 0.333333333333333", "boolean true",
 * "null"), and the evaluator (expr.c) prints "debug: TEXT" on stderr (pgbench also names the
 * script and command; pgarena does not). */
int func_eval(enum func_id id, int nargs, const struct value *args, struct rng *rng,
              struct value *out, char *msg, size_t msg_size);

/* Coercions used by the evaluator too (pgbench's coerceToBool/Int/Double): -1 with msg when
 * the value cannot be coerced (e.g. null to int, a double out of int64 range). Only a boolean
 * coerces to boolean (int 0, 0.0 and null are errors: "cannot coerce int to boolean"); a
 * double coerces to int by rint() (half to even: 2.5 -> 2), a boolean never to int/double. */
int value_to_bool(const struct value *v, int *out, char *msg, size_t msg_size);
/* pgbench's looser truth of a CASE or \if condition: null false, numbers true unless zero. */
int value_truth(const struct value *v);
int value_to_int(const struct value *v, int64_t *out, char *msg, size_t msg_size);
int value_to_double(const struct value *v, double *out, char *msg, size_t msg_size);

/* Parse a variable's text as pgbench does when a variable set from SQL (\gset) or -D is used
 * in an expression (its makeVariableValue): "null" (any case) is null; a non-empty prefix of
 * true/yes/false/no, or on/off/of, is a boolean; "^\s*[-+]?[0-9]+$" is an integer (-2 if it
 * overflows: pgbench says `value "%s" is out of range for type bigint`); else a double if
 * strtod takes all of it without ERANGE ("0x10", "inf", "nan" are doubles); else -1
 * (pgbench: `malformed variable "%s" value: "%s"`; for "" it prints nothing). */
int value_from_text(const char *text, struct value *out);

/* The text a value substitutes into SQL or a parameter as, exactly as pgbench 15 prints it
 * (getVariable): integers with %lld, doubles with %.15g but NaN, Infinity and -Infinity
 * spelled as PostgreSQL's printf does, booleans "true"/"false", null as "NULL". */
void value_to_text(const struct value *v, char *out, size_t out_size);

#endif
