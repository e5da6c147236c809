#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/rng.h"
#include "script/funcs.h"

/* Expected values below were produced by pgbench 15.18 itself: each case ran as
 * `\set r debug(EXPR)` against a scratch server and the text pgbench printed was recorded
 * (for errors, its message). Doubles are compared through that text, as pgbench shows them. */

#define I(x)                                                                                       \
    {                                                                                              \
        .type = VAL_INT, .u.i = (x)                                                                \
    }
#define D(x)                                                                                       \
    {                                                                                              \
        .type = VAL_DOUBLE, .u.d = (x)                                                             \
    }
#define B(x)                                                                                       \
    {                                                                                              \
        .type = VAL_BOOL, .u.b = (x)                                                               \
    }
#define N                                                                                          \
    {                                                                                              \
        .type = VAL_NULL                                                                           \
    }

#define MSG_SIZE 512

struct op_case {
    enum func_id id;
    int nargs;
    struct value args[3];
    const char *want; /* debug() text of the result, or "ERR " and the message */
};

/* clang-format off */
static const struct op_case op_cases[] = {
    {FN_ADD, 2, {I(7LL), I(3LL)}, "int 10"},
    {FN_ADD, 2, {I(-7LL), I(3LL)}, "int -4"},
    {FN_ADD, 2, {I(7LL), I(-3LL)}, "int 4"},
    {FN_ADD, 2, {I(1LL), I(0LL)}, "int 1"},
    {FN_ADD, 2, {I(9223372036854775807LL), I(1LL)}, "ERR bigint add out of range"},
    {FN_ADD, 2, {I(INT64_MIN), I(1LL)}, "int -9223372036854775807"},
    {FN_ADD, 2, {I(INT64_MIN), I(-1LL)}, "ERR bigint add out of range"},
    {FN_ADD, 2, {I(9223372036854775807LL), I(-1LL)}, "int 9223372036854775806"},
    {FN_ADD, 2, {I(9223372036854775807LL), I(2LL)}, "ERR bigint add out of range"},
    {FN_ADD, 2, {I(INT64_MIN), I(INT64_MIN)}, "ERR bigint add out of range"},
    {FN_ADD, 2, {I(3037000500LL), I(3037000500LL)}, "int 6074001000"},
    {FN_ADD, 2, {I(4611686018427387904LL), I(-2LL)}, "int 4611686018427387902"},
    {FN_ADD, 2, {D(7.5), I(2LL)}, "double 9.5"},
    {FN_ADD, 2, {I(7LL), D(2.0)}, "double 9"},
    {FN_ADD, 2, {D(2.5), D(-0.5)}, "double 2"},
    {FN_ADD, 2, {D(1.0), I(3LL)}, "double 4"},
    {FN_ADD, 2, {D(-1.0), D(0.0)}, "double -1"},
    {FN_ADD, 2, {D(0.0), D(0.0)}, "double 0"},
    {FN_ADD, 2, {D(2.5), I(0LL)}, "double 2.5"},
    {FN_ADD, 2, {D(INFINITY), D(INFINITY)}, "double Infinity"},
    {FN_ADD, 2, {D(NAN), D(1.0)}, "double NaN"},
    {FN_ADD, 2, {D(0.1), D(0.2)}, "double 0.3"},
    {FN_ADD, 2, {D(1e308), D(10.0)}, "double 1e+308"},
    {FN_ADD, 2, {D(1e19), I(1LL)}, "double 1e+19"},
    {FN_ADD, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_ADD, 2, {B(0), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_ADD, 2, {N, I(1LL)}, "null"},
    {FN_ADD, 2, {B(1), N}, "null"},
    {FN_SUB, 2, {I(7LL), I(3LL)}, "int 4"},
    {FN_SUB, 2, {I(-7LL), I(3LL)}, "int -10"},
    {FN_SUB, 2, {I(7LL), I(-3LL)}, "int 10"},
    {FN_SUB, 2, {I(1LL), I(0LL)}, "int 1"},
    {FN_SUB, 2, {I(9223372036854775807LL), I(1LL)}, "int 9223372036854775806"},
    {FN_SUB, 2, {I(INT64_MIN), I(1LL)}, "ERR bigint sub out of range"},
    {FN_SUB, 2, {I(INT64_MIN), I(-1LL)}, "int -9223372036854775807"},
    {FN_SUB, 2, {I(9223372036854775807LL), I(-1LL)}, "ERR bigint sub out of range"},
    {FN_SUB, 2, {I(9223372036854775807LL), I(2LL)}, "int 9223372036854775805"},
    {FN_SUB, 2, {I(INT64_MIN), I(INT64_MIN)}, "int 0"},
    {FN_SUB, 2, {I(3037000500LL), I(3037000500LL)}, "int 0"},
    {FN_SUB, 2, {I(4611686018427387904LL), I(-2LL)}, "int 4611686018427387906"},
    {FN_SUB, 2, {D(7.5), I(2LL)}, "double 5.5"},
    {FN_SUB, 2, {I(7LL), D(2.0)}, "double 5"},
    {FN_SUB, 2, {D(2.5), D(-0.5)}, "double 3"},
    {FN_SUB, 2, {D(1.0), I(3LL)}, "double -2"},
    {FN_SUB, 2, {D(-1.0), D(0.0)}, "double -1"},
    {FN_SUB, 2, {D(0.0), D(0.0)}, "double 0"},
    {FN_SUB, 2, {D(2.5), I(0LL)}, "double 2.5"},
    {FN_SUB, 2, {D(INFINITY), D(INFINITY)}, "double NaN"},
    {FN_SUB, 2, {D(NAN), D(1.0)}, "double NaN"},
    {FN_SUB, 2, {D(0.1), D(0.2)}, "double -0.1"},
    {FN_SUB, 2, {D(1e308), D(10.0)}, "double 1e+308"},
    {FN_SUB, 2, {D(1e19), I(1LL)}, "double 1e+19"},
    {FN_SUB, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_SUB, 2, {B(0), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_SUB, 2, {N, I(1LL)}, "null"},
    {FN_SUB, 2, {B(1), N}, "null"},
    {FN_MUL, 2, {I(7LL), I(3LL)}, "int 21"},
    {FN_MUL, 2, {I(-7LL), I(3LL)}, "int -21"},
    {FN_MUL, 2, {I(7LL), I(-3LL)}, "int -21"},
    {FN_MUL, 2, {I(1LL), I(0LL)}, "int 0"},
    {FN_MUL, 2, {I(9223372036854775807LL), I(1LL)}, "int 9223372036854775807"},
    {FN_MUL, 2, {I(INT64_MIN), I(1LL)}, "int -9223372036854775808"},
    {FN_MUL, 2, {I(INT64_MIN), I(-1LL)}, "ERR bigint mul out of range"},
    {FN_MUL, 2, {I(9223372036854775807LL), I(-1LL)}, "int -9223372036854775807"},
    {FN_MUL, 2, {I(9223372036854775807LL), I(2LL)}, "ERR bigint mul out of range"},
    {FN_MUL, 2, {I(INT64_MIN), I(INT64_MIN)}, "ERR bigint mul out of range"},
    {FN_MUL, 2, {I(3037000500LL), I(3037000500LL)}, "ERR bigint mul out of range"},
    {FN_MUL, 2, {I(4611686018427387904LL), I(-2LL)}, "int -9223372036854775808"},
    {FN_MUL, 2, {D(7.5), I(2LL)}, "double 15"},
    {FN_MUL, 2, {I(7LL), D(2.0)}, "double 14"},
    {FN_MUL, 2, {D(2.5), D(-0.5)}, "double -1.25"},
    {FN_MUL, 2, {D(1.0), I(3LL)}, "double 3"},
    {FN_MUL, 2, {D(-1.0), D(0.0)}, "double -0"},
    {FN_MUL, 2, {D(0.0), D(0.0)}, "double 0"},
    {FN_MUL, 2, {D(2.5), I(0LL)}, "double 0"},
    {FN_MUL, 2, {D(INFINITY), D(INFINITY)}, "double Infinity"},
    {FN_MUL, 2, {D(NAN), D(1.0)}, "double NaN"},
    {FN_MUL, 2, {D(0.1), D(0.2)}, "double 0.02"},
    {FN_MUL, 2, {D(1e308), D(10.0)}, "double Infinity"},
    {FN_MUL, 2, {D(1e19), I(1LL)}, "double 1e+19"},
    {FN_MUL, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_MUL, 2, {B(0), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_MUL, 2, {N, I(1LL)}, "null"},
    {FN_MUL, 2, {B(1), N}, "null"},
    {FN_DIV, 2, {I(7LL), I(3LL)}, "int 2"},
    {FN_DIV, 2, {I(-7LL), I(3LL)}, "int -2"},
    {FN_DIV, 2, {I(7LL), I(-3LL)}, "int -2"},
    {FN_DIV, 2, {I(1LL), I(0LL)}, "ERR division by zero"},
    {FN_DIV, 2, {I(9223372036854775807LL), I(1LL)}, "int 9223372036854775807"},
    {FN_DIV, 2, {I(INT64_MIN), I(1LL)}, "int -9223372036854775808"},
    {FN_DIV, 2, {I(INT64_MIN), I(-1LL)}, "ERR bigint div out of range"},
    {FN_DIV, 2, {I(9223372036854775807LL), I(-1LL)}, "int -9223372036854775807"},
    {FN_DIV, 2, {I(9223372036854775807LL), I(2LL)}, "int 4611686018427387903"},
    {FN_DIV, 2, {I(INT64_MIN), I(INT64_MIN)}, "int 1"},
    {FN_DIV, 2, {I(3037000500LL), I(3037000500LL)}, "int 1"},
    {FN_DIV, 2, {I(4611686018427387904LL), I(-2LL)}, "int -2305843009213693952"},
    {FN_DIV, 2, {D(7.5), I(2LL)}, "double 3.75"},
    {FN_DIV, 2, {I(7LL), D(2.0)}, "double 3.5"},
    {FN_DIV, 2, {D(2.5), D(-0.5)}, "double -5"},
    {FN_DIV, 2, {D(1.0), I(3LL)}, "double 0.333333333333333"},
    {FN_DIV, 2, {D(-1.0), D(0.0)}, "double -Infinity"},
    {FN_DIV, 2, {D(0.0), D(0.0)}, "double NaN"},
    {FN_DIV, 2, {D(2.5), I(0LL)}, "double Infinity"},
    {FN_DIV, 2, {D(INFINITY), D(INFINITY)}, "double NaN"},
    {FN_DIV, 2, {D(NAN), D(1.0)}, "double NaN"},
    {FN_DIV, 2, {D(0.1), D(0.2)}, "double 0.5"},
    {FN_DIV, 2, {D(1e308), D(10.0)}, "double 1e+307"},
    {FN_DIV, 2, {D(1e19), I(1LL)}, "double 1e+19"},
    {FN_DIV, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_DIV, 2, {B(0), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_DIV, 2, {N, I(1LL)}, "null"},
    {FN_DIV, 2, {B(1), N}, "null"},
    {FN_MOD_OP, 2, {I(7LL), I(3LL)}, "int 1"},
    {FN_MOD_OP, 2, {I(-7LL), I(3LL)}, "int -1"},
    {FN_MOD_OP, 2, {I(7LL), I(-3LL)}, "int 1"},
    {FN_MOD_OP, 2, {I(1LL), I(0LL)}, "ERR division by zero"},
    {FN_MOD_OP, 2, {I(9223372036854775807LL), I(1LL)}, "int 0"},
    {FN_MOD_OP, 2, {I(INT64_MIN), I(1LL)}, "int 0"},
    {FN_MOD_OP, 2, {I(INT64_MIN), I(-1LL)}, "int 0"},
    {FN_MOD_OP, 2, {I(9223372036854775807LL), I(-1LL)}, "int 0"},
    {FN_MOD_OP, 2, {I(9223372036854775807LL), I(2LL)}, "int 1"},
    {FN_MOD_OP, 2, {I(INT64_MIN), I(INT64_MIN)}, "int 0"},
    {FN_MOD_OP, 2, {I(3037000500LL), I(3037000500LL)}, "int 0"},
    {FN_MOD_OP, 2, {I(4611686018427387904LL), I(-2LL)}, "int 0"},
    {FN_MOD_OP, 2, {D(7.5), I(2LL)}, "int 0"},
    {FN_MOD_OP, 2, {I(7LL), D(2.0)}, "int 1"},
    {FN_MOD_OP, 2, {D(2.5), D(-0.5)}, "ERR division by zero"},
    {FN_MOD_OP, 2, {D(1.0), I(3LL)}, "int 1"},
    {FN_MOD_OP, 2, {D(-1.0), D(0.0)}, "ERR division by zero"},
    {FN_MOD_OP, 2, {D(0.0), D(0.0)}, "ERR division by zero"},
    {FN_MOD_OP, 2, {D(2.5), I(0LL)}, "ERR division by zero"},
    {FN_MOD_OP, 2, {D(INFINITY), D(INFINITY)}, "ERR double to int overflow for Infinity"},
    {FN_MOD_OP, 2, {D(NAN), D(1.0)}, "ERR double to int overflow for NaN"},
    {FN_MOD_OP, 2, {D(0.1), D(0.2)}, "ERR division by zero"},
    {FN_MOD_OP, 2, {D(1e19), I(1LL)}, "ERR double to int overflow for 10000000000000000000.000000"},
    {FN_MOD_OP, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_MOD_OP, 2, {B(0), D(1.5)}, "ERR cannot coerce boolean to int"},
    {FN_MOD_OP, 2, {N, I(1LL)}, "null"},
    {FN_MOD_OP, 2, {B(1), N}, "null"},
    {FN_EQ, 2, {I(7LL), I(3LL)}, "boolean false"},
    {FN_EQ, 2, {I(3LL), I(7LL)}, "boolean false"},
    {FN_EQ, 2, {I(5LL), I(5LL)}, "boolean true"},
    {FN_EQ, 2, {I(INT64_MIN), I(9223372036854775807LL)}, "boolean false"},
    {FN_EQ, 2, {D(1.0), I(1LL)}, "boolean true"},
    {FN_EQ, 2, {I(1LL), D(1.5)}, "boolean false"},
    {FN_EQ, 2, {I(9007199254740993LL), D(9007199254740992.0)}, "boolean true"},
    {FN_EQ, 2, {D(NAN), D(NAN)}, "boolean false"},
    {FN_EQ, 2, {I(1LL), D(NAN)}, "boolean false"},
    {FN_EQ, 2, {D(-INFINITY), D(INFINITY)}, "boolean false"},
    {FN_EQ, 2, {D(0.0), D(-0.0)}, "boolean true"},
    {FN_EQ, 2, {B(1), B(1)}, "ERR cannot coerce boolean to int"},
    {FN_EQ, 2, {B(1), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_EQ, 2, {N, N}, "null"},
    {FN_NE, 2, {I(7LL), I(3LL)}, "boolean true"},
    {FN_NE, 2, {I(3LL), I(7LL)}, "boolean true"},
    {FN_NE, 2, {I(5LL), I(5LL)}, "boolean false"},
    {FN_NE, 2, {I(INT64_MIN), I(9223372036854775807LL)}, "boolean true"},
    {FN_NE, 2, {D(1.0), I(1LL)}, "boolean false"},
    {FN_NE, 2, {I(1LL), D(1.5)}, "boolean true"},
    {FN_NE, 2, {I(9007199254740993LL), D(9007199254740992.0)}, "boolean false"},
    {FN_NE, 2, {D(NAN), D(NAN)}, "boolean true"},
    {FN_NE, 2, {I(1LL), D(NAN)}, "boolean true"},
    {FN_NE, 2, {D(-INFINITY), D(INFINITY)}, "boolean true"},
    {FN_NE, 2, {D(0.0), D(-0.0)}, "boolean false"},
    {FN_NE, 2, {B(1), B(1)}, "ERR cannot coerce boolean to int"},
    {FN_NE, 2, {B(1), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_NE, 2, {N, N}, "null"},
    {FN_LT, 2, {I(7LL), I(3LL)}, "boolean false"},
    {FN_LT, 2, {I(3LL), I(7LL)}, "boolean true"},
    {FN_LT, 2, {I(5LL), I(5LL)}, "boolean false"},
    {FN_LT, 2, {I(INT64_MIN), I(9223372036854775807LL)}, "boolean true"},
    {FN_LT, 2, {D(1.0), I(1LL)}, "boolean false"},
    {FN_LT, 2, {I(1LL), D(1.5)}, "boolean true"},
    {FN_LT, 2, {I(9007199254740993LL), D(9007199254740992.0)}, "boolean false"},
    {FN_LT, 2, {D(NAN), D(NAN)}, "boolean false"},
    {FN_LT, 2, {I(1LL), D(NAN)}, "boolean false"},
    {FN_LT, 2, {D(-INFINITY), D(INFINITY)}, "boolean true"},
    {FN_LT, 2, {D(0.0), D(-0.0)}, "boolean false"},
    {FN_LT, 2, {B(1), B(1)}, "ERR cannot coerce boolean to int"},
    {FN_LT, 2, {B(1), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_LT, 2, {N, N}, "null"},
    {FN_LE, 2, {I(7LL), I(3LL)}, "boolean false"},
    {FN_LE, 2, {I(3LL), I(7LL)}, "boolean true"},
    {FN_LE, 2, {I(5LL), I(5LL)}, "boolean true"},
    {FN_LE, 2, {I(INT64_MIN), I(9223372036854775807LL)}, "boolean true"},
    {FN_LE, 2, {D(1.0), I(1LL)}, "boolean true"},
    {FN_LE, 2, {I(1LL), D(1.5)}, "boolean true"},
    {FN_LE, 2, {I(9007199254740993LL), D(9007199254740992.0)}, "boolean true"},
    {FN_LE, 2, {D(NAN), D(NAN)}, "boolean false"},
    {FN_LE, 2, {I(1LL), D(NAN)}, "boolean false"},
    {FN_LE, 2, {D(-INFINITY), D(INFINITY)}, "boolean true"},
    {FN_LE, 2, {D(0.0), D(-0.0)}, "boolean true"},
    {FN_LE, 2, {B(1), B(1)}, "ERR cannot coerce boolean to int"},
    {FN_LE, 2, {B(1), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_LE, 2, {N, N}, "null"},
    {FN_GT, 2, {I(7LL), I(3LL)}, "boolean true"},
    {FN_GT, 2, {I(3LL), I(7LL)}, "boolean false"},
    {FN_GT, 2, {I(5LL), I(5LL)}, "boolean false"},
    {FN_GT, 2, {I(INT64_MIN), I(9223372036854775807LL)}, "boolean false"},
    {FN_GT, 2, {D(1.0), I(1LL)}, "boolean false"},
    {FN_GT, 2, {I(1LL), D(1.5)}, "boolean false"},
    {FN_GT, 2, {I(9007199254740993LL), D(9007199254740992.0)}, "boolean false"},
    {FN_GT, 2, {D(NAN), D(NAN)}, "boolean false"},
    {FN_GT, 2, {I(1LL), D(NAN)}, "boolean false"},
    {FN_GT, 2, {D(-INFINITY), D(INFINITY)}, "boolean false"},
    {FN_GT, 2, {D(0.0), D(-0.0)}, "boolean false"},
    {FN_GT, 2, {B(1), B(1)}, "ERR cannot coerce boolean to int"},
    {FN_GT, 2, {B(1), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_GT, 2, {N, N}, "null"},
    {FN_GE, 2, {I(7LL), I(3LL)}, "boolean true"},
    {FN_GE, 2, {I(3LL), I(7LL)}, "boolean false"},
    {FN_GE, 2, {I(5LL), I(5LL)}, "boolean true"},
    {FN_GE, 2, {I(INT64_MIN), I(9223372036854775807LL)}, "boolean false"},
    {FN_GE, 2, {D(1.0), I(1LL)}, "boolean true"},
    {FN_GE, 2, {I(1LL), D(1.5)}, "boolean false"},
    {FN_GE, 2, {I(9007199254740993LL), D(9007199254740992.0)}, "boolean true"},
    {FN_GE, 2, {D(NAN), D(NAN)}, "boolean false"},
    {FN_GE, 2, {I(1LL), D(NAN)}, "boolean false"},
    {FN_GE, 2, {D(-INFINITY), D(INFINITY)}, "boolean false"},
    {FN_GE, 2, {D(0.0), D(-0.0)}, "boolean true"},
    {FN_GE, 2, {B(1), B(1)}, "ERR cannot coerce boolean to int"},
    {FN_GE, 2, {B(1), D(1.5)}, "ERR cannot coerce boolean to double"},
    {FN_GE, 2, {N, N}, "null"},
    {FN_MOD, 2, {I(-7LL), I(3LL)}, "int -1"},
    {FN_MOD, 2, {D(7.9), I(2LL)}, "int 0"},
    {FN_MOD, 2, {I(INT64_MIN), I(-1LL)}, "int 0"},
    {FN_MOD, 2, {I(5LL), I(0LL)}, "ERR division by zero"},
    {FN_MOD, 2, {I(5LL), D(0.4)}, "ERR division by zero"},
    {FN_BITAND, 2, {I(12LL), I(10LL)}, "int 8"},
    {FN_BITAND, 2, {I(-8LL), I(3LL)}, "int 0"},
    {FN_BITAND, 2, {I(1LL), I(63LL)}, "int 1"},
    {FN_BITAND, 2, {I(1LL), I(64LL)}, "int 0"},
    {FN_BITAND, 2, {I(1LL), I(-1LL)}, "int 1"},
    {FN_BITAND, 2, {I(INT64_MIN), I(63LL)}, "int 0"},
    {FN_BITAND, 2, {I(-8LL), I(70LL)}, "int 64"},
    {FN_BITAND, 2, {D(5.6), I(3LL)}, "int 2"},
    {FN_BITAND, 2, {D(2.5), D(1.5)}, "int 2"},
    {FN_BITAND, 2, {I(81985529216486895LL), I(-81985529216486895LL)}, "int 1"},
    {FN_BITAND, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_BITAND, 2, {N, I(1LL)}, "null"},
    {FN_BITAND, 2, {D(1e19), I(1LL)}, "ERR double to int overflow for 10000000000000000000.000000"},
    {FN_BITOR, 2, {I(12LL), I(10LL)}, "int 14"},
    {FN_BITOR, 2, {I(-8LL), I(3LL)}, "int -5"},
    {FN_BITOR, 2, {I(1LL), I(63LL)}, "int 63"},
    {FN_BITOR, 2, {I(1LL), I(64LL)}, "int 65"},
    {FN_BITOR, 2, {I(1LL), I(-1LL)}, "int -1"},
    {FN_BITOR, 2, {I(INT64_MIN), I(63LL)}, "int -9223372036854775745"},
    {FN_BITOR, 2, {I(-8LL), I(70LL)}, "int -2"},
    {FN_BITOR, 2, {D(5.6), I(3LL)}, "int 7"},
    {FN_BITOR, 2, {D(2.5), D(1.5)}, "int 2"},
    {FN_BITOR, 2, {I(81985529216486895LL), I(-81985529216486895LL)}, "int -1"},
    {FN_BITOR, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_BITOR, 2, {N, I(1LL)}, "null"},
    {FN_BITOR, 2, {D(1e19), I(1LL)}, "ERR double to int overflow for 10000000000000000000.000000"},
    {FN_BITXOR, 2, {I(12LL), I(10LL)}, "int 6"},
    {FN_BITXOR, 2, {I(-8LL), I(3LL)}, "int -5"},
    {FN_BITXOR, 2, {I(1LL), I(63LL)}, "int 62"},
    {FN_BITXOR, 2, {I(1LL), I(64LL)}, "int 65"},
    {FN_BITXOR, 2, {I(1LL), I(-1LL)}, "int -2"},
    {FN_BITXOR, 2, {I(INT64_MIN), I(63LL)}, "int -9223372036854775745"},
    {FN_BITXOR, 2, {I(-8LL), I(70LL)}, "int -66"},
    {FN_BITXOR, 2, {D(5.6), I(3LL)}, "int 5"},
    {FN_BITXOR, 2, {D(2.5), D(1.5)}, "int 0"},
    {FN_BITXOR, 2, {I(81985529216486895LL), I(-81985529216486895LL)}, "int -2"},
    {FN_BITXOR, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_BITXOR, 2, {N, I(1LL)}, "null"},
    {FN_BITXOR, 2, {D(1e19), I(1LL)}, "ERR double to int overflow for 10000000000000000000.000000"},
    {FN_LSHIFT, 2, {I(12LL), I(10LL)}, "int 12288"},
    {FN_LSHIFT, 2, {I(-8LL), I(3LL)}, "int -64"},
    {FN_LSHIFT, 2, {I(1LL), I(63LL)}, "int -9223372036854775808"},
    {FN_LSHIFT, 2, {I(1LL), I(64LL)}, "int 1"},
    {FN_LSHIFT, 2, {I(1LL), I(-1LL)}, "int -9223372036854775808"},
    {FN_LSHIFT, 2, {I(INT64_MIN), I(63LL)}, "int 0"},
    {FN_LSHIFT, 2, {I(-8LL), I(70LL)}, "int -512"},
    {FN_LSHIFT, 2, {D(5.6), I(3LL)}, "int 48"},
    {FN_LSHIFT, 2, {D(2.5), D(1.5)}, "int 8"},
    {FN_LSHIFT, 2, {I(81985529216486895LL), I(-81985529216486895LL)}, "int -8444509509298290688"},
    {FN_LSHIFT, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_LSHIFT, 2, {N, I(1LL)}, "null"},
    {FN_LSHIFT, 2, {D(1e19), I(1LL)}, "ERR double to int overflow for 10000000000000000000.000000"},
    {FN_RSHIFT, 2, {I(12LL), I(10LL)}, "int 0"},
    {FN_RSHIFT, 2, {I(-8LL), I(3LL)}, "int -1"},
    {FN_RSHIFT, 2, {I(1LL), I(63LL)}, "int 0"},
    {FN_RSHIFT, 2, {I(1LL), I(64LL)}, "int 1"},
    {FN_RSHIFT, 2, {I(1LL), I(-1LL)}, "int 0"},
    {FN_RSHIFT, 2, {I(INT64_MIN), I(63LL)}, "int -1"},
    {FN_RSHIFT, 2, {I(-8LL), I(70LL)}, "int -1"},
    {FN_RSHIFT, 2, {D(5.6), I(3LL)}, "int 0"},
    {FN_RSHIFT, 2, {D(2.5), D(1.5)}, "int 0"},
    {FN_RSHIFT, 2, {I(81985529216486895LL), I(-81985529216486895LL)}, "int 625499948245"},
    {FN_RSHIFT, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_RSHIFT, 2, {N, I(1LL)}, "null"},
    {FN_RSHIFT, 2, {D(1e19), I(1LL)}, "ERR double to int overflow for 10000000000000000000.000000"},
    {FN_NEG, 1, {I(-5LL)}, "int 5"},
    {FN_NEG, 1, {I(INT64_MIN)}, "ERR bigint sub out of range"},
    {FN_NEG, 1, {D(-2.5)}, "double 2.5"},
    {FN_NEG, 1, {D(INFINITY)}, "double -Infinity"},
    {FN_NEG, 1, {D(NAN)}, "double NaN"},
    {FN_NEG, 1, {B(1)}, "ERR cannot coerce boolean to int"},
    {FN_NEG, 1, {N}, "null"},
    {FN_NEG, 1, {I(5LL)}, "int -5"},
    {FN_NEG, 1, {I(9223372036854775807LL)}, "int -9223372036854775807"},
    {FN_NEG, 1, {D(0.0)}, "double 0"},
    {FN_NEG, 1, {D(-0.0)}, "double 0"},
    {FN_BITNOT, 1, {I(-5LL)}, "int 4"},
    {FN_BITNOT, 1, {I(INT64_MIN)}, "int 9223372036854775807"},
    {FN_BITNOT, 1, {D(-2.5)}, "int 1"},
    {FN_BITNOT, 1, {D(INFINITY)}, "ERR double to int overflow for Infinity"},
    {FN_BITNOT, 1, {D(NAN)}, "ERR double to int overflow for NaN"},
    {FN_BITNOT, 1, {B(1)}, "ERR cannot coerce boolean to int"},
    {FN_BITNOT, 1, {N}, "null"},
    {FN_BITNOT, 1, {I(0LL)}, "int -1"},
    {FN_BITNOT, 1, {I(9223372036854775807LL)}, "int -9223372036854775808"},
    {FN_BITNOT, 1, {D(2.5)}, "int -3"},
    {FN_NOT, 1, {I(-5LL)}, "ERR cannot coerce int to boolean"},
    {FN_NOT, 1, {I(INT64_MIN)}, "ERR cannot coerce int to boolean"},
    {FN_NOT, 1, {D(-2.5)}, "ERR cannot coerce double to boolean"},
    {FN_NOT, 1, {D(INFINITY)}, "ERR cannot coerce double to boolean"},
    {FN_NOT, 1, {D(NAN)}, "ERR cannot coerce double to boolean"},
    {FN_NOT, 1, {B(1)}, "boolean false"},
    {FN_NOT, 1, {N}, "null"},
    {FN_NOT, 1, {B(0)}, "boolean true"},
    {FN_NOT, 1, {I(0LL)}, "ERR cannot coerce int to boolean"},
    {FN_NOT, 1, {D(0.0)}, "ERR cannot coerce double to boolean"},
    {FN_ABS, 1, {I(-5LL)}, "int 5"},
    {FN_ABS, 1, {I(INT64_MIN)}, "int -9223372036854775808"},
    {FN_ABS, 1, {D(-2.5)}, "double 2.5"},
    {FN_ABS, 1, {D(INFINITY)}, "double Infinity"},
    {FN_ABS, 1, {D(NAN)}, "double NaN"},
    {FN_ABS, 1, {N}, "null"},
    {FN_ABS, 1, {I(0LL)}, "int 0"},
    {FN_ABS, 1, {I(9223372036854775807LL)}, "int 9223372036854775807"},
    {FN_ABS, 1, {D(-0.0)}, "double -0"},
    {FN_ABS, 1, {D(-INFINITY)}, "double Infinity"},
    {FN_INT, 1, {I(-5LL)}, "int -5"},
    {FN_INT, 1, {I(INT64_MIN)}, "int -9223372036854775808"},
    {FN_INT, 1, {D(-2.5)}, "int -2"},
    {FN_INT, 1, {D(INFINITY)}, "ERR double to int overflow for Infinity"},
    {FN_INT, 1, {D(NAN)}, "ERR double to int overflow for NaN"},
    {FN_INT, 1, {B(1)}, "ERR cannot coerce boolean to int"},
    {FN_INT, 1, {N}, "null"},
    {FN_INT, 1, {D(2.5)}, "int 2"},
    {FN_INT, 1, {D(3.5)}, "int 4"},
    {FN_INT, 1, {D(-0.5)}, "int 0"},
    {FN_INT, 1, {D(1.5)}, "int 2"},
    {FN_INT, 1, {D(-9223372036854775808.0)}, "int -9223372036854775808"},
    {FN_INT, 1, {D(9223372036854775807.0)},
     "ERR double to int overflow for 9223372036854775808.000000"},
    {FN_INT, 1, {D(9223372036854774784.0)}, "int 9223372036854774784"},
    {FN_INT, 1, {D(-INFINITY)}, "ERR double to int overflow for -Infinity"},
    {FN_DOUBLE, 1, {I(-5LL)}, "double -5"},
    {FN_DOUBLE, 1, {I(INT64_MIN)}, "double -9.22337203685478e+18"},
    {FN_DOUBLE, 1, {D(-2.5)}, "double -2.5"},
    {FN_DOUBLE, 1, {D(INFINITY)}, "double Infinity"},
    {FN_DOUBLE, 1, {D(NAN)}, "double NaN"},
    {FN_DOUBLE, 1, {B(1)}, "ERR cannot coerce boolean to double"},
    {FN_DOUBLE, 1, {N}, "null"},
    {FN_DOUBLE, 1, {I(9007199254740993LL)}, "double 9.00719925474099e+15"},
    {FN_DOUBLE, 1, {I(9223372036854775807LL)}, "double 9.22337203685478e+18"},
    {FN_DOUBLE, 1, {D(1.0)}, "double 1"},
    {FN_SQRT, 1, {I(-5LL)}, "double NaN"},
    {FN_SQRT, 1, {I(INT64_MIN)}, "double NaN"},
    {FN_SQRT, 1, {D(-2.5)}, "double NaN"},
    {FN_SQRT, 1, {D(INFINITY)}, "double Infinity"},
    {FN_SQRT, 1, {D(NAN)}, "double NaN"},
    {FN_SQRT, 1, {B(1)}, "ERR cannot coerce boolean to double"},
    {FN_SQRT, 1, {N}, "null"},
    {FN_SQRT, 1, {I(2LL)}, "double 1.4142135623731"},
    {FN_SQRT, 1, {I(0LL)}, "double 0"},
    {FN_SQRT, 1, {D(-0.0)}, "double -0"},
    {FN_SQRT, 1, {D(1e-300)}, "double 1e-150"},
    {FN_LN, 1, {I(-5LL)}, "double NaN"},
    {FN_LN, 1, {I(INT64_MIN)}, "double NaN"},
    {FN_LN, 1, {D(-2.5)}, "double NaN"},
    {FN_LN, 1, {D(INFINITY)}, "double Infinity"},
    {FN_LN, 1, {D(NAN)}, "double NaN"},
    {FN_LN, 1, {B(1)}, "ERR cannot coerce boolean to double"},
    {FN_LN, 1, {N}, "null"},
    {FN_LN, 1, {I(0LL)}, "double -Infinity"},
    {FN_LN, 1, {I(10LL)}, "double 2.30258509299405"},
    {FN_LN, 1, {D(2.718281828459045)}, "double 1"},
    {FN_EXP, 1, {I(-5LL)}, "double 0.00673794699908547"},
    {FN_EXP, 1, {I(INT64_MIN)}, "double 0"},
    {FN_EXP, 1, {D(-2.5)}, "double 0.0820849986238988"},
    {FN_EXP, 1, {D(INFINITY)}, "double Infinity"},
    {FN_EXP, 1, {D(NAN)}, "double NaN"},
    {FN_EXP, 1, {B(1)}, "ERR cannot coerce boolean to double"},
    {FN_EXP, 1, {N}, "null"},
    {FN_EXP, 1, {I(1LL)}, "double 2.71828182845905"},
    {FN_EXP, 1, {I(0LL)}, "double 1"},
    {FN_EXP, 1, {I(710LL)}, "double Infinity"},
    {FN_EXP, 1, {I(-1000LL)}, "double 0"},
    {FN_DEBUG, 1, {I(-5LL)}, "int -5"},
    {FN_DEBUG, 1, {I(INT64_MIN)}, "int -9223372036854775808"},
    {FN_DEBUG, 1, {D(-2.5)}, "double -2.5"},
    {FN_DEBUG, 1, {D(INFINITY)}, "double Infinity"},
    {FN_DEBUG, 1, {D(NAN)}, "double NaN"},
    {FN_DEBUG, 1, {B(1)}, "boolean true"},
    {FN_DEBUG, 1, {N}, "null"},
    {FN_DEBUG, 1, {B(0)}, "boolean false"},
    {FN_DEBUG, 1, {I(7LL)}, "int 7"},
    {FN_DEBUG, 1, {I(9223372036854775807LL)}, "int 9223372036854775807"},
    {FN_DEBUG, 1, {D(1e30)}, "double 1e+30"},
    {FN_DEBUG, 1, {D(-0.0)}, "double -0"},
    {FN_DEBUG, 1, {D(-INFINITY)}, "double -Infinity"},
    {FN_DEBUG, 1, {D(0.1)}, "double 0.1"},
    {FN_DEBUG, 1, {D(123456789012345678.0)}, "double 1.23456789012346e+17"},
    {FN_IS, 2, {B(1), N}, "boolean false"},
    {FN_IS, 2, {B(1), B(1)}, "boolean true"},
    {FN_IS, 2, {B(1), B(0)}, "boolean false"},
    {FN_IS, 2, {B(0), N}, "boolean false"},
    {FN_IS, 2, {B(0), B(1)}, "boolean false"},
    {FN_IS, 2, {B(0), B(0)}, "boolean true"},
    {FN_IS, 2, {N, N}, "boolean true"},
    {FN_IS, 2, {N, B(1)}, "boolean false"},
    {FN_IS, 2, {N, B(0)}, "boolean false"},
    {FN_IS, 2, {I(1LL), N}, "boolean false"},
    {FN_IS, 2, {I(1LL), B(1)}, "boolean false"},
    {FN_IS, 2, {I(1LL), B(0)}, "boolean false"},
    {FN_IS, 2, {D(1.0), N}, "boolean false"},
    {FN_IS, 2, {D(1.0), B(1)}, "boolean false"},
    {FN_IS, 2, {D(1.0), B(0)}, "boolean false"},
    {FN_PI, 0, {}, "double 3.14159265358979"},
    {FN_POW, 2, {I(2LL), I(10LL)}, "double 1024"},
    {FN_POW, 2, {I(2LL), D(0.5)}, "double 1.4142135623731"},
    {FN_POW, 2, {I(-8LL), D(0.3333)}, "double NaN"},
    {FN_POW, 2, {I(0LL), I(-1LL)}, "double Infinity"},
    {FN_POW, 2, {I(-2LL), I(3LL)}, "double -8"},
    {FN_POW, 2, {I(10LL), I(-2LL)}, "double 0.01"},
    {FN_POW, 2, {I(2LL), I(1024LL)}, "double Infinity"},
    {FN_POW, 2, {I(0LL), I(0LL)}, "double 1"},
    {FN_POW, 2, {D(NAN), I(0LL)}, "double 1"},
    {FN_POW, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to double"},
    {FN_LEAST, 1, {I(3LL)}, "int 3"},
    {FN_LEAST, 1, {D(2.5)}, "double 2.5"},
    {FN_LEAST, 3, {I(3LL), I(2LL), I(5LL)}, "int 2"},
    {FN_LEAST, 3, {I(1LL), D(2.5), I(-3LL)}, "double -3"},
    {FN_LEAST, 2, {I(5LL), D(5.0)}, "double 5"},
    {FN_LEAST, 3, {I(9223372036854775807LL), I(INT64_MIN), I(0LL)}, "int -9223372036854775808"},
    {FN_LEAST, 2, {D(NAN), I(1LL)}, "double 1"},
    {FN_LEAST, 2, {I(1LL), D(NAN)}, "double NaN"},
    {FN_LEAST, 3, {I(1LL), D(NAN), I(2LL)}, "double 2"},
    {FN_LEAST, 2, {I(1LL), N}, "null"},
    {FN_LEAST, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_LEAST, 2, {D(1.5), B(1)}, "ERR cannot coerce boolean to double"},
    {FN_LEAST, 2, {I(9007199254740993LL), D(1.0)}, "double 1"},
    {FN_LEAST, 2, {D(INFINITY), D(-INFINITY)}, "double -Infinity"},
    {FN_GREATEST, 1, {I(3LL)}, "int 3"},
    {FN_GREATEST, 1, {D(2.5)}, "double 2.5"},
    {FN_GREATEST, 3, {I(3LL), I(2LL), I(5LL)}, "int 5"},
    {FN_GREATEST, 3, {I(1LL), D(2.5), I(-3LL)}, "double 2.5"},
    {FN_GREATEST, 2, {I(5LL), D(5.0)}, "double 5"},
    {FN_GREATEST, 3, {I(9223372036854775807LL), I(INT64_MIN), I(0LL)}, "int 9223372036854775807"},
    {FN_GREATEST, 2, {D(NAN), I(1LL)}, "double 1"},
    {FN_GREATEST, 2, {I(1LL), D(NAN)}, "double NaN"},
    {FN_GREATEST, 3, {I(1LL), D(NAN), I(2LL)}, "double 2"},
    {FN_GREATEST, 2, {I(1LL), N}, "null"},
    {FN_GREATEST, 2, {B(1), I(1LL)}, "ERR cannot coerce boolean to int"},
    {FN_GREATEST, 2, {D(1.5), B(1)}, "ERR cannot coerce boolean to double"},
    {FN_GREATEST, 2, {I(9007199254740993LL), D(1.0)}, "double 9.00719925474099e+15"},
    {FN_GREATEST, 2, {D(INFINITY), D(-INFINITY)}, "double Infinity"},
};

/* hash_murmur2(value, seed) (which plain hash() is too) and hash_fnv1a(value, seed). */
static const struct {
    int64_t value, seed, murmur2, fnv1a;
} hash_cases[] = {
    {0LL, 0LL, 8217090173679840641LL, -6284781860667377211LL},
    {0LL, 1LL, 6469830575553437113LL, -8517097267634966620LL},
    {0LL, -1LL, -1429387546045227835LL, 4052466453699787802LL},
    {0LL, 5432LL, 6045885599107954120LL, 5600063106439994301LL},
    {0LL, INT64_MIN, 5365366227499048315LL, 2938590176187398597LL},
    {0LL, 9223372036854775807LL, 1422336400135529452LL, -5170905583154988006LL},
    {0LL, 1540483477LL, -7814389750956572746LL, -4031305565399154512LL},
    {1LL, 0LL, -8089716718896805586LL, -8517097267634966620LL},
    {1LL, 1LL, 5833352340892006082LL, -6284781860667377211LL},
    {1LL, -1LL, 8383142988610529298LL, 6284781860667377211LL},
    {1LL, 5432LL, 8409120883607651217LL, 3367747699472404892LL},
    {1LL, INT64_MIN, 7505303408632055305LL, 706274769219809188LL},
    {1LL, 9223372036854775807LL, 5531419042429704504LL, -2938590176187398597LL},
    {1LL, 1540483477LL, -4922865420303319008LL, -1798990158431565103LL},
    {-1LL, 0LL, 4219408603045787357LL, -8289690350564177859LL},
    {-1LL, 1LL, 1123455060992376216LL, -280853605209635300LL},
    {-1LL, -1LL, 1317380444104773032LL, 9116541788052886162LL},
    {-1LL, 5432LL, 3202824124722859978LL, 3795662180246657077LL},
    {-1LL, INT64_MIN, 7071132549226612610LL, 933681686290597949LL},
    {-1LL, 9223372036854775807LL, -1534343502075937711LL, -106830248801889646LL},
    {-1LL, 1540483477LL, 4770695880454116487LL, 4001146242748673320LL},
    {42LL, 0LL, -3251795447530343920LL, -55488592825689361LL},
    {42LL, 1LL, 8550017599394621797LL, -2287803999793278770LL},
    {42LL, -1LL, 5248481571682728979LL, -2176826814141900048LL},
    {42LL, 5432LL, -8888550574847118926LL, 8300031466468664087LL},
    {42LL, INT64_MIN, -400071501349395637LL, 9167883444029086447LL},
    {42LL, 9223372036854775807LL, 2396757625501970234LL, 7046545222712875760LL},
    {42LL, 1540483477LL, 2379492399074591642LL, 2197987702442533338LL},
    {12345LL, 0LL, -8599128181304237022LL, -1792800413050876852LL},
    {12345LL, 1LL, -310064998105715517LL, -5735077006562332211LL},
    {12345LL, -1LL, -6513328224428820182LL, 5735077006562332211LL},
    {12345LL, 5432LL, 550144705836202639LL, -3356549155111684876LL},
    {12345LL, INT64_MIN, 6995891946224465757LL, 7430571623803898956LL},
    {12345LL, 9223372036854775807LL, -3661604278247937972LL, -3488295030292443597LL},
    {12345LL, 1540483477LL, 5886833626655419178LL, 1103597967548825273LL},
    {9223372036854775807LL, 0LL, -6118008551640328833LL, -8289549613075766851LL},
    {9223372036854775807LL, 1LL, -422191570849047500LL, -280712867721224292LL},
    {9223372036854775807LL, -1LL, -7449049946749928351LL, 9116682525541297170LL},
    {9223372036854775807LL, 5432LL, -4755676558467274251LL, 3795802917735068085LL},
    {9223372036854775807LL, INT64_MIN, -8969732497821252539LL, 933822423779008957LL},
    {9223372036854775807LL, 9223372036854775807LL, 8145970180778700614LL, -106689511313478638LL},
    {9223372036854775807LL, 1540483477LL, -2920895684790157946LL, 4001286980237084328LL},
    {INT64_MIN, 0LL, 9158703207903963431LL, -6284922598155788219LL},
    {INT64_MIN, 1LL, 13853359902897483LL, -8517238005123377628LL},
    {INT64_MIN, -1LL, 5949093009533562506LL, 4052607191188198810LL},
    {INT64_MIN, 5432LL, -2711967873914999986LL, 5599922368951583293LL},
    {INT64_MIN, INT64_MIN, -6436316919624885688LL, 2938449438698987589LL},
    {INT64_MIN, 9223372036854775807LL, 8800816955714355153LL, -5170764845666576998LL},
    {INT64_MIN, 1540483477LL, 920938577675889367LL, -4031446302887565520LL},
    {81985529216486895LL, 0LL, 1197579176932491773LL, 4029383781087845461LL},
    {81985529216486895LL, 1LL, -80472914470634368LL, 7254711000508828644LL},
    {81985529216486895LL, -1LL, -4224726437468534465LL, -6957932132034586790LL},
    {81985529216486895LL, 5432LL, 6045604948229217531LL, -3433050982988167091LL},
    {81985529216486895LL, INT64_MIN, -1654144769248218410LL, -5193988255766930347LL},
    {81985529216486895LL, 9223372036854775807LL, -7076450383649228780LL, 2265439904820189018LL},
    {81985529216486895LL, 1540483477LL, 8312816990313467989LL, -6728795105463936752LL},
    {-987654321LL, 0LL, -8921804070922432611LL, 1004467976608288909LL},
    {-987654321LL, 1LL, 1158907495268483967LL, 348951177663280832LL},
    {-987654321LL, -1LL, 1893408267882238079LL, -2134432464545200698LL},
    {-987654321LL, 5432LL, 1524641913228720507LL, 7063364994311948981LL},
    {-987654321LL, INT64_MIN, 6673216056606359291LL, -8218904060246486899LL},
    {-987654321LL, 9223372036854775807LL, -958315678298652268LL, 7088939572309575110LL},
    {-987654321LL, 1540483477LL, -5128371735552313720LL, -9183357159630688188LL},
};

/* permute(v, size, seed) for every v in [0, size). */
static const struct {
    int64_t size, seed;
    int64_t perm[10];
} permute_small[] = {
    {1, 0, {0}},
    {1, 42, {0}},
    {1, -1, {0}},
    {1, 5432, {0}},
    {2, 0, {0, 1}},
    {2, 42, {1, 0}},
    {2, -1, {0, 1}},
    {2, 5432, {0, 1}},
    {3, 0, {2, 1, 0}},
    {3, 42, {0, 1, 2}},
    {3, -1, {2, 0, 1}},
    {3, 5432, {0, 1, 2}},
    {4, 0, {1, 0, 3, 2}},
    {4, 42, {0, 2, 3, 1}},
    {4, -1, {2, 1, 0, 3}},
    {4, 5432, {3, 2, 1, 0}},
    {5, 0, {2, 4, 0, 1, 3}},
    {5, 42, {1, 3, 0, 2, 4}},
    {5, -1, {3, 1, 0, 2, 4}},
    {5, 5432, {0, 3, 4, 1, 2}},
    {6, 0, {3, 0, 1, 4, 2, 5}},
    {6, 42, {4, 3, 2, 1, 0, 5}},
    {6, -1, {5, 4, 0, 1, 3, 2}},
    {6, 5432, {3, 1, 2, 5, 4, 0}},
    {7, 0, {6, 2, 1, 3, 0, 4, 5}},
    {7, 42, {3, 0, 5, 6, 1, 2, 4}},
    {7, -1, {1, 3, 0, 2, 4, 5, 6}},
    {7, 5432, {3, 4, 0, 6, 5, 2, 1}},
    {8, 0, {3, 2, 0, 6, 7, 5, 4, 1}},
    {8, 42, {4, 5, 7, 1, 6, 2, 3, 0}},
    {8, -1, {2, 0, 5, 6, 7, 1, 4, 3}},
    {8, 5432, {6, 0, 4, 5, 1, 3, 7, 2}},
    {9, 0, {4, 6, 5, 1, 7, 3, 0, 2, 8}},
    {9, 42, {5, 7, 6, 3, 1, 2, 4, 8, 0}},
    {9, -1, {3, 0, 1, 5, 6, 4, 7, 8, 2}},
    {9, 5432, {7, 3, 0, 4, 2, 5, 8, 1, 6}},
    {10, 0, {0, 7, 1, 2, 6, 8, 3, 4, 9, 5}},
    {10, 42, {1, 7, 0, 4, 3, 8, 6, 5, 9, 2}},
    {10, -1, {8, 7, 4, 0, 3, 1, 9, 6, 2, 5}},
    {10, 5432, {6, 5, 3, 8, 0, 7, 1, 4, 9, 2}},
};

/* permute(value, size, seed) with large sizes and values outside [0, size). */
static const struct {
    int64_t value, size, seed, want;
} permute_large[] = {
    {0LL, 9223372036854775807LL, 0LL, 6827909720952040287LL},
    {0LL, 9223372036854775807LL, 42LL, 1400127293584671183LL},
    {0LL, 9223372036854775807LL, INT64_MIN, 9061925603549356191LL},
    {-1LL, 9223372036854775807LL, 0LL, 1409427443184838618LL},
    {-1LL, 9223372036854775807LL, 42LL, 4921802382187937526LL},
    {-1LL, 9223372036854775807LL, INT64_MIN, 2787068492670133621LL},
    {123456789LL, 9223372036854775807LL, 0LL, 8993254634430874118LL},
    {123456789LL, 9223372036854775807LL, 42LL, 1331827953198864628LL},
    {123456789LL, 9223372036854775807LL, INT64_MIN, 627678706523751967LL},
    {9223372036854775807LL, 9223372036854775807LL, 0LL, 6827909720952040287LL},
    {9223372036854775807LL, 9223372036854775807LL, 42LL, 1400127293584671183LL},
    {9223372036854775807LL, 9223372036854775807LL, INT64_MIN, 9061925603549356191LL},
    {INT64_MIN, 9223372036854775807LL, 0LL, 1409427443184838618LL},
    {INT64_MIN, 9223372036854775807LL, 42LL, 4921802382187937526LL},
    {INT64_MIN, 9223372036854775807LL, INT64_MIN, 2787068492670133621LL},
    {0LL, 4611686018427387907LL, 0LL, 3000158217739043250LL},
    {0LL, 4611686018427387907LL, 42LL, 1206321331966996630LL},
    {0LL, 4611686018427387907LL, INT64_MIN, 1952216364162602197LL},
    {-1LL, 4611686018427387907LL, 0LL, 3166219095958977685LL},
    {-1LL, 4611686018427387907LL, 42LL, 2068901420262214475LL},
    {-1LL, 4611686018427387907LL, INT64_MIN, 2132532597090438843LL},
    {123456789LL, 4611686018427387907LL, 0LL, 3264821552274424507LL},
    {123456789LL, 4611686018427387907LL, 42LL, 3040310060525334507LL},
    {123456789LL, 4611686018427387907LL, INT64_MIN, 3357990239784856207LL},
    {9223372036854775807LL, 4611686018427387907LL, 0LL, 2702672774246858866LL},
    {9223372036854775807LL, 4611686018427387907LL, 42LL, 1245546476409218345LL},
    {9223372036854775807LL, 4611686018427387907LL, INT64_MIN, 3756921382047283595LL},
    {INT64_MIN, 4611686018427387907LL, 0LL, 1447367544329492030LL},
    {INT64_MIN, 4611686018427387907LL, 42LL, 2360178146350704881LL},
    {INT64_MIN, 4611686018427387907LL, INT64_MIN, 261807681860847886LL},
    {0LL, 1000000007LL, 0LL, 683438496LL},
    {0LL, 1000000007LL, 42LL, 781359433LL},
    {0LL, 1000000007LL, INT64_MIN, 551912923LL},
    {-1LL, 1000000007LL, 0LL, 648736073LL},
    {-1LL, 1000000007LL, 42LL, 557218720LL},
    {-1LL, 1000000007LL, INT64_MIN, 297385109LL},
    {123456789LL, 1000000007LL, 0LL, 544411521LL},
    {123456789LL, 1000000007LL, 42LL, 253707980LL},
    {123456789LL, 1000000007LL, INT64_MIN, 677301673LL},
    {9223372036854775807LL, 1000000007LL, 0LL, 807449598LL},
    {9223372036854775807LL, 1000000007LL, 42LL, 281398255LL},
    {9223372036854775807LL, 1000000007LL, INT64_MIN, 572210317LL},
    {INT64_MIN, 1000000007LL, 0LL, 127319705LL},
    {INT64_MIN, 1000000007LL, 42LL, 753303001LL},
    {INT64_MIN, 1000000007LL, INT64_MIN, 247098739LL},
    {0LL, 100LL, 0LL, 95LL},
    {0LL, 100LL, 42LL, 71LL},
    {0LL, 100LL, INT64_MIN, 76LL},
    {-1LL, 100LL, 0LL, 10LL},
    {-1LL, 100LL, 42LL, 19LL},
    {-1LL, 100LL, INT64_MIN, 46LL},
    {123456789LL, 100LL, 0LL, 88LL},
    {123456789LL, 100LL, 42LL, 11LL},
    {123456789LL, 100LL, INT64_MIN, 71LL},
    {9223372036854775807LL, 100LL, 0LL, 34LL},
    {9223372036854775807LL, 100LL, 42LL, 20LL},
    {9223372036854775807LL, 100LL, INT64_MIN, 31LL},
    {INT64_MIN, 100LL, 0LL, 81LL},
    {INT64_MIN, 100LL, 42LL, 65LL},
    {INT64_MIN, 100LL, INT64_MIN, 64LL},
};
/* clang-format on */

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static struct rng test_rng;

static int eval(enum func_id id, int nargs, const struct value *args, struct value *out, char *msg)
{
    msg[0] = '\0';
    return func_eval(id, nargs, args, &test_rng, out, msg, MSG_SIZE);
}

static int64_t eval_int(enum func_id id, int nargs, const struct value *args)
{
    struct value out;
    char msg[MSG_SIZE];
    if (eval(id, nargs, args, &out, msg) != 0)
        fail_msg("unexpected error: %s", msg);
    assert_int_equal(out.type, VAL_INT);
    return out.u.i;
}

static void assert_eval_error(enum func_id id, int nargs, const struct value *args,
                              const char *want)
{
    struct value out;
    char msg[MSG_SIZE];
    assert_int_equal(eval(id, nargs, args, &out, msg), -1);
    assert_string_equal(msg, want);
}

/* The result as pgbench's debug() describes it, or "ERR " and the error message. */
static void describe(const struct op_case *c, char *buf, size_t size)
{
    struct value out, same;
    char msg[MSG_SIZE];
    if (eval(c->id, c->nargs, c->args, &out, msg) != 0) {
        snprintf(buf, size, "ERR %s", msg);
        return;
    }
    assert_int_equal(eval(FN_DEBUG, 1, &out, &same, msg), 0);
    assert_memory_equal(&same, &out, sizeof(out)); /* debug() passes its argument through */
    snprintf(buf, size, "%s", msg);
}

static void test_lookup(void **state)
{
    (void)state;
    const struct func_def *f = func_lookup("Random_Gaussian", 15);
    assert_non_null(f);
    assert_int_equal(f->id, FN_RANDOM_GAUSSIAN);
    assert_int_equal(f->min_args, 3);
    assert_int_equal(func_lookup("power", 5)->id, FN_POW);
    assert_int_equal(func_lookup("POW", 3)->id, FN_POW);
    assert_int_equal(func_lookup("hash", 4)->id, FN_HASH);
    assert_int_equal(func_lookup("absolute", 3)->id, FN_ABS); /* only len bytes count */
    assert_null(func_lookup("abs", 2));
    assert_null(func_lookup("random_normal", 13));
    assert_null(func_lookup("!not", 4)); /* pgbench's internal operator names are not callable */
    f = func_lookup("permute", 7);
    assert_int_equal(f->min_args, 2);
    assert_int_equal(f->max_args, 3);
    f = func_lookup("least", 5);
    assert_int_equal(f->min_args, 1);
    assert_int_equal(f->max_args, -1);
    assert_int_equal(func_lookup("pi", 2)->max_args, 0);
}

static void test_operators_match_pgbench(void **state)
{
    (void)state;
    int failures = 0;
    for (size_t i = 0; i < N_ELEMS(op_cases); i++) {
        char got[MSG_SIZE + 8];
        describe(&op_cases[i], got, sizeof(got));
        if (strcmp(got, op_cases[i].want) != 0) {
            print_error("case %zu (func %d): want \"%s\", got \"%s\"\n", i, op_cases[i].id,
                        op_cases[i].want, got);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

/* Checks beyond the 15 digits pgbench prints: the doubles themselves. */
static void test_exact_doubles(void **state)
{
    (void)state;
    struct value out;
    char msg[MSG_SIZE];
    assert_int_equal(eval(FN_PI, 0, NULL, &out, msg), 0);
    assert_true(out.type == VAL_DOUBLE && out.u.d == 3.141592653589793);
    struct value big[] = {I(9007199254740993LL)};
    assert_int_equal(eval(FN_DOUBLE, 1, big, &out, msg), 0);
    assert_true(out.u.d == 9007199254740992.0);
    struct value third[] = {D(1.0), I(3)};
    assert_int_equal(eval(FN_DIV, 2, third, &out, msg), 0);
    assert_true(out.u.d == 1.0 / 3.0);
    struct value neg_zero[] = {D(-0.0)};
    assert_int_equal(eval(FN_NEG, 1, neg_zero, &out, msg), 0);
    assert_false(signbit(out.u.d)); /* 0 - (-0.0) is +0.0 */
    struct value half_even[] = {D(-2.5)};
    assert_int_equal(eval_int(FN_INT, 1, half_even), -2);
}

static void test_hash_match_pgbench(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(hash_cases); i++) {
        struct value args[] = {I(hash_cases[i].value), I(hash_cases[i].seed)};
        assert_int_equal(eval_int(FN_HASH_MURMUR2, 2, args), hash_cases[i].murmur2);
        assert_int_equal(eval_int(FN_HASH, 2, args), hash_cases[i].murmur2);
        assert_int_equal(eval_int(FN_HASH_FNV1A, 2, args), hash_cases[i].fnv1a);
    }
    /* Doubles are rounded first (pgbench: hash(1.5) = hash(2), hash_fnv1a(3, 2.5)). */
    struct value d[] = {D(1.5), D(2.5)};
    struct value i[] = {I(2), I(2)};
    assert_int_equal(eval_int(FN_HASH, 2, d), eval_int(FN_HASH, 2, i));
    struct value fnv[] = {I(3), D(2.5)};
    assert_int_equal(eval_int(FN_HASH_FNV1A, 2, fnv), -8517097267634966620LL);
    struct value bad[] = {B(1), I(1)};
    assert_eval_error(FN_HASH, 2, bad, "cannot coerce boolean to int");
}

static void test_permute_small_match_pgbench(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(permute_small); i++) {
        for (int64_t v = 0; v < permute_small[i].size; v++) {
            struct value args[] = {I(v), I(permute_small[i].size), I(permute_small[i].seed)};
            assert_int_equal(eval_int(FN_PERMUTE, 3, args), permute_small[i].perm[v]);
        }
    }
}

static void test_permute_large_match_pgbench(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_ELEMS(permute_large); i++) {
        struct value args[] = {I(permute_large[i].value), I(permute_large[i].size),
                               I(permute_large[i].seed)};
        assert_int_equal(eval_int(FN_PERMUTE, 3, args), permute_large[i].want);
    }
    /* Values outside [0, size) wrap as unsigned; doubles round (pgbench gives these). */
    struct value neg[] = {I(-1), I(10), I(0)};
    assert_int_equal(eval_int(FN_PERMUTE, 3, neg), 8);
    struct value dbl[] = {D(2.5), I(10), I(0)};
    assert_int_equal(eval_int(FN_PERMUTE, 3, dbl), 1);
    struct value one[] = {I(5), I(1), I(77)};
    assert_int_equal(eval_int(FN_PERMUTE, 3, one), 0);
    struct value zero[] = {I(1), I(0), I(3)};
    assert_eval_error(FN_PERMUTE, 3, zero, "permute size parameter must be greater than zero");
    struct value negsize[] = {I(1), I(-5), I(3)};
    assert_eval_error(FN_PERMUTE, 3, negsize, "permute size parameter must be greater than zero");
    struct value boolseed[] = {I(1), I(10), B(1)};
    assert_eval_error(FN_PERMUTE, 3, boolseed, "cannot coerce boolean to int");
}

/* Every size gives a bijection of [0, size): including non-powers of two and tiny sizes. */
static void test_permute_is_bijection(void **state)
{
    (void)state;
    static unsigned char seen[4099];
    const int64_t sizes[] = {2, 3, 4, 5, 1000, 1024, 4099};
    for (size_t s = 0; s < N_ELEMS(sizes); s++) {
        for (int64_t seed = -2; seed <= 2; seed++) {
            memset(seen, 0, sizeof(seen));
            for (int64_t v = 0; v < sizes[s]; v++) {
                struct value args[] = {I(v), I(sizes[s]), I(seed)};
                int64_t p = eval_int(FN_PERMUTE, 3, args);
                assert_in_range(p, 0, sizes[s] - 1);
                assert_int_equal(seen[p], 0);
                seen[p] = 1;
            }
        }
    }
}

/* What pgbench substitutes for :x in SQL, read back from a table it inserted into. */
static void test_value_to_text(void **state)
{
    (void)state;
    const struct {
        struct value v;
        const char *want;
    } cases[] = {
        {D(1.0 / 3), "0.333333333333333"},
        {N, "NULL"},
        {B(1), "true"},
        {B(0), "false"},
        {D(INFINITY), "Infinity"},
        {D(-INFINITY), "-Infinity"},
        {D(NAN), "NaN"},
        {D(-0.0), "-0"},
        {D(2.0 / 3 * 1e20), "6.66666666666667e+19"},
        {D(123456789012345678.0), "1.23456789012346e+17"},
        {D(1e-5), "1e-05"},
        {D(0.1), "0.1"},
        {D(100000.0), "100000"},
        {D(1e15), "1e+15"},
        {D(1e16), "1e+16"},
        {I(INT64_MIN), "-9223372036854775808"},
        {I(42), "42"},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        char buf[64];
        value_to_text(&cases[i].v, buf, sizeof(buf));
        assert_string_equal(buf, cases[i].want);
    }
}

/* How pgbench reads a variable given as text (-D, \gset), per its debug() output. */
static void test_value_from_text(void **state)
{
    (void)state;
    const struct {
        const char *text;
        int rc;
        const char *want; /* debug() text */
    } cases[] = {
        {"  12", 0, "int 12"},
        {"+5", 0, "int 5"},
        {"-0", 0, "int 0"},
        {"0x10", 0, "double 16"},
        {"t", 0, "boolean true"},
        {"yes", 0, "boolean true"},
        {"YE", 0, "boolean true"},
        {"tru", 0, "boolean true"},
        {"on", 0, "boolean true"},
        {"of", 0, "boolean false"},
        {"n", 0, "boolean false"},
        {"f", 0, "boolean false"},
        {"NULL", 0, "null"},
        {"nan", 0, "double NaN"},
        {"inf", 0, "double Infinity"},
        {"-Infinity", 0, "double -Infinity"},
        {"1.5e3", 0, "double 1500"},
        {".5", 0, "double 0.5"},
        {"5.", 0, "double 5"},
        {"9223372036854775807", 0, "int 9223372036854775807"},
        {"12 ", -1, NULL},
        {"1e400", -1, NULL},
        {"1e-400", -1, NULL},
        {"1e-310", -1, NULL},
        {"o", -1, NULL},
        {"truex", -1, NULL},
        {" 2.5 ", -1, NULL},
        {"1_000", -1, NULL},
        {"", -1, NULL},
        {"99999999999999999999", -2, NULL},
    };
    for (size_t i = 0; i < N_ELEMS(cases); i++) {
        struct value v, same;
        char msg[MSG_SIZE];
        int rc = value_from_text(cases[i].text, &v);
        if (rc != cases[i].rc)
            fail_msg("\"%s\": rc %d, want %d", cases[i].text, rc, cases[i].rc);
        if (rc == 0) {
            assert_int_equal(eval(FN_DEBUG, 1, &v, &same, msg), 0);
            assert_string_equal(msg, cases[i].want);
        }
    }
}

static void test_coercions(void **state)
{
    (void)state;
    char msg[MSG_SIZE];
    int b = -1;
    int64_t i = 0;
    double d = 0;
    struct value t = B(1), n = N, five = I(5), half = D(0.5), huge = D(9223372036854775807.0);
    assert_int_equal(value_to_bool(&t, &b, msg, sizeof(msg)), 0);
    assert_int_equal(b, 1);
    assert_int_equal(value_to_bool(&five, &b, msg, sizeof(msg)), -1);
    assert_string_equal(msg, "cannot coerce int to boolean");
    assert_int_equal(value_to_bool(&n, &b, msg, sizeof(msg)), -1);
    assert_string_equal(msg, "cannot coerce null to boolean");
    assert_int_equal(value_to_int(&half, &i, msg, sizeof(msg)), 0);
    assert_int_equal(i, 0); /* rint: half to even */
    assert_int_equal(value_to_int(&huge, &i, msg, sizeof(msg)), -1);
    assert_string_equal(msg, "double to int overflow for 9223372036854775808.000000");
    assert_int_equal(value_to_int(&n, &i, msg, sizeof(msg)), -1);
    assert_string_equal(msg, "cannot coerce null to int");
    assert_int_equal(value_to_double(&five, &d, msg, sizeof(msg)), 0);
    assert_true(d == 5.0);
    assert_int_equal(value_to_double(&t, &d, msg, sizeof(msg)), -1);
    assert_string_equal(msg, "cannot coerce boolean to double");
}

/* A null argument makes any function null before its own checks (pgbench: random(1, null) and
 * random_gaussian(10, 1, null) are null, not errors), except IS and debug(). */
static void test_null_propagation(void **state)
{
    (void)state;
    struct value out;
    char msg[MSG_SIZE];
    for (int id = 0; id < FN__COUNT; id++) {
        if (id == FN_IS || id == FN_DEBUG || id == FN_PI)
            continue;
        struct value args[] = {I(10), I(1), N};
        int nargs = id == FN_NEG || id == FN_NOT || id == FN_BITNOT || id == FN_ABS ||
                            id == FN_DOUBLE || id == FN_EXP || id == FN_INT || id == FN_LN ||
                            id == FN_SQRT
                        ? 1
                        : 3;
        if (nargs == 1)
            args[0] = args[2];
        if (eval((enum func_id)id, nargs, args, &out, msg) != 0)
            fail_msg("func %d: %s", id, msg);
        assert_int_equal(out.type, VAL_NULL);
    }
}

static void test_random_errors(void **state)
{
    (void)state;
    struct value empty[] = {I(10), I(1), D(1.0)};
    assert_eval_error(FN_RANDOM, 2, empty, "empty range given to random");
    assert_eval_error(FN_RANDOM_GAUSSIAN, 3, empty, "empty range given to random");
    struct value full[] = {I(INT64_MIN), I(INT64_MAX)};
    assert_eval_error(FN_RANDOM, 2, full, "random range is too large");
    struct value off_by_one[] = {I(-1), I(INT64_MAX - 1)};
    assert_eval_error(FN_RANDOM, 2, off_by_one, "random range is too large");
    struct value widest[] = {I(0), I(INT64_MAX - 1)};
    assert_in_range(eval_int(FN_RANDOM, 2, widest), 0, INT64_MAX - 1);
    struct value g[] = {I(1), I(10), D(1.5)};
    assert_eval_error(FN_RANDOM_GAUSSIAN, 3, g,
                      "gaussian parameter must be at least 2.000000 (not 1.500000)");
    g[2] = (struct value)D(NAN);
    assert_eval_error(FN_RANDOM_GAUSSIAN, 3, g,
                      "gaussian parameter must be at least 2.000000 (not NaN)");
    struct value z[] = {I(1), I(10), D(1.0)};
    assert_eval_error(FN_RANDOM_ZIPFIAN, 3, z,
                      "zipfian parameter must be in range [1.001, 1000] (not 1.000000)");
    z[2] = (struct value)D(1000.5);
    assert_eval_error(FN_RANDOM_ZIPFIAN, 3, z,
                      "zipfian parameter must be in range [1.001, 1000] (not 1000.500000)");
    struct value e[] = {I(1), I(10), I(0)};
    assert_eval_error(FN_RANDOM_EXPONENTIAL, 3, e,
                      "exponential parameter must be greater than zero (not 0.000000)");
    e[2] = (struct value)D(-1.5);
    assert_eval_error(FN_RANDOM_EXPONENTIAL, 3, e,
                      "exponential parameter must be greater than zero (not -1.500000)");
    struct value bool_param[] = {I(1), I(10), B(1)};
    assert_eval_error(FN_RANDOM_GAUSSIAN, 3, bool_param, "cannot coerce boolean to double");
    struct value bool_bound[] = {B(1), I(3)};
    assert_eval_error(FN_RANDOM, 2, bool_bound, "cannot coerce boolean to int");
    /* pgbench: an infinite exponential parameter puts everything at min. */
    struct value inf[] = {I(3), I(9), D(INFINITY)};
    assert_int_equal(eval_int(FN_RANDOM_EXPONENTIAL, 3, inf), 3);
}

/* Draws of a random function; asserts each is within [lo, hi]. */
static void draw(enum func_id id, int64_t lo, int64_t hi, double param, int64_t *out, int n)
{
    struct value args[] = {I(lo), I(hi), D(param)};
    for (int i = 0; i < n; i++) {
        out[i] = eval_int(id, id == FN_RANDOM ? 2 : 3, args);
        if (out[i] < lo || out[i] > hi)
            fail_msg("func %d drew %lld outside [%lld, %lld]", id, (long long)out[i], (long long)lo,
                     (long long)hi);
    }
}

#define N_DRAWS 200000
static int64_t draws[N_DRAWS];

static void moments(const int64_t *v, int n, double *mean, double *sd)
{
    double sum = 0, sumsq = 0;
    for (int i = 0; i < n; i++)
        sum += (double)v[i];
    *mean = sum / n;
    for (int i = 0; i < n; i++)
        sumsq += ((double)v[i] - *mean) * ((double)v[i] - *mean);
    *sd = sqrt(sumsq / (n - 1));
}

static void test_random_uniform(void **state)
{
    (void)state;
    int counts[6] = {0};
    draw(FN_RANDOM, 1, 6, 0, draws, N_DRAWS);
    for (int i = 0; i < N_DRAWS; i++)
        counts[draws[i] - 1]++;
    double p = 1.0 / 6, sd = sqrt(p * (1 - p) / N_DRAWS);
    for (int k = 0; k < 6; k++)
        assert_true(fabs((double)counts[k] / N_DRAWS - p) < 5 * sd);
    struct value same[] = {I(7), I(7)};
    assert_int_equal(eval_int(FN_RANDOM, 2, same), 7);
    struct value rounded[] = {D(1.5), D(2.4)}; /* rint: [2, 2] */
    assert_int_equal(eval_int(FN_RANDOM, 2, rounded), 2);
    draw(FN_RANDOM, INT64_MIN / 2 + 1, INT64_MAX / 2, 0, draws, 1000); /* widest allowed */
}

/* Truncated normal on [-p, p) mapped onto n = hi - lo + 1 values: mean lo + n/2 - 1/2 and
 * standard deviation n * sigma / (2p), sigma^2 = 1 - 2p phi(p) / (2 Phi(p) - 1). */
static void test_random_gaussian_moments(void **state)
{
    (void)state;
    const double params[] = {2.0, 2.5, 5.0};
    const int64_t n = 1000000;
    for (size_t k = 0; k < N_ELEMS(params); k++) {
        double p = params[k], mean, sd;
        draw(FN_RANDOM_GAUSSIAN, 0, n - 1, p, draws, N_DRAWS);
        moments(draws, N_DRAWS, &mean, &sd);
        double phi = exp(-p * p / 2) / sqrt(2 * M_PI), mass = erf(p / sqrt(2.0));
        double want_sd = (double)n * sqrt(1 - 2 * p * phi / mass) / (2 * p);
        assert_true(fabs(mean - ((double)n / 2 - 0.5)) < 5 * want_sd / sqrt(N_DRAWS));
        assert_true(fabs(sd / want_sd - 1) < 0.01);
    }
    draw(FN_RANDOM_GAUSSIAN, -3, 3, 2.0, draws, N_DRAWS); /* bounds on a tiny range */
}

/* Exponential with rate p truncated to [0, 1), scaled to n values: mean n (1/p - c/(1-c)) with
 * c = exp(-p), and P(draw >= n/2) = (exp(-p/2) - c) / (1 - c). */
static void test_random_exponential_moments(void **state)
{
    (void)state;
    const double params[] = {0.5, 3.0, 20.0};
    const int64_t n = 1000000;
    for (size_t k = 0; k < N_ELEMS(params); k++) {
        double p = params[k], c = exp(-p), mean, sd;
        draw(FN_RANDOM_EXPONENTIAL, 0, n - 1, p, draws, N_DRAWS);
        moments(draws, N_DRAWS, &mean, &sd);
        double want_mean = (double)n * (1 / p - c / (1 - c)) - 0.5;
        assert_true(fabs(mean - want_mean) < 5 * sd / sqrt(N_DRAWS));
        int upper = 0;
        for (int i = 0; i < N_DRAWS; i++)
            upper += draws[i] >= n / 2;
        double q = (exp(-p / 2) - c) / (1 - c);
        assert_true(fabs((double)upper / N_DRAWS - q) < 5 * sqrt(q * (1 - q) / N_DRAWS) + 1e-9);
    }
}

/* Zipf on [lo, lo + 9] with s = 1.5: P(rank k) = k^-s / sum_{j<=10} j^-s, rank 1 being lo. */
static void test_random_zipfian_frequencies(void **state)
{
    (void)state;
    const double s = 1.5;
    const int64_t lo = 100;
    int counts[10] = {0};
    double h = 0;
    for (int k = 1; k <= 10; k++)
        h += pow(k, -s);
    draw(FN_RANDOM_ZIPFIAN, lo, lo + 9, s, draws, N_DRAWS);
    for (int i = 0; i < N_DRAWS; i++)
        counts[draws[i] - lo]++;
    for (int k = 1; k <= 10; k++) {
        double p = pow(k, -s) / h;
        double got = (double)counts[k - 1] / N_DRAWS;
        if (fabs(got - p) >= 5 * sqrt(p * (1 - p) / N_DRAWS))
            fail_msg("rank %d: frequency %f, theory %f", k, got, p);
    }
    struct value single[] = {I(5), I(5), D(1.5)};
    assert_int_equal(eval_int(FN_RANDOM_ZIPFIAN, 3, single), 5);
    draw(FN_RANDOM_ZIPFIAN, 1, 1000, 1.001, draws, 2000); /* near 1: slow but bounded */
    draw(FN_RANDOM_ZIPFIAN, 1, INT64_MAX / 2, 1000.0, draws, 1000);
}

static int setup(void **state)
{
    (void)state;
    rng_seed(&test_rng, 20240615);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_lookup, setup),
        cmocka_unit_test_setup(test_operators_match_pgbench, setup),
        cmocka_unit_test_setup(test_exact_doubles, setup),
        cmocka_unit_test_setup(test_hash_match_pgbench, setup),
        cmocka_unit_test_setup(test_permute_small_match_pgbench, setup),
        cmocka_unit_test_setup(test_permute_large_match_pgbench, setup),
        cmocka_unit_test_setup(test_permute_is_bijection, setup),
        cmocka_unit_test_setup(test_value_to_text, setup),
        cmocka_unit_test_setup(test_value_from_text, setup),
        cmocka_unit_test_setup(test_coercions, setup),
        cmocka_unit_test_setup(test_null_propagation, setup),
        cmocka_unit_test_setup(test_random_errors, setup),
        cmocka_unit_test_setup(test_random_uniform, setup),
        cmocka_unit_test_setup(test_random_gaussian_moments, setup),
        cmocka_unit_test_setup(test_random_exponential_moments, setup),
        cmocka_unit_test_setup(test_random_zipfian_frequencies, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
