#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "bench/bench_int.h"

/* What run needs to know about the sysbench workloads beyond pgbench's: table count and
 * size, detected when not given, and the per-table scripts. */

/* The number of tables sbtest1, sbtest2, ... that exist without a gap from 1. */
static const char count_sql[] =
    "SELECT count(*) FROM generate_series(1, (SELECT count(*) FROM pg_class "
    "WHERE relname ~ '^sbtest[1-9][0-9]*$' AND relkind IN ('r', 'p') "
    "AND pg_table_is_visible(oid))::int) i WHERE to_regclass('sbtest' || i) IS NOT NULL";

int bench_sysbench_detect(struct pg_conn *c, struct bench *b, struct err *e)
{
    if (b->p.workload->dataset != DATASET_SYSBENCH)
        return 0;
    b->p.scale = 1;
    char value[64];
    struct err qe = {0};
    if (pg_query_value(c, count_sql, value, sizeof value, &qe) < 0)
        return err_set(e, ERR_RUNTIME, "run: could not look for sysbench's tables: %s", qe.msg);
    if (atoll(value) < 1)
        return err_set(e, ERR_INPUT,
                       "run: workload %s needs sysbench's tables sbtest1..N (run pgarena init "
                       "-w %s)",
                       b->p.workload->name, b->p.workload->name);
    if (!b->p.tables)
        b->p.tables = atoll(value);
    if (b->p.table_size)
        return 0;
    if (pg_query_value(c, "SELECT coalesce(max(id), 0) FROM sbtest1", value, sizeof value, &qe) < 0)
        return err_set(e, ERR_INPUT, "run: could not read the size of sbtest1: %s", qe.msg);
    if ((b->p.table_size = atoll(value)) < 1)
        return err_set(e, ERR_INPUT, "run: sbtest1 is empty (run pgarena init -w %s)",
                       b->p.workload->name);
    return 0;
}

int bench_sysbench_scripts(const struct bench *b, struct script_set *s, struct err *e)
{
    if (b->p.workload->dataset != DATASET_SYSBENCH)
        return 0;
    for (int t = 1; t <= b->p.tables; t++) {
        char *text = builtin_sysbench_script(b->p.workload, t, b->p.table_size);
        char *name = xasprintf("builtin: %s sbtest%d", b->p.workload->name, t);
        int rc = script_set_add(s, name, text, 1, e);
        free(name);
        free(text);
        if (rc < 0)
            return -1;
    }
    return 0;
}
