#ifndef PGARENA_WORKLOAD_VALUE_H
#define PGARENA_WORKLOAD_VALUE_H

#include <stdint.h>

/* A value of pgbench's expression language: null, boolean, integer or double. Plain data. */
enum value_type { VAL_NULL, VAL_BOOL, VAL_INT, VAL_DOUBLE };

struct value {
    enum value_type type;
    union {
        int b;
        int64_t i;
        double d;
    } u;
};

static inline struct value value_int(int64_t i)
{
    struct value v = {.type = VAL_INT};
    v.u.i = i;
    return v;
}

static inline struct value value_double(double d)
{
    struct value v = {.type = VAL_DOUBLE};
    v.u.d = d;
    return v;
}

static inline struct value value_bool(int b)
{
    struct value v = {.type = VAL_BOOL};
    v.u.b = b != 0;
    return v;
}

static inline struct value value_null(void)
{
    struct value v = {.type = VAL_NULL};
    return v;
}

#endif
