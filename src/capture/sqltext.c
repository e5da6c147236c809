#include "capture/sqltext.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/sqllex.h"

/* 1 when the word w appears in s[0..n) as a whole word, case-insensitively. */
static int has_word(const char *s, size_t n, const char *w)
{
    size_t wl = strlen(w);
    for (size_t i = 0; i + wl <= n; i++)
        if ((i == 0 || !sql_word_char(s[i - 1])) && strncasecmp(s + i, w, wl) == 0 &&
            (i + wl == n || !sql_word_char(s[i + wl])))
            return 1;
    return 0;
}

/* The word PASSWORD, or the identifier "password" (a user mapping's option may be quoted). */
static int tok_is_password(const struct sql_token *t)
{
    return sql_token_is(t, "password") || (t->kind == SQL_TOK_IDENT && t->end - t->start == 10 &&
                                           strncmp(t->start, "\"password\"", 10) == 0);
}

int sqltext_secret_replace(const char *text, const char *with, struct buf *out)
{
    int found = 0, first = 1, ddl = 0;
    const char *copied = text; /* text before it is in out already */
    if (out)
        buf_reset(out);
    if (!strcasestr(text, "password"))
        return 0;
    struct sql_token prev = {SQL_TOK_SEMI, text, text};
    for (struct sql_token t = sql_token_next(text); t.kind != SQL_TOK_END;
         prev = t, t = sql_token_next(t.end)) {
        if (t.kind == SQL_TOK_SEMI) {
            first = 1;
            continue;
        }
        if (first) { /* a statement's first word: only CREATE and ALTER can set a password */
            ddl = sql_token_is(&t, "create") || sql_token_is(&t, "alter");
            first = t.kind == SQL_TOK_OTHER && *t.start == '(';
            continue;
        }
        if (!ddl || t.kind != SQL_TOK_STRING)
            continue;
        if (tok_is_password(&prev)) {
            /* The password: this constant and any that continue it. */
            const char *end = t.end;
            struct sql_token more;
            while ((more = sql_token_next(end)).kind == SQL_TOK_STRING)
                end = more.end;
            if (out) {
                buf_append(out, copied, (size_t)(t.start - copied));
                buf_printf(out, "'%s'", with);
            }
            copied = end;
            found = 1;
            t.end = end;
            t.kind = SQL_TOK_OTHER;
        } else if (has_word(t.start, (size_t)(t.end - t.start), "password")) {
            return -1; /* inside a string (a connection string, a function's body) */
        }
    }
    if (found && out)
        buf_puts(out, copied);
    return found;
}

int sqltext_is_secret(const char *text)
{
    return sqltext_secret_replace(text, "", NULL) != 0;
}

/* The role a statement beginning at t names, when it is CREATE/ALTER ROLE|USER|GROUP NAME:
 * its name into role; 0 when it is another statement. */
static int role_named(struct sql_token t, char *role, size_t size)
{
    if (!sql_token_is(&t, "create") && !sql_token_is(&t, "alter"))
        return 0;
    t = sql_token_next(t.end);
    if (!sql_token_is(&t, "role") && !sql_token_is(&t, "user") && !sql_token_is(&t, "group"))
        return 0;
    t = sql_token_next(t.end);
    if (sql_token_is(&t, "mapping") || sql_token_is(&t, "current_user") ||
        sql_token_is(&t, "session_user") || sql_token_is(&t, "current_role"))
        return 0;
    size_t n = 0;
    if (t.kind == SQL_TOK_WORD) {
        for (const char *p = t.start; p < t.end && n + 1 < size; p++)
            role[n++] = (char)tolower((unsigned char)*p);
    } else if (t.kind == SQL_TOK_IDENT && *t.start == '"') {
        for (const char *p = t.start + 1; p + 1 < t.end && n + 1 < size; p++) {
            role[n++] = *p;
            if (*p == '"')
                p++; /* "" is one " */
        }
    } else {
        return 0;
    }
    role[n] = '\0';
    return n > 0;
}

