#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/sqllex.h"
#include "script/expr.h"
#include "script/script_int.h"

/*
 * The script scanner walks the text once. Between commands it skips blanks and comments; a
 * backslash starts a meta-command that runs to the end of its line (\set expressions may
 * continue on the next line after a trailing backslash); anything else starts SQL, which
 * runs to a ';' outside quotes and comments, or to a backslash that starts a meta-command
 * (so `SELECT 1 \gset` ends the SQL). `\;` keeps a compound command together.
 */

#define MAX_IF_DEPTH 64

struct parse {
    struct script_set *set;
    struct script *sc;
    const char *name;
    const char *text;
    struct err *e;
    int if_stack[MAX_IF_DEPTH]; /* command index of the open \if */
    int depth;
    int in_pipeline;
    int pipeline_line;
};

static void position(const struct parse *ps, const char *at, int *line, int *col)
{
    *line = 1;
    const char *bol = ps->text;
    for (const char *p = ps->text; p < at; p++) {
        if (*p == '\n') {
            (*line)++;
            bol = p + 1;
        }
    }
    *col = (int)(at - bol) + 1;
}

/* "NAME:LINE:COL: message: the line" — one line, as every bad-input message. */
static int error_at(struct parse *ps, const char *at, const char *msg)
{
    int line, col;
    position(ps, at, &line, &col);
    const char *bol = at - (col - 1);
    size_t len = strcspn(bol, "\r\n");
    if (len > 200)
        len = 200;
    return err_set(ps->e, ERR_INPUT, "%s:%d:%d: %s: %.*s", ps->name, line, col, msg, (int)len, bol);
}

static int line_of(const struct parse *ps, const char *at)
{
    int line, col;
    position(ps, at, &line, &col);
    return line;
}

static struct script_command *add_command(struct parse *ps, enum cmd_kind kind, const char *at)
{
    struct script *sc = ps->sc;
    sc->cmds = xrealloc(sc->cmds, sizeof *sc->cmds * (size_t)(sc->n_cmds + 1));
    struct script_command *c = &sc->cmds[sc->n_cmds++];
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->var = -1;
    c->sleep_var = -1;
    c->next_branch = c->endif = -1;
    c->line = line_of(ps, at);
    return c;
}

static char *trimmed(const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return xstrndup(s, n);
}

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* ---- SQL ---- */

/* Split SQL into literal parts and :variable references, and build the $n form. */
static void compile_sql(struct script_set *set, struct script_command *c)
{
    struct buf lit, params;
    buf_init(&lit);
    buf_init(&params);
    const char *p = c->text;
    while (*p) {
        if (*p == ':' && p[1] == ':') { /* a cast: copy every colon of the run */
            while (*p == ':') {
                buf_putc(&lit, ':');
                buf_putc(&params, ':');
                p++;
            }
            continue;
        }
        /* pgbench variable names start with a letter or '_', so [1:2] is a slice. */
        if (*p == ':' && (isalpha((unsigned char)p[1]) || p[1] == '_')) {
            int n = 1;
            while (is_ident_char(p[n]))
                n++;
            char *name = xstrndup(p + 1, (size_t)n - 1);
            int var = script_var_index(set, name);
            free(name);
            c->parts = xrealloc(c->parts, sizeof *c->parts * (size_t)(c->n_parts + 1));
            c->parts[c->n_parts++] = (struct sql_part){xstrdup(lit.data), var};
            buf_reset(&lit);
            int pn = 0; /* the same variable reuses its $n */
            for (int i = 0; i < c->n_params; i++)
                if (c->param_vars[i] == var)
                    pn = i + 1;
            if (!pn) {
                c->param_vars = xrealloc(c->param_vars, sizeof(int) * (size_t)(c->n_params + 1));
                c->param_vars[c->n_params++] = var;
                pn = c->n_params;
            }
            buf_printf(&params, "$%d", pn);
            p += n;
            continue;
        }
        buf_putc(&lit, *p);
        buf_putc(&params, *p);
        p++;
    }
    c->parts = xrealloc(c->parts, sizeof *c->parts * (size_t)(c->n_parts + 1));
    c->parts[c->n_parts++] = (struct sql_part){xstrdup(lit.data), -1};
    c->sql_params = xstrdup(params.data);
    buf_free(&lit);
    buf_free(&params);
}

