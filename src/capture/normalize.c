#include "capture/normalize.h"

#include <string.h>

/* The lexer's tokens: just enough of PostgreSQL's lexer to tell constants from the rest. */
enum norm_tok {
    NT_END,
    NT_SPACE,  /* white space and comments */
    NT_WORD,   /* identifier or keyword */
    NT_QIDENT, /* "quoted identifier" */
    NT_CONST,  /* number, string, dollar-quoted string */
    NT_PARAM,  /* $n */
    NT_OPEN,   /* ( or [ */
    NT_CLOSE,  /* ) or ] */
    NT_COMMA,
    NT_CAST, /* :: */
    NT_OP,   /* any other character */
};

struct norm_token {
    enum norm_tok kind;
    size_t start, end; /* bytes [start, end) of the statement */
};

/* The C locale's character classes, inline: this runs once per replayed statement. */
static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_xdigit(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static unsigned char to_lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + ('a' - 'A')) : c;
}

static int is_ident_start(unsigned char c)
{
    return (to_lower(c) >= 'a' && to_lower(c) <= 'z') || c == '_' || c >= 0x80;
}

static int is_ident_char(unsigned char c)
{
    return is_ident_start(c) || is_digit(c) || c == '$';
}

/* The end of a '...' string whose opening quote is at i; backslash escapes when escapes. */
static size_t skip_quoted(const char *s, size_t len, size_t i, char quote, int escapes)
{
    for (i++; i < len; i++) {
        if (escapes && s[i] == '\\' && i + 1 < len) {
            i++;
        } else if (s[i] == quote) {
            if (i + 1 < len && s[i + 1] == quote)
                i++;
            else
                return i + 1;
        }
    }
    return len;
}

/* The end of a dollar-quoted string at i, or 0 when the $ at i does not open one. */
static size_t skip_dollar(const char *s, size_t len, size_t i)
{
    size_t t = i + 1;
    if (t < len && s[t] != '$') {
        if (!is_ident_start((unsigned char)s[t]))
            return 0;
        while (t < len && s[t] != '$' &&
               (is_ident_start((unsigned char)s[t]) || is_digit((unsigned char)s[t])))
            t++;
        if (t >= len || s[t] != '$')
            return 0;
    }
    if (t >= len)
        return 0;
    size_t tag = t + 1 - i; /* "$tag$" */
    for (size_t j = t + 1; j + tag <= len; j++)
        if (s[j] == '$' && memcmp(s + j, s + i, tag) == 0)
            return j + tag;
    return len;
}

static size_t skip_comments_and_space(const char *s, size_t len, size_t i)
{
    for (;;) {
        if (i < len && is_space((unsigned char)s[i])) {
            i++;
        } else if (i + 1 < len && s[i] == '-' && s[i + 1] == '-') {
            while (i < len && s[i] != '\n')
                i++;
        } else if (i + 1 < len && s[i] == '/' && s[i + 1] == '*') {
            int depth = 1; /* PostgreSQL's block comments nest */
            for (i += 2; i < len && depth > 0; i++) {
                if (i + 1 < len && s[i] == '/' && s[i + 1] == '*')
                    depth++, i++;
                else if (i + 1 < len && s[i] == '*' && s[i + 1] == '/')
                    depth--, i++;
            }
        } else {
            return i;
        }
    }
}

static size_t skip_number(const char *s, size_t len, size_t i)
{
    if (s[i] == '0' && i + 2 < len && strchr("xXoObB", s[i + 1]) &&
        is_xdigit((unsigned char)s[i + 2])) {
        for (i += 2; i < len && (is_xdigit((unsigned char)s[i]) || s[i] == '_'); i++)
            ;
        return i;
    }
    while (i < len && (is_digit((unsigned char)s[i]) || s[i] == '_'))
        i++;
    if (i < len && s[i] == '.' && !(i + 1 < len && s[i + 1] == '.'))
        for (i++; i < len && (is_digit((unsigned char)s[i]) || s[i] == '_'); i++)
            ;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < len && is_digit((unsigned char)s[j])) {
            for (i = j; i < len && is_digit((unsigned char)s[i]); i++)
                ;
        }
    }
    return i;
}

