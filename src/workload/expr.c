#include "workload/expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "workload/script.h"

/* Recursive descent: sum := term (('+'|'-') term)* ; term := unary (('*'|'/'|'%') unary)* ;
 * unary := '-' unary | primary ; primary := INT | :var | name '(' args ')' | '(' sum ')' */

struct parser {
    const char *p;
    struct script_set *set;
    char *msg;
    unsigned long msg_size;
    int failed;
};

static struct expr *parse_sum(struct parser *ps);

static struct expr *node(enum expr_kind k, struct expr *a, struct expr *b)
{
    struct expr *x = xcalloc(1, sizeof *x);
    x->kind = k;
    x->a = a;
    x->b = b;
    return x;
}

static void skip_space(struct parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static struct expr *fail(struct parser *ps, const char *what)
{
    if (!ps->failed)
        snprintf(ps->msg, ps->msg_size, "%s", what);
    ps->failed = 1;
    return NULL;
}

static int ident_len(const char *p)
{
    int n = 0;
    while (isalnum((unsigned char)p[n]) || p[n] == '_')
        n++;
    return n;
}

static struct expr *parse_call(struct parser *ps, const char *name, int len)
{
    if (len != 6 || strncmp(name, "random", 6) != 0)
        return fail(ps, "unknown function");
    ps->p++; /* '(' */
    struct expr *lo = parse_sum(ps);
    skip_space(ps);
    if (!lo || *ps->p != ',') {
        expr_free(lo);
        return fail(ps, "random() takes two arguments");
    }
    ps->p++;
    struct expr *hi = parse_sum(ps);
    skip_space(ps);
    if (!hi || *ps->p != ')') {
        expr_free(lo);
        expr_free(hi);
        return fail(ps, "expected ')'");
    }
    ps->p++;
    return node(EX_RANDOM, lo, hi);
}

static struct expr *parse_primary(struct parser *ps)
{
    skip_space(ps);
    const char *p = ps->p;
    if (isdigit((unsigned char)*p)) {
        errno = 0;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE)
            return fail(ps, "integer constant out of range");
        struct expr *x = node(EX_INT, NULL, NULL);
        x->ival = v;
        ps->p = end;
        return x;
    }
    if (*p == ':' && ident_len(p + 1) > 0) {
        int n = ident_len(p + 1);
        char *name = xstrndup(p + 1, (size_t)n);
        struct expr *x = node(EX_VAR, NULL, NULL);
        x->var = script_var_index(ps->set, name);
        free(name);
        ps->p = p + 1 + n;
        return x;
    }
    if (*p == '(') {
        ps->p++;
        struct expr *x = parse_sum(ps);
        skip_space(ps);
        if (!x || *ps->p != ')') {
            expr_free(x);
            return fail(ps, "expected ')'");
        }
        ps->p++;
        return x;
    }
    if (isalpha((unsigned char)*p)) {
        int n = ident_len(p);
        ps->p = p + n;
        skip_space(ps);
        if (*ps->p != '(') {
            ps->p = p;
            return fail(ps, "unexpected name (variables are written :name)");
        }
        return parse_call(ps, p, n);
    }
    return fail(ps, *p ? "syntax error" : "unexpected end of expression");
}

static struct expr *parse_unary(struct parser *ps)
{
    skip_space(ps);
    if (*ps->p == '-') {
        ps->p++;
        struct expr *a = parse_unary(ps);
        return a ? node(EX_NEG, a, NULL) : NULL;
    }
    if (*ps->p == '+') {
        ps->p++;
        return parse_unary(ps);
    }
    return parse_primary(ps);
}

static struct expr *parse_binary(struct parser *ps, int level)
{
    struct expr *a = level ? parse_unary(ps) : parse_binary(ps, 1);
    while (a) {
        skip_space(ps);
        char c = *ps->p;
        enum expr_kind k;
        if (level == 0 && (c == '+' || c == '-'))
            k = c == '+' ? EX_ADD : EX_SUB;
        else if (level == 1 && (c == '*' || c == '/' || c == '%'))
            k = c == '*' ? EX_MUL : c == '/' ? EX_DIV : EX_MOD;
        else
            break;
        ps->p++;
        struct expr *b = level ? parse_unary(ps) : parse_binary(ps, 1);
        if (!b) {
            expr_free(a);
            return NULL;
        }
        a = node(k, a, b);
    }
    return a;
}

static struct expr *parse_sum(struct parser *ps)
{
    return parse_binary(ps, 0);
}

struct expr *expr_parse(const char **p, struct script_set *s, char *msg, unsigned long msg_size)
{
    struct parser ps = {.p = *p, .set = s, .msg = msg, .msg_size = msg_size};
    struct expr *x = parse_sum(&ps);
    *p = ps.p;
    return x;
}

void expr_free(struct expr *x)
{
    if (!x)
        return;
    expr_free(x->a);
    expr_free(x->b);
    free(x);
}

static int arith(enum expr_kind k, int64_t a, int64_t b, int64_t *out, char *msg,
                 unsigned long msg_size)
{
    int overflow = 0;
    switch (k) {
    case EX_ADD:
        overflow = __builtin_add_overflow(a, b, out);
        break;
    case EX_SUB:
        overflow = __builtin_sub_overflow(a, b, out);
        break;
    case EX_MUL:
        overflow = __builtin_mul_overflow(a, b, out);
        break;
    case EX_DIV:
    case EX_MOD:
        if (b == 0) {
            snprintf(msg, msg_size, "division by zero");
            return -1;
        }
        if (b == -1) { /* INT64_MIN / -1 overflows; % -1 is always 0 */
            *out = 0;
            if (k == EX_DIV)
                overflow = __builtin_sub_overflow((int64_t)0, a, out);
            break;
        }
        *out = k == EX_DIV ? a / b : a % b;
        break;
    default:
        break;
    }
    if (overflow) {
        snprintf(msg, msg_size, "bigint out of range");
        return -1;
    }
    return 0;
}

int expr_eval(const struct expr *x, const int64_t *vals, const unsigned char *is_set,
              char *const *var_names, struct rng *r, int64_t *out, char *msg,
              unsigned long msg_size)
{
    int64_t a = 0, b = 0;
    switch (x->kind) {
    case EX_INT:
        *out = x->ival;
        return 0;
    case EX_VAR:
        if (!is_set[x->var]) {
            snprintf(msg, msg_size, "undefined variable \"%s\"", var_names[x->var]);
            return -1;
        }
        *out = vals[x->var];
        return 0;
    default:
        break;
    }
    if (expr_eval(x->a, vals, is_set, var_names, r, &a, msg, msg_size) < 0)
        return -1;
    if (x->kind == EX_NEG)
        return arith(EX_SUB, 0, a, out, msg, msg_size);
    if (expr_eval(x->b, vals, is_set, var_names, r, &b, msg, msg_size) < 0)
        return -1;
    if (x->kind == EX_RANDOM) {
        if (a > b) {
            snprintf(msg, msg_size, "empty range given to random");
            return -1;
        }
        *out = rng_range(r, a, b);
        return 0;
    }
    return arith(x->kind, a, b, out, msg, msg_size);
}