/* Past a dollar-quote opening at p ("$$" or "$tag$"), or NULL if p opens none. */
static const char *dollar_tag_end(const char *p)
{
    const char *q = p + 1;
    if (isdigit((unsigned char)*q))
        return NULL;
    while (is_ident_char(*q))
        q++;
    return *q == '$' ? q + 1 : NULL;
}

/* Skip a quoted or commented span starting at p; returns where scanning resumes, or NULL
 * if it is not closed. e_string: the quote follows an E (E'...' takes backslash escapes). */
static const char *skip_span(const char *p, int e_string)
{
    if (*p == '\'' || *p == '"') {
        char q = *p;
        int backslash_escapes = q == '\'' && e_string;
        for (p++; *p; p++) {
            if (backslash_escapes && *p == '\\' && p[1])
                p++;
            else if (*p == q && p[1] == q)
                p++;
            else if (*p == q)
                return p + 1;
        }
        return NULL;
    }
    if (p[0] == '-' && p[1] == '-') {
        const char *eol = strchr(p, '\n');
        return eol ? eol : p + strlen(p);
    }
    if (p[0] == '/' && p[1] == '*') {
        int depth = 0;
        for (; *p; p++) {
            if (p[0] == '/' && p[1] == '*')
                depth++, p++;
            else if (p[0] == '*' && p[1] == '/' && --depth == 0)
                return p + 2;
            else if (p[0] == '*' && p[1] == '/')
                p++;
        }
        return NULL;
    }
    /* $tag$ ... $tag$ */
    const char *open_end = dollar_tag_end(p);
    size_t tag_len = (size_t)(open_end - p);
    const char *close;
    for (close = open_end; (close = strchr(close, '$')) != NULL; close++)
        if (strncmp(close, p, tag_len) == 0)
            return close + tag_len;
    return NULL;
}

static int opens_span(const char *p, const char *start)
{
    if (*p == '\'' || *p == '"')
        return 1;
    if ((p[0] == '-' && p[1] == '-') || (p[0] == '/' && p[1] == '*'))
        return 1;
    /* A dollar quote, but not a $1 parameter nor the end of an identifier like a$b. */
    return *p == '$' && (p == start || !is_ident_char(p[-1])) && dollar_tag_end(p) != NULL;
}

/* Scan SQL from p; returns where it ends (after ';', or at the meta backslash or the end). */
static const char *scan_sql(struct parse *ps, const char *p, struct buf *sql)
{
    const char *start = p;
    while (*p) {
        if (opens_span(p, start)) {
            const char *end = skip_span(p, p > ps->text && (p[-1] == 'E' || p[-1] == 'e'));
            if (!end) {
                error_at(ps, p,
                         *p == '\'' || *p == '"' || *p == '$' ? "unterminated quoted string"
                                                              : "unterminated comment");
                return NULL;
            }
            buf_append(sql, p, (size_t)(end - p));
            p = end;
            continue;
        }
        if (*p == '\\' && p[1] == ';') { /* compound command: the ';' is sent, not split on */
            buf_putc(sql, ';');
            p += 2;
            continue;
        }
        if (*p == '\\')
            return p;
        buf_putc(sql, *p);
        if (*p++ == ';')
            return p;
    }
    return p;
}

/* A COPY ... FROM STDIN or TO STDOUT in any statement of the command from p to end (\; joins
 * several) is refused where its COPY stands: a script has no rows to send and no place for
 * the rows it would read (pgbench aborts the client when the server asks for them). A COPY
 * of a file or a PROGRAM on the server runs. Returns 0, or -1 with the error set. */
static int refuse_client_copy(struct parse *ps, const char *p, const char *end)
{
    char *span = xstrndup(p, (size_t)(end - p));
    const char *at = span;
    enum sql_copy kind = SQL_COPY_NONE;
    for (const char *s = span; s && kind == SQL_COPY_NONE;)
        kind = sql_copy_client(s, &at, &s);
    if (kind != SQL_COPY_NONE)
        error_at(ps, p + (at - span),
                 kind == SQL_COPY_IN
                     ? "COPY ... FROM STDIN is not supported in a script (pgarena would have "
                       "to send the rows)"
                     : "COPY ... TO STDOUT is not supported in a script (pgarena would have to "
                       "read the rows)");
    free(span);
    return kind != SQL_COPY_NONE ? -1 : 0;
}

