#ifndef PGARENA_SCRIPT_VALUE_H
#define PGARENA_SCRIPT_VALUE_H

#include <stdint.h>

/*
 * A value of pgbench's expression language: null, boolean, integer or double. Plain data,
 * passed and returned by value. Ownership: nothing to own (no pointers), so copies are free.
 */

/* Which member of struct value's union is meaningful. */
enum value_type { VAL_NULL, VAL_BOOL, VAL_INT, VAL_DOUBLE };

/* A typed value: type says which member of u holds it (none for VAL_NULL). */
struct value {
    enum value_type type;
    union {
        int b;     /* VAL_BOOL: 0 or 1 */
        int64_t i; /* VAL_INT: pgbench's bigint */
        double d;  /* VAL_DOUBLE: any double, infinities and NaN included */
    } u;
};

/* An integer value. */
static inline struct value value_int(int64_t i)
{
    struct value v = {.type = VAL_INT};
    v.u.i = i;
    return v;
}

/* A double value (d as given, NaN and infinities included). */
static inline struct value value_double(double d)
{
    struct value v = {.type = VAL_DOUBLE};
    v.u.d = d;
    return v;
}

/* A boolean value: true when b is non-zero (stored as 1). */
static inline struct value value_bool(int b)
{
    struct value v = {.type = VAL_BOOL};
    v.u.b = b != 0;
    return v;
}

/* The null value (SQL NULL in pgbench's language). */
static inline struct value value_null(void)
{
    struct value v = {.type = VAL_NULL};
    return v;
}

#endif
