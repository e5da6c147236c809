#include "workload/load/load_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"

/*
 * init never drops a table it did not create. It cannot know who created a table, so it
 * goes by shape: a table with one of its names and exactly its columns (names and types, in
 * order) is taken as its own; anything else of that name is refused before anything changes.
 */

/* For each name: the relation `drop table` would find (search_path), its kind, its columns
 * as "name type, ...", its partitions and its parent. */
static const char check_sql[] =
    "select n.name, c.relkind, "
    "(select coalesce(string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod), "
    "', ' order by a.attnum), '') from pg_attribute a "
    "where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), "
    "(select coalesce(string_agg(i.inhrelid::regclass::text, ', ' order by "
    "i.inhrelid::regclass::text), "
    "'') from pg_inherits i where i.inhparent = c.oid), "
    "(select coalesce(min(i.inhparent::regclass::text), '') from pg_inherits i "
    "where i.inhrelid = c.oid) "
    "from unnest($1::text[]) with ordinality n(name, ord) "
    "join pg_class c on c.oid = to_regclass(quote_ident(n.name)) order by n.ord";

static int expected(const struct load_expect *ex, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(ex[i].name, name) == 0)
            return i;
    return -1;
}

static int shape_ok(const struct load_expect *x, const char *cols)
{
    return strcmp(cols, x->shape) == 0 || (x->alt_shape && strcmp(cols, x->alt_shape) == 0);
}

/* Whether row i of r is one of ours; if not, the reason into e. */
static int row_ok(const struct pg_result *r, int i, const struct load_expect *ex, int n,
                  struct err *e)
{
    const char *name = pg_result_value(r, i, 0);
    const char *kind = pg_result_value(r, i, 1);
    const char *cols = pg_result_value(r, i, 2);
    const char *parent = pg_result_value(r, i, 4);
    const struct load_expect *x = &ex[expected(ex, n, name)];
    if (strcmp(kind, "r") != 0 && strcmp(kind, "p") != 0)
        return err_set(e, ERR_INPUT,
                       "init: %s exists and is not a table; not replacing it (drop it, or use "
                       "another database)",
                       name);
    /* A partition of a table we replace goes with it, whatever its shape. */
    if (*parent && expected(ex, n, parent) >= 0)
        return 0;
    if (!shape_ok(x, cols))
        return err_set(e, ERR_INPUT,
                       "init: table %s exists with columns (%s), not (%s): not created by "
                       "pgarena init; not replacing it (--force to replace it anyway)",
                       name, cols, x->shape);
    return 0;
}

static void list_add(struct buf *b, const char *names)
{
    if (!*names)
        return;
    if (b->len)
        buf_puts(b, ", ");
    buf_puts(b, names);
}

int load_check_tables(struct pg_conn *c, const struct load_expect *ex, int n, int force,
                      struct buf *existing, struct err *e)
{
    struct buf arr;
    buf_init(&arr);
    buf_putc(&arr, '{');
    for (int i = 0; i < n; i++)
        buf_printf(&arr, "%s%s", i ? "," : "", ex[i].name); /* our names need no quoting */
    buf_putc(&arr, '}');
    const char *params[1] = {arr.data};
    struct err qe = {0};
    struct pg_result *r = pg_query(c, check_sql, 1, params, &qe);
    buf_free(&arr);
    if (!r)
        return err_set(e, ERR_RUNTIME, "could not look for existing tables: %s", qe.msg);
    int rc = 0;
    for (int i = 0; i < pg_result_rows(r) && rc == 0; i++) {
        struct err why = {0};
        const char *kind = pg_result_value(r, i, 1);
        int is_table = strcmp(kind, "r") == 0 || strcmp(kind, "p") == 0;
        if (row_ok(r, i, ex, n, &why) < 0 && (!force || !is_table))
            rc = err_set(e, why.code, "%s", why.msg);
        /* A partition of a table we replace is named with its parent's partitions. */
        if (expected(ex, n, pg_result_value(r, i, 4)) >= 0)
            continue;
        list_add(existing, pg_result_value(r, i, 0));
        char *parts = xstrdup(pg_result_value(r, i, 3));
        char *save = NULL;
        for (char *p = strtok_r(parts, ", ", &save); p; p = strtok_r(NULL, ", ", &save))
            list_add(existing, p);
        free(parts);
    }
    pg_result_free(r);
    return rc;
}

int load_check_and_notify(const struct pg_connopts *conn, const struct load_options *opt,
                          const struct load_expect *ex, int n, int *server_version, struct err *e)
{
    struct pg_conn *c = pg_connect(conn, e);
    if (!c)
        return -1;
    if (server_version)
        *server_version = pg_server_version(c);
    struct buf existing;
    buf_init(&existing);
    int rc = load_check_tables(c, ex, n, opt->force, &existing, e);
    pg_finish(c);
    if (rc == 0 && existing.len && opt->notice) {
        char *msg = xasprintf("replacing existing tables: %s", existing.data);
        opt->notice(msg, opt->notice_arg);
        free(msg);
    }
    buf_free(&existing);
    return rc;
}

int load_checked_run(const struct pg_connopts *conn, const struct load_options *opt,
                     const struct load_expect *ex, int n,
                     void (*build)(struct load_plan *p, const struct load_options *opt),
                     struct err *e)
{
    int version = 0;
    if (load_check_and_notify(conn, opt, ex, n, &version, e) < 0)
        return -1;
    struct load_plan plan;
    load_plan_init(&plan);
    plan.server_version = version;
    build(&plan, opt);
    int rc = load_run(conn, opt, &plan, e);
    load_plan_free(&plan);
    return rc;
}