static const char *parse_sql(struct parse *ps, const char *p)
{
    struct buf sql;
    buf_init(&sql);
    const char *end = scan_sql(ps, p, &sql);
    if (end && refuse_client_copy(ps, p, end) < 0)
        end = NULL;
    if (end) {
        char *t = trimmed(sql.data, sql.len);
        if (*t && strcmp(t, ";") != 0) {
            struct script_command *c = add_command(ps, CMD_SQL, p);
            c->text = t;
            c->gset_prefix = xstrdup("");
            compile_sql(ps->set, c);
        } else {
            free(t);
        }
    }
    buf_free(&sql);
    return end;
}

/* ---- meta-commands ---- */

/* The rest of a meta-command's line; a trailing backslash continues it on the next line. */
static char *meta_args(const char *p, const char **end)
{
    struct buf b;
    buf_init(&b);
    for (;;) {
        size_t n = strcspn(p, "\n");
        const char *eol = p + n;
        const char *last = eol;
        while (last > p && (last[-1] == '\r' || last[-1] == ' ' || last[-1] == '\t'))
            last--;
        if (last > p && last[-1] == '\\' && *eol == '\n') {
            buf_append(&b, p, (size_t)(last - 1 - p));
            buf_putc(&b, ' ');
            p = eol + 1;
            continue;
        }
        buf_append(&b, p, (size_t)(eol - p));
        *end = *eol ? eol + 1 : eol;
        break;
    }
    char *s = xstrdup(b.data);
    buf_free(&b);
    return s;
}

/* Parse an expression in args (which starts at `at` in the text, for error positions). */
static struct expr *meta_expr(struct parse *ps, const char *args, const char *at)
{
    char msg[200];
    size_t err_at = 0;
    struct expr *x = expr_parse(args, ps->set, msg, sizeof msg, &err_at);
    if (!x) {
        /* Continuation lines make offsets past the first line approximate. */
        size_t first_line = strcspn(at, "\n");
        error_at(ps, at + (err_at < first_line ? err_at : first_line), msg);
    }
    return x;
}

static int parse_set(struct parse *ps, const char *args, const char *at, const char *cmd_at)
{
    const char *p = args;
    while (*p == ' ' || *p == '\t')
        p++;
    int n = 0;
    while (is_ident_char(p[n]))
        n++;
    if (n == 0)
        return error_at(ps, at + (p - args), "missing variable name");
    char *var = xstrndup(p, (size_t)n);
    struct expr *x = meta_expr(ps, p + n, at + (p - args) + n);
    if (!x) {
        free(var);
        return -1;
    }
    struct script_command *c = add_command(ps, CMD_SET, cmd_at);
    c->var = script_var_index(ps->set, var);
    c->expr = x;
    free(var);
    return 0;
}

/* \sleep N [us|ms|s], the unit possibly attached ("2ms") as pgbench 15 takes it; a negative
 * time sleeps not at all. */
static int parse_sleep(struct parse *ps, const char *args, const char *at, const char *cmd_at)
{
    char a[64] = "", unit[16] = "", extra[8] = "";
    int n = sscanf(args, "%63s %15s %7s", a, unit, extra);
    if (n < 1)
        return error_at(ps, cmd_at, "missing argument");
    if (n > 2)
        return error_at(ps, at + (strstr(args, extra) - args), "too many arguments");
    const char *a_at = at + (strstr(args, a) - args);
    struct script_command c0 = {.sleep_var = -1, .sleep_unit_us = 1000000};
    if (a[0] == ':' && (isalpha((unsigned char)a[1]) || a[1] == '_')) {
        c0.sleep_var = script_var_index(ps->set, a + 1);
    } else {
        char *end;
        errno = 0;
        long long v = strtoll(a, &end, 10);
        int digits = end > a && isdigit((unsigned char)end[-1]);
        if (errno || !digits || (*end && n == 2))
            return error_at(ps, a_at, "invalid sleep time, must be an integer");
        if (*end) { /* the unit attached to the number */
            snprintf(unit, sizeof unit, "%s", end);
            if (strlen(end) >= sizeof unit)
                return error_at(ps, a_at + (end - a),
                                "unrecognized time unit, must be us, ms or s");
            n = 2;
        }
        c0.sleep_value = v > 0 ? v : 0;
    }
    if (n == 2) {
        const char *unit_at = strstr(args, unit) ? at + (strstr(args, unit) - args) : a_at;
        if (strcasecmp(unit, "us") == 0)
            c0.sleep_unit_us = 1;
        else if (strcasecmp(unit, "ms") == 0)
            c0.sleep_unit_us = 1000;
        else if (strcasecmp(unit, "s") != 0)
            return error_at(ps, unit_at, "unrecognized time unit, must be us, ms or s");
    }
    struct script_command *c = add_command(ps, CMD_SLEEP, cmd_at);
    c->sleep_value = c0.sleep_value;
    c->sleep_var = c0.sleep_var;
    c->sleep_unit_us = c0.sleep_unit_us;
    return 0;
}

