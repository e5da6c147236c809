#include "workload/script.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "workload/expr.h"

void script_set_init(struct script_set *s)
{
    memset(s, 0, sizeof *s);
    script_var_index(s, "scale");
    script_var_index(s, "client_id");
}

static void command_free(struct command *c)
{
    free(c->text);
    for (int i = 0; i < c->n_parts; i++)
        free(c->parts[i].text);
    free(c->parts);
    free(c->sql_params);
    free(c->stmt_name);
    free(c->param_vars);
    expr_free(c->expr);
}

void script_set_free(struct script_set *s)
{
    for (int i = 0; i < s->n_scripts; i++) {
        struct script *sc = &s->scripts[i];
        for (int j = 0; j < sc->n_cmds; j++)
            command_free(&sc->cmds[j]);
        free(sc->cmds);
        free(sc->name);
        free(sc->source);
    }
    free(s->scripts);
    for (int i = 0; i < s->n_vars; i++)
        free(s->var_names[i]);
    free(s->var_names);
    memset(s, 0, sizeof *s);
}

int script_var_index(struct script_set *s, const char *name)
{
    for (int i = 0; i < s->n_vars; i++)
        if (strcmp(s->var_names[i], name) == 0)
            return i;
    s->var_names = xrealloc(s->var_names, sizeof(char *) * (size_t)(s->n_vars + 1));
    s->var_names[s->n_vars] = xstrdup(name);
    return s->n_vars++;
}

static int is_ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Split SQL into literal parts and :variable references, and build the $n form. */
static void compile_sql(struct script_set *set, struct command *c)
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

