#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/num.h"
#include "workload/tpcc/tpcc.h"
#include "workload/tpcc/tpcc_result.h"
#include "workload/workload_int.h"

#define WORKLOAD_OPTIONS_FILE "workload/tpcc/options.def"
#include "workload/option_names.h"

/*
 * The workload tpcc: its options, what a run reads of the database before starting
 * (warehouses, the load's NURand constants, the functions), the five scripts, and
 * summary.tpcc: NOPM from the server's sum(d_next_o_id) read at the start and the end of
 * the measured part (as HammerDB does: rollbacks never advance it), and from the clients'
 * committed New-Orders; and pgarena check's consistency conditions.
 */

/* --max-tries when not given: deadlocks between New-Orders are retried. */
#define TPCC_MAX_TRIES 10

/* A run's state: what it read of the database. */
struct tpcc_state {
    struct tpcc_db db;
    int64_t before; /* sum(d_next_o_id) at the start of the measured part; -1 unknown */
};

static const char *const option_names[] = {option_WAREHOUSES, option_MIX, option_KEYING_THINKING,
                                           option_PROCEDURES, NULL};
const struct workload_option_group tpcc_option_group = {option_names, "-w tpcc"};
static const struct workload_option_group *const option_groups[] = {&tpcc_option_group, NULL};

_Static_assert(sizeof(struct tpcc_opts) <= WORKLOAD_OPTS_SIZE, "tpcc's options fit");

void tpcc_options_init(void *opts)
{
    struct tpcc_opts *o = opts;
    *o = (struct tpcc_opts){0};
    memcpy(o->mix, tpcc_default_mix, sizeof o->mix);
}

/* --mix: five whole numbers summing to 100. */
static int parse_mix(const char *arg, int mix[TPCC_N_TX], struct err *e)
{
    const char *p = arg;
    int sum = 0;
    for (int i = 0; i < TPCC_N_TX; i++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > 100 || (i < TPCC_N_TX - 1 && *end != ',') ||
            (i == TPCC_N_TX - 1 && *end != '\0'))
            return err_set(e, ERR_INPUT,
                           "invalid value for --mix: '%s' (expected five numbers summing to 100, "
                           "e.g. 45,43,4,4,4)",
                           arg);
        mix[i] = (int)v;
        sum += (int)v;
        p = end + 1;
    }
    if (sum != 100)
        return err_set(e, ERR_INPUT, "invalid value for --mix: '%s' sums to %d, not 100", arg, sum);
    return 0;
}

int tpcc_option(void *opts, const char *name, const char *arg, struct err *e)
{
    struct tpcc_opts *o = opts;
    if (strcmp(name, option_WAREHOUSES) == 0)
        return num_int("--warehouses", arg, 1, 100000, &o->warehouses, e);
    if (strcmp(name, option_MIX) == 0)
        return parse_mix(arg, o->mix, e);
    if (strcmp(name, option_KEYING_THINKING) == 0)
        o->keying_thinking = 1;
    else if (strcmp(name, option_PROCEDURES) == 0)
        o->procedures = 1;
    return 0;
}

void tpcc_load_sizes(const void *opts, int64_t scale, void *init_opts)
{
    (void)scale;
    const struct tpcc_opts *o = opts;
    if (o->warehouses)
        ((struct tpcc_init_opts *)init_opts)->warehouses = (int)o->warehouses;
}

/* --partitions is shared with pgbench's tables (cli/options.def). */
static const char *const init_option_names[] = {option_WAREHOUSES, "partitions", NULL};
static const struct workload_option_group tpcc_init_option_group = {init_option_names,
                                                                    "-w tpcc and -w ch"};
const struct workload_option_group *const tpcc_init_option_groups[] = {&tpcc_init_option_group,
                                                                       NULL};

_Static_assert(sizeof(struct tpcc_init_opts) <= WORKLOAD_OPTS_SIZE, "tpcc's init options fit");

void tpcc_init_options_init(void *opts)
{
    *(struct tpcc_init_opts *)opts = (struct tpcc_init_opts){.warehouses = 1};
}

int tpcc_init_option(void *opts, const char *name, const char *arg, struct err *e)
{
    struct tpcc_init_opts *o = opts;
    if (strcmp(name, "partitions") == 0)
        return workload_parse_partitions(arg, &o->partitions, e);
    int64_t v;
    if (num_int("--warehouses", arg, 1, 100000, &v, e) < 0)
        return -1;
    o->warehouses = (int)v;
    return 0;
}