static int parse_gset(struct parse *ps, const char *word, const char *args, const char *cmd_at)
{
    struct script *sc = ps->sc;
    char prefix[128] = "", extra[8] = "";
    int n = sscanf(args, "%127s %7s", prefix, extra);
    if (n > 1)
        return error_at(ps, cmd_at, "too many arguments");
    if (sc->n_cmds == 0 || sc->cmds[sc->n_cmds - 1].kind != CMD_SQL ||
        sc->cmds[sc->n_cmds - 1].gset != GSET_NONE)
        return error_at(ps, cmd_at, "\\gset and \\aset must follow an SQL command");
    struct script_command *c = &sc->cmds[sc->n_cmds - 1];
    c->gset = strcmp(word, "gset") == 0 ? GSET_LAST : GSET_ALL;
    free(c->gset_prefix);
    c->gset_prefix = xstrdup(prefix);
    return 0;
}

static int parse_conditional(struct parse *ps, const char *word, const char *args, const char *at,
                             const char *cmd_at)
{
    struct script *sc = ps->sc;
    int is_if = strcmp(word, "if") == 0, is_elif = strcmp(word, "elif") == 0;
    int is_else = strcmp(word, "else") == 0;
    if (!is_if && ps->depth == 0)
        return error_at(ps, cmd_at, "\\elif, \\else or \\endif without matching \\if");
    if (!is_if) {
        /* The last branch command of the open \if: its \else may not be followed by more. */
        int last = ps->if_stack[ps->depth - 1];
        while (sc->cmds[last].next_branch >= 0)
            last = sc->cmds[last].next_branch;
        if (sc->cmds[last].kind == CMD_ELSE && strcmp(word, "endif") != 0)
            return error_at(ps, cmd_at, "\\elif or \\else after \\else");
    }
    if (is_if && ps->depth == MAX_IF_DEPTH)
        return error_at(ps, cmd_at, "\\if nested too deeply");
    struct expr *x = NULL;
    if ((is_if || is_elif) && !(x = meta_expr(ps, args, at)))
        return -1;
    if (!is_if && !is_elif && strspn(args, " \t\r") != strlen(args)) {
        return error_at(ps, at + strspn(args, " \t\r"), "unexpected argument");
    }
    enum cmd_kind kind = is_if ? CMD_IF : is_elif ? CMD_ELIF : is_else ? CMD_ELSE : CMD_ENDIF;
    struct script_command *c = add_command(ps, kind, cmd_at);
    c->expr = x;
    int idx = sc->n_cmds - 1;
    if (is_if) {
        ps->if_stack[ps->depth++] = idx;
        return 0;
    }
    int last = ps->if_stack[ps->depth - 1];
    while (sc->cmds[last].next_branch >= 0)
        last = sc->cmds[last].next_branch;
    sc->cmds[last].next_branch = idx;
    if (kind == CMD_ENDIF) { /* every branch of this \if learns where it ends */
        for (int k = ps->if_stack[--ps->depth]; k >= 0; k = sc->cmds[k].next_branch)
            sc->cmds[k].endif = idx;
    }
    return 0;
}

