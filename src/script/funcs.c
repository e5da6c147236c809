#include "script/funcs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "script/funcs_int.h"

/* pgbench prints doubles with "%.*g" and DBL_DIG (15) significant digits. */
#define DOUBLE_DIGITS 15

static const struct func_def func_table[] = {
    {"abs", FN_ABS, 1, 1},
    {"debug", FN_DEBUG, 1, 1},
    {"double", FN_DOUBLE, 1, 1},
    {"exp", FN_EXP, 1, 1},
    {"greatest", FN_GREATEST, 1, -1},
    {"hash", FN_HASH, 1, 2},
    {"hash_fnv1a", FN_HASH_FNV1A, 1, 2},
    {"hash_murmur2", FN_HASH_MURMUR2, 1, 2},
    {"int", FN_INT, 1, 1},
    {"least", FN_LEAST, 1, -1},
    {"ln", FN_LN, 1, 1},
    {"mod", FN_MOD, 2, 2},
    {"permute", FN_PERMUTE, 2, 3},
    {"pi", FN_PI, 0, 0},
    {"pow", FN_POW, 2, 2},
    {"power", FN_POW, 2, 2},
    {"random", FN_RANDOM, 2, 2},
    {"random_exponential", FN_RANDOM_EXPONENTIAL, 3, 3},
    {"random_gaussian", FN_RANDOM_GAUSSIAN, 3, 3},
    {"random_zipfian", FN_RANDOM_ZIPFIAN, 3, 3},
    {"sqrt", FN_SQRT, 1, 1},
};

const struct func_def *func_lookup(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(func_table) / sizeof(func_table[0]); i++) {
        const struct func_def *f = &func_table[i];
        if (strlen(f->name) == len && strncasecmp(name, f->name, len) == 0)
            return f;
    }
    return NULL;
}

