#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "bench/bench_int.h"

/*
 * What run does for -w tpcc beyond any workload: its options, what it reads of the database
 * before starting (warehouses, the load's NURand constants, the functions), the five scripts,
 * and summary.tpcc: NOPM from the server's sum(d_next_o_id) read at the start and the end of
 * the measured part (as HammerDB does: rollbacks never advance it), and from the clients'
 * committed New-Orders.
 */

/* The server's sum(d_next_o_id) on a connection of its own; -1 when unreadable. */
static int64_t next_o_id_sum(const struct bench *b)
{
    struct err e = {0};
    int64_t v = -1;
    struct pg_conn *c = pg_connect(&b->p.conn, &e);
    if (c && tpcc_next_o_id_sum(c, &v, &e) < 0)
        v = -1;
    if (c)
        pg_finish(c);
    if (v < 0)
        fprintf(stderr, "pgarena: could not read sum(d_next_o_id): %s\n", e.msg);
    return v;
}

int bench_tpcc_prepare(struct pg_conn *c, struct bench *b, struct err *e)
{
    struct bench_tpcc *t = &b->tpcc;
    struct bench_tpcc_opts *to = &b->p.tpcc;
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
    b->p.scale = to->warehouses;
    if (b->p.warmup_s == 0 && (t->before = next_o_id_sum(b)) < 0)
        return err_set(e, ERR_RUNTIME, "run: could not read the district table");
    return 0;
}

void bench_tpcc_measure_start(struct bench *b)
{
    if (bench_is_tpcc(&b->p) && b->p.warmup_s > 0)
        b->tpcc.before = next_o_id_sum(b);
}

int bench_tpcc_scripts(const struct bench *b, struct script_set *s, struct err *e)
{
    if (!bench_is_tpcc(&b->p))
        return 0;
    const struct bench_tpcc *t = &b->tpcc;
    const struct bench_tpcc_opts *to = &b->p.tpcc;
    struct tpcc_run run = {(int)to->warehouses, to->keying_thinking, to->procedures, {0, 0, 0}};
    tpcc_consts_run((uint64_t)b->p.seed, &t->db.load, &run.c);
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

void bench_tpcc_result(const struct bench *b, struct result *r)
{
    if (!bench_is_tpcc(&b->p))
        return;
    const struct bench_tpcc *t = &b->tpcc;
    const struct bench_tpcc_opts *to = &b->p.tpcc;
    struct result_tpcc *out = &r->tpcc;
    double minutes = r->summary.duration_s / 60.0;
    uint64_t committed, rolled_back;
    count_new_orders(r, &committed, &rolled_back);
    out->present = 1;
    out->warehouses = (int)to->warehouses;
    out->mode = xstrdup(to->procedures ? "procedures" : "sql");
    out->keying_thinking = to->keying_thinking;
    out->new_order_rollbacks = rolled_back;
    out->nopm_client = minutes > 0 ? (double)committed / minutes : 0;
    out->tpm = minutes > 0 ? (double)r->summary.transactions / minutes : 0;
    int64_t after = t->before >= 0 ? next_o_id_sum(b) : -1;
    out->nopm = after >= 0 && minutes > 0 ? (double)(after - t->before) / minutes : NAN;
}