static int parse_pipeline(struct parse *ps, int start, const char *args, const char *cmd_at)
{
    if (strspn(args, " \t\r") != strlen(args))
        return error_at(ps, cmd_at, "unexpected argument");
    if (start == ps->in_pipeline)
        return error_at(ps, cmd_at,
                        start ? "already in a pipeline" : "\\endpipeline without \\startpipeline");
    ps->in_pipeline = start;
    ps->pipeline_line = line_of(ps, cmd_at);
    ps->sc->uses_pipeline = 1;
    add_command(ps, start ? CMD_PIPELINE_START : CMD_PIPELINE_END, cmd_at);
    return 0;
}

/* pgbench 17's: only between \startpipeline and \endpipeline (pgbench fails at run time). */
static int parse_syncpipeline(struct parse *ps, const char *args, const char *cmd_at)
{
    if (strspn(args, " \t\r") != strlen(args))
        return error_at(ps, cmd_at, "unexpected argument");
    if (!ps->in_pipeline)
        return error_at(ps, cmd_at, "\\syncpipeline outside a pipeline");
    add_command(ps, CMD_PIPELINE_SYNC, cmd_at);
    return 0;
}

static const char *parse_meta(struct parse *ps, const char *p)
{
    const char *cmd_at = p++;
    int n = 0;
    while (isalpha((unsigned char)p[n]))
        n++;
    char word[32];
    snprintf(word, sizeof word, "%.*s", n, p);
    const char *args_at = p + n, *end;
    char *args = meta_args(args_at, &end);
    int rc;
    if (strcmp(word, "set") == 0)
        rc = parse_set(ps, args, args_at, cmd_at);
    else if (strcmp(word, "sleep") == 0)
        rc = parse_sleep(ps, args, args_at, cmd_at);
    else if (strcmp(word, "gset") == 0 || strcmp(word, "aset") == 0)
        rc = parse_gset(ps, word, args, cmd_at);
    else if (!strcmp(word, "if") || !strcmp(word, "elif") || !strcmp(word, "else") ||
             !strcmp(word, "endif"))
        rc = parse_conditional(ps, word, args, args_at, cmd_at);
    else if (strcmp(word, "startpipeline") == 0 || strcmp(word, "endpipeline") == 0)
        rc = parse_pipeline(ps, word[1] == 't', args, cmd_at);
    else if (strcmp(word, "syncpipeline") == 0)
        rc = parse_syncpipeline(ps, args, cmd_at);
    else if (strcmp(word, "shell") == 0 || strcmp(word, "setshell") == 0)
        rc = error_at(ps, cmd_at, "\\shell and \\setshell are not supported by pgarena");
    else
        rc = error_at(ps, cmd_at, "invalid command");
    if (rc == 0 && ps->sc->n_cmds > 0 && strcmp(word, "gset") && strcmp(word, "aset")) {
        struct script_command *c = &ps->sc->cmds[ps->sc->n_cmds - 1];
        size_t len = strcspn(cmd_at, "\n");
        c->text = trimmed(cmd_at, len);
    }
    free(args);
    return rc == 0 ? end : NULL;
}

/* Blanks and comments between commands. */
static const char *skip_between(const char *p)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if ((p[0] == '-' && p[1] == '-') || (p[0] == '/' && p[1] == '*')) {
            const char *end = skip_span(p, 0);
            if (!end)
                return p; /* scan_sql reports the unterminated comment */
            p = end;
            continue;
        }
        return p;
    }
}

int script_parse(struct script_set *set, struct script *sc, const char *name, const char *text,
                 struct err *e)
{
    struct parse ps = {.set = set, .sc = sc, .name = name, .text = text, .e = e};
    const char *p = text;
    while (p && *(p = skip_between(p))) {
        if (*p == '\\' && p[1] != ';')
            p = parse_meta(&ps, p);
        else
            p = parse_sql(&ps, p);
    }
    if (!p)
        return -1;
    if (ps.depth > 0)
        return err_set(e, ERR_INPUT, "%s:%d:1: \\if without matching \\endif", name,
                       sc->cmds[ps.if_stack[ps.depth - 1]].line);
    if (ps.in_pipeline)
        return err_set(e, ERR_INPUT, "%s:%d:1: \\startpipeline without \\endpipeline", name,
                       ps.pipeline_line);
    return 0;
}