/* A string with a one-letter prefix (E'', B'', X'', N'') or U&'': its end, or 0. */
static size_t skip_prefixed_string(const char *s, size_t len, size_t i)
{
    char c = (char)to_lower((unsigned char)s[i]);
    if (i + 1 < len && s[i + 1] == '\'' && strchr("ebxn", c))
        return skip_quoted(s, len, i + 1, '\'', c == 'e');
    if (c == 'u' && i + 2 < len && s[i + 1] == '&' && s[i + 2] == '\'')
        return skip_quoted(s, len, i + 2, '\'', 0);
    return 0;
}

static struct norm_token lex(const char *s, size_t len, size_t i)
{
    struct norm_token t = {NT_END, i, i};
    if (i >= len)
        return t;
    size_t e = skip_comments_and_space(s, len, i);
    if (e > i) {
        t.kind = NT_SPACE, t.end = e;
        return t;
    }
    unsigned char c = (unsigned char)s[i];
    if (c == '\'') {
        t.kind = NT_CONST, t.end = skip_quoted(s, len, i, '\'', 0);
    } else if (c == '"') {
        t.kind = NT_QIDENT, t.end = skip_quoted(s, len, i, '"', 0);
    } else if (c == '$' && i + 1 < len && is_digit((unsigned char)s[i + 1])) {
        for (e = i + 1; e < len && is_digit((unsigned char)s[e]); e++)
            ;
        t.kind = NT_PARAM, t.end = e;
    } else if (c == '$' && (e = skip_dollar(s, len, i)) > 0) {
        t.kind = NT_CONST, t.end = e;
    } else if (is_digit(c) || (c == '.' && i + 1 < len && is_digit((unsigned char)s[i + 1]))) {
        t.kind = NT_CONST, t.end = skip_number(s, len, i);
    } else if (is_ident_start(c)) {
        if ((e = skip_prefixed_string(s, len, i)) > 0) {
            t.kind = NT_CONST, t.end = e;
        } else {
            for (e = i + 1; e < len && is_ident_char((unsigned char)s[e]); e++)
                ;
            t.kind = NT_WORD, t.end = e;
        }
    } else if (c == '(' || c == '[') {
        t.kind = NT_OPEN, t.end = i + 1;
    } else if (c == ')' || c == ']') {
        t.kind = NT_CLOSE, t.end = i + 1;
    } else if (c == ',') {
        t.kind = NT_COMMA, t.end = i + 1;
    } else if (c == ':' && i + 1 < len && s[i + 1] == ':') {
        t.kind = NT_CAST, t.end = i + 2;
    } else {
        t.kind = NT_OP, t.end = i + 1;
    }
    return t;
}

/* The next token that is not white space. */
static struct norm_token lex_solid(const char *s, size_t len, size_t i)
{
    struct norm_token t = lex(s, len, i);
    return t.kind == NT_SPACE ? lex(s, len, t.end) : t;
}

/* Whether token t is the keyword w (lower case, n bytes), in any case. */
static int word_is_n(const char *s, struct norm_token t, const char *w, size_t n)
{
    if (t.kind != NT_WORD || t.end - t.start != n)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (to_lower((unsigned char)s[t.start + k]) != (unsigned char)w[k])
            return 0;
    return 1;
}

#define word_is(s, t, w) word_is_n(s, t, w "", sizeof(w) - 1)

static int is_char(const char *s, struct norm_token t, char c)
{
    return t.end == t.start + 1 && s[t.start] == c;
}

/* Keywords after which a minus is a sign, not a subtraction. */
static int word_takes_operand(const char *s, struct norm_token t)
{
    static const char *const words[] = {
        "select",   "where", "and",    "or",    "not",       "when", "then",    "else",  "return",
        "values",   "limit", "offset", "by",    "having",    "on",   "between", "like",  "ilike",
        "in",       "is",    "case",   "array", "returning", "set",  "fetch",   "first", "next",
        "distinct", "all",   "any",    "some",  "exists",    "into", "default"};
    for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
        if (word_is_n(s, t, words[k], strlen(words[k])))
            return 1;
    return 0;
}