int funcs_fail(char *msg, size_t msg_size, const char *fmt, ...)
{
    if (msg != NULL && msg_size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* PostgreSQL's own printf spells the non-finite doubles this way, whatever the conversion
 * (%g in values, %f in messages), where glibc would print "inf" or "nan". */
static const char *nonfinite_name(double d)
{
    if (isnan(d))
        return "NaN";
    if (isinf(d))
        return d > 0 ? "Infinity" : "-Infinity";
    return NULL;
}

void funcs_format_double(char *out, size_t out_size, int fixed, double d)
{
    const char *name = nonfinite_name(d);
    if (name != NULL)
        snprintf(out, out_size, "%s", name);
    else if (fixed)
        snprintf(out, out_size, "%f", d);
    else
        snprintf(out, out_size, "%.*g", DOUBLE_DIGITS, d);
}

static const char *type_name(const struct value *v)
{
    switch (v->type) {
    case VAL_NULL:
        return "null";
    case VAL_BOOL:
        return "boolean";
    case VAL_INT:
        return "int";
    case VAL_DOUBLE:
        return "double";
    }
    return "none";
}

/* Only booleans are booleans: pgbench refuses to coerce null, int or double (its \if uses a
 * looser truth test, which is the evaluator's business). */
int value_to_bool(const struct value *v, int *out, char *msg, size_t msg_size)
{
    if (v->type != VAL_BOOL) {
        *out = 0;
        return funcs_fail(msg, msg_size, "cannot coerce %s to boolean", type_name(v));
    }
    *out = v->u.b;
    return 0;
}

int value_truth(const struct value *v)
{
    switch (v->type) {
    case VAL_BOOL:
        return v->u.b;
    case VAL_INT:
        return v->u.i != 0;
    case VAL_DOUBLE:
        return v->u.d != 0.0;
    default:
        return 0;
    }
}

int value_to_int(const struct value *v, int64_t *out, char *msg, size_t msg_size)
{
    if (v->type == VAL_INT) {
        *out = v->u.i;
        return 0;
    }
    if (v->type != VAL_DOUBLE)
        return funcs_fail(msg, msg_size, "cannot coerce %s to int", type_name(v));
    /* Round half to even (rint), then require [-2^63, 2^63): both bounds are exact doubles. */
    double d = rint(v->u.d);
    if (isnan(d) || !(d >= -0x1p63 && d < 0x1p63)) {
        char buf[400];
        funcs_format_double(buf, sizeof(buf), 1, d);
        return funcs_fail(msg, msg_size, "double to int overflow for %s", buf);
    }
    *out = (int64_t)d;
    return 0;
}

int value_to_double(const struct value *v, double *out, char *msg, size_t msg_size)
{
    if (v->type == VAL_DOUBLE)
        *out = v->u.d;
    else if (v->type == VAL_INT)
        *out = (double)v->u.i;
    else
        return funcs_fail(msg, msg_size, "cannot coerce %s to double", type_name(v));
    return 0;
}

/* "^\s*[-+]?[0-9]+$", the shape pgbench parses as an integer. */
static int looks_like_int(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '+' || *s == '-')
        s++;
    if (!isdigit((unsigned char)*s))
        return 0;
    while (isdigit((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* pgbench accepts any non-empty prefix of true/yes/false/no, and on/off/of, as booleans. */
static int text_as_bool(const char *s, size_t len, int *out)
{
    if (strncasecmp(s, "true", len) == 0 || strncasecmp(s, "yes", len) == 0 ||
        strcasecmp(s, "on") == 0) {
        *out = 1;
        return 1;
    }
    if (strncasecmp(s, "false", len) == 0 || strncasecmp(s, "no", len) == 0 ||
        strcasecmp(s, "off") == 0 || strcasecmp(s, "of") == 0) {
        *out = 0;
        return 1;
    }
    return 0;
}

int value_from_text(const char *text, struct value *out)
{
    size_t len = strlen(text);
    int b;
    char *end;

    if (len == 0)
        return -1;
    if (strcasecmp(text, "null") == 0) {
        *out = value_null();
        return 0;
    }
    if (text_as_bool(text, len, &b)) {
        *out = value_bool(b);
        return 0;
    }
    errno = 0;
    if (looks_like_int(text)) {
        long long i = strtoll(text, &end, 10);
        if (errno == ERANGE)
            return -2;
        *out = value_int(i);
        return 0;
    }
    /* Like pgbench, under- and overflow (ERANGE) make the text malformed. */
    double d = strtod(text, &end);
    if (errno != 0 || end == text || *end != '\0')
        return -1;
    *out = value_double(d);
    return 0;
}

void value_to_text(const struct value *v, char *out, size_t out_size)
{
    switch (v->type) {
    case VAL_NULL:
        snprintf(out, out_size, "NULL");
        break;
    case VAL_BOOL:
        snprintf(out, out_size, "%s", v->u.b ? "true" : "false");
        break;
    case VAL_INT:
        snprintf(out, out_size, "%lld", (long long)v->u.i);
        break;
    case VAL_DOUBLE:
        funcs_format_double(out, out_size, 0, v->u.d);
        break;
    }
}

/* What pgbench's debug() prints after its "debug(script=S,command=C): " prefix. */
static void debug_text(const struct value *v, char *out, size_t out_size)
{
    char num[64];
    switch (v->type) {
    case VAL_NULL:
        snprintf(out, out_size, "null");
        break;
    case VAL_BOOL:
        snprintf(out, out_size, "boolean %s", v->u.b ? "true" : "false");
        break;
    case VAL_INT:
        snprintf(out, out_size, "int %lld", (long long)v->u.i);
        break;
    case VAL_DOUBLE:
        funcs_format_double(num, sizeof(num), 0, v->u.d);
        snprintf(out, out_size, "double %s", num);
        break;
    }
}

/* Arithmetic and comparison in double: NaN and infinities flow through, as in C. */
static int arith_double(enum func_id id, double l, double r, struct value *out)
{
    switch (id) {
    case FN_ADD:
        *out = value_double(l + r);
        return 0;
    case FN_SUB:
        *out = value_double(l - r);
        return 0;
    case FN_MUL:
        *out = value_double(l * r);
        return 0;
    case FN_DIV:
        *out = value_double(l / r);
        return 0;
    case FN_EQ:
        *out = value_bool(l == r);
        return 0;
    case FN_NE:
        *out = value_bool(l != r);
        return 0;
    case FN_LT:
        *out = value_bool(l < r);
        return 0;
    default: /* FN_LE */
        *out = value_bool(l <= r);
        return 0;
    }
}

/* Integer / and %: zero is an error; -1 is special-cased because INT64_MIN / -1 overflows
 * (an error for /) and INT64_MIN % -1 traps in C (pgbench gives 0). */
static int divide_int(enum func_id id, int64_t l, int64_t r, struct value *out, char *msg,
                      size_t msg_size)
{
    int is_div = id == FN_DIV;
    if (r == 0)
        return funcs_fail(msg, msg_size, "division by zero");
    if (r == -1) {
        if (is_div && l == INT64_MIN)
            return funcs_fail(msg, msg_size, "bigint div out of range");
        *out = value_int(is_div ? -l : 0);
        return 0;
    }
    *out = value_int(is_div ? l / r : l % r);
    return 0;
}

static int arith_int(enum func_id id, int64_t l, int64_t r, struct value *out, char *msg,
                     size_t msg_size)
{
    int64_t res;
    switch (id) {
    case FN_ADD:
        if (__builtin_add_overflow(l, r, &res))
            return funcs_fail(msg, msg_size, "bigint add out of range");
        break;
    case FN_SUB:
        if (__builtin_sub_overflow(l, r, &res))
            return funcs_fail(msg, msg_size, "bigint sub out of range");
        break;
    case FN_MUL:
        if (__builtin_mul_overflow(l, r, &res))
            return funcs_fail(msg, msg_size, "bigint mul out of range");
        break;
    case FN_EQ:
        *out = value_bool(l == r);
        return 0;
    case FN_NE:
        *out = value_bool(l != r);
        return 0;
    case FN_LT:
        *out = value_bool(l < r);
        return 0;
    case FN_LE:
        *out = value_bool(l <= r);
        return 0;
    default: /* FN_DIV, FN_MOD */
        return divide_int(id, l, r, out, msg, msg_size);
    }
    *out = value_int(res);
    return 0;
}

/* pgbench's overloaded binary operators: double if either side is a double, except modulo,
 * which always works on integers (a double operand is rounded first). */
static int arith(enum func_id id, const struct value *l, const struct value *r, struct value *out,
                 char *msg, size_t msg_size)
{
    if ((l->type == VAL_DOUBLE || r->type == VAL_DOUBLE) && id != FN_MOD) {
        double ld, rd;
        if (value_to_double(l, &ld, msg, msg_size) < 0 ||
            value_to_double(r, &rd, msg, msg_size) < 0)
            return -1;
        return arith_double(id, ld, rd, out);
    }
    int64_t li, ri;
    if (value_to_int(l, &li, msg, msg_size) < 0 || value_to_int(r, &ri, msg, msg_size) < 0)
        return -1;
    return arith_int(id, li, ri, out, msg, msg_size);
}

/* Shifts behave as pgbench's native `<<`/`>>` on 64-bit hardware: the count is taken modulo
 * 64, left shifts wrap, right shifts are arithmetic. Done in unsigned to stay defined C. */
static int bitwise(enum func_id id, const struct value *l, const struct value *r, struct value *out,
                   char *msg, size_t msg_size)
{
    int64_t li, ri;
    if (value_to_int(l, &li, msg, msg_size) < 0 || value_to_int(r, &ri, msg, msg_size) < 0)
        return -1;
    uint64_t lu = (uint64_t)li;
    unsigned count = (unsigned)((uint64_t)ri & 63);
    switch (id) {
    case FN_BITAND:
        *out = value_int((int64_t)(lu & (uint64_t)ri));
        break;
    case FN_BITOR:
        *out = value_int((int64_t)(lu | (uint64_t)ri));
        break;
    case FN_BITXOR:
        *out = value_int((int64_t)(lu ^ (uint64_t)ri));
        break;
    case FN_LSHIFT:
        *out = value_int((int64_t)(lu << count));
        break;
    default: /* FN_RSHIFT: sign-fill, as gcc's >> on a negative int64_t */
        *out = value_int(li < 0 ? (int64_t) ~(~lu >> count) : (int64_t)(lu >> count));
        break;
    }
    return 0;
}

/* least/greatest: double if any argument is, else int; the comparisons mirror pgbench's
 * Min/Max macros (so a NaN wins only when it is the newer argument). */
static int extremum(int greatest, int nargs, const struct value *args, struct value *out, char *msg,
                    size_t msg_size)
{
    int have_double = 0;
    for (int i = 0; i < nargs; i++)
        have_double |= args[i].type == VAL_DOUBLE;
    if (have_double) {
        double best, d;
        if (value_to_double(&args[0], &best, msg, msg_size) < 0)
            return -1;
        for (int i = 1; i < nargs; i++) {
            if (value_to_double(&args[i], &d, msg, msg_size) < 0)
                return -1;
            best = greatest ? (best > d ? best : d) : (best < d ? best : d);
        }
        *out = value_double(best);
        return 0;
    }
    int64_t best, v;
    if (value_to_int(&args[0], &best, msg, msg_size) < 0)
        return -1;
    for (int i = 1; i < nargs; i++) {
        if (value_to_int(&args[i], &v, msg, msg_size) < 0)
            return -1;
        best = greatest ? (best > v ? best : v) : (best < v ? best : v);
    }
    *out = value_int(best);
    return 0;
}

/* abs keeps the type. pgbench reads a boolean argument as if it were a double (garbage); we
 * refuse it instead. abs(INT64_MIN) is INT64_MIN, as pgbench's wrapping negation gives. */
static int absolute(const struct value *v, struct value *out, char *msg, size_t msg_size)
{
    if (v->type == VAL_INT) {
        uint64_t u = (uint64_t)v->u.i;
        *out = value_int(v->u.i < 0 ? (int64_t)(0 - u) : v->u.i);
        return 0;
    }
    double d;
    if (value_to_double(v, &d, msg, msg_size) < 0)
        return -1;
    *out = value_double(d < 0.0 ? -d : d);
    return 0;
}

static int math1(enum func_id id, const struct value *v, struct value *out, char *msg,
                 size_t msg_size)
{
    double d;
    if (value_to_double(v, &d, msg, msg_size) < 0)
        return -1;
    if (id == FN_SQRT)
        d = sqrt(d);
    else if (id == FN_LN)
        d = log(d);
    else if (id == FN_EXP)
        d = exp(d);
    *out = value_double(d); /* FN_DOUBLE: the conversion alone */
    return 0;
}

static int power(const struct value *args, struct value *out, char *msg, size_t msg_size)
{
    double l, r;
    if (value_to_double(&args[0], &l, msg, msg_size) < 0 ||
        value_to_double(&args[1], &r, msg, msg_size) < 0)
        return -1;
    *out = value_double(pow(l, r));
    return 0;
}

/* a IS b: same type and same value (the parser only puts NULL, TRUE or FALSE on the right). */
static struct value is_same(const struct value *a, const struct value *b)
{
    if (a->type != b->type)
        return value_bool(0);
    switch (a->type) {
    case VAL_NULL:
        return value_bool(1);
    case VAL_BOOL:
        return value_bool(a->u.b == b->u.b);
    case VAL_INT:
        return value_bool(a->u.i == b->u.i);
    case VAL_DOUBLE:
        return value_bool(a->u.d == b->u.d);
    }
    return value_bool(0);
}

static int logical_not(const struct value *v, struct value *out, char *msg, size_t msg_size)
{
    int b;
    if (value_to_bool(v, &b, msg, msg_size) < 0)
        return -1;
    *out = value_bool(!b);
    return 0;
}

/* Operators that are sugar in pgbench's grammar: -x is 0 - x (so -0.0 gives 0 and
 * -INT64_MIN a "sub" overflow), ~x is -1 # x, a > b is b < a, a >= b is b <= a. */
static int operator_sugar(enum func_id id, const struct value *args, struct value *out, char *msg,
                          size_t msg_size)
{
    struct value pair[2];
    switch (id) {
    case FN_NEG:
        pair[0] = value_int(0);
        return arith(FN_SUB, &pair[0], &args[0], out, msg, msg_size);
    case FN_BITNOT:
        pair[0] = value_int(-1);
        return bitwise(FN_BITXOR, &pair[0], &args[0], out, msg, msg_size);
    case FN_GT:
        return arith(FN_LT, &args[1], &args[0], out, msg, msg_size);
    default: /* FN_GE */
        return arith(FN_LE, &args[1], &args[0], out, msg, msg_size);
    }
}

static int eval_operator(enum func_id id, const struct value *args, struct value *out, char *msg,
                         size_t msg_size)
{
    switch (id) {
    case FN_ADD:
    case FN_SUB:
    case FN_MUL:
    case FN_DIV:
    case FN_EQ:
    case FN_NE:
    case FN_LT:
    case FN_LE:
        return arith(id, &args[0], &args[1], out, msg, msg_size);
    case FN_MOD_OP:
        return arith(FN_MOD, &args[0], &args[1], out, msg, msg_size);
    case FN_BITAND:
    case FN_BITOR:
    case FN_BITXOR:
    case FN_LSHIFT:
    case FN_RSHIFT:
        return bitwise(id, &args[0], &args[1], out, msg, msg_size);
    case FN_NOT:
        return logical_not(&args[0], out, msg, msg_size);
    case FN_IS:
        *out = is_same(&args[0], &args[1]);
        return 0;
    default: /* FN_NEG, FN_BITNOT, FN_GT, FN_GE */
        return operator_sugar(id, args, out, msg, msg_size);
    }
}

static int eval_function(enum func_id id, int nargs, const struct value *args, struct rng *rng,
                         struct value *out, char *msg, size_t msg_size)
{
    switch (id) {
    case FN_ABS:
        return absolute(&args[0], out, msg, msg_size);
    case FN_DEBUG:
        debug_text(&args[0], msg, msg_size);
        *out = args[0];
        return 0;
    case FN_DOUBLE:
    case FN_EXP:
    case FN_LN:
    case FN_SQRT:
        return math1(id, &args[0], out, msg, msg_size);
    case FN_INT: {
        int64_t i;
        if (value_to_int(&args[0], &i, msg, msg_size) < 0)
            return -1;
        *out = value_int(i);
        return 0;
    }
    case FN_GREATEST:
    case FN_LEAST:
        return extremum(id == FN_GREATEST, nargs, args, out, msg, msg_size);
    case FN_MOD:
        return arith(FN_MOD, &args[0], &args[1], out, msg, msg_size);
    case FN_PI:
        *out = value_double(3.14159265358979323846);
        return 0;
    case FN_POW:
        return power(args, out, msg, msg_size);
    case FN_HASH:
    case FN_HASH_FNV1A:
    case FN_HASH_MURMUR2:
    case FN_PERMUTE:
        return funcs_eval_hash(id, args, out, msg, msg_size);
    default: /* the random functions */
        return funcs_eval_random(id, args, rng, out, msg, msg_size);
    }
}

int func_eval(enum func_id id, int nargs, const struct value *args, struct rng *rng,
              struct value *out, char *msg, size_t msg_size)
{
    /* Any null argument makes the result null, before any other check, except for IS and
     * debug(), which look at the null itself. */
    if (id != FN_IS && id != FN_DEBUG) {
        for (int i = 0; i < nargs; i++) {
            if (args[i].type == VAL_NULL) {
                *out = value_null();
                return 0;
            }
        }
    }
    if (id < FN_ABS)
        return eval_operator(id, args, out, msg, msg_size);
    if (id >= FN__COUNT)
        return funcs_fail(msg, msg_size, "unknown function");
    return eval_function(id, nargs, args, rng, out, msg, msg_size);
}
