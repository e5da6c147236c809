/* pgbench's workloads: tpcb-like, simple-update and select-only, on pgbench's tables. */
#include <stdlib.h>

#include "workload/workload_int.h"

/* The scripts are pgbench's own (pgbench --show-script), so results compare like for like. */

#define PGBENCH_RANDOM_VARS                                                                        \
    "\\set aid random(1, 100000 * :scale)\n"                                                       \
    "\\set bid random(1, 1 * :scale)\n"                                                            \
    "\\set tid random(1, 10 * :scale)\n"                                                           \
    "\\set delta random(-5000, 5000)\n"

#define PGBENCH_ACCOUNT_UPDATE                                                                     \
    "BEGIN;\n"                                                                                     \
    "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;\n"                 \
    "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"

#define PGBENCH_HISTORY_INSERT                                                                     \
    "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, "         \
    ":delta, CURRENT_TIMESTAMP);\n"                                                                \
    "END;\n"

static int check_run(const struct workload *w, struct workload_run_opts *o, struct err *e)
{
    if (o->tables || o->table_size)
        return err_set(e, ERR_INPUT,
                       "run: %s uses pgbench's tables: give -s, not --tables or "
                       "--table-size",
                       w->name);
    return 0;
}

static int check_init(const struct workload *w, const struct workload_init_given *g, struct err *e)
{
    if (workload_refuse_warehouses(w, g, e) < 0)
        return -1;
    if (g->tables || g->size)
        return err_set(e, ERR_INPUT,
                       "init: %s uses pgbench's tables: give -s, not --tables or --table-size",
                       w->name);
    return 0;
}

/* The scale, from the branches (-s, when given, is kept). */
static int detect(const struct workload *w, struct pg_conn *c, struct workload_params *p,
                  struct err *e)
{
    (void)w;
    char value[64];
    struct err qe = {0};
    if (pg_query_value(c, "SELECT count(*) FROM pgbench_branches", value, sizeof value, &qe) < 0)
        return err_set(e, ERR_INPUT,
                       "run: workload %s needs pgbench's tables (run pgarena init): %s", p->name,
                       qe.msg);
    if (p->scale == 0 && (p->scale = atoll(value)) < 1)
        return err_set(e, ERR_INPUT, "run: pgbench_branches is empty (run pgarena init)");
    return 0;
}

static void interrupted(const struct load_options *opt, struct err *e)
{
    (void)opt;
    err_set(e, ERR_RUNTIME,
            "init interrupted: tables pgbench_accounts, pgbench_branches, "
            "pgbench_history and pgbench_tellers are incomplete; run init again");
}

#define PGBENCH_OPS                                                                                \
    .dataset = DATASET_PGBENCH, .check_run = check_run, .check_init = check_init,                  \
    .detect = detect, .load = load_pgbench, .interrupted = interrupted

const struct workload workload_tpcb_like = {
    .name = "tpcb-like",
    .description = "pgbench's TPC-B (sort of) transaction",
    .script = PGBENCH_RANDOM_VARS PGBENCH_ACCOUNT_UPDATE
    "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;\n"
    "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = "
    ":bid;\n" PGBENCH_HISTORY_INSERT,
    PGBENCH_OPS};

const struct workload workload_simple_update = {
    .name = "simple-update",
    .description = "pgbench -N: update accounts, insert history",
    .script = PGBENCH_RANDOM_VARS PGBENCH_ACCOUNT_UPDATE PGBENCH_HISTORY_INSERT,
    PGBENCH_OPS};

const struct workload workload_select_only = {
    .name = "select-only",
    .description = "pgbench -S: one primary-key lookup",
    .script = "\\set aid random(1, 100000 * :scale)\n"
              "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n",
    PGBENCH_OPS};