/* One list element at i: [-] constant or parameter, then any ::type casts. Its end, or 0. */
static size_t list_element(const char *s, size_t len, size_t i)
{
    struct norm_token t = lex_solid(s, len, i);
    if (t.kind == NT_OP && (is_char(s, t, '-') || is_char(s, t, '+')))
        t = lex_solid(s, len, t.end);
    if (t.kind != NT_CONST && t.kind != NT_PARAM)
        return 0;
    size_t end = t.end;
    for (;;) {
        struct norm_token c = lex_solid(s, len, end);
        if (c.kind != NT_CAST)
            return end;
        struct norm_token ty = lex_solid(s, len, c.end);
        if (ty.kind != NT_WORD && ty.kind != NT_QIDENT)
            return 0;
        end = ty.end;
        /* Types of several words (double precision, character varying) and arrays. */
        for (;;) {
            struct norm_token n = lex_solid(s, len, end);
            if (n.kind == NT_WORD && !word_is(s, n, "and") && !word_is(s, n, "or")) {
                end = n.end;
            } else if (n.kind == NT_OPEN && is_char(s, n, '[')) {
                struct norm_token cl = lex_solid(s, len, n.end);
                if (!(cl.kind == NT_CLOSE && is_char(s, cl, ']')))
                    break;
                end = cl.end;
            } else {
                break;
            }
        }
    }
}

/* The end of a squashable list whose opener is at open (one of "(["), or 0. */
static size_t squashable_list(const char *s, size_t len, struct norm_token open)
{
    char closer = s[open.start] == '(' ? ')' : ']';
    size_t i = open.end;
    for (;;) {
        size_t e = list_element(s, len, i);
        if (e == 0)
            return 0;
        struct norm_token t = lex_solid(s, len, e);
        if (t.kind == NT_CLOSE && is_char(s, t, closer))
            return t.end;
        if (t.kind != NT_COMMA)
            return 0;
        i = t.end;
    }
}

static long highest_param(const char *s, size_t len)
{
    long max = 0;
    if (!memchr(s, '$', len)) /* most statements: no lexing pass for nothing */
        return 0;
    for (size_t i = 0; i < len;) {
        struct norm_token t = lex(s, len, i);
        if (t.kind == NT_PARAM) {
            long n = 0;
            for (size_t k = t.start + 1; k < t.end && n < 100000000; k++)
                n = n * 10 + (s[k] - '0');
            if (n > max)
                max = n;
        }
        i = t.end > i ? t.end : i + 1;
    }
    return max;
}

/* "$n", without printf. */
static void put_placeholder(struct buf *out, long n)
{
    char digits[24];
    size_t k = sizeof digits;
    do
        digits[--k] = (char)('0' + n % 10);
    while ((n /= 10) > 0);
    digits[--k] = '$';
    buf_append(out, digits + k, sizeof digits - k);
}

void normalize_statement(const char *sql, size_t len, struct buf *out)
{
    buf_reset(out);
    long next = highest_param(sql, len) + 1;
    enum norm_tok prev = NT_END;
    struct norm_token prev_tok = {NT_END, 0, 0};
    int space = 0;
    for (size_t i = 0; i < len;) {
        struct norm_token t = lex(sql, len, i);
        if (t.end <= i)
            break;
        if (t.kind == NT_SPACE) {
            space = 1;
            i = t.end;
            continue;
        }
        if (space && out->len > 0)
            buf_putc(out, ' ');
        space = 0;
        struct norm_token n;
        size_t end;
        if ((word_is(sql, t, "in") || word_is(sql, t, "array")) &&
            (n = lex_solid(sql, len, t.end)).kind == NT_OPEN &&
            is_char(sql, n, word_is(sql, t, "in") ? '(' : '[') &&
            (end = squashable_list(sql, len, n)) > 0) {
            buf_append(out, sql + t.start, t.end - t.start);
            if (n.start > t.end)
                buf_putc(out, ' ');
            buf_putc(out, sql[n.start]);
            put_placeholder(out, next++);
            buf_append(out, " /*, ... */", 11);
            buf_putc(out, sql[end - 1]);
            prev = NT_CLOSE;
            i = end;
            continue;
        }
        if (t.kind == NT_OP && is_char(sql, t, '-') &&
            (prev == NT_END || prev == NT_OPEN || prev == NT_COMMA || prev == NT_OP ||
             prev == NT_CAST || (prev == NT_WORD && word_takes_operand(sql, prev_tok))) &&
            (n = lex_solid(sql, len, t.end)).kind == NT_CONST &&
            (is_digit((unsigned char)sql[n.start]) || sql[n.start] == '.')) {
            t.kind = NT_CONST, t.end = n.end;
        }
        if (t.kind == NT_CONST)
            put_placeholder(out, next++);
        else
            buf_append(out, sql + t.start, t.end - t.start);
        prev = t.kind;
        prev_tok = t;
        i = t.end;
    }
    while (out->len > 0 && (out->data[out->len - 1] == ';' || out->data[out->len - 1] == ' '))
        out->data[--out->len] = '\0';
}
