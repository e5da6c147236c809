#include "script/expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/mem.h"
#include "script/script.h"

/*
 * A hand-written lexer and precedence-climbing parser for pgbench's expression grammar.
 * Levels, loosest first (as pgbench takes them from PostgreSQL's grammar):
 *   1 OR   2 AND   3 NOT (prefix)   4 IS, ISNULL, NOTNULL   5 = <> != < <= > >=
 *   6 & | # << >> and prefix ~   7 + -   8 * / %   9 prefix + -
 * Comparisons and IS do not chain (a = b = c is an error), as in pgbench.
 */

#define MAX_FARGS 16 /* arguments of a function call, as pgbench's limit */

enum tok {
    T_END,
    T_INT,
    T_DOUBLE,
    T_TRUE,
    T_FALSE,
    T_NULL,
    T_VAR,
    T_IDENT,
    T_MAXINT_PLUS_ONE,
    T_AND,
    T_OR,
    T_NOT,
    T_IS,
    T_ISNULL,
    T_NOTNULL,
    T_CASE,
    T_WHEN,
    T_THEN,
    T_ELSE,
    T_ENDKW,
    T_LPAREN,
    T_RPAREN,
    T_COMMA,
    T_PLUS,
    T_MINUS,
    T_STAR,
    T_SLASH,
    T_PERCENT,
    T_LT,
    T_LE,
    T_GT,
    T_GE,
    T_EQ,
    T_NE,
    T_AMP,
    T_BAR,
    T_HASH,
    T_TILDE,
    T_SHL,
    T_SHR,
    T_DOUBLE_OVERFLOW, /* a double constant out of range */
    T_BAD
};

struct parser {
    const char *text;
    const char *p;      /* next character to lex */
    enum tok tok;       /* current token */
    const char *tok_at; /* where it starts */
    size_t tok_len;
    int64_t ival;
    double dval;
    struct script_set *set;
    char *msg;
    size_t msg_size;
    size_t err_at;
    int failed;
};

static const struct {
    const char *word;
    enum tok tok;
} keywords[] = {{"and", T_AND},       {"or", T_OR},           {"not", T_NOT},   {"is", T_IS},
                {"isnull", T_ISNULL}, {"notnull", T_NOTNULL}, {"null", T_NULL}, {"true", T_TRUE},
                {"false", T_FALSE},   {"case", T_CASE},       {"when", T_WHEN}, {"then", T_THEN},
                {"else", T_ELSE},     {"end", T_ENDKW}};

static struct expr *fail_at(struct parser *ps, const char *at, const char *what)
{
    if (!ps->failed) {
        snprintf(ps->msg, ps->msg_size, "%s", what);
        ps->err_at = (size_t)(at - ps->text);
    }
    ps->failed = 1;
    return NULL;
}

static int is_ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static void skip_space(struct parser *ps)
{
    for (;;) {
        char c = *ps->p;
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
            ps->p++;
        else if (c == '\\' && (ps->p[1] == '\n' || (ps->p[1] == '\r' && ps->p[2] == '\n')))
            ps->p += ps->p[1] == '\n' ? 2 : 3; /* a continuation line */
        else
            return;
    }
}

static enum tok lex_number(struct parser *ps)
{
    const char *s = ps->p;
    const char *e = s;
    int is_double = 0;
    while (isdigit((unsigned char)*e))
        e++;
    if (*e == '.') {
        is_double = 1;
        e++;
        while (isdigit((unsigned char)*e))
            e++;
    }
    if ((*e == 'e' || *e == 'E') &&
        (isdigit((unsigned char)e[1]) ||
         ((e[1] == '+' || e[1] == '-') && isdigit((unsigned char)e[2])))) {
        is_double = 1;
        e += 2;
        while (isdigit((unsigned char)*e))
            e++;
    }
    ps->p = e;
    if (is_double) {
        /* pgbench refuses what strtod cannot represent, underflow included */
        errno = 0;
        ps->dval = strtod(s, NULL);
        return errno ? T_DOUBLE_OVERFLOW : T_DOUBLE;
    }
    if ((size_t)(e - s) == 19 && strncmp(s, "9223372036854775808", 19) == 0)
        return T_MAXINT_PLUS_ONE; /* only valid after a unary minus */
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE)
        return T_BAD;
    ps->ival = v;
    return T_INT;
}