int tpcc_foreign_option(const struct workload *w, const char *name, struct err *e)
{
    (void)w;
    if (strcmp(name, "scale") == 0 || workload_group_has(&sysbench_size_options, name))
        return err_set(e, ERR_INPUT,
                       "run: tpcc uses TPC-C's tables: give --warehouses, not -s, --tables or "
                       "--table-size");
    return 0;
}

static int check_run(const struct workload *w, struct workload_run_opts *o, struct err *e)
{
    if (o->scale)
        return tpcc_foreign_option(w, "scale", e);
    /* TPC-C's usual setup: prepared statements, and deadlocks between New-Orders (stock rows
     * locked in item order) retried rather than counted as lost work. */
    o->prepared = 1;
    o->max_tries = TPCC_MAX_TRIES;
    return 0;
}

static int check_init(const struct workload *w, const struct workload_init_given *g, struct err *e)
{
    int scale = workload_given(g, "scale") != NULL;
    int method = workload_given(g, "partition-method") != NULL;
    if (scale || method || workload_given_any(g, &sysbench_size_options))
        return err_set(e, ERR_INPUT,
                       "init: tpcc uses TPC-C's tables: give --warehouses (and --partitions), "
                       "not %s",
                       scale    ? "-s"
                       : method ? "--partition-method"
                                : "--tables or --table-size");
    return workload_refuse_pgbench_init(w, g, e);
}

/* The server's sum(d_next_o_id) on a connection of its own; -1 when unreadable. */
static int64_t next_o_id_sum(const struct workload_params *p)
{
    struct err e = {0};
    int64_t v = -1;
    struct pg_conn *c = pg_connect(p->conn, &e);
    if (c && tpcc_next_o_id_sum(c, &v, &e) < 0)
        v = -1;
    if (c)
        pg_finish(c);
    if (v < 0)
        fprintf(stderr, "pgarena: could not read sum(d_next_o_id): %s\n", e.msg);
    return v;
}

/* The tables (ERR_INPUT naming what is missing), the warehouses (detected, or checked against
 * --warehouses), the functions for --procedures, and sum(d_next_o_id) when no warmup comes
 * first. */
static int detect(const struct workload *w, struct pg_conn *c, struct workload_params *p,
                  struct err *e)
{
    (void)w;
    struct tpcc_state *t = xcalloc(1, sizeof *t);
    p->state = t;
    struct tpcc_opts *to = p->opts;
    if (tpcc_inspect(c, &t->db, e) < 0) {
        if (e->code == ERR_INPUT) {
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "%s", e->msg);
            err_set(e, ERR_INPUT, "run: %s", msg);
        }
        return -1;
    }
    if (to->warehouses > t->db.warehouses)
        return err_set(e, ERR_INPUT, "run: --warehouses %lld, but the database holds %d",
                       (long long)to->warehouses, t->db.warehouses);
    if (!to->warehouses)
        to->warehouses = t->db.warehouses;
    if (to->procedures && !t->db.has_procedures)
        return err_set(e, ERR_INPUT,
                       "run: --procedures needs the functions tpcc_new_order, tpcc_payment, ... "
                       "that pgarena init -w tpcc installs; they are missing");
    p->scale = to->warehouses;
    p->sleep_is_terminal_time = to->keying_thinking;
    if (p->warmup_s == 0 && (t->before = next_o_id_sum(p)) < 0)
        return err_set(e, ERR_RUNTIME, "run: could not read the district table");
    return 0;
}

static void measure_start(const struct workload *w, struct workload_params *p)
{
    (void)w;
    struct tpcc_state *t = p->state;
    if (t && p->warmup_s > 0)
        t->before = next_o_id_sum(p);
}

