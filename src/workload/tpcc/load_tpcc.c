#include "workload/tpcc/tpcc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/mem.h"
#include "workload/load/load_int.h"
#include "workload/tpcc/tpcc_rows.h"
#include "workload/tpcc/tpcc_schema.h"

/*
 * TPC-C's dataset. The tables are created empty in one transaction (with the functions of
 * `run --procedures` and the record of the NURand constants), then loaded by COPY over the
 * connections: item once, every other table in warehouse ranges, one COPY per range. A
 * table loaded by one COPY (one range, or one partition) is truncated and filled with COPY
 * FREEZE in one transaction, as the other loaders do; several COPY streams into one table
 * cannot freeze (the table must be committed before a second connection writes it). Once a
 * table's COPYs are done its key and index are built, then it is analyzed.
 */

struct table_rows {
    load_row_fn row;
    int64_t per_w; /* row numbers per warehouse; 0: item, loaded once */
};

/* What to load: TPC-C's own options. */
static const struct tpcc_init_opts *own(const struct load_options *opt)
{
    return opt->opts;
}

static const struct table_rows rows_of[TPCC_N_TABLES] = {
    {tpcc_order_line_row, TPCC_SLOTS_ORDER_LINE},
    {tpcc_stock_row, TPCC_STOCK},
    {tpcc_customer_row, TPCC_ROWS_CUSTOMER},
    {tpcc_item_row, 0},
    {tpcc_history_row, TPCC_ROWS_CUSTOMER},
    {tpcc_orders_row, TPCC_ROWS_ORDERS},
    {tpcc_new_order_row, TPCC_ROWS_NEW_ORDER},
    {tpcc_district_row, TPCC_ROWS_DISTRICT},
    {tpcc_warehouse_row, 1},
};

/* What every generator of this load shares. */
static char load_now[32];

static struct tpcc_gen *new_gen(const struct load_options *opt, int modulus, int remainder)
{
    struct tpcc_consts k;
    tpcc_consts_load(opt->seed, &k);
    struct tpcc_gen *g = xcalloc(1, sizeof *g);
    g->seed = opt->seed;
    g->c_last = k.c_last;
    g->now = load_now;
    g->modulus = modulus;
    g->remainder = remainder;
    return g;
}

static char *setup_sql(const struct load_options *opt)
{
    struct buf b;
    buf_init(&b);
    buf_puts(&b, "drop table if exists ");
    for (int t = 0; t < TPCC_N_TABLES; t++)
        buf_printf(&b, "%s%s", t ? ", " : "", tpcc_tables[t].name);
    for (int t = 0; t < TPCC_N_TABLES; t++) {
        buf_puts(&b, ";\n");
        tpcc_create_sql(&tpcc_tables[t], own(opt)->partitions, &b);
    }
    struct tpcc_consts k;
    tpcc_consts_load(opt->seed, &k);
    char *comment = tpcc_consts_comment(&k);
    buf_printf(&b, ";\ncomment on table warehouse is '%s';\n", comment);
    free(comment);
    buf_puts(&b, tpcc_procedures_sql);
    return b.data;
}

/* Rows a COPY of warehouses [lo, hi] of table t sends, for progress. */
static int64_t copy_rows(const struct load_options *opt, int t, int64_t lo, int64_t hi)
{
    int64_t n = hi - lo + 1;
    if (rows_of[t].row == tpcc_order_line_row)
        return tpcc_order_lines(opt->seed, lo, hi);
    return rows_of[t].per_w ? n * rows_of[t].per_w : TPCC_ITEMS;
}

/* One COPY of warehouses [lo, hi] of table t (partition `part`, 1-based, or 0), frozen when
 * it is the table's (or partition's) only one. */
static int add_copy(struct load_plan *p, const struct load_options *opt, int t, int64_t lo,
                    int64_t hi, int part, int alone)
{
    const char *name = tpcc_tables[t].name;
    char rel[64], what[96], copy[128], before[96];
    if (part)
        snprintf(rel, sizeof rel, "%s_%d", name, part);
    else
        snprintf(rel, sizeof rel, "%s", name);
    snprintf(what, sizeof what, "could not load %s", rel);
    snprintf(copy, sizeof copy, "copy %s from stdin%s", rel, alone ? " with (freeze on)" : "");
    snprintf(before, sizeof before, "begin; truncate %s", rel);
    struct tpcc_gen *g = new_gen(opt, part ? own(opt)->partitions : 0, part - 1);
    int64_t per = rows_of[t].per_w ? rows_of[t].per_w : TPCC_ITEMS;
    int64_t first = rows_of[t].per_w ? (lo - 1) * per : 0;
    int64_t end = rows_of[t].per_w ? hi * per : per;
    struct load_copy cp = {copy, rows_of[t].row, g, first, end};
    int64_t rows = copy_rows(opt, t, lo, hi);
    if (part) { /* only this partition's warehouses count */
        rows = 0;
        for (int64_t w = lo; w <= hi; w++)
            if (load_hash_partition(w, 0, own(opt)->partitions) == part - 1)
                rows += copy_rows(opt, t, w, w);
    }
    return load_plan_copy(p, what, alone ? before : NULL, &cp, alone ? "commit" : NULL, rows);
}

/* The warehouse ranges of each table. Splitting a table costs it COPY FREEZE (rows written
 * frozen and all-visible, so no later scan rewrites pages to set hint bits), and the nine
 * tables already keep four connections busy; so a table is split only beyond that, into one
 * range per four connections (at most one per warehouse). */