static enum tok lex_word(struct parser *ps)
{
    const char *s = ps->p;
    while (is_ident_char(*ps->p))
        ps->p++;
    size_t n = (size_t)(ps->p - s);
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strlen(keywords[i].word) == n && strncasecmp(s, keywords[i].word, n) == 0)
            return keywords[i].tok;
    return T_IDENT;
}

static enum tok lex_operator(struct parser *ps)
{
    const char *p = ps->p;
    static const struct {
        const char *op;
        enum tok tok;
    } two[] = {{"<=", T_LE}, {">=", T_GE},  {"<>", T_NE},
               {"!=", T_NE}, {"<<", T_SHL}, {">>", T_SHR}};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++) {
        if (p[0] == two[i].op[0] && p[1] == two[i].op[1]) {
            ps->p += 2;
            return two[i].tok;
        }
    }
    static const char one[] = "(),+-*/%<>=&|#~";
    static const enum tok one_tok[] = {T_LPAREN, T_RPAREN, T_COMMA,   T_PLUS, T_MINUS,
                                       T_STAR,   T_SLASH,  T_PERCENT, T_LT,   T_GT,
                                       T_EQ,     T_AMP,    T_BAR,     T_HASH, T_TILDE};
    const char *hit = *p ? strchr(one, *p) : NULL;
    if (!hit)
        return T_BAD;
    ps->p++;
    return one_tok[hit - one];
}

static void next(struct parser *ps)
{
    skip_space(ps);
    ps->tok_at = ps->p;
    char c = *ps->p;
    if (!c)
        ps->tok = T_END;
    else if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)ps->p[1])))
        ps->tok = lex_number(ps);
    else if (c == ':' && is_ident_char(ps->p[1])) {
        ps->p++;
        while (is_ident_char(*ps->p))
            ps->p++;
        ps->tok = T_VAR;
    } else if (is_ident_start(c))
        ps->tok = lex_word(ps);
    else
        ps->tok = lex_operator(ps);
    ps->tok_len = (size_t)(ps->p - ps->tok_at);
}

static struct expr *new_node(enum expr_kind kind, int n_args)
{
    struct expr *x = xcalloc(1, sizeof *x);
    x->kind = kind;
    x->n_args = n_args;
    if (n_args > 0)
        x->args = xcalloc((size_t)n_args, sizeof *x->args);
    return x;
}

static struct expr *constant(struct value v)
{
    struct expr *x = new_node(EX_CONST, 0);
    x->constant = v;
    return x;
}

static struct expr *variable(struct script_set *set, const char *name, size_t len)
{
    char *s = xstrndup(name, len);
    struct expr *x = new_node(EX_VAR, 0);
    x->var = script_var_index(set, s);
    free(s);
    return x;
}

static struct expr *func2(enum func_id f, struct expr *a, struct expr *b)
{
    struct expr *x = new_node(EX_FUNC, b ? 2 : 1);
    x->func = f;
    x->args[0] = a;
    if (b)
        x->args[1] = b;
    return x;
}

static struct expr *parse(struct parser *ps, int min_level);

static struct expr *parse_call(struct parser *ps)
{
    const char *name = ps->tok_at;
    size_t len = ps->tok_len;
    const struct func_def *def = func_lookup(name, len);
    if (!def)
        return fail_at(ps, name, "unknown function");
    next(ps); /* '(' */
    next(ps);
    struct expr *args[MAX_FARGS];
    int n = 0;
    while (ps->tok != T_RPAREN) {
        if (n == MAX_FARGS) {
            for (int i = 0; i < n; i++)
                expr_free(args[i]);
            return fail_at(ps, ps->tok_at, "too many function arguments, maximum is 16");
        }
        if (n > 0) {
            if (ps->tok != T_COMMA)
                break;
            next(ps);
        }
        if (!(args[n] = parse(ps, 0)))
            break;
        n++;
    }
    if (ps->failed || ps->tok != T_RPAREN || n < def->min_args ||
        (def->max_args >= 0 && n > def->max_args)) {
        for (int i = 0; i < n; i++)
            expr_free(args[i]);
        if (ps->failed)
            return NULL;
        return fail_at(ps, ps->tok != T_RPAREN ? ps->tok_at : name,
                       ps->tok != T_RPAREN ? "expected ',' or ')'" : "wrong number of arguments");
    }
    next(ps);
    /* As pgbench: a left-out seed of a hash or permute is :default_seed. */
    int seeded = (def->id == FN_HASH || def->id == FN_HASH_FNV1A || def->id == FN_HASH_MURMUR2) ? 2
                 : def->id == FN_PERMUTE                                                        ? 3
                                                                                                : 0;
    int total = seeded && n == seeded - 1 ? n + 1 : n;
    struct expr *x = new_node(EX_FUNC, total);
    x->func = def->id;
    if (n > 0)
        memcpy(x->args, args, sizeof args[0] * (size_t)n);
    if (total > n)
        x->args[n] = variable(ps->set, "default_seed", 12);
    return x;
}

