/* Where CONN's server is (pg_connopts_server), as libpq would read it, without connecting. */
#include "pg/pg_libpq.h"

#include "base/buf.h"
#include "base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of keyword in opts, NULL when unset or empty. */
static const char *option(PQconninfoOption *opts, const char *keyword)
{
    for (PQconninfoOption *p = opts; p && p->keyword; p++)
        if (strcmp(p->keyword, keyword) == 0)
            return p->val && *p->val ? p->val : NULL;
    return NULL;
}

/* The first of a comma-separated list (libpq's multiple hosts) into out. */
static void first_of(const char *list, char *out, size_t size)
{
    size_t n = strcspn(list, ",");
    if (n >= size)
        n = size - 1;
    memcpy(out, list, n);
    out[n] = '\0';
}

/* o's conninfo or URI parsed into *given (NULL when o has none) and libpq's defaults into
 * *defaults: 0, or -1 with e set and nothing to free. */
static int parse_given(const struct pg_connopts *o, PQconninfoOption **given,
                       PQconninfoOption **defaults, struct err *e)
{
    *given = NULL;
    *defaults = PQconndefaults();
    if (o->dbname && (strchr(o->dbname, '=') || strncmp(o->dbname, "postgres", 8) == 0)) {
        char *why = NULL;
        *given = PQconninfoParse(o->dbname, &why);
        if (!*given) {
            err_set(e, ERR_INPUT, "invalid connection string: %s", why ? why : "out of memory");
            PQfreemem(why);
            PQconninfoFree(*defaults);
            return -1;
        }
    }
    return 0;
}

int pg_connopts_tls(const struct pg_connopts *o, char *sslmode, size_t mode_size, char *rootcert,
                    size_t root_size, struct err *e)
{
    PQconninfoOption *given, *defaults;
    if (parse_given(o, &given, &defaults, e) < 0)
        return -1;
    const char *m = option(given, "sslmode");
    const char *r = option(given, "sslrootcert");
    snprintf(sslmode, mode_size, "%s",
             m                             ? m
             : option(defaults, "sslmode") ? option(defaults, "sslmode")
                                           : "prefer");
    snprintf(rootcert, root_size, "%s",
             r                                 ? r
             : option(defaults, "sslrootcert") ? option(defaults, "sslrootcert")
                                               : "");
    PQconninfoFree(given);
    PQconninfoFree(defaults);
    return 0;
}

int pg_connopts_server(const struct pg_connopts *o, char *host, size_t host_size, int *port,
                       struct err *e)
{
    PQconninfoOption *given, *defaults;
    if (parse_given(o, &given, &defaults, e) < 0)
        return -1;
    const char *h = o->host ? o->host : option(given, "host");
    if (!h)
        h = option(given, "hostaddr");
    if (!h)
        h = option(defaults, "host");
    const char *p = o->port ? o->port : option(given, "port");
    if (!p)
        p = option(defaults, "port");
    first_of(h ? h : "/var/run/postgresql", host, host_size);
    char pbuf[16];
    first_of(p ? p : "5432", pbuf, sizeof pbuf);
    PQconninfoFree(given);
    PQconninfoFree(defaults);
    char *end;
    long v = strtol(pbuf, &end, 10);
    if (*end || end == pbuf || v < 1 || v > 65535)
        return err_set(e, ERR_INPUT, "invalid port in CONN: '%s'", pbuf);
    *port = (int)v;
    return 0;
}

void pg_conninfo_append(struct buf *b, const char *key, const char *v)
{
    buf_printf(b, " %s='", key);
    for (; *v; v++) {
        if (*v == '\'' || *v == '\\')
            buf_putc(b, '\\');
        buf_putc(b, *v);
    }
    buf_putc(b, '\'');
}

int pg_connopts_with_database(const struct pg_connopts *o, const char *dbname, const char *user,
                              struct pg_connopts *out, struct err *e)
{
    PQconninfoOption *given, *defaults;
    if (parse_given(o, &given, &defaults, e) < 0)
        return -1;
    const char *env = getenv("PGUSER");
    int names_user = o->user || option(given, "user") || (env && *env);
    struct buf b;
    buf_init(&b);
    for (PQconninfoOption *p = given; p && p->keyword; p++)
        if (p->val && *p->val && strcmp(p->keyword, "dbname") != 0)
            pg_conninfo_append(&b, p->keyword, p->val);
    pg_conninfo_append(&b, "dbname", dbname);
    PQconninfoFree(given);
    PQconninfoFree(defaults);
    memset(out, 0, sizeof *out);
    out->host = o->host ? xstrdup(o->host) : NULL;
    out->port = o->port ? xstrdup(o->port) : NULL;
    out->user = o->user ? xstrdup(o->user) : names_user ? NULL : xstrdup(user);
    out->dbname = xstrdup(b.data);
    buf_free(&b);
    return 0;
}
