/* sysbench's workloads (oltp-*, on sbtest1..N): their options, the table count and size,
 * detected when not given, and the per-table scripts (builtin_sysbench.c). */
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "workload/workload_int.h"

static int check_run(const struct workload *w, struct workload_run_opts *o, struct err *e)
{
    if (o->scale)
        return err_set(e, ERR_INPUT,
                       "run: %s uses sysbench's tables: give --tables and "
                       "--table-size, not -s",
                       w->name);
    return 0;
}

static int check_init(const struct workload *w, const struct workload_init_given *g, struct err *e)
{
    if (workload_refuse_warehouses(w, g, e) < 0)
        return -1;
    if (g->scale || g->partitions || g->method)
        return err_set(e, ERR_INPUT,
                       "init: %s uses sysbench's tables: give --tables and --table-size, not %s",
                       w->name, g->scale ? "-s" : "--partitions or --partition-method");
    return workload_refuse_pgbench_init(w, g, e);
}

/* The number of tables sbtest1, sbtest2, ... that exist without a gap from 1. */
static const char count_sql[] =
    "SELECT count(*) FROM generate_series(1, (SELECT count(*) FROM pg_class "
    "WHERE relname ~ '^sbtest[1-9][0-9]*$' AND relkind IN ('r', 'p') "
    "AND pg_table_is_visible(oid))::int) i WHERE to_regclass('sbtest' || i) IS NOT NULL";

/* The tables (sbtest1..N) and rows per table that p does not give, from the server: N from
 * the sbtest tables present, rows from max(id) of sbtest1. Sets scale to 1. ERR_INPUT when
 * there are no such tables. */
static int detect(const struct workload *w, struct pg_conn *c, struct workload_params *p,
                  struct err *e)
{
    p->scale = 1;
    char value[64];
    struct err qe = {0};
    if (pg_query_value(c, count_sql, value, sizeof value, &qe) < 0)
        return err_set(e, ERR_RUNTIME, "run: could not look for sysbench's tables: %s", qe.msg);
    if (atoll(value) < 1)
        return err_set(e, ERR_INPUT,
                       "run: workload %s needs sysbench's tables sbtest1..N (run pgarena init "
                       "-w %s)",
                       w->name, w->name);
    if (!p->tables)
        p->tables = atoll(value);
    if (p->table_size)
        return 0;
    if (pg_query_value(c, "SELECT coalesce(max(id), 0) FROM sbtest1", value, sizeof value, &qe) < 0)
        return err_set(e, ERR_INPUT, "run: could not read the size of sbtest1: %s", qe.msg);
    if ((p->table_size = atoll(value)) < 1)
        return err_set(e, ERR_INPUT, "run: sbtest1 is empty (run pgarena init -w %s)", w->name);
    return 0;
}

/* One script per table, equal weights. */
static int scripts(const struct workload *w, const struct workload_params *p, struct script_set *s,
                   struct err *e)
{
    for (int t = 1; t <= p->tables; t++) {
        char *text = sysbench_script(w, t, p->table_size);
        char *name = xasprintf("builtin: %s sbtest%d", w->name, t);
        int rc = script_set_add(s, name, text, 1, e);
        free(name);
        free(text);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static char *show_script(const struct workload *w)
{
    return sysbench_script(w, 1, WORKLOAD_SYSBENCH_TABLE_SIZE);
}

static void interrupted(const struct load_options *opt, struct err *e)
{
    err_set(e, ERR_RUNTIME,
            "init interrupted: tables sbtest1..sbtest%d are incomplete; run init again",
            opt->tables);
}

#define SYSBENCH_OPS                                                                               \
    .dataset = DATASET_SYSBENCH, .why_no_b = "a sysbench workload is one script per table",        \
    .check_run = check_run, .check_init = check_init, .detect = detect, .scripts = scripts,        \
    .show_script = show_script, .load = load_sysbench, .interrupted = interrupted

/* sysbench 1.0's OLTP scripts (oltp_read_write.lua and friends); see builtin_sysbench.c. */
const struct workload workload_oltp_read_write = {
    .name = "oltp-read-write",
    .description = "sysbench oltp_read_write: 10 point selects, 4 ranges, 4 writes",
    .sysbench = SB_POINT_SELECTS | SB_RANGES | SB_WRITES | SB_TRX,
    SYSBENCH_OPS};

const struct workload workload_oltp_read_only = {
    .name = "oltp-read-only",
    .description = "sysbench oltp_read_only: 10 point selects, 4 ranges",
    .sysbench = SB_POINT_SELECTS | SB_RANGES | SB_TRX,
    SYSBENCH_OPS};

const struct workload workload_oltp_point_select = {
    .name = "oltp-point-select",
    .description = "sysbench oltp_point_select: 1 primary-key lookup",
    .sysbench = SB_POINT_SELECTS | SB_ONE_POINT,
    SYSBENCH_OPS};

const struct workload workload_oltp_write_only = {
    .name = "oltp-write-only",
    .description = "sysbench oltp_write_only: 2 updates, delete + insert",
    .sysbench = SB_WRITES | SB_TRX,
    SYSBENCH_OPS};
