#include "server/statements.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "server/server_int.h"

/* The columns are the installed extension's, not the server's: after pg_upgrade it stays at
 * its old version until ALTER EXTENSION UPDATE. Total time is total_exec_time from 1.8 (13;
 * planning apart), total_time before; the toplevel column exists from 1.9 (14). */
static const char sql_13[] =
    "SELECT /* pgarena:statements */ userid::text || '/' || coalesce(queryid::text, '') || '/' "
    "|| %s, query, calls, rows, %s FROM pg_stat_statements WHERE dbid = (SELECT oid FROM "
    "pg_database WHERE datname = current_database()) AND query NOT LIKE '%%pgarena:%%'";

int srv_extension_version(const char *v)
{
    char *end;
    long major = strtol(v, &end, 10), minor = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
    return (int)(major * 100 + minor);
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const struct srv_statement *)a)->key, ((const struct srv_statement *)b)->key);
}

static uint64_t u64(const struct pg_result *r, int row, int col)
{
    int64_t v = srv_value_int(r, row, col);
    return v > 0 ? (uint64_t)v : 0;
}

int srv_statements_read(struct pg_conn *c, struct srv_statements *out)
{
    memset(out, 0, sizeof *out);
    struct err e = {0};
    char v[32] = "";
    if (pg_query_value(c,
                       "SELECT /* pgarena:statements */ coalesce(max(extversion), '') "
                       "FROM pg_extension WHERE extname = 'pg_stat_statements'",
                       v, sizeof v, &e) < 0 ||
        v[0] == '\0') {
        snprintf(out->note, sizeof out->note,
                 "pg_stat_statements is not installed in this database "
                 "(shared_preload_libraries and CREATE EXTENSION)");
        return -1;
    }
    int version = srv_extension_version(v);
    char sql[512];
    snprintf(sql, sizeof sql, sql_13, version >= 109 ? "toplevel::text" : "'t'",
             version >= 108 ? "total_exec_time" : "total_time");
    struct pg_result *r = srv_query(c, sql, &e);
    if (!r) {
        snprintf(out->note, sizeof out->note, "pg_stat_statements could not be read: %.200s",
                 e.msg);
        return -1;
    }
    int n = pg_result_rows(r);
    out->s = xcalloc((size_t)n + 1, sizeof *out->s);
    for (int i = 0; i < n; i++)
        out->s[out->n++] =
            (struct srv_statement){srv_value_dup(r, i, 0), srv_value_dup(r, i, 1), u64(r, i, 2),
                                   u64(r, i, 3), atof(pg_result_value(r, i, 4))};
    pg_result_free(r);
    for (size_t i = 0; i < out->n; i++) /* NULLs as "" so that sorting and printing hold */
        if (!out->s[i].key)
            out->s[i].key = xstrdup("");
    qsort(out->s, out->n, sizeof *out->s, by_key);
    out->read = 1;
    return 0;
}

void srv_statements_delta_free(struct srv_statement *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(d[i].key);
        free(d[i].query);
    }
    free(d);
}

void srv_statements_free(struct srv_statements *s)
{
    srv_statements_delta_free(s->s, s->n);
    memset(s, 0, sizeof *s);
}

static int by_total_desc(const void *a, const void *b)
{
    double x = ((const struct srv_statement *)a)->total_ms;
    double y = ((const struct srv_statement *)b)->total_ms;
    return (x < y) - (x > y);
}

size_t srv_statements_delta(const struct srv_statements *before, const struct srv_statements *after,
                            size_t top, struct srv_statement **out)
{
    struct srv_statement *d = xcalloc(after->n + 1, sizeof *d);
    size_t n = 0;
    for (size_t i = 0; i < after->n; i++) {
        const struct srv_statement *a = &after->s[i];
        const struct srv_statement *b =
            before->n ? bsearch(a, before->s, before->n, sizeof *a, by_key) : NULL;
        /* A reset of the statistics in between makes counters go down: then after counts
         * whole. */
        int grew = b && a->calls >= b->calls;
        uint64_t calls = grew ? a->calls - b->calls : a->calls;
        if (calls == 0)
            continue;
        d[n++] = (struct srv_statement){NULL, a->query ? xstrdup(a->query) : NULL, calls,
                                        grew && a->rows >= b->rows ? a->rows - b->rows : a->rows,
                                        grew ? a->total_ms - b->total_ms : a->total_ms};
    }
    qsort(d, n, sizeof *d, by_total_desc);
    for (size_t i = top; i < n; i++)
        free(d[i].query);
    if (n > top)
        n = top;
    *out = d;
    return n;
}