/* CASE WHEN c THEN v ... [ELSE e] END: as many WHENs as given (pgbench sets no limit). The
 * node's arguments are c1, v1, c2, v2, ..., e (NULL when no ELSE). */
static struct expr *parse_case(struct parser *ps)
{
    struct buf_parts {
        struct expr **v;
        int n, cap;
    } p = {NULL, 0, 0};
    next(ps);
    while (ps->tok == T_WHEN) {
        if (p.n + 3 > p.cap) {
            p.cap = p.cap ? 2 * p.cap : 8;
            p.v = xrealloc(p.v, sizeof *p.v * (size_t)p.cap);
        }
        next(ps);
        if (!(p.v[p.n++] = parse(ps, 0)))
            goto bad;
        if (ps->tok != T_THEN) {
            fail_at(ps, ps->tok_at, "expected THEN");
            goto bad;
        }
        next(ps);
        if (!(p.v[p.n++] = parse(ps, 0)))
            goto bad;
    }
    if (p.n == 0) {
        fail_at(ps, ps->tok_at, "expected WHEN");
        goto bad;
    }
    if (ps->tok == T_ELSE) {
        next(ps);
        if (!(p.v[p.n++] = parse(ps, 0)))
            goto bad;
    } else {
        p.v[p.n++] = constant(value_null());
    }
    if (ps->tok != T_ENDKW) {
        fail_at(ps, ps->tok_at, "expected END");
        goto bad;
    }
    next(ps);
    struct expr *x = new_node(EX_CASE, p.n);
    memcpy(x->args, p.v, sizeof *p.v * (size_t)p.n);
    free(p.v);
    return x;
bad:
    for (int i = 0; i < p.n; i++)
        expr_free(p.v[i]);
    free(p.v);
    return NULL;
}

static struct expr *parse_prefix(struct parser *ps)
{
    const char *at = ps->tok_at;
    struct expr *x;
    switch (ps->tok) {
    case T_INT:
        x = constant(value_int(ps->ival));
        next(ps);
        return x;
    case T_DOUBLE:
        x = constant(value_double(ps->dval));
        next(ps);
        return x;
    case T_TRUE:
    case T_FALSE:
        x = constant(value_bool(ps->tok == T_TRUE));
        next(ps);
        return x;
    case T_NULL:
        next(ps);
        return constant(value_null());
    case T_VAR:
        x = variable(ps->set, ps->tok_at + 1, ps->tok_len - 1);
        next(ps);
        return x;
    case T_LPAREN:
        next(ps);
        x = parse(ps, 0);
        if (x && ps->tok != T_RPAREN) {
            expr_free(x);
            return fail_at(ps, ps->tok_at, "expected ')'");
        }
        next(ps);
        return x;
    case T_PLUS:
        next(ps);
        return parse(ps, 9);
    case T_MINUS:
        next(ps);
        if (ps->tok == T_MAXINT_PLUS_ONE) { /* -9223372036854775808 is a valid constant */
            next(ps);
            return constant(value_int(INT64_MIN));
        }
        x = parse(ps, 9);
        return x ? func2(FN_NEG, x, NULL) : NULL;
    case T_TILDE:
        next(ps);
        x = parse(ps, 7);
        return x ? func2(FN_BITNOT, x, NULL) : NULL;
    case T_NOT:
        next(ps);
        x = parse(ps, 3);
        return x ? func2(FN_NOT, x, NULL) : NULL;
    case T_CASE:
        return parse_case(ps);
    case T_IDENT: {
        const char *save_p = ps->p;
        skip_space(ps);
        int call = *ps->p == '(';
        ps->p = save_p;
        if (call)
            return parse_call(ps);
        return fail_at(ps, at,
                       "unexpected name (variables are written :name, functions name(...))");
    }
    case T_DOUBLE_OVERFLOW:
        return fail_at(ps, at, "double constant overflow");
    case T_MAXINT_PLUS_ONE:
    case T_BAD:
        return fail_at(ps, at,
                       *at && isdigit((unsigned char)*at) ? "bigint constant overflow"
                                                          : "syntax error");
    case T_END:
        return fail_at(ps, at, "unexpected end of expression");
    default:
        return fail_at(ps, at, "syntax error");
    }
}

