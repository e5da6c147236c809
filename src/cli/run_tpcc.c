#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/run_int.h"

/*
 * What run does for -w tpcc beyond any workload: its options, what it reads of the database
 * before starting (warehouses, the load's NURand constants, the functions), the five scripts,
 * and summary.tpcc: NOPM from the server's sum(d_next_o_id) read at the start and the end of
 * the measured part (as HammerDB does: rollbacks never advance it), and from the clients'
 * committed New-Orders.
 */

static int is_tpcc(const struct run_opts *o)
{
    return o->n_specs == 0 && o->workload->dataset == DATASET_TPCC;
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

int run_tpcc_option(int opt, const char *arg, struct run_opts *o, struct err *e)
{
    switch (opt) {
    case RUN_OPT_WAREHOUSES:
        return args_int("--warehouses", arg, 1, 100000, &o->tpcc.warehouses, e) < 0 ? -1 : 1;
    case RUN_OPT_MIX:
        o->tpcc.mix_given = 1;
        return parse_mix(arg, o->tpcc.mix, e) < 0 ? -1 : 1;
    case RUN_OPT_KEYING_THINKING:
        o->tpcc.keying_thinking = 1;
        return 1;
    case RUN_OPT_PROCEDURES:
        o->tpcc.procedures = 1;
        return 1;
    default:
        return 0;
    }
}

int run_tpcc_check_options(struct run_opts *o, int max_tries_given, int protocol_given,
                           struct err *e)
{
    struct run_tpcc *t = &o->tpcc;
    int any = t->warehouses || t->mix_given || t->keying_thinking || t->procedures;
    if (!is_tpcc(o)) {
        if (any)
            return err_set(e, ERR_INPUT,
                           "run: --warehouses, --mix, --keying-thinking and --procedures are "
                           "for -w tpcc");
        return 0;
    }
    if (o->scale || o->tables || o->table_size)
        return err_set(e, ERR_INPUT,
                       "run: tpcc uses TPC-C's tables: give --warehouses, not -s, --tables or "
                       "--table-size");
    if (!t->mix_given)
        memcpy(t->mix, tpcc_default_mix, sizeof t->mix);
    /* TPC-C's usual setup: prepared statements, and deadlocks between New-Orders (stock rows
     * locked in item order) retried rather than counted as lost work. */
    if (!protocol_given)
        o->protocol = PROTO_PREPARED;
    if (!max_tries_given)
        o->max_tries = RUN_TPCC_MAX_TRIES;
    return 0;
}

/* The server's sum(d_next_o_id) on a connection of its own; -1 when unreadable. */
static int64_t next_o_id_sum(const struct run_opts *o)
{
    struct err e = {0};
    int64_t v = -1;
    struct pg_conn *c = pg_connect(&o->conn, &e);
    if (c && tpcc_next_o_id_sum(c, &v, &e) < 0)
        v = -1;
    if (c)
        pg_finish(c);
    if (v < 0)
        fprintf(stderr, "pgarena: could not read sum(d_next_o_id): %s\n", e.msg);
    return v;
}

int run_tpcc_prepare(struct pg_conn *c, struct run_opts *o, struct err *e)
{
    struct run_tpcc *t = &o->tpcc;
    if (tpcc_inspect(c, &t->db, e) < 0) {
        if (e->code == ERR_INPUT) {
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "%s", e->msg);
            err_set(e, ERR_INPUT, "run: %s", msg);
        }
        return -1;
    }
    if (t->warehouses > t->db.warehouses)
        return err_set(e, ERR_INPUT, "run: --warehouses %lld, but the database holds %d",
                       (long long)t->warehouses, t->db.warehouses);
    if (!t->warehouses)
        t->warehouses = t->db.warehouses;
    if (t->procedures && !t->db.has_procedures)
        return err_set(e, ERR_INPUT,
                       "run: --procedures needs the functions tpcc_new_order, tpcc_payment, ... "
                       "that pgarena init -w tpcc installs; they are missing");
    o->scale = t->warehouses;
    if (o->warmup_s == 0 && (t->before = next_o_id_sum(o)) < 0)
        return err_set(e, ERR_RUNTIME, "run: could not read the district table");
    return 0;
}

void run_tpcc_measure_start(struct run_opts *o)
{
    if (is_tpcc(o) && o->warmup_s > 0)
        o->tpcc.before = next_o_id_sum(o);
}

int run_tpcc_scripts(const struct run_opts *o, struct script_set *s, struct err *e)
{
    if (!is_tpcc(o))
        return 0;
    const struct run_tpcc *t = &o->tpcc;
    struct tpcc_run run = {(int)t->warehouses, t->keying_thinking, t->procedures, {0, 0, 0}};
    tpcc_consts_run((uint64_t)o->seed, &t->db.load, &run.c);
    for (int i = 0; i < TPCC_N_TX; i++) {
        char *text = tpcc_script((enum tpcc_tx)i, &run);
        int rc = script_set_add(s, tpcc_tx_names[i], text, t->mix[i], e);
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

void run_tpcc_result(const struct run_opts *o, struct result *r)
{
    if (!is_tpcc(o))
        return;
    const struct run_tpcc *t = &o->tpcc;
    struct result_tpcc *out = &r->tpcc;
    double minutes = r->summary.duration_s / 60.0;
    uint64_t committed, rolled_back;
    count_new_orders(r, &committed, &rolled_back);
    out->present = 1;
    out->warehouses = (int)t->warehouses;
    out->mode = xstrdup(t->procedures ? "procedures" : "sql");
    out->keying_thinking = t->keying_thinking;
    out->new_order_rollbacks = rolled_back;
    out->nopm_client = minutes > 0 ? (double)committed / minutes : 0;
    out->tpm = minutes > 0 ? (double)r->summary.transactions / minutes : 0;
    int64_t after = t->before >= 0 ? next_o_id_sum(o) : -1;
    out->nopm = after >= 0 && minutes > 0 ? (double)(after - t->before) / minutes : NAN;
}
