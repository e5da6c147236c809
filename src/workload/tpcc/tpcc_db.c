#include "workload/tpcc/tpcc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/rng.h"
#include "workload/tpcc/tpcc_int.h"
#include "workload/tpcc/tpcc_schema.h"

/* The NURand constants, and what run reads of a TPC-C database before it starts. */

#define COMMENT_FORMAT "pgarena tpcc: C_LAST=%d C_ID=%d OL_I_ID=%d"

void tpcc_consts_load(uint64_t seed, struct tpcc_consts *k)
{
    struct rng r;
    rng_seed(&r, seed ^ 0x7c0c0a57ULL);
    k->c_last = (int)rng_range(&r, 0, 255);
    k->c_id = (int)rng_range(&r, 0, 1023);
    k->ol_i_id = (int)rng_range(&r, 0, 8191);
}

void tpcc_consts_run(uint64_t seed, const struct tpcc_consts *load, struct tpcc_consts *run)
{
    struct rng r;
    rng_seed(&r, seed ^ 0x7c0c0a58ULL);
    run->c_last = tpcc_c_last_run(&r, load->c_last);
    run->c_id = (int)rng_range(&r, 0, 1023);
    run->ol_i_id = (int)rng_range(&r, 0, 8191);
}

char *tpcc_consts_comment(const struct tpcc_consts *k)
{
    return xasprintf(COMMENT_FORMAT, k->c_last, k->c_id, k->ol_i_id);
}

int tpcc_consts_parse(const char *text, struct tpcc_consts *k)
{
    struct tpcc_consts v;
    if (sscanf(text, COMMENT_FORMAT, &v.c_last, &v.c_id, &v.ol_i_id) != 3 || v.c_last < 0 ||
        v.c_last > 255 || v.c_id < 0 || v.c_id > 1023 || v.ol_i_id < 0 || v.ol_i_id > 8191)
        return -1;
    *k = v;
    return 0;
}

/* Each table must exist with TPC-C's columns: run's queries name them. */
static int check_table(struct pg_conn *c, const struct tpcc_table *t, struct err *e)
{
    char sql[512], cols[2048];
    snprintf(sql, sizeof sql,
             "select coalesce((select string_agg(a.attname || ' ' || "
             "format_type(a.atttypid, a.atttypmod), ', ' order by a.attnum) from pg_attribute a "
             "where a.attrelid = to_regclass('%s') and a.attnum > 0 and not a.attisdropped), "
             "'-')",
             t->name);
    struct err qe = {0};
    if (pg_query_value(c, sql, cols, sizeof cols, &qe) < 0)
        return err_set(e, ERR_RUNTIME, "run: could not look for table %s: %s", t->name, qe.msg);
    if (strcmp(cols, "-") == 0)
        return err_set(e, ERR_INPUT,
                       "table %s is missing: this database holds no TPC-C data (run pgarena "
                       "init -w tpcc --warehouses N)",
                       t->name);
    struct buf want;
    buf_init(&want);
    tpcc_shape(t, &want);
    int same = strcmp(cols, want.data) == 0;
    buf_free(&want);
    if (!same)
        return err_set(e, ERR_INPUT,
                       "table %s has other columns than TPC-C's (%s): not loaded by pgarena "
                       "init -w tpcc",
                       t->name, cols);
    return 0;
}

static const char procs_sql[] =
    "select count(distinct proname) from pg_proc where proname in ('tpcc_last_name', "
    "'tpcc_new_order', 'tpcc_customer_by_name', 'tpcc_payment', 'tpcc_order_status', "
    "'tpcc_delivery', 'tpcc_stock_level') and pg_function_is_visible(oid)";

int tpcc_inspect(struct pg_conn *c, struct tpcc_db *db, struct err *e)
{
    memset(db, 0, sizeof *db);
    for (int t = TPCC_N_TABLES - 1; t >= 0; t--) /* warehouse first */
        if (check_table(c, &tpcc_tables[t], e) < 0)
            return -1;
    char v[256];
    struct err qe = {0};
    if (pg_query_value(c, "select count(*) from warehouse", v, sizeof v, &qe) < 0)
        return err_set(e, ERR_RUNTIME, "could not count the warehouses: %s", qe.msg);
    db->warehouses = atoi(v);
    if (db->warehouses < 1)
        return err_set(e, ERR_INPUT,
                       "table warehouse is empty (run pgarena init -w tpcc --warehouses N)");
    if (pg_query_value(c, "select coalesce(obj_description('warehouse'::regclass, 'pg_class'), '')",
                       v, sizeof v, &qe) < 0)
        return err_set(e, ERR_RUNTIME, "could not read the comment of warehouse: %s", qe.msg);
    db->has_constants = tpcc_consts_parse(v, &db->load) == 0;
    if (!db->has_constants)
        tpcc_consts_load(0, &db->load);
    if (pg_query_value(c, procs_sql, v, sizeof v, &qe) < 0)
        return err_set(e, ERR_RUNTIME, "could not look for the functions: %s", qe.msg);
    db->has_procedures = atoi(v) == 7;
    return 0;
}

int tpcc_next_o_id_sum(struct pg_conn *c, int64_t *out, struct err *e)
{
    char v[64];
    if (pg_query_value(c, "select coalesce(sum(d_next_o_id), 0) from district", v, sizeof v, e) < 0)
        return -1;
    *out = atoll(v);
    return 0;
}
