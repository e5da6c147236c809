/* pgbench's workloads: tpcb-like, simple-update and select-only, on pgbench's tables. */
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "workload/pgbench/pgbench.h"
#include "workload/workload_int.h"

#define WORKLOAD_OPTIONS_FILE "workload/pgbench/options.def"
#include "workload/option_names.h"

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

static int foreign_option(const struct workload *w, const char *name, struct err *e)
{
    if (workload_group_has(&sysbench_size_options, name))
        return err_set(e, ERR_INPUT,
                       "run: %s uses pgbench's tables: give -s, not --tables or "
                       "--table-size",
                       w->name);
    return 0;
}

static const char *const scale_names[] = {"scale", NULL};
static const struct workload_option_group scale_option = {scale_names, "pgbench's tables"};
/* -s, --partitions, -F and -n are shared (cli/options.def): kv's, tpcc's, run's -n. */
static const char *const partition_names[] = {"partitions", option_PARTITION_METHOD, NULL};
static const struct workload_option_group partition_options = {partition_names,
                                                               "pgbench's and TPC-C's tables"};
static const char *const init_names[] = {option_INIT_STEPS,
                                         "fillfactor",
                                         "no-vacuum",
                                         option_FOREIGN_KEYS,
                                         option_UNLOGGED,
                                         option_TABLESPACE,
                                         option_INDEX_TABLESPACE,
                                         NULL};
const struct workload_option_group pgbench_init_options = {init_names, "pgbench's tables"};
static const struct workload_option_group *const init_groups[] = {&scale_option, &partition_options,
                                                                  &pgbench_init_options, NULL};

_Static_assert(sizeof(struct pgbench_init_opts) <= WORKLOAD_OPTS_SIZE, "pgbench's options fit");

static void init_options_init(void *opts)
{
    *(struct pgbench_init_opts *)opts = (struct pgbench_init_opts){.scale = 1};
}

/* -I: pgbench's step letters. */
static int parse_steps(const char *arg, struct err *e)
{
    for (const char *c = arg; *c; c++)
        if (!strchr("dtgGvpf ", *c))
            return err_set(e, ERR_INPUT,
                           "init: unrecognized initialization step \"%c\" (allowed: "
                           "\"dtgGvpf\")",
                           *c);
    return 0;
}

static int init_option(void *opts, const char *name, const char *arg, struct err *e)
{
    struct pgbench_init_opts *o = opts;
    int64_t v;
    if (strcmp(name, "scale") == 0)
        return workload_parse_scale(arg, &o->scale, e);
    if (strcmp(name, "partitions") == 0)
        return workload_parse_partitions(arg, &o->partitions, e);
    if (strcmp(name, option_PARTITION_METHOD) == 0) {
        if (strcmp(arg, "range") != 0 && strcmp(arg, "hash") != 0)
            return err_set(e, ERR_INPUT,
                           "invalid value for --partition-method: '%s' (expected range or hash)",
                           arg);
        o->partition_method = strcmp(arg, "hash") == 0 ? PGBENCH_PART_HASH : PGBENCH_PART_RANGE;
    } else if (strcmp(name, option_INIT_STEPS) == 0) {
        if (parse_steps(arg, e) < 0)
            return -1;
        o->init_steps = arg;
    } else if (strcmp(name, "fillfactor") == 0) {
        if (num_int("-F", arg, 10, 100, &v, e) < 0)
            return -1;
        o->fillfactor = (int)v;
    } else if (strcmp(name, "no-vacuum") == 0) {
        o->no_vacuum = 1;
    } else if (strcmp(name, option_FOREIGN_KEYS) == 0) {
        o->foreign_keys = 1;
    } else if (strcmp(name, option_UNLOGGED) == 0) {
        o->unlogged = 1;
    } else if (strcmp(name, option_TABLESPACE) == 0) {
        o->tablespace = arg;
    } else if (strcmp(name, option_INDEX_TABLESPACE) == 0) {
        o->index_tablespace = arg;
    }
    return 0;
}

/* Options that do not fit pgbench's tables are usage errors, as in pgbench. */
static int check_init(const struct workload *w, const struct workload_init_given *g, struct err *e)
{
    if (workload_refuse_warehouses(w, g, e) < 0)
        return -1;
    if (workload_given_any(g, &sysbench_size_options))
        return err_set(e, ERR_INPUT,
                       "init: %s uses pgbench's tables: give -s, not --tables or --table-size",
                       w->name);
    if (g->script && workload_given_any(g, &pgbench_init_options))
        return err_set(e, ERR_INPUT,
                       "init: -f runs an init script: pgbench's -I, -F, -n, --foreign-keys, "
                       "--unlogged-tables and tablespaces do not apply");
    const struct workload_option *partitions = workload_given(g, "partitions");
    if (workload_given(g, option_PARTITION_METHOD) && (!partitions || atoi(partitions->arg) < 1))
        return err_set(e, ERR_INPUT, "init: --partition-method requires --partitions above 0");
    return 0;
}

/* run --local's load: at -s, 1 when not given. */
static void load_sizes(const void *opts, int64_t scale, void *init_opts)
{
    (void)opts;
    if (scale)
        ((struct pgbench_init_opts *)init_opts)->scale = (int)scale;
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
    .dataset = DATASET_PGBENCH, .foreign_option = foreign_option, .check_init = check_init,        \
    .detect = detect, .load = load_pgbench, .interrupted = interrupted,                            \
    .init_options = init_groups, .init_options_init = init_options_init,                           \
    .init_option = init_option, .load_sizes = load_sizes

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
