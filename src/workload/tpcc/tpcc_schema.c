#include "workload/tpcc/tpcc_schema.h"

#include <string.h>

#include "base/buf.h"

/*
 * The nine tables of clause 1.3 under HammerDB's names (orders for ORDER), their columns in
 * the spec's order with PostgreSQL types as format_type spells them (so the same text is the
 * DDL and the shape init and run check), keys, and the two secondary indexes.
 */

#define ID    "integer"
#define VC(n) "character varying(" #n ")"
#define CH(n) "character(" #n ")"
#define TS    "timestamp without time zone"

#define ADDRESS(x)                                                                                 \
    {x "_street_1", VC(20)}, {x "_street_2", VC(20)}, {x "_city", VC(20)}, {x "_state", CH(2)},    \
    {                                                                                              \
        x "_zip", CH(9)                                                                            \
    }

static const struct tpcc_column warehouse_cols[] = {{"w_id", ID},
                                                    {"w_name", VC(10)},
                                                    ADDRESS("w"),
                                                    {"w_tax", "numeric(4,4)"},
                                                    {"w_ytd", "numeric(12,2)"},
                                                    {NULL, NULL}};

static const struct tpcc_column district_cols[] = {{"d_id", ID},
                                                   {"d_w_id", ID},
                                                   {"d_name", VC(10)},
                                                   ADDRESS("d"),
                                                   {"d_tax", "numeric(4,4)"},
                                                   {"d_ytd", "numeric(12,2)"},
                                                   {"d_next_o_id", ID},
                                                   {NULL, NULL}};

static const struct tpcc_column customer_cols[] = {{"c_id", ID},
                                                   {"c_d_id", ID},
                                                   {"c_w_id", ID},
                                                   {"c_first", VC(16)},
                                                   {"c_middle", CH(2)},
                                                   {"c_last", VC(16)},
                                                   ADDRESS("c"),
                                                   {"c_phone", CH(16)},
                                                   {"c_since", TS},
                                                   {"c_credit", CH(2)},
                                                   {"c_credit_lim", "numeric(12,2)"},
                                                   {"c_discount", "numeric(4,4)"},
                                                   {"c_balance", "numeric(12,2)"},
                                                   {"c_ytd_payment", "numeric(12,2)"},
                                                   {"c_payment_cnt", ID},
                                                   {"c_delivery_cnt", ID},
                                                   {"c_data", VC(500)},
                                                   {NULL, NULL}};

static const struct tpcc_column history_cols[] = {{"h_c_id", ID},
                                                  {"h_c_d_id", ID},
                                                  {"h_c_w_id", ID},
                                                  {"h_d_id", ID},
                                                  {"h_w_id", ID},
                                                  {"h_date", TS},
                                                  {"h_amount", "numeric(6,2)"},
                                                  {"h_data", VC(24)},
                                                  {NULL, NULL}};

static const struct tpcc_column new_order_cols[] = {
    {"no_o_id", ID}, {"no_d_id", ID}, {"no_w_id", ID}, {NULL, NULL}};

static const struct tpcc_column orders_cols[] = {
    {"o_id", ID},         {"o_d_id", ID},   {"o_w_id", ID},      {"o_c_id", ID}, {"o_entry_d", TS},
    {"o_carrier_id", ID}, {"o_ol_cnt", ID}, {"o_all_local", ID}, {NULL, NULL}};

static const struct tpcc_column order_line_cols[] = {
    {"ol_o_id", ID},          {"ol_d_id", ID},     {"ol_w_id", ID},
    {"ol_number", ID},        {"ol_i_id", ID},     {"ol_supply_w_id", ID},
    {"ol_delivery_d", TS},    {"ol_quantity", ID}, {"ol_amount", "numeric(6,2)"},
    {"ol_dist_info", CH(24)}, {NULL, NULL}};

static const struct tpcc_column item_cols[] = {{"i_id", ID},       {"i_im_id", ID},
                                               {"i_name", VC(24)}, {"i_price", "numeric(5,2)"},
                                               {"i_data", VC(50)}, {NULL, NULL}};

static const struct tpcc_column stock_cols[] = {
    {"s_i_id", ID},        {"s_w_id", ID},        {"s_quantity", ID},    {"s_dist_01", CH(24)},
    {"s_dist_02", CH(24)}, {"s_dist_03", CH(24)}, {"s_dist_04", CH(24)}, {"s_dist_05", CH(24)},
    {"s_dist_06", CH(24)}, {"s_dist_07", CH(24)}, {"s_dist_08", CH(24)}, {"s_dist_09", CH(24)},
    {"s_dist_10", CH(24)}, {"s_ytd", ID},         {"s_order_cnt", ID},   {"s_remote_cnt", ID},
    {"s_data", VC(50)},    {NULL, NULL}};

/* Largest first: the pool of loading connections takes tasks in this order. */
const struct tpcc_table tpcc_tables[TPCC_N_TABLES] = {
    {"order_line", order_line_cols, "ol_w_id, ol_d_id, ol_o_id, ol_number", NULL, "ol_w_id"},
    {"stock", stock_cols, "s_w_id, s_i_id", NULL, "s_w_id"},
    {"customer", customer_cols, "c_w_id, c_d_id, c_id",
     "create index customer_i2 on customer (c_w_id, c_d_id, c_last, c_first)", NULL},
    {"item", item_cols, "i_id", NULL, NULL},
    {"history", history_cols, NULL, NULL, NULL},
    {"orders", orders_cols, "o_w_id, o_d_id, o_id",
     "create index orders_i2 on orders (o_w_id, o_d_id, o_c_id, o_id)", NULL},
    {"new_order", new_order_cols, "no_w_id, no_d_id, no_o_id", NULL, NULL},
    {"district", district_cols, "d_w_id, d_id", NULL, NULL},
    {"warehouse", warehouse_cols, "w_id", NULL, NULL},
};

const struct tpcc_table *tpcc_table(const char *name)
{
    for (int i = 0; i < TPCC_N_TABLES; i++)
        if (strcmp(tpcc_tables[i].name, name) == 0)
            return &tpcc_tables[i];
    return NULL;
}

void tpcc_shape(const struct tpcc_table *t, struct buf *b)
{
    for (const struct tpcc_column *c = t->cols; c->name; c++)
        buf_printf(b, "%s%s %s", c == t->cols ? "" : ", ", c->name, c->type);
}

void tpcc_create_sql(const struct tpcc_table *t, int partitions, struct buf *b)
{
    buf_printf(b, "create table %s (", t->name);
    tpcc_shape(t, b);
    buf_puts(b, ")");
    if (partitions > 0 && t->partition_key) {
        buf_printf(b, " partition by hash (%s);\n", t->partition_key);
        for (int p = 1; p <= partitions; p++)
            buf_printf(b,
                       "create table %s_%d partition of %s for values with (modulus %d, "
                       "remainder %d)%s",
                       t->name, p, t->name, partitions, p - 1, p < partitions ? ";\n" : "");
    }
}