/* The level of an infix token, 0 if it is none. */
static int infix_level(enum tok t)
{
    switch (t) {
    case T_OR:
        return 1;
    case T_AND:
        return 2;
    case T_IS:
    case T_ISNULL:
    case T_NOTNULL:
        return 4;
    case T_EQ:
    case T_NE:
    case T_LT:
    case T_LE:
    case T_GT:
    case T_GE:
        return 5;
    case T_AMP:
    case T_BAR:
    case T_HASH:
    case T_SHL:
    case T_SHR:
        return 6;
    case T_PLUS:
    case T_MINUS:
        return 7;
    case T_STAR:
    case T_SLASH:
    case T_PERCENT:
        return 8;
    default:
        return 0;
    }
}

/* x IS [NOT] NULL|TRUE|FALSE, x ISNULL, x NOTNULL */
static struct expr *parse_is(struct parser *ps, struct expr *lhs)
{
    enum tok t = ps->tok;
    next(ps);
    if (t == T_ISNULL)
        return func2(FN_IS, lhs, constant(value_null()));
    if (t == T_NOTNULL)
        return func2(FN_NOT, func2(FN_IS, lhs, constant(value_null())), NULL);
    int negate = 0;
    if (ps->tok == T_NOT) {
        negate = 1;
        next(ps);
    }
    struct value v;
    if (ps->tok == T_NULL)
        v = value_null();
    else if (ps->tok == T_TRUE || ps->tok == T_FALSE)
        v = value_bool(ps->tok == T_TRUE);
    else {
        expr_free(lhs);
        return fail_at(ps, ps->tok_at, "expected NULL, TRUE or FALSE after IS");
    }
    next(ps);
    struct expr *x = func2(FN_IS, lhs, constant(v));
    return negate ? func2(FN_NOT, x, NULL) : x;
}

static struct expr *make_infix(enum tok t, struct expr *l, struct expr *r)
{
    struct expr *x;
    switch (t) {
    case T_OR:
    case T_AND:
        x = new_node(t == T_OR ? EX_OR : EX_AND, 2);
        x->args[0] = l;
        x->args[1] = r;
        return x;
    case T_GT: /* a > b is b < a, as in pgbench */
        return func2(FN_LT, r, l);
    case T_GE:
        return func2(FN_LE, r, l);
    default:
        break;
    }
    static const struct {
        enum tok t;
        enum func_id f;
    } map[] = {{T_EQ, FN_EQ},      {T_NE, FN_NE},         {T_LT, FN_LT},       {T_LE, FN_LE},
               {T_AMP, FN_BITAND}, {T_BAR, FN_BITOR},     {T_HASH, FN_BITXOR}, {T_SHL, FN_LSHIFT},
               {T_SHR, FN_RSHIFT}, {T_PLUS, FN_ADD},      {T_MINUS, FN_SUB},   {T_STAR, FN_MUL},
               {T_SLASH, FN_DIV},  {T_PERCENT, FN_MOD_OP}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].t == t)
            return func2(map[i].f, l, r);
    return NULL;
}

