/* Server settings for sweeps: a setting's context, and ALTER SYSTEM with a reload. */
#include "server/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"

int srv_setting_context(const struct pg_connopts *o, const char *name, char *context, size_t size,
                        struct err *e)
{
    struct pg_conn *c = pg_connect(o, e);
    if (!c)
        return -1;
    const char *params[1] = {name};
    struct pg_result *r =
        pg_query(c, "SELECT context FROM pg_settings WHERE name = lower($1)", 1, params, e);
    int rc = -1;
    if (r) {
        rc = pg_result_rows(r) == 1 ? 0 : 1;
        if (rc == 0)
            snprintf(context, size, "%s", pg_result_value(r, 0, 0));
        pg_result_free(r);
    }
    pg_finish(c);
    return rc;
}

/* current_setting(name) on a fresh connection into out; -1 on failure. */
static int current(const struct pg_connopts *o, const char *quoted, char *out, size_t size)
{
    struct err e = {0};
    struct pg_conn *c = pg_connect(o, &e);
    if (!c)
        return -1;
    char *sql = xasprintf("SELECT current_setting(%s)", quoted);
    int rc = pg_query_value(c, sql, out, size, &e);
    free(sql);
    pg_finish(c);
    return rc;
}

int srv_alter_system(const struct pg_connopts *o, const char *name, const char *value, int reload,
                     struct err *e)
{
    struct pg_conn *c = pg_connect(o, e);
    if (!c)
        return -1;
    char *ident = pg_quote_ident(name), *name_lit = pg_quote_literal(name);
    char *lit = value ? pg_quote_literal(value) : NULL;
    char *sql = value ? xasprintf("ALTER SYSTEM SET %s = %s", ident, lit)
                      : xasprintf("ALTER SYSTEM RESET %s", ident);
    char before[256] = "", now[256] = "";
    if (reload)
        current(o, name_lit, before, sizeof before);
    int rc = pg_exec(c, sql, e);
    if (rc == 0 && reload)
        rc = pg_exec(c, "SELECT pg_reload_conf()", e);
    pg_finish(c);
    /* The postmaster rereads its files when the signal reaches it; new sessions get the new
     * value from then on. Wait (up to 2 s) until one does, when the value changes at all. */
    for (int i = 0; rc == 0 && reload && i < 40; i++) {
        if (current(o, name_lit, now, sizeof now) == 0 && strcmp(now, before) != 0)
            break;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
    free(sql);
    free(ident);
    free(name_lit);
    free(lit);
    return rc;
}