static int n_ranges(const struct load_options *opt)
{
    int r = opt->jobs / 4 > 1 ? opt->jobs / 4 : 1;
    return r < own(opt)->warehouses ? r : own(opt)->warehouses;
}

/* The COPY tasks of table t; returns how many, their indexes into ids. */
static int add_copies(struct load_plan *p, const struct load_options *opt, int t, int *ids)
{
    int n = 0;
    int64_t w = own(opt)->warehouses;
    if (!rows_of[t].per_w) {
        ids[n++] = add_copy(p, opt, t, 1, 1, 0, 1);
    } else if (own(opt)->partitions > 0 && tpcc_tables[t].partition_key) {
        for (int part = 1; part <= own(opt)->partitions; part++)
            ids[n++] = add_copy(p, opt, t, 1, w, part, 1);
    } else {
        int r = n_ranges(opt);
        for (int i = 0; i < r; i++)
            ids[n++] = add_copy(p, opt, t, w * i / r + 1, w * (i + 1) / r, 0, r == 1);
    }
    return n;
}

/* Key, index and ANALYZE of table t once its COPYs (ids) are done. */
static void add_finish(struct load_plan *p, const struct load_options *opt, int t, const int *ids,
                       int n)
{
    const struct tpcc_table *tb = &tpcc_tables[t];
    char sql[256];
    int partitioned = own(opt)->partitions > 0 && tb->partition_key;
    int steps[3], n_steps = 0;
    if (tb->key && partitioned) {
        snprintf(sql, sizeof sql, "alter table %s add primary key (%s)", tb->name, tb->key);
        steps[n_steps++] = load_plan_sql(p, "could not create a primary key", sql);
    } else if (tb->key) {
        snprintf(sql, sizeof sql, "create unique index %s_pkey on %s (%s)", tb->name, tb->name,
                 tb->key);
        steps[n_steps++] = load_plan_sql(p, "could not create a primary key", sql);
    }
    if (tb->index_sql)
        steps[n_steps++] = load_plan_sql(p, "could not create an index", tb->index_sql);
    snprintf(sql, sizeof sql, "analyze %s", tb->name);
    steps[n_steps++] = load_plan_sql(p, "could not analyze", sql);
    for (int s = 0; s < n_steps; s++)
        for (int i = 0; i < n; i++)
            load_task_after(p, steps[s], ids[i]);
    if (tb->key && !partitioned) {
        /* The key is made of the unique index once the other index is built too: its
         * ACCESS EXCLUSIVE lock would wait for it anyway. */
        snprintf(sql, sizeof sql,
                 "alter table %s add constraint %s_pkey primary key using index %s_pkey", tb->name,
                 tb->name, tb->name);
        int c = load_plan_sql(p, "could not create a primary key", sql);
        load_task_after(p, c, steps[0]);
        if (tb->index_sql)
            load_task_after(p, c, steps[1]);
    }
}

/* A workload's own tables loaded with TPC-C's (tpcc_load_with), for the one load running. */
static void (*build_more)(struct load_plan *p, const struct load_options *opt);

static void build_plan(struct load_plan *p, const struct load_options *opt)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(load_now, sizeof load_now, "%Y-%m-%d %H:%M:%S", &tm);
    p->setup_sql = setup_sql(opt);
    int max = opt->jobs + own(opt)->partitions + 1;
    int *ids[TPCC_N_TABLES], n[TPCC_N_TABLES];
    for (int t = 0; t < TPCC_N_TABLES; t++) {
        ids[t] = xcalloc((size_t)max, sizeof(int));
        n[t] = add_copies(p, opt, t, ids[t]);
    }
    for (int t = 0; t < TPCC_N_TABLES; t++) {
        add_finish(p, opt, t, ids[t], n[t]);
        free(ids[t]);
    }
    if (build_more)
        build_more(p, opt);
}

int tpcc_load_with(const struct pg_connopts *conn, const struct load_options *opt,
                   const struct load_expect *more, int n_more,
                   void (*build)(struct load_plan *p, const struct load_options *opt),
                   struct err *e)
{
    if (own(opt)->warehouses < 1)
        return err_set(e, ERR_INPUT, "--warehouses must be at least 1, not %d",
                       own(opt)->warehouses);
    int n = TPCC_N_TABLES + n_more;
    struct load_expect *ex = xcalloc((size_t)n, sizeof *ex);
    struct buf shapes[TPCC_N_TABLES];
    for (int t = 0; t < TPCC_N_TABLES; t++) {
        buf_init(&shapes[t]);
        tpcc_shape(&tpcc_tables[t], &shapes[t]);
        ex[t] = (struct load_expect){tpcc_tables[t].name, shapes[t].data, NULL};
    }
    for (int t = 0; t < n_more; t++)
        ex[TPCC_N_TABLES + t] = more[t];
    build_more = build;
    int rc = load_checked_run(conn, opt, ex, n, build_plan, e);
    build_more = NULL;
    for (int t = 0; t < TPCC_N_TABLES; t++)
        buf_free(&shapes[t]);
    free(ex);
    return rc;
}

int load_tpcc(const struct pg_connopts *conn, const struct load_options *opt, struct err *e)
{
    return tpcc_load_with(conn, opt, NULL, 0, NULL, e);
}
