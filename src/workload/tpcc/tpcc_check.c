#include "workload/tpcc/tpcc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

#include "workload/tpcc/tpcc_int.h"

/*
 * The consistency conditions of clause 3.3.2. Each is one query that returns the first
 * violation it finds (warehouse, district, and the values that disagree), or '' when the
 * condition holds everywhere; the server scans each table once per condition. The
 * conditions run in parallel on several connections, each in its own snapshot: check a
 * database no benchmark is writing.
 */

#define FIRST(q) "select coalesce((" q " limit 1), '')"

/* Each customer's delivered order-line amounts: lines summed per order first (one pass over
 * order_line), then per customer. */
#define DELIVERED                                                                                  \
    "(select o_w_id, o_d_id, o_c_id, sum(l.s) s from orders join (select ol_w_id, ol_d_id, "       \
    "ol_o_id, sum(ol_amount) s from order_line where ol_delivery_d is not null "                   \
    "group by 1, 2, 3) l on ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id "             \
    "group by 1, 2, 3)"

static const char *const conditions[12] = {
    /* 1: W_YTD = sum(D_YTD) */
    FIRST("select format('warehouse %s: w_ytd %s, sum(d_ytd) %s', w_id, w_ytd, s) "
          "from warehouse left join (select d_w_id, sum(d_ytd) s from district group by d_w_id) "
          "d on d_w_id = w_id where w_ytd is distinct from s order by w_id"),
    /* 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) */
    FIRST("select format('warehouse %s district %s: d_next_o_id - 1 = %s, max(o_id) %s, "
          "max(no_o_id) %s', d_w_id, d_id, d_next_o_id - 1, mo, mno) from district "
          "left join (select o_w_id, o_d_id, max(o_id) mo from orders group by 1, 2) o "
          "on o_w_id = d_w_id and o_d_id = d_id "
          "left join (select no_w_id, no_d_id, max(no_o_id) mno from new_order group by 1, 2) n "
          "on no_w_id = d_w_id and no_d_id = d_id "
          "where d_next_o_id - 1 is distinct from mo or d_next_o_id - 1 <> mno "
          "order by d_w_id, d_id"),
    /* 3: max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW-ORDER) */
    FIRST("select format('warehouse %s district %s: max(no_o_id) - min(no_o_id) + 1 = %s, "
          "count(*) %s', no_w_id, no_d_id, max(no_o_id) - min(no_o_id) + 1, count(*)) "
          "from new_order group by no_w_id, no_d_id "
          "having max(no_o_id) - min(no_o_id) + 1 <> count(*) order by 1"),
    /* 4: sum(O_OL_CNT) = count(ORDER-LINE) */
    FIRST("select format('warehouse %s district %s: sum(o_ol_cnt) %s, order_line rows %s', "
          "w, d, s, n) from (select o_w_id w, o_d_id d, sum(o_ol_cnt) s from orders "
          "group by 1, 2) o full join (select ol_w_id w, ol_d_id d, count(*) n from order_line "
          "group by 1, 2) l using (w, d) where s is distinct from n order by w, d"),
    /* 5: O_CARRIER_ID is null exactly for the orders with a NEW-ORDER row */
    FIRST("select format('warehouse %s district %s order %s: o_carrier_id %s, %s', o_w_id, "
          "o_d_id, o_id, coalesce(o_carrier_id::text, 'null'), case when no_o_id is null "
          "then 'no new_order row' else 'a new_order row' end) from orders left join new_order "
          "on no_w_id = o_w_id and no_d_id = o_d_id and no_o_id = o_id "
          "where (o_carrier_id is null) <> (no_o_id is not null)"),
    /* 6: O_OL_CNT = the order's ORDER-LINE rows */
    FIRST("select format('warehouse %s district %s order %s: o_ol_cnt %s, order_line rows %s', "
          "o_w_id, o_d_id, o_id, o_ol_cnt, coalesce(n, 0)) from orders left join (select "
          "ol_w_id, ol_d_id, ol_o_id, count(*) n from order_line group by 1, 2, 3) l "
          "on ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id "
          "where o_ol_cnt <> coalesce(n, 0)"),
    /* 7: OL_DELIVERY_D is null exactly when the order's O_CARRIER_ID is */
    FIRST("select format('warehouse %s district %s order %s line %s: ol_delivery_d %s, "
          "o_carrier_id %s', ol_w_id, ol_d_id, ol_o_id, ol_number, "
          "coalesce(ol_delivery_d::text, 'null'), coalesce(o_carrier_id::text, 'null')) "
          "from order_line join orders on o_w_id = ol_w_id and o_d_id = ol_d_id and "
          "o_id = ol_o_id where (ol_delivery_d is null) <> (o_carrier_id is null)"),
    /* 8: W_YTD = sum(H_AMOUNT) */
    FIRST("select format('warehouse %s: w_ytd %s, sum(h_amount) %s', w_id, w_ytd, s) "
          "from warehouse left join (select h_w_id, sum(h_amount) s from history group by 1) h "
          "on h_w_id = w_id where w_ytd is distinct from s order by w_id"),
    /* 9: D_YTD = sum(H_AMOUNT) */
    FIRST("select format('warehouse %s district %s: d_ytd %s, sum(h_amount) %s', d_w_id, "
          "d_id, d_ytd, s) from district left join (select h_w_id, h_d_id, sum(h_amount) s "
          "from history group by 1, 2) h on h_w_id = d_w_id and h_d_id = d_id "
          "where d_ytd is distinct from s order by d_w_id, d_id"),
    /* 10: C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) */
    FIRST("select format('warehouse %s district %s customer %s: c_balance %s, delivered "
          "sum(ol_amount) - sum(h_amount) %s', c_w_id, c_d_id, c_id, c_balance, "
          "coalesce(d.s, 0) - coalesce(h.s, 0)) from customer "
          "left join " DELIVERED " d "
          "on o_w_id = c_w_id and o_d_id = c_d_id and o_c_id = c_id "
          "left join (select h_c_w_id, h_c_d_id, h_c_id, sum(h_amount) s from history "
          "group by 1, 2, 3) h on h_c_w_id = c_w_id and h_c_d_id = c_d_id and h_c_id = c_id "
          "where c_balance <> coalesce(d.s, 0) - coalesce(h.s, 0)"),
    /* 11: count(ORDER) - count(NEW-ORDER) = 2100 */
    FIRST("select format('warehouse %s district %s: count(orders) - count(new_order) = %s', "
          "w, d, coalesce(o.n, 0) - coalesce(no.n, 0)) from (select o_w_id w, o_d_id d, "
          "count(*) n from orders group by 1, 2) o full join (select no_w_id w, no_d_id d, "
          "count(*) n from new_order group by 1, 2) no using (w, d) "
          "where coalesce(o.n, 0) - coalesce(no.n, 0) <> 2100 order by w, d"),
    /* 12: C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) */
    FIRST("select format('warehouse %s district %s customer %s: c_balance + c_ytd_payment %s, "
          "delivered sum(ol_amount) %s', c_w_id, c_d_id, c_id, c_balance + c_ytd_payment, "
          "coalesce(d.s, 0)) from customer left join " DELIVERED " d "
          "on o_w_id = c_w_id and o_d_id = c_d_id and o_c_id = c_id "
          "where c_balance + c_ytd_payment <> coalesce(d.s, 0)"),
};

