/* sysbench's workloads (oltp-*, on sbtest1..N): their options, the table count and size,
 * detected when not given, and the per-table scripts (builtin_sysbench.c). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/num.h"
#include "workload/sysbench/sysbench.h"
#include "workload/workload_int.h"

#define WORKLOAD_OPTIONS_FILE "workload/sysbench/options.def"
#include "workload/option_names.h"

_Static_assert(sizeof(struct sysbench_sizes) <= WORKLOAD_OPTS_SIZE, "sysbench's options fit");

static const char *const option_names[] = {option_TABLES, option_TABLE_SIZE, NULL};
const struct workload_option_group sysbench_size_options = {option_names,
                                                            "sysbench's workloads (-w oltp-*)"};
static const struct workload_option_group *const option_groups[] = {&sysbench_size_options, NULL};

/* run's: 0 until given or detected; init's: sysbench's defaults. */
static void options_init(void *opts)
{
    *(struct sysbench_sizes *)opts = (struct sysbench_sizes){0};
}

static void init_options_init(void *opts)
{
    *(struct sysbench_sizes *)opts = (struct sysbench_sizes){1, SYSBENCH_TABLE_SIZE};
}

static int option(void *opts, const char *name, const char *arg, struct err *e)
{
    struct sysbench_sizes *o = opts;
    if (strcmp(name, option_TABLES) == 0)
        return num_int("--tables", arg, 1, 100000, &o->tables, e);
    return num_int("--table-size", arg, 1, INT32_MAX, &o->table_size, e);
}

/* What run --local and sweep --init load: the sizes given, else init's defaults. */
static void load_sizes(const void *opts, int64_t scale, void *init_opts)
{
    (void)scale;
    const struct sysbench_sizes *o = opts;
    struct sysbench_sizes *to = init_opts;
    if (o->tables)
        to->tables = o->tables;
    if (o->table_size)
        to->table_size = o->table_size;
}

/* The result's workload.tables and workload.table_size. */
static const struct result_size_form tables_form = {"tables", " table", " tables", 0};
static const struct result_size_form table_size_form = {"table_size", " rows", " rows", 1};
static const struct result_size_form *const size_forms[] = {&tables_form, &table_size_form, NULL};

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
    int scale = workload_given(g, "scale") != NULL;
    if (scale || workload_given(g, "partitions") || workload_given(g, "partition-method"))
        return err_set(e, ERR_INPUT,
                       "init: %s uses sysbench's tables: give --tables and --table-size, not %s",
                       w->name, scale ? "-s" : "--partitions or --partition-method");
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
    struct sysbench_sizes *o = p->opts;
    if (!o->tables)
        o->tables = atoll(value);
    if (!o->table_size) {
        if (pg_query_value(c, "SELECT coalesce(max(id), 0) FROM sbtest1", value, sizeof value,
                           &qe) < 0)
            return err_set(e, ERR_INPUT, "run: could not read the size of sbtest1: %s", qe.msg);
        if ((o->table_size = atoll(value)) < 1)
            return err_set(e, ERR_INPUT, "run: sbtest1 is empty (run pgarena init -w %s)", w->name);
    }
    p->sizes[0] = (struct result_size){&tables_form, o->tables};
    p->sizes[1] = (struct result_size){&table_size_form, o->table_size};
    p->n_sizes = 2;
    return 0;
}

/* One script per table, equal weights. */
static int scripts(const struct workload *w, const struct workload_params *p, struct script_set *s,
                   struct err *e)
{
    const struct sysbench_sizes *o = p->opts;
    for (int t = 1; t <= o->tables; t++) {
        char *text = sysbench_script(w, t, o->table_size);
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
    return sysbench_script(w, 1, SYSBENCH_TABLE_SIZE);
}

static void interrupted(const struct load_options *opt, struct err *e)
{
    err_set(e, ERR_RUNTIME,
            "init interrupted: tables sbtest1..sbtest%lld are incomplete; run init again",
            (long long)((const struct sysbench_sizes *)opt->opts)->tables);
}

#define SYSBENCH_OPS                                                                               \
    .dataset = DATASET_SYSBENCH, .why_no_b = "a sysbench workload is one script per table",        \
    .check_run = check_run, .check_init = check_init, .detect = detect, .scripts = scripts,        \
    .show_script = show_script, .load = load_sysbench, .interrupted = interrupted,                 \
    .options = option_groups, .options_init = options_init, .option = option,                      \
    .load_sizes = load_sizes, .sizes = size_forms, .init_options = option_groups,                  \
    .init_options_init = init_options_init, .init_option = option

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
