/* Server settings for sweeps: what a setting's context is, and ALTER SYSTEM with a reload. */
#include "pg/pg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"

void pg_close(PGconn *c)
{
    if (c)
        PQfinish(c);
}

int pg_setting_context(const struct pg_connopts *o, const char *name, char *context,
                       unsigned long size, struct err *e)
{
    PGconn *c = pg_connect(o, e);
    if (!c)
        return -1;
    const char *params[1] = {name};
    PGresult *res = PQexecParams(c, "SELECT context FROM pg_settings WHERE name = lower($1)", 1,
                                 NULL, params, NULL, NULL, 0);
    int rc = 1;
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        char line[256];
        pg_error_line(c, res, line, sizeof line);
        rc = err_set(e, ERR_RUNTIME, "reading pg_settings: %s", line);
    } else if (PQntuples(res) == 1) {
        snprintf(context, size, "%s", PQgetvalue(res, 0, 0));
        rc = 0;
    }
    PQclear(res);
    PQfinish(c);
    return rc;
}

/* current_setting(name) on a fresh connection into out; -1 on failure. */
static int current(const struct pg_connopts *o, const char *quoted, char *out, unsigned long size)
{
    struct err e = {0};
    PGconn *c = pg_connect(o, &e);
    if (!c)
        return -1;
    char *sql = xasprintf("SELECT current_setting(%s)", quoted);
    int rc = pg_query_value(c, sql, out, size, &e);
    free(sql);
    PQfinish(c);
    return rc;
}

int pg_alter_system(const struct pg_connopts *o, const char *name, const char *value, int reload,
                    struct err *e)
{
    PGconn *c = pg_connect(o, e);
    if (!c)
        return -1;
    char *ident = PQescapeIdentifier(c, name, strlen(name));
    char *lit = PQescapeLiteral(c, value ? value : "", value ? strlen(value) : 0);
    char *name_lit = PQescapeLiteral(c, name, strlen(name));
    char before[256] = "", now[256] = "";
    int rc = -1;
    if (ident && lit && name_lit) {
        char *sql = value ? xasprintf("ALTER SYSTEM SET %s = %s", ident, lit)
                          : xasprintf("ALTER SYSTEM RESET %s", ident);
        if (reload)
            current(o, name_lit, before, sizeof before);
        rc = pg_exec(c, sql, e);
        free(sql);
        if (rc == 0 && reload)
            rc = pg_exec(c, "SELECT pg_reload_conf()", e);
    } else {
        err_set(e, ERR_RUNTIME, "ALTER SYSTEM %s: %s", name, PQerrorMessage(c));
    }
    PQfinish(c);
    /* The postmaster rereads its files when the signal reaches it; new sessions get the new
     * value from then on. Wait (up to 2 s) until one does, when the value changes at all. */
    for (int i = 0; rc == 0 && reload && i < 40; i++) {
        if (current(o, name_lit, now, sizeof now) == 0 && strcmp(now, before) != 0)
            break;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
    PQfreemem(ident);
    PQfreemem(lit);
    PQfreemem(name_lit);
    return rc;
}
