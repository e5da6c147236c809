#include "workload/tpcc/tpcc.h"

#include "base/buf.h"
#include "workload/tpcc/tpcc_int.h"

/*
 * TPC-C's five transactions (clause 2) as scripts in pgbench's language. The terminal's
 * inputs are drawn with \set exactly as the spec's profiles draw them (NURand with the run's
 * constants, 1 % rollbacks through an unused item, 1 % remote order lines, 15 % remote and
 * 60 % by-name payments, 60 % by-name order statuses); the database work is client-side SQL,
 * or one call of the PL/pgSQL function that does the same (tpcc_procs.c).
 *
 * Only numbers are substituted into SQL (strings stay on the server: a last name is built
 * from its number by an SQL expression), so the scripts work in every protocol. Where the
 * language has no loop (New-Order's order lines) the script holds 15 copies, each under an
 * \if on the order's line count; Delivery's ten districts are ten statements, each doing one
 * district's delivery with data-modifying CTEs.
 */

const char *const tpcc_tx_names[TPCC_N_TX] = {"new-order", "payment", "order-status", "delivery",
                                              "stock-level"};

const int tpcc_default_mix[TPCC_N_TX] = {45, 43, 4, 4, 4};

const char tpcc_rollback_sql[] = "ROLLBACK;";

/* Keying and mean think times in seconds (clause 5.2.5.7). */
static const int keying_s[TPCC_N_TX] = {18, 3, 2, 2, 2};
static const int think_s[TPCC_N_TX] = {12, 12, 10, 5, 5};

#define SYLLABLES "(ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])"

static void nurand(struct buf *b, const char *var, int a, int x, int y, int c)
{
    buf_printf(b, "\\set %s ((random(0, %d) | random(%d, %d)) + %d) %% %d + %d\n", var, a, x, y, c,
               y - x + 1, x);
}

/* The last name of number :c_last_n, as SQL. */
static void last_name_sql(struct buf *b)
{
    buf_puts(b,
             SYLLABLES "[:c_last_n::int / 100 + 1] || " SYLLABLES
                       "[:c_last_n::int / 10 % 10 + 1] || " SYLLABLES "[:c_last_n::int % 10 + 1]");
}

/* A warehouse other than :w_id when there are several (uniform), else :w_id. */
static const char *other_warehouse(const struct tpcc_run *o, char *out, size_t size)
{
    if (o->warehouses < 2)
        return ":w_id";
    snprintf(out, size, "(:w_id + random(0, %d)) %% %d + 1", o->warehouses - 2, o->warehouses);
    return out;
}

static void home(struct buf *b, const struct tpcc_run *o)
{
    buf_printf(b, "\\set w_id :client_id %% %d + 1\n", o->warehouses);
}

static void keying(struct buf *b, const struct tpcc_run *o, enum tpcc_tx tx)
{
    if (o->keying_thinking)
        buf_printf(b, "\\sleep %d s\n", keying_s[tx]);
}

/* Think time: -ln(r) times the mean, at most ten times the mean (clause 5.2.5.4). */
static void thinking(struct buf *b, const struct tpcc_run *o, enum tpcc_tx tx)
{
    if (!o->keying_thinking)
        return;
    int64_t mean_us = (int64_t)think_s[tx] * 1000000;
    buf_printf(b,
               "\\set think_us least(int(-ln(random(1, 1000000) / 1000000.0) * %lld), %lld)\n"
               "\\sleep :think_us us\n",
               (long long)mean_us, (long long)mean_us * 10);
}

/* The customer: by last name (the middle one by first name) or by id. */
static void customer_inputs(struct buf *b, const struct tpcc_run *o)
{
    buf_puts(b, "\\set by_name CASE WHEN random(1, 100) <= 60 THEN 1 ELSE 0 END\n");
    nurand(b, "c_last_n", 255, 0, 999, o->c.c_last);
    nurand(b, "c_id", 1023, 1, TPCC_CUSTOMERS, o->c.c_id);
}

static void customer_by_name(struct buf *b, const char *w, const char *d)
{
    buf_printf(b,
               "\\if :by_name = 1\n"
               "SELECT c_id FROM (SELECT c_id, row_number() OVER (ORDER BY c_first) AS rn, "
               "count(*) OVER () AS n FROM customer WHERE c_w_id = %s AND c_d_id = %s AND "
               "c_last = ",
               w, d);
    last_name_sql(b);
    buf_puts(b, ") s WHERE rn = (n + 1) / 2 \\gset\n\\endif\n");
}