/* The five scripts with the mix as weights. */
static int scripts(const struct workload *w, const struct workload_params *p, struct script_set *s,
                   struct err *e)
{
    (void)w;
    const struct tpcc_state *t = p->state;
    const struct tpcc_opts *to = p->opts;
    struct tpcc_run run = {(int)to->warehouses, to->keying_thinking, to->procedures, {0, 0, 0}};
    tpcc_consts_run((uint64_t)p->seed, &t->db.load, &run.c);
    for (int i = 0; i < TPCC_N_TX; i++) {
        char *text = tpcc_script((enum tpcc_tx)i, &run);
        int rc = script_set_add(s, tpcc_tx_names[i], text, to->mix[i], e);
        free(text);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* New-Orders committed and rolled back, from the executions of new-order's last statements:
 * its COMMIT, its autocommitted function call (--procedures), its ROLLBACK. */
static void count_new_orders(const struct result *r, uint64_t *committed, uint64_t *rolled_back)
{
    *committed = *rolled_back = 0;
    for (size_t i = 0; i < r->n_statements; i++) {
        const struct result_statement *st = &r->statements[i];
        if (!st->script || !st->sql || strcmp(st->script, tpcc_tx_names[TPCC_NEW_ORDER]) != 0)
            continue;
        if (strncmp(st->sql, "COMMIT", 6) == 0 || strstr(st->sql, "AS committed"))
            *committed += st->count;
        else if (strncmp(st->sql, "ROLLBACK", 8) == 0)
            *rolled_back += st->count;
    }
}

/* summary.tpcc (reads sum(d_next_o_id) again). */
static void result(const struct workload *w, const struct workload_params *p, struct result *r)
{
    (void)w;
    const struct tpcc_state *t = p->state;
    const struct tpcc_opts *to = p->opts;
    struct tpcc_figures *out = xcalloc(1, sizeof *out);
    double minutes = r->summary.duration_s / 60.0;
    uint64_t committed, rolled_back;
    count_new_orders(r, &committed, &rolled_back);
    out->warehouses = (int)to->warehouses;
    out->mode = xstrdup(to->procedures ? "procedures" : "sql");
    out->keying_thinking = to->keying_thinking;
    out->new_order_rollbacks = rolled_back;
    out->nopm_client = minutes > 0 ? (double)committed / minutes : 0;
    out->tpm = minutes > 0 ? (double)r->summary.transactions / minutes : 0;
    int64_t after = t->before >= 0 ? next_o_id_sum(p) : -1;
    out->nopm = after >= 0 && minutes > 0 ? (double)(after - t->before) / minutes : NAN;
    result_part_set(r, &tpcc_result_part, out);
}

static void free_state(const struct workload *w, struct workload_params *p)
{
    (void)w;
    free(p->state);
    p->state = NULL;
}

static void interrupted(const struct load_options *opt, struct err *e)
{
    (void)opt;
    err_set(e, ERR_RUNTIME,
            "init interrupted: the TPC-C tables (warehouse, district, customer, history, "
            "new_order, orders, order_line, item, stock) are incomplete; run init again");
}

/* pgarena check -w tpcc: clause 3.3.2's conditions. */
static int check(const struct pg_connopts *conn, int all, int jobs, char *report,
                 size_t report_size, struct err *e)
{
    struct pg_conn *c = pg_connect(conn, e);
    if (!c)
        return -1;
    struct tpcc_db db;
    char failure[1200], checked[64];
    int rc = tpcc_inspect(c, &db, e);
    pg_finish(c);
    if (rc == 0)
        rc = tpcc_check(conn, all, jobs, failure, sizeof failure, checked, sizeof checked, e);
    if (rc == 1)
        snprintf(report, report_size, "%s", failure);
    else if (rc == 0)
        snprintf(report, report_size, "consistency conditions %s hold (%d warehouses)%s", checked,
                 db.warehouses,
                 all && !strstr(checked, "11") ? "; 11 not checked: Delivery has run" : "");
    return rc;
}

/* TPC-C's five transactions; the scripts are generated (builtin_tpcc.c). */
const struct workload workload_tpcc = {
    .name = "tpcc",
    .description = "TPC-C: New-Order, Payment, Order-Status, Delivery, Stock-Level",
    .dataset = DATASET_TPCC,
    .why_no_b = "TPC-C's five scripts are made from its tables",
    .options = option_groups,
    .options_init = tpcc_options_init,
    .option = tpcc_option,
    .load_sizes = tpcc_load_sizes,
    .foreign_option = tpcc_foreign_option,
    .check_run = check_run,
    .check_init = check_init,
    .init_options = tpcc_init_option_groups,
    .init_options_init = tpcc_init_options_init,
    .init_option = tpcc_init_option,
    .detect = detect,
    .scripts = scripts,
    .load = load_tpcc,
    .interrupted = interrupted,
    .check = check,
    .measure_start = measure_start,
    .result = result,
    .free_state = free_state,
    .part = &tpcc_result_part,
};
