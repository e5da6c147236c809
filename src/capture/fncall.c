/* libpq's large-object FunctionCalls as SQL statements (fncall.h). */
#include "capture/fncall.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capture/pgwire.h"

enum arg { A_INT4, A_INT8, A_OID, A_BYTEA };

/* pg_proc's fixed OIDs of the functions libpq's fe-lobj.c calls (and their arguments). */
static const struct known {
    uint32_t oid;
    const char *name;
    int n_args;
    enum arg args[3];
    int returns_oid;
} known[] = {
    {715, "lo_create", 1, {A_OID}, 1},
    {952, "lo_open", 2, {A_OID, A_INT4}, 0},
    {953, "lo_close", 1, {A_INT4}, 0},
    {954, "loread", 2, {A_INT4, A_INT4}, 0},
    {955, "lowrite", 2, {A_INT4, A_BYTEA}, 0},
    {956, "lo_lseek", 3, {A_INT4, A_INT4, A_INT4}, 0},
    {957, "lo_creat", 1, {A_INT4}, 1},
    {958, "lo_tell", 1, {A_INT4}, 0},
    {964, "lo_unlink", 1, {A_OID}, 0},
    {1004, "lo_truncate", 2, {A_INT4, A_INT4}, 0},
    {3170, "lo_lseek64", 3, {A_INT4, A_INT8, A_INT4}, 0},
    {3171, "lo_tell64", 1, {A_INT4}, 0},
    {3172, "lo_truncate64", 2, {A_INT4, A_INT8}, 0},
};

/* A binary argument of its type as text, or NULL when its length is not the type's. */
static char *arg_text(enum arg type, const uint8_t *v, uint32_t n)
{
    switch (type) {
    case A_INT4:
        return n == 4 ? xasprintf("%d", (int32_t)(uint32_t)pgwire_be(v, 4)) : NULL;
    case A_OID:
        return n == 4 ? xasprintf("%u", (unsigned)pgwire_be(v, 4)) : NULL;
    case A_INT8:
        return n == 8 ? xasprintf("%lld", (long long)(int64_t)pgwire_be(v, 8)) : NULL;
    case A_BYTEA: {
        char *s = xmalloc(2 * (size_t)n + 3);
        memcpy(s, "\\x", 2);
        for (uint32_t i = 0; i < n; i++)
            snprintf(s + 2 + 2 * i, 3, "%02x", v[i]);
        s[2 + 2 * (size_t)n] = '\0';
        return s;
    }
    }
    return NULL;
}

int fncall_parse(const uint8_t *body, size_t len, struct fncall *c)
{
    memset(c, 0, sizeof *c);
    buf_init(&c->text);
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    uint32_t oid = pgwire_get_u32(&rd);
    int n_formats = pgwire_get_u16(&rd);
    int binary = 1;
    for (int i = 0; i < n_formats; i++)
        binary &= pgwire_get_u16(&rd) == 1;
    int n_args = pgwire_get_u16(&rd);
    if (rd.bad)
        return -1;
    const struct known *k = NULL;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].oid == oid)
            k = &known[i];
    if (!k || !binary || n_formats == 0 || n_args != k->n_args)
        return 0;
    c->params = xcalloc((size_t)n_args + 1, sizeof *c->params);
    c->n_params = n_args;
    c->returns_oid = k->returns_oid;
    buf_printf(&c->text, "SELECT pg_catalog.%s(", k->name);
    for (int i = 0; i < n_args; i++) {
        uint32_t n = pgwire_get_u32(&rd);
        if (n == 0xffffffffu) { /* NULL */
            buf_printf(&c->text, "%s$%d", i ? ", " : "", i + 1);
            continue;
        }
        const uint8_t *v = pgwire_get_bytes(&rd, n);
        if (rd.bad)
            return -1;
        c->params[i] = arg_text(k->args[i], v, n);
        if (!c->params[i])
            return 0;
        buf_printf(&c->text, "%s$%d", i ? ", " : "", i + 1);
    }
    buf_puts(&c->text, ")");
    return 1;
}

int fncall_oid_result(const uint8_t *body, size_t len, char out[16])
{
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    uint32_t n = pgwire_get_u32(&rd);
    const uint8_t *v = n == 4 ? pgwire_get_bytes(&rd, 4) : NULL;
    if (rd.bad || !v)
        return -1;
    snprintf(out, 16, "%u", (unsigned)pgwire_be(v, 4));
    return 0;
}

void fncall_free(struct fncall *c)
{
    for (int i = 0; i < c->n_params; i++)
        free(c->params[i]);
    free(c->params);
    buf_free(&c->text);
    memset(c, 0, sizeof *c);
}