int sqltext_password_role(const char *text, char *role, size_t size)
{
    if (sqltext_secret_replace(text, "", NULL) <= 0)
        return 0;
    /* Each statement of text: a role's, up to its end, with PASSWORD and a string. */
    int at_start = 1, named = 0;
    struct sql_token prev = {SQL_TOK_SEMI, text, text};
    for (struct sql_token t = sql_token_next(text); t.kind != SQL_TOK_END;
         prev = t, t = sql_token_next(t.end)) {
        if (t.kind == SQL_TOK_SEMI) {
            at_start = 1;
            continue;
        }
        if (at_start) {
            named = role_named(t, role, size);
            at_start = 0;
        } else if (named && t.kind == SQL_TOK_STRING && tok_is_password(&prev)) {
            return 1;
        }
    }
    return 0;
}

int sqltext_is_set(const char *text)
{
    struct sql_token t = sql_token_next(text);
    return sql_token_is(&t, "set");
}

int sqltext_is_copy_from_stdin(const char *text)
{
    return sql_copy_client(text, NULL, NULL) == SQL_COPY_IN;
}

int sqltext_is_copy_to_stdout(const char *text)
{
    return sql_copy_client(text, NULL, NULL) == SQL_COPY_OUT;
}

/* An identifier token as the server reads it (unquoted: lower case; quoted: "" is one "),
 * appended to b with its NUL. */
static void put_ident(struct buf *b, const struct sql_token *t)
{
    if (t->kind == SQL_TOK_WORD) {
        for (const char *p = t->start; p < t->end; p++)
            buf_putc(b, (char)tolower((unsigned char)*p));
    } else {
        for (const char *p = t->start + 1; p + 1 < t->end; p++) {
            buf_putc(b, *p);
            if (*p == '"')
                p++;
        }
    }
    buf_putc(b, '\0');
}

/* One statement's effect from its first token t (DEALLOCATE's name put in names). */
static enum sqltext_unprepare unprepare_one(struct sql_token t, struct buf *names)
{
    if (sql_token_is(&t, "discard")) {
        t = sql_token_next(t.end);
        return sql_token_is(&t, "all")     ? SQLTEXT_UNPREPARE_ALL
               : sql_token_is(&t, "plans") ? SQLTEXT_UNPREPARE_PLANS
                                           : SQLTEXT_UNPREPARE_NONE;
    }
    if (!sql_token_is(&t, "deallocate"))
        return SQLTEXT_UNPREPARE_NONE;
    t = sql_token_next(t.end);
    if (sql_token_is(&t, "prepare"))
        t = sql_token_next(t.end);
    if (sql_token_is(&t, "all"))
        return SQLTEXT_UNPREPARE_ALL;
    if (t.kind != SQL_TOK_WORD && !(t.kind == SQL_TOK_IDENT && *t.start == '"'))
        return SQLTEXT_UNPREPARE_NONE;
    if (names)
        put_ident(names, &t);
    return SQLTEXT_UNPREPARE_NAMES;
}

enum sqltext_unprepare sqltext_unprepare(const char *text, struct buf *names)
{
    enum sqltext_unprepare all = SQLTEXT_UNPREPARE_NONE;
    if (!strcasestr(text, "deallocate") && !strcasestr(text, "discard"))
        return all;
    size_t start = names ? names->len : 0;
    int first = 1;
    for (struct sql_token t = sql_token_next(text); t.kind != SQL_TOK_END;
         t = sql_token_next(t.end)) {
        if (t.kind == SQL_TOK_SEMI) {
            first = 1;
            continue;
        }
        if (!first)
            continue;
        first = 0;
        enum sqltext_unprepare one = unprepare_one(t, names);
        if (one > all)
            all = one; /* ALL covers NAMES, which cover PLANS */
    }
    if (names && all == SQLTEXT_UNPREPARE_NAMES)
        buf_putc(names, '\0');
    else if (names && names->len > start) /* names of a DEALLOCATE beside an ALL: none */
        names->len = start, names->data[start] = '\0';
    return all;
}

/* A name (schema.table, each part a word or a quoted identifier) from t on, as the server
 * reads it, appended to b after kind with its NUL; the token after it. When t is no name: b as
 * it was, and t (a token that is neither a word nor a quoted identifier). */