static struct command *add_command(struct script *sc)
{
    sc->cmds = xrealloc(sc->cmds, sizeof *sc->cmds * (size_t)(sc->n_cmds + 1));
    struct command *c = &sc->cmds[sc->n_cmds++];
    memset(c, 0, sizeof *c);
    c->var = -1;
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

struct parse_ctx {
    struct script_set *set;
    struct script *sc;
    const char *name;
    struct err *e;
};

static int syntax_error(struct parse_ctx *cx, int line, int col, const char *msg)
{
    return err_set(cx->e, ERR_INPUT, "%s:%d:%d: %s", cx->name, line, col, msg);
}

/* `\set name expr` (p points after the backslash). */
static int parse_meta(struct parse_ctx *cx, const char *line_start, const char *p, int line)
{
    int n = 0;
    while (isalpha((unsigned char)p[n]))
        n++;
    if (n != 3 || strncmp(p, "set", 3) != 0)
        return syntax_error(cx, line, (int)(p - line_start), "unsupported meta-command");
    p += n;
    while (*p == ' ' || *p == '\t')
        p++;
    int vn = 0;
    while (is_ident_char(p[vn]))
        vn++;
    if (vn == 0)
        return syntax_error(cx, line, (int)(p - line_start) + 1, "missing variable name");
    char *var = xstrndup(p, (size_t)vn);
    p += vn;
    char msg[256] = "";
    const char *q = p;
    struct expr *x = expr_parse(&q, cx->set, msg, sizeof msg);
    while (x && (*q == ' ' || *q == '\t' || *q == '\r'))
        q++;
    if (x && *q && *q != '\n') {
        snprintf(msg, sizeof msg, "unexpected text after expression");
        expr_free(x);
        x = NULL;
    }
    if (!x) {
        free(var);
        return syntax_error(cx, line, (int)(q - line_start) + 1, msg);
    }
    struct command *c = add_command(cx->sc);
    c->kind = CMD_SET;
    c->line = line;
    c->var = script_var_index(cx->set, var);
    c->expr = x;
    const char *eol = strchr(line_start, '\n');
    c->text = trimmed(line_start, eol ? (size_t)(eol - line_start) : strlen(line_start));
    free(var);
    return 0;
}

static void add_sql(struct parse_ctx *cx, const char *start, const char *end, int line)
{
    char *t = trimmed(start, (size_t)(end - start));
    if (!*t) {
        free(t);
        return;
    }
    struct command *c = add_command(cx->sc);
    c->kind = CMD_SQL;
    c->line = line;
    c->text = t;
    compile_sql(cx->set, c);
}

static int line_starts_meta(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '\\';
}

/* Walks the text once: meta-commands are whole lines; SQL runs to a ';' outside quotes and
 * comments, across lines. */
static int parse_text(struct parse_ctx *cx, const char *text)
{
    const char *p = text, *sql_start = NULL;
    int line = 1, sql_line = 0;
    char quote = 0;
    while (*p) {
        if (!sql_start) {
            const char *q = p;
            while (*q == ' ' || *q == '\t' || *q == '\r')
                q++;
            if (*q == '\n') {
                p = q + 1, line++;
                continue;
            }
            if (!*q)
                break;
            if (*q == '\\') {
                if (parse_meta(cx, p, q + 1, line) < 0)
                    return -1;
                const char *eol = strchr(q, '\n');
                p = eol ? eol + 1 : q + strlen(q);
                line++;
                continue;
            }
            if (q[0] == '-' && q[1] == '-') {
                const char *eol = strchr(q, '\n');
                p = eol ? eol + 1 : q + strlen(q);
                line++;
                continue;
            }
            sql_start = q, sql_line = line, p = q;
        }
        char ch = *p;
        if (!quote && p > text && p[-1] == '\n' && line_starts_meta(p)) {
            /* A meta-command ends an SQL command left without ';', as in pgbench. */
            add_sql(cx, sql_start, p, sql_line);
            sql_start = NULL;
            continue;
        }
        if (quote) {
            if (ch == quote)
                quote = 0;
        } else if (ch == '\'' || ch == '"') {
            quote = ch;
        } else if (ch == '-' && p[1] == '-') {
            while (p[1] && p[1] != '\n')
                p++;
        } else if (ch == ';') {
            add_sql(cx, sql_start, p + 1, sql_line);
            sql_start = NULL;
        }
        if (ch == '\n')
            line++;
        p++;
    }
    if (quote)
        return syntax_error(cx, sql_line, 1, "unterminated quoted string");
    if (sql_start)
        add_sql(cx, sql_start, p, sql_line);
    return 0;
}

int script_set_add(struct script_set *s, const char *name, const char *text, int weight,
                   struct err *e)
{
    s->scripts = xrealloc(s->scripts, sizeof *s->scripts * (size_t)(s->n_scripts + 1));
    struct script *sc = &s->scripts[s->n_scripts];
    memset(sc, 0, sizeof *sc);
    sc->name = xstrdup(name);
    sc->source = xstrdup(text);
    sc->weight = weight;
    struct parse_ctx cx = {s, sc, name, e};
    int rc = parse_text(&cx, text);
    if (rc == 0 && sc->n_cmds == 0)
        rc = err_set(e, ERR_INPUT, "%s:1:1: script contains no commands", name);
    if (rc < 0) {
        for (int j = 0; j < sc->n_cmds; j++)
            command_free(&sc->cmds[j]);
        free(sc->cmds);
        free(sc->name);
        free(sc->source);
        return -1;
    }
    for (int j = 0; j < sc->n_cmds; j++)
        if (sc->cmds[j].kind == CMD_SQL)
            sc->cmds[j].stmt_name = xasprintf("P%d_%d", s->n_scripts, j);
    s->n_scripts++;
    s->total_weight += weight;
    return 0;
}

void script_vars_init(struct script_vars *v, const struct script_set *s)
{
    v->n = s->n_vars;
    v->value = xcalloc((size_t)v->n, sizeof *v->value);
    v->is_set = xcalloc((size_t)v->n, 1);
}

void script_vars_free(struct script_vars *v)
{
    free(v->value);
    free(v->is_set);
}

void script_vars_set(struct script_vars *v, int var, int64_t value)
{
    v->value[var] = value;
    v->is_set[var] = 1;
}

const struct script *script_choose(const struct script_set *s, struct rng *r)
{
    if (s->n_scripts == 1)
        return &s->scripts[0];
    int64_t w = rng_range(r, 0, s->total_weight - 1);
    for (int i = 0; i < s->n_scripts; i++) {
        w -= s->scripts[i].weight;
        if (w < 0)
            return &s->scripts[i];
    }
    return &s->scripts[s->n_scripts - 1];
}

int script_exec_set(const struct script_set *s, const struct command *c, struct script_vars *v,
                    struct rng *r, char *msg, unsigned long msg_size)
{
    int64_t out;
    if (expr_eval(c->expr, v->value, v->is_set, s->var_names, r, &out, msg, msg_size) < 0)
        return -1;
    script_vars_set(v, c->var, out);
    return 0;
}

int script_var_text(const struct script_vars *v, int var, char *out, unsigned long out_size)
{
    if (!v->is_set[var])
        return -1;
    snprintf(out, out_size, "%lld", (long long)v->value[var]);
    return 0;
}
