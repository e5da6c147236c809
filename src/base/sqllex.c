#include "base/sqllex.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

int sql_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Skip white space and comments; block comments nest, as the server reads them. */
static const char *skip_blank(const char *s)
{
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (s[0] == '-' && s[1] == '-') {
            while (*s && *s != '\n')
                s++;
        } else if (s[0] == '/' && s[1] == '*') {
            int depth = 0;
            while (*s) {
                if (s[0] == '/' && s[1] == '*') {
                    depth++;
                    s += 2;
                } else if (s[0] == '*' && s[1] == '/') {
                    s += 2;
                    if (--depth == 0)
                        break;
                } else {
                    s++;
                }
            }
        } else {
            return s;
        }
    }
}

/* Past a quoted run opened at s (s[0] is the quote q): doubled quotes stay inside, and a
 * backslash escapes the next byte when backslashes is set. Unterminated: the text's end. */
static const char *past_quoted(const char *s, char q, int backslashes)
{
    for (s++; *s; s++) {
        if (backslashes && *s == '\\' && s[1])
            s++;
        else if (*s == q && s[1] == q)
            s++;
        else if (*s == q)
            return s + 1;
    }
    return s;
}

/* The length of a dollar quote's tag at s ("$$" or "$tag$"), 0 when s is none (a $1). */
static size_t dollar_tag(const char *s)
{
    if (s[0] != '$' || isdigit((unsigned char)s[1]))
        return 0;
    size_t n = 1;
    while (sql_word_char(s[n]))
        n++;
    return s[n] == '$' ? n + 1 : 0;
}

struct sql_token sql_token_next(const char *s)
{
    s = skip_blank(s);
    struct sql_token t = {SQL_TOK_OTHER, s, s + 1};
    size_t tag;
    if (!*s) {
        t.kind = SQL_TOK_END;
        t.end = s;
    } else if (*s == ';') {
        t.kind = SQL_TOK_SEMI;
    } else if (*s == '\'') {
        t.kind = SQL_TOK_STRING;
        t.end = past_quoted(s, '\'', 0);
    } else if ((*s == 'e' || *s == 'E') && s[1] == '\'') {
        t.kind = SQL_TOK_STRING;
        t.end = past_quoted(s + 1, '\'', 1);
    } else if (strchr("bBxXnN", *s) && s[1] == '\'') {
        t.kind = SQL_TOK_STRING;
        t.end = past_quoted(s + 1, '\'', 0);
    } else if ((*s == 'u' || *s == 'U') && s[1] == '&' && s[2] == '\'') {
        t.kind = SQL_TOK_STRING;
        t.end = past_quoted(s + 2, '\'', 0);
    } else if ((*s == 'u' || *s == 'U') && s[1] == '&' && s[2] == '"') {
        t.kind = SQL_TOK_IDENT;
        t.end = past_quoted(s + 2, '"', 0);
    } else if (*s == '"') {
        t.kind = SQL_TOK_IDENT;
        t.end = past_quoted(s, '"', 0);
    } else if ((tag = dollar_tag(s)) > 0) {
        t.kind = SQL_TOK_STRING;
        const char *body = s + tag, *close = body;
        while ((close = strstr(close, "$")) && strncmp(close, s, tag) != 0)
            close++;
        t.end = close ? close + tag : body + strlen(body);
    } else if (sql_word_char(*s) || (unsigned char)*s >= 0x80) {
        t.kind = SQL_TOK_WORD;
        while (sql_word_char(*t.end) || (unsigned char)*t.end >= 0x80)
            t.end++;
    }
    return t;
}

int sql_token_is(const struct sql_token *t, const char *w)
{
    size_t n = strlen(w);
    return t->kind == SQL_TOK_WORD && (size_t)(t->end - t->start) == n &&
           strncasecmp(t->start, w, n) == 0;
}

enum sql_copy sql_copy_client(const char *text, const char **at, const char **next)
{
    struct sql_token t = sql_token_next(text);
    enum sql_copy kind = SQL_COPY_NONE;
    if (at)
        *at = t.start;
    /* The first FROM or TO outside parentheses is the direction (a query's FROM is inside
     * them, a column list holds no keyword); the word after it says whose rows they are. */
    int looking = sql_token_is(&t, "copy"), depth = 0;
    for (; t.kind != SQL_TOK_END && t.kind != SQL_TOK_SEMI; t = sql_token_next(t.end)) {
        if (!looking)
            continue;
        if (t.kind == SQL_TOK_OTHER && (*t.start == '(' || *t.start == ')')) {
            depth += *t.start == '(' ? 1 : -1;
            continue;
        }
        if (depth != 0 || (!sql_token_is(&t, "from") && !sql_token_is(&t, "to")))
            continue;
        looking = 0;
        struct sql_token w = sql_token_next(t.end);
        if (sql_token_is(&w, "stdin") || sql_token_is(&w, "stdout"))
            kind = sql_token_is(&t, "from") ? SQL_COPY_IN : SQL_COPY_OUT;
    }
    if (next)
        *next = t.kind == SQL_TOK_SEMI && *sql_token_next(t.end).start ? t.end : NULL;
    return kind;
}