static void new_order_inputs(struct buf *b, const struct tpcc_run *o)
{
    char other[64];
    buf_puts(b, "\\set d_id random(1, 10)\n");
    nurand(b, "c_id", 1023, 1, TPCC_CUSTOMERS, o->c.c_id);
    buf_printf(b, "\\set ol_cnt random(5, %d)\n\\set rbk random(1, 100)\n", TPCC_MAX_LINES);
    for (int k = 1; k <= TPCC_MAX_LINES; k++) {
        nurand(b, "i_id", 8191, 1, TPCC_ITEMS, o->c.ol_i_id);
        /* The rollback: the last line names an item that does not exist (2.4.1.4). */
        buf_printf(b, "\\set i_id%d CASE WHEN :rbk = 1 AND :ol_cnt = %d THEN %d ELSE :i_id END\n",
                   k, k, TPCC_UNUSED_ITEM);
        buf_printf(b,
                   "\\set sw%d CASE WHEN random(1, 100) = 1 AND %d <= :ol_cnt THEN %s ELSE "
                   ":w_id END\n",
                   k, k, other_warehouse(o, other, sizeof other));
        buf_printf(b, "\\set q%d random(1, 10)\n", k);
    }
    buf_puts(b, "\\set all_local CASE WHEN ");
    for (int k = 1; k <= TPCC_MAX_LINES; k++)
        buf_printf(b, "%s:sw%d = :w_id", k > 1 ? " AND " : "", k);
    buf_puts(b, " THEN 1 ELSE 0 END\n");
}

static void new_order_line(struct buf *b, int k)
{
    buf_printf(b,
               "\\if :ol_cnt >= %d AND :aborted = 0\n"
               "\\set i_price -1\n"
               "SELECT i_price, i_name, i_data FROM item WHERE i_id = :i_id%d \\aset\n"
               "\\if :i_price < 0\n"
               "\\set aborted 1\n"
               "\\else\n",
               k, k);
    buf_printf(b,
               "SELECT s_quantity, s_data FROM stock WHERE s_i_id = :i_id%d AND s_w_id = :sw%d "
               "FOR UPDATE \\gset\n"
               "\\set s_quantity CASE WHEN :s_quantity >= :q%d + 10 THEN :s_quantity - :q%d "
               "ELSE :s_quantity - :q%d + 91 END\n"
               "\\set remote CASE WHEN :sw%d = :w_id THEN 0 ELSE 1 END\n",
               k, k, k, k, k, k);
    buf_printf(b,
               "WITH s AS (UPDATE stock SET s_quantity = :s_quantity, s_ytd = s_ytd + :q%d, "
               "s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + :remote "
               "WHERE s_i_id = :i_id%d AND s_w_id = :sw%d RETURNING CASE :d_id::int "
               "WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 "
               "WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 "
               "WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 "
               "ELSE s_dist_10 END AS dist) "
               "INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, "
               "ol_supply_w_id, ol_delivery_d, ol_quantity, ol_amount, ol_dist_info) "
               "SELECT :o_id, :d_id, :w_id, %d, :i_id%d, :sw%d, NULL, :q%d, "
               ":q%d * :i_price::numeric, dist FROM s;\n"
               "\\set total :total + :q%d * :i_price\n"
               "\\endif\n\\endif\n",
               k, k, k, k, k, k, k, k, k);
}

static void new_order_sql(struct buf *b)
{
    buf_puts(b, "BEGIN;\n"
                "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse "
                "WHERE w_id = :w_id AND c_w_id = :w_id AND c_d_id = :d_id AND c_id = :c_id "
                "\\gset\n"
                "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = :w_id AND "
                "d_id = :d_id RETURNING d_next_o_id - 1 AS o_id, d_tax \\gset\n"
                "INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, "
                "o_ol_cnt, o_all_local) VALUES (:o_id, :d_id, :w_id, :c_id, now(), NULL, "
                ":ol_cnt, :all_local);\n"
                "INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (:o_id, :d_id, :w_id);\n"
                "\\set aborted 0\n\\set total 0\n");
    for (int k = 1; k <= TPCC_MAX_LINES; k++)
        new_order_line(b, k);
    buf_printf(b,
               "\\if :aborted = 1\n%s\n\\else\nCOMMIT;\n"
               "\\set total :total * (1 - :c_discount) * (1 + :w_tax + :d_tax)\n\\endif\n",
               tpcc_rollback_sql);
}