static struct sql_token put_name(struct buf *b, char kind, struct sql_token t)
{
    size_t at = b->len;
    buf_putc(b, kind);
    for (struct sql_token name = t;; name = sql_token_next(t.end)) {
        if (name.kind != SQL_TOK_WORD && !(name.kind == SQL_TOK_IDENT && *name.start == '"')) {
            b->len = at, b->data[at] = '\0';
            return name;
        }
        put_ident(b, &name);
        t = sql_token_next(name.end);
        if (!(t.kind == SQL_TOK_OTHER && *t.start == '.'))
            return t;
        b->data[b->len - 1] = '.'; /* the part's NUL becomes the dot */
    }
}

/* The sequence a nextval('name') or setval('name', ...) names, from its string constant t
 * read as a name ('' one quote). */
static void put_sequence(struct buf *b, const struct sql_token *t)
{
    char name[256];
    size_t n = 0;
    for (const char *p = t->start + 1; p + 1 < t->end && n + 1 < sizeof name; p++) {
        name[n++] = *p;
        if (*p == '\'')
            p++;
    }
    name[n] = '\0';
    size_t at = b->len;
    struct sql_token after = put_name(b, 's', sql_token_next(name));
    if (after.kind != SQL_TOK_END) /* more than a name ('seq'::regclass is written outside) */
        b->len = at, b->data[at] = '\0';
}

static int tok_at(const char *s, const char *w)
{
    struct sql_token t = sql_token_next(s);
    return sql_token_is(&t, w);
}

/* INSERT's column list from t, its '(', on: appended to b as 'c' then the columns as the
 * server reads them, comma-separated, with a NUL; the token after its ')'. Nothing appended
 * when it is no plain list of names. */
static struct sql_token put_columns(struct buf *b, struct sql_token t)
{
    size_t at = b->len;
    buf_putc(b, 'c');
    for (t = sql_token_next(t.end);; t = sql_token_next(t.end)) {
        if (t.kind != SQL_TOK_WORD && !(t.kind == SQL_TOK_IDENT && *t.start == '"'))
            break;
        put_ident(b, &t);
        t = sql_token_next(t.end);
        if (t.kind == SQL_TOK_OTHER && *t.start == ')') /* the last one keeps its NUL */
            return sql_token_next(t.end);
        if (!(t.kind == SQL_TOK_OTHER && *t.start == ','))
            break;
        b->data[b->len - 1] = ',';
    }
    b->len = at, b->data[at] = '\0';
    return t;
}

int sqltext_draws(const char *text, struct buf *names)
{
    if (!strcasestr(text, "insert") && !strcasestr(text, "merge") && !strcasestr(text, "val(") &&
        !strcasestr(text, "copy"))
        return 0;
    int n = 0, first = 1;
    for (struct sql_token t = sql_token_next(text); t.kind != SQL_TOK_END;) {
        size_t before = names->len;
        int was_first = first;
        first = t.kind == SQL_TOK_SEMI;
        if ((sql_token_is(&t, "insert") || sql_token_is(&t, "merge")) && tok_at(t.end, "into")) {
            int insert = sql_token_is(&t, "insert");
            size_t at = names->len;
            t = put_name(names, 't', sql_token_next(sql_token_next(t.end).end));
            if (insert && names->len > at && t.kind == SQL_TOK_OTHER && *t.start == '(')
                t = put_columns(names, t);
        } else if (was_first && sql_token_is(&t, "copy") && sqltext_is_copy_from_stdin(t.start)) {
            t = put_name(names, 't', sql_token_next(t.end));
        } else if (sql_token_is(&t, "nextval") || sql_token_is(&t, "setval")) {
            struct sql_token open = sql_token_next(t.end), arg = sql_token_next(open.end);
            if (*open.start == '(' && arg.kind == SQL_TOK_STRING && *arg.start == '\'')
                put_sequence(names, &arg);
            t = arg;
        } else {
            t = sql_token_next(t.end);
        }
        n += names->len > before;
    }
    return n;
}