static struct expr *parse(struct parser *ps, int min_level)
{
    struct expr *lhs = parse_prefix(ps);
    int last_nonassoc = 0;
    while (lhs) {
        int level = infix_level(ps->tok);
        if (level == 0 || level < min_level)
            break;
        if ((level == 4 || level == 5) && last_nonassoc == level) {
            expr_free(lhs);
            return fail_at(ps, ps->tok_at, "syntax error (comparisons do not chain)");
        }
        if (level == 4) {
            lhs = parse_is(ps, lhs);
            last_nonassoc = 4;
            continue;
        }
        enum tok t = ps->tok;
        next(ps);
        struct expr *rhs = parse(ps, level + 1);
        if (!rhs) {
            expr_free(lhs);
            return NULL;
        }
        lhs = make_infix(t, lhs, rhs);
        last_nonassoc = level == 5 ? 5 : 0;
    }
    return lhs;
}

struct expr *expr_parse(const char *text, struct script_set *s, char *msg, size_t msg_size,
                        size_t *err_at)
{
    struct parser ps = {.text = text, .p = text, .set = s, .msg = msg, .msg_size = msg_size};
    next(&ps);
    struct expr *x = parse(&ps, 0);
    if (x && ps.tok != T_END) {
        expr_free(x);
        x = fail_at(&ps, ps.tok_at, "unexpected text after expression");
    }
    if (!x && err_at)
        *err_at = ps.err_at;
    return x;
}

void expr_free(struct expr *x)
{
    if (!x)
        return;
    for (int i = 0; i < x->n_args; i++)
        expr_free(x->args[i]);
    free(x->args);
    free(x);
}

struct eval {
    const struct script_set *set;
    const struct script_vars *vars;
    struct rng *rng;
    char *msg;
    size_t msg_size;
};

static int eval(const struct expr *x, struct eval *ev, struct value *out);

/* AND and OR: a null operand gives null; the right side is evaluated only when needed. */
static int eval_logic(const struct expr *x, struct eval *ev, struct value *out)
{
    struct value a;
    int b;
    if (eval(x->args[0], ev, &a) < 0)
        return -1;
    if (a.type == VAL_NULL) {
        *out = value_null();
        return 0;
    }
    if (value_to_bool(&a, &b, ev->msg, ev->msg_size) < 0)
        return -1;
    if (b == (x->kind == EX_OR)) {
        *out = value_bool(b);
        return 0;
    }
    if (eval(x->args[1], ev, &a) < 0)
        return -1;
    if (a.type == VAL_NULL) {
        *out = value_null();
        return 0;
    }
    if (value_to_bool(&a, &b, ev->msg, ev->msg_size) < 0)
        return -1;
    *out = value_bool(b);
    return 0;
}

static int eval_case(const struct expr *x, struct eval *ev, struct value *out)
{
    for (int i = 0; i + 1 < x->n_args; i += 2) {
        struct value cond;
        if (eval(x->args[i], ev, &cond) < 0)
            return -1;
        if (value_truth(&cond))
            return eval(x->args[i + 1], ev, out);
    }
    return eval(x->args[x->n_args - 1], ev, out);
}

static int eval(const struct expr *x, struct eval *ev, struct value *out)
{
    switch (x->kind) {
    case EX_CONST:
        *out = x->constant;
        return 0;
    case EX_VAR:
        return script_var_value(ev->vars, ev->set, x->var, out, ev->msg, ev->msg_size);
    case EX_AND:
    case EX_OR:
        return eval_logic(x, ev, out);
    case EX_CASE:
        return eval_case(x, ev, out);
    case EX_FUNC:
        break;
    }
    struct value args[MAX_FARGS];
    for (int i = 0; i < x->n_args; i++)
        if (eval(x->args[i], ev, &args[i]) < 0)
            return -1;
    int rc = func_eval(x->func, x->n_args, args, ev->rng, out, ev->msg, ev->msg_size);
    if (rc == 0 && x->func == FN_DEBUG) /* debug() shows its argument, as in pgbench */
        fprintf(stderr, "debug: %s\n", ev->msg);
    return rc;
}

int expr_eval(const struct expr *x, const struct script_set *s, const struct script_vars *vars,
              struct rng *r, struct value *out, char *msg, size_t msg_size)
{
    struct eval ev = {s, vars, r, msg, msg_size};
    return eval(x, &ev, out);
}