/* Delivery removes each district's oldest new order first: none has run while every
 * district still has order 2101 undelivered. */
static const char no_delivery_sql[] =
    "select count(*) = 0 from district where not exists (select 1 from new_order "
    "where no_w_id = d_w_id and no_d_id = d_id and no_o_id = 2101)";

/* The conditions to run, their answers, and the next one to take; each worker thread takes
 * conditions in turn on a connection of its own. */
struct check_pool {
    const struct pg_connopts *conn;
    int n, skip11;
    atomic_int next;
    int status[12]; /* 0 not run, 1 answered, -1 failed (errs) */
    char answer[12][1024];
    struct err errs[12];
};

/* Whole-table reconciliations: hash joins and aggregates in memory, never a nested loop of
 * index probes per row (the planner underestimates the groups). */
static const char session_sql[] = "set enable_nestloop = off; set work_mem = '256MB'";

static void *check_worker(void *arg)
{
    struct check_pool *p = arg;
    struct err e = {0};
    struct pg_conn *c = pg_connect(p->conn, &e);
    if (c && pg_exec(c, session_sql, &e) < 0) {
        pg_finish(c);
        c = NULL;
    }
    for (int i; (i = atomic_fetch_add(&p->next, 1)) < p->n;) {
        if (i == 10 && p->skip11)
            continue;
        if (!c) {
            p->errs[i] = e;
            p->status[i] = -1;
        } else if (pg_query_value(c, conditions[i], p->answer[i], sizeof p->answer[i],
                                  &p->errs[i]) < 0) {
            p->status[i] = -1;
        } else {
            p->status[i] = 1;
        }
    }
    if (c)
        pg_finish(c);
    return NULL;
}

int tpcc_check(const struct pg_connopts *conn, int all, int jobs, char *failure,
               size_t failure_size, char *checked, size_t checked_size, struct err *e)
{
    static struct check_pool zero;
    struct check_pool *p = xmalloc(sizeof *p);
    *p = zero;
    p->conn = conn;
    p->n = all ? 12 : 4;
    atomic_init(&p->next, 0);
    if (all) {
        char v[16];
        struct pg_conn *c = pg_connect(conn, e);
        int rc = c ? pg_query_value(c, no_delivery_sql, v, sizeof v, e) : -1;
        if (c)
            pg_finish(c);
        if (rc < 0) {
            free(p);
            return -1;
        }
        p->skip11 = strcmp(v, "t") != 0;
    }
    int n = jobs < 1 ? 1 : jobs > p->n ? p->n : jobs;
    pthread_t th[12];
    for (int i = 0; i < n; i++)
        pthread_create(&th[i], NULL, check_worker, p);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    int rc = 0;
    size_t used = 0;
    checked[0] = '\0';
    for (int i = 0; i < p->n && rc == 0; i++) {
        if (p->status[i] == 0)
            continue;
        if (p->status[i] < 0) {
            rc = err_set(e, p->errs[i].code ? p->errs[i].code : ERR_RUNTIME,
                         "could not check condition %d: %s", i + 1, p->errs[i].msg);
            break;
        }
        if (used < checked_size)
            used += (size_t)snprintf(checked + used, checked_size - used, "%s%d", used ? " " : "",
                                     i + 1);
        if (p->answer[i][0]) {
            snprintf(failure, failure_size, "condition %d fails: %s", i + 1, p->answer[i]);
            rc = 1;
        }
    }
    free(p);
    return rc;
}