static void int_array(struct buf *b, const char *var)
{
    buf_puts(b, "ARRAY[");
    for (int k = 1; k <= TPCC_MAX_LINES; k++)
        buf_printf(b, "%s:%s%d::int", k > 1 ? ", " : "", var, k);
    buf_puts(b, "]");
}

/* The function does the work; a terminal whose input holds the unused item runs it inside a
 * transaction block, which it rolls back when the function reports the missing item. */
static void new_order_call(struct buf *b)
{
    struct buf call;
    buf_init(&call);
    buf_puts(&call, "SELECT tpcc_new_order(:w_id, :d_id, :c_id, :ol_cnt, :all_local, ");
    int_array(&call, "i_id");
    buf_puts(&call, ", ");
    int_array(&call, "sw");
    buf_puts(&call, ", ");
    int_array(&call, "q");
    buf_printf(b,
               "\\if :rbk = 1\nBEGIN;\n%s) AS no_ok \\gset\n\\if :no_ok = 1\nCOMMIT;\n\\else\n%s\n"
               "\\endif\n\\else\n%s) AS committed;\n\\endif\n",
               call.data, tpcc_rollback_sql, call.data);
    buf_free(&call);
}

static void payment_inputs(struct buf *b, const struct tpcc_run *o)
{
    char other[64];
    buf_printf(b,
               "\\set d_id random(1, 10)\n"
               "\\set x random(1, 100)\n"
               "\\set c_w_id CASE WHEN :x <= 85 THEN :w_id ELSE %s END\n"
               "\\set c_d_id CASE WHEN :x <= 85 THEN :d_id ELSE random(1, 10) END\n",
               other_warehouse(o, other, sizeof other));
    customer_inputs(b, o);
    buf_puts(b, "\\set h_amount random(100, 500000)\n"); /* cents: [1.00, 5000.00] */
}

#define AMOUNT ":h_amount::numeric / 100"

static void payment_sql(struct buf *b)
{
    buf_puts(b, "BEGIN;\n"
                "UPDATE warehouse SET w_ytd = w_ytd + " AMOUNT " WHERE w_id = :w_id "
                "RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip;\n"
                "UPDATE district SET d_ytd = d_ytd + " AMOUNT " WHERE d_w_id = :w_id AND "
                "d_id = :d_id RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip;\n");
    customer_by_name(b, ":c_w_id", ":c_d_id");
    buf_puts(b, "UPDATE customer SET c_balance = c_balance - " AMOUNT ", c_ytd_payment = "
                "c_ytd_payment + " AMOUNT ", c_payment_cnt = c_payment_cnt + 1, c_data = CASE "
                "WHEN c_credit = 'BC' THEN left(c_id || ' ' || c_d_id || ' ' || c_w_id || ' ' || "
                ":d_id::int || ' ' || :w_id::int || ' ' || " AMOUNT " || ' | ' || c_data, 500) "
                "ELSE c_data END WHERE c_w_id = :c_w_id AND c_d_id = :c_d_id AND c_id = :c_id "
                "RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, "
                "c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount, c_balance;\n"
                "INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, "
                "h_amount, h_data) SELECT :c_id, :c_d_id, :c_w_id, :d_id, :w_id, now(), " AMOUNT
                ", w_name || '    ' || d_name FROM warehouse, district WHERE w_id = :w_id AND "
                "d_w_id = :w_id AND d_id = :d_id;\n"
                "COMMIT;\n");
}

static void order_status_sql(struct buf *b)
{
    buf_puts(b, "BEGIN;\n");
    customer_by_name(b, ":w_id", ":d_id");
    buf_puts(b, "SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = :w_id "
                "AND c_d_id = :d_id AND c_id = :c_id;\n"
                "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = :w_id AND "
                "o_d_id = :d_id AND o_c_id = :c_id ORDER BY o_id DESC LIMIT 1 \\gset\n"
                "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM "
                "order_line WHERE ol_w_id = :w_id AND ol_d_id = :d_id AND ol_o_id = :o_id;\n"
                "COMMIT;\n");
}

