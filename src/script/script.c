#include "script/script.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "script/expr.h"
#include "script/funcs.h"
#include "script/script_int.h"

void script_set_init(struct script_set *s)
{
    memset(s, 0, sizeof *s);
    /* Predefined, in the order of the SCRIPT_VAR_* indexes. */
    script_var_index(s, "scale");
    script_var_index(s, "client_id");
    script_var_index(s, "default_seed");
    script_var_index(s, "random_seed");
}

void script_command_free(struct script_command *c)
{
    free(c->text);
    for (int i = 0; i < c->n_parts; i++)
        free(c->parts[i].text);
    free(c->parts);
    free(c->sql_params);
    free(c->stmt_name);
    free(c->param_vars);
    free(c->gset_prefix);
    expr_free(c->expr);
}

void script_set_free(struct script_set *s)
{
    for (int i = 0; i < s->n_scripts; i++) {
        struct script *sc = &s->scripts[i];
        for (int j = 0; j < sc->n_cmds; j++)
            script_command_free(&sc->cmds[j]);
        free(sc->cmds);
        free(sc->name);
        free(sc->source);
    }
    free(s->scripts);
    for (int i = 0; i < s->n_vars; i++)
        free(s->var_names[i]);
    free(s->var_names);
    for (int i = 0; i < s->n_defines; i++)
        free(s->defines[i].text);
    free(s->defines);
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

void script_set_define(struct script_set *s, const char *name, const char *text)
{
    int var = script_var_index(s, name);
    for (int i = 0; i < s->n_defines; i++) {
        if (s->defines[i].var == var) {
            free(s->defines[i].text);
            s->defines[i].text = xstrdup(text);
            return;
        }
    }
    s->defines = xrealloc(s->defines, sizeof *s->defines * (size_t)(s->n_defines + 1));
    s->defines[s->n_defines++] = (struct script_define){var, xstrdup(text)};
}

int script_set_add(struct script_set *s, const char *name, const char *text, int weight,
                   struct err *e)
{
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0)
        text += 3; /* a UTF-8 byte-order mark, as Windows editors write: not the script's */
    s->scripts = xrealloc(s->scripts, sizeof *s->scripts * (size_t)(s->n_scripts + 1));
    struct script *sc = &s->scripts[s->n_scripts];
    memset(sc, 0, sizeof *sc);
    sc->name = xstrdup(name);
    sc->source = xstrdup(text);
    sc->weight = weight;
    int rc = script_parse(s, sc, name, text, e);
    if (rc == 0 && sc->n_cmds == 0)
        rc = err_set(e, ERR_INPUT, "%s:1:1: script contains no commands", name);
    if (rc < 0) {
        for (int j = 0; j < sc->n_cmds; j++)
            script_command_free(&sc->cmds[j]);
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

int script_set_check_protocol(const struct script_set *s, int simple_protocol, struct err *e)
{
    for (int i = 0; i < s->n_scripts && simple_protocol; i++)
        if (s->scripts[i].uses_pipeline)
            return err_set(e, ERR_INPUT,
                           "%s: \\startpipeline needs -M extended or -M prepared (pipelines do "
                           "not exist in the simple query protocol)",
                           s->scripts[i].name);
    return 0;
}

void script_vars_init(struct script_vars *v, const struct script_set *s)
{
    v->n = s->n_vars;
    v->slot = xcalloc((size_t)v->n, sizeof *v->slot);
    for (int i = 0; i < s->n_defines; i++)
        script_vars_set_text(v, s->defines[i].var, s->defines[i].text);
}

void script_vars_free(struct script_vars *v)
{
    for (int i = 0; i < v->n; i++)
        free(v->slot[i].text);
    free(v->slot);
    v->slot = NULL;
}

void script_vars_set_value(struct script_vars *v, int var, struct value value)
{
    struct var_slot *s = &v->slot[var];
    if (s->text) {
        free(s->text);
        s->text = NULL;
    }
    s->state = VAR_VALUE;
    s->value = value;
}

void script_vars_set(struct script_vars *v, int var, int64_t value)
{
    script_vars_set_value(v, var, value_int(value));
}

void script_vars_set_text(struct script_vars *v, int var, const char *text)
{
    struct var_slot *s = &v->slot[var];
    free(s->text);
    s->text = xstrdup(text);
    s->state = VAR_TEXT;
}

int script_var_value(const struct script_vars *v, const struct script_set *s, int var,
                     struct value *out, char *msg, size_t msg_size)
{
    const struct var_slot *slot = &v->slot[var];
    switch (slot->state) {
    case VAR_VALUE:
        *out = slot->value;
        return 0;
    case VAR_TEXT:
        if (value_from_text(slot->text, out) == 0)
            return 0;
        snprintf(msg, msg_size, "malformed variable \"%s\" value: \"%s\"", s->var_names[var],
                 slot->text);
        return -1;
    default:
        snprintf(msg, msg_size, "undefined variable \"%s\"", s->var_names[var]);
        return -1;
    }
}

const char *script_var_sql(const struct script_vars *v, int var, char *buf, size_t buf_size)
{
    const struct var_slot *slot = &v->slot[var];
    if (slot->state == VAR_TEXT)
        return slot->text;
    if (slot->state == VAR_UNSET)
        return NULL;
    if (slot->value.type == VAL_INT) { /* the common case, without printf's machinery */
        char tmp[24];
        int n = 0;
        uint64_t u =
            slot->value.u.i < 0 ? 0 - (uint64_t)slot->value.u.i : (uint64_t)slot->value.u.i;
        do {
            tmp[n++] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        size_t k = 0;
        if (slot->value.u.i < 0)
            buf[k++] = '-';
        while (n > 0 && k + 1 < buf_size)
            buf[k++] = tmp[--n];
        buf[k] = '\0';
        return buf;
    }
    value_to_text(&slot->value, buf, buf_size);
    return buf;
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

int script_eval(const struct script_set *s, const struct script_command *c, struct script_vars *v,
                struct rng *r, struct value *out, char *msg, size_t msg_size)
{
    return expr_eval(c->expr, s, v, r, out, msg, msg_size);
}

static int var_char(unsigned char c, int first)
{
    return c >= 0x80 || c == '_' || isalpha(c) || (!first && isdigit(c));
}

int script_var_name_valid(const char *prefix, const char *name)
{
    const char *parts[2] = {prefix, name};
    int first = 1;
    for (int i = 0; i < 2; i++)
        for (const unsigned char *p = (const unsigned char *)parts[i]; *p; p++, first = 0)
            if (!var_char(*p, first))
                return 0;
    return !first; /* not empty */
}

int script_truth(const struct value *v, int *out, char *msg, size_t msg_size)
{
    (void)msg;
    (void)msg_size;
    *out = value_truth(v); /* as pgbench's \if: numbers are true unless zero */
    return 0;
}