/* One district's delivery: its oldest new order removed, the order given its carrier, its
 * lines their delivery date, the customer the lines' amount. */
static void delivery_sql(struct buf *b)
{
    buf_puts(b, "BEGIN;\n");
    for (int d = 1; d <= TPCC_DISTRICTS; d++)
        buf_printf(b,
                   "WITH no AS (DELETE FROM new_order WHERE no_w_id = :w_id AND no_d_id = %d "
                   "AND no_o_id = (SELECT min(no_o_id) FROM new_order WHERE no_w_id = :w_id AND "
                   "no_d_id = %d) RETURNING no_o_id), "
                   "o AS (UPDATE orders SET o_carrier_id = :carrier FROM no WHERE o_w_id = :w_id "
                   "AND o_d_id = %d AND o_id = no.no_o_id RETURNING o_id, o_c_id), "
                   "ol AS (UPDATE order_line SET ol_delivery_d = now() FROM o WHERE "
                   "ol_w_id = :w_id AND ol_d_id = %d AND ol_o_id = o.o_id RETURNING ol_amount) "
                   "UPDATE customer SET c_balance = c_balance + (SELECT sum(ol_amount) FROM ol), "
                   "c_delivery_cnt = c_delivery_cnt + 1 FROM o WHERE c_w_id = :w_id AND "
                   "c_d_id = %d AND c_id = o.o_c_id;\n",
                   d, d, d, d, d);
    buf_puts(b, "COMMIT;\n");
}

static const char stock_level_sql[] =
    "SELECT count(DISTINCT s_i_id) FROM district, order_line, stock WHERE d_w_id = :w_id AND "
    "d_id = :d_id AND ol_w_id = :w_id AND ol_d_id = :d_id AND ol_o_id < d_next_o_id AND "
    "ol_o_id >= d_next_o_id - 20 AND s_w_id = :w_id AND s_i_id = ol_i_id AND "
    "s_quantity < :threshold;\n";

static void body(struct buf *b, enum tpcc_tx tx, const struct tpcc_run *o)
{
    int p = o->procedures;
    switch (tx) {
    case TPCC_NEW_ORDER:
        new_order_inputs(b, o);
        keying(b, o, tx);
        if (p)
            new_order_call(b);
        else
            new_order_sql(b);
        break;
    case TPCC_PAYMENT:
        payment_inputs(b, o);
        keying(b, o, tx);
        if (p)
            buf_puts(b, "SELECT tpcc_payment(:w_id, :d_id, :c_w_id, :c_d_id, :c_id, :by_name, "
                        ":c_last_n, " AMOUNT ");\n");
        else
            payment_sql(b);
        break;
    case TPCC_ORDER_STATUS:
        buf_puts(b, "\\set d_id random(1, 10)\n");
        customer_inputs(b, o);
        keying(b, o, tx);
        if (p)
            buf_puts(b, "SELECT tpcc_order_status(:w_id, :d_id, :c_id, :by_name, :c_last_n);\n");
        else
            order_status_sql(b);
        break;
    case TPCC_DELIVERY:
        buf_puts(b, "\\set carrier random(1, 10)\n");
        keying(b, o, tx);
        if (p)
            buf_puts(b, "SELECT tpcc_delivery(:w_id, :carrier);\n");
        else
            delivery_sql(b);
        break;
    case TPCC_STOCK_LEVEL:
        /* A terminal keeps its district for Stock-Level (2.8.1.2). */
        buf_printf(b, "\\set d_id :client_id / %d %% 10 + 1\n\\set threshold random(10, 20)\n",
                   o->warehouses);
        keying(b, o, tx);
        buf_puts(b, p ? "SELECT tpcc_stock_level(:w_id, :d_id, :threshold);\n" : stock_level_sql);
        break;
    default:
        break;
    }
}

char *tpcc_script(enum tpcc_tx tx, const struct tpcc_run *o)
{
    struct buf b;
    buf_init(&b);
    home(&b, o);
    body(&b, tx, o);
    thinking(&b, o, tx);
    return b.data;
}
