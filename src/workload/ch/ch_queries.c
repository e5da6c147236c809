#include "workload/ch/ch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The 22 analytic queries of CH-benCHmark (Cole et al., DBTest 2011, section 3), written for
 * this schema from the paper's definitions: TPC-H's queries moved onto TPC-C's tables, where
 * order_line stands for lineitem, stock (with item) for partsupp and part, and the paper's two
 * rules join the new tables: a stock row's supplier is mod(s_w_id * s_i_id, 10000), and a
 * customer's nation is the ASCII code of the first letter of c_state.
 *
 * Dates. The paper's constants assume data loaded in 2007 to 2011: lower bounds of
 * 2007-01-02 (1999-01-01 in Q6, 2010-05-23 12:00 in Q20) and upper bounds of 2012-01-02 (Q4,
 * Q7, Q8) and 2020-01-01/02 (Q6, Q12, Q14). pgarena stamps the loaded rows with the time of
 * the load (TPC-C clause 4.3.3.1) and new ones with now(), so every date in the tables comes
 * after the paper's upper bounds, which would leave Q4, Q6, Q7, Q8, Q12 and Q14 without rows.
 * The lower bounds are the paper's (they precede every load); the upper bounds are all
 * 2100-01-01, so each window holds every date a load and its runs can write.
 */

#define FROM  "'2007-01-02'"
#define UNTIL "'2100-01-01'"

/* The supplier of a stock row s, and the nation of a customer c. */
#define SUPPLIER_OF(s) "mod(" s ".s_w_id * " s ".s_i_id, 10000)"
#define NATION_OF(c)   "ascii(substr(" c ".c_state, 1, 1))"

static const char *const texts[CH_N_QUERIES] = {
    /* Q1: the delivered order lines by line number. */
    "SELECT ol_number, sum(ol_quantity) AS sum_qty, sum(ol_amount) AS sum_amount,\n"
    "       avg(ol_quantity) AS avg_qty, avg(ol_amount) AS avg_amount, count(*) AS count_order\n"
    "FROM order_line\n"
    "WHERE ol_delivery_d > " FROM "\n"
    "GROUP BY ol_number\n"
    "ORDER BY ol_number;\n",

    /* Q2: for each item of the '%b' kind, the European suppliers that hold its least stock. */
    "SELECT su.su_suppkey, su.su_name, n.n_name, i.i_id, i.i_name, su.su_address, su.su_phone,\n"
    "       su.su_comment\n"
    "FROM item i\n"
    "JOIN stock s ON s.s_i_id = i.i_id\n"
    "JOIN supplier su ON su.su_suppkey = " SUPPLIER_OF(
        "s") "\n"
             "JOIN nation n ON n.n_nationkey = su.su_nationkey\n"
             "JOIN region r ON r.r_regionkey = n.n_regionkey\n"
             "JOIN (SELECT ms.s_i_id AS m_i_id, min(ms.s_quantity) AS m_s_quantity\n"
             "      FROM stock ms\n"
             "      JOIN supplier msu ON msu.su_suppkey = " SUPPLIER_OF(
                 "ms") "\n"
                       "      JOIN nation mn ON mn.n_nationkey = msu.su_nationkey\n"
                       "      JOIN region mr ON mr.r_regionkey = mn.n_regionkey\n"
                       "      WHERE mr.r_name LIKE 'Europ%'\n"
                       "      GROUP BY ms.s_i_id) m ON m.m_i_id = i.i_id AND m.m_s_quantity = "
                       "s.s_quantity\n"
                       "WHERE i.i_data LIKE '%b' AND r.r_name LIKE 'Europ%'\n"
                       "ORDER BY n.n_name, su.su_name, i.i_id;\n",

    /* Q3: the undelivered orders of customers from states beginning with A, by revenue. */
    "SELECT ol.ol_o_id, ol.ol_w_id, ol.ol_d_id, sum(ol.ol_amount) AS revenue, o.o_entry_d\n"
    "FROM customer c\n"
    "JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id AND o.o_c_id = c.c_id\n"
    "JOIN new_order no ON no.no_w_id = o.o_w_id AND no.no_d_id = o.o_d_id\n"
    "                 AND no.no_o_id = o.o_id\n"
    "JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id\n"
    "                  AND ol.ol_o_id = o.o_id\n"
    "WHERE c.c_state LIKE 'A%' AND o.o_entry_d > " FROM "\n"
    "GROUP BY ol.ol_o_id, ol.ol_w_id, ol.ol_d_id, o.o_entry_d\n"
    "ORDER BY revenue DESC, o.o_entry_d;\n",

    /* Q4: orders of the period with a line delivered no earlier than the order, by count of
     * lines. */
    "SELECT o.o_ol_cnt, count(*) AS order_count\n"
    "FROM orders o\n"
    "WHERE o.o_entry_d >= " FROM " AND o.o_entry_d < " UNTIL "\n"
    "  AND EXISTS (SELECT 1 FROM order_line ol\n"
    "              WHERE ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id\n"
    "                AND ol.ol_o_id = o.o_id AND ol.ol_delivery_d >= o.o_entry_d)\n"
    "GROUP BY o.o_ol_cnt\n"
    "ORDER BY o.o_ol_cnt;\n",

    /* Q5: revenue of European nations from lines whose customer and supplier share the
     * nation. */
    "SELECT n.n_name, sum(ol.ol_amount) AS revenue\n"
    "FROM customer c\n"
    "JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id AND o.o_c_id = c.c_id\n"
    "JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id\n"
    "                  AND ol.ol_o_id = o.o_id\n"
    "JOIN stock s ON s.s_w_id = ol.ol_w_id AND s.s_i_id = ol.ol_i_id\n"
    "JOIN supplier su ON su.su_suppkey = " SUPPLIER_OF(
        "s") "\n"
             "JOIN nation n ON n.n_nationkey = su.su_nationkey\n"
             "JOIN region r ON r.r_regionkey = n.n_regionkey\n"
             "WHERE su.su_nationkey = " NATION_OF("c") " AND r.r_name = 'Europe'\n"
                                                       "  AND o.o_entry_d >= " FROM "\n"
                                                       "GROUP BY n.n_name\n"
                                                       "ORDER BY revenue DESC;\n",

    /* Q6: revenue of the period's delivered lines. */
    "SELECT sum(ol_amount) AS revenue\n"
    "FROM order_line\n"
    "WHERE ol_delivery_d >= '1999-01-01' AND ol_delivery_d < " UNTIL "\n"
    "  AND ol_quantity BETWEEN 1 AND 100000;\n",

    /* Q7: trade between Germany and Cambodia, both ways, by year. */
    "SELECT su.su_nationkey AS supp_nation, substr(c.c_state, 1, 1) AS cust_nation,\n"
    "       extract(year FROM o.o_entry_d) AS l_year, sum(ol.ol_amount) AS revenue\n"
    "FROM order_line ol\n"
    "JOIN stock s ON s.s_w_id = ol.ol_supply_w_id AND s.s_i_id = ol.ol_i_id\n"
    "JOIN supplier su ON su.su_suppkey = " SUPPLIER_OF(
        "s") "\n"
             "JOIN orders o ON o.o_w_id = ol.ol_w_id AND o.o_d_id = ol.ol_d_id AND o.o_id = "
             "ol.ol_o_id\n"
             "JOIN customer c ON c.c_w_id = o.o_w_id AND c.c_d_id = o.o_d_id AND c.c_id = "
             "o.o_c_id\n"
             "JOIN nation n1 ON n1.n_nationkey = su.su_nationkey\n"
             "JOIN nation n2 ON n2.n_nationkey = " NATION_OF(
                 "c") "\n"
                      "WHERE ((n1.n_name = 'Germany' AND n2.n_name = 'Cambodia')\n"
                      "    OR (n1.n_name = 'Cambodia' AND n2.n_name = 'Germany'))\n"
                      "  AND ol.ol_delivery_d BETWEEN " FROM " AND " UNTIL "\n"
                      "GROUP BY su.su_nationkey, cust_nation, l_year\n"
                      "ORDER BY su.su_nationkey, cust_nation, l_year;\n",

    /* Q8: Germany's share, by year, of the European customers' orders of some items. */
    "SELECT extract(year FROM o.o_entry_d) AS l_year,\n"
    "       sum(CASE WHEN n2.n_name = 'Germany' THEN ol.ol_amount ELSE 0 END)\n"
    "         / nullif(sum(ol.ol_amount), 0) AS mkt_share\n"
    "FROM item i\n"
    "JOIN stock s ON s.s_i_id = i.i_id\n"
    "JOIN supplier su ON su.su_suppkey = " SUPPLIER_OF(
        "s") "\n"
             "JOIN order_line ol ON ol.ol_i_id = s.s_i_id AND ol.ol_supply_w_id = s.s_w_id\n"
             "JOIN orders o ON o.o_w_id = ol.ol_w_id AND o.o_d_id = ol.ol_d_id AND o.o_id = "
             "ol.ol_o_id\n"
             "JOIN customer c ON c.c_w_id = o.o_w_id AND c.c_d_id = o.o_d_id AND c.c_id = "
             "o.o_c_id\n"
             "JOIN nation n1 ON n1.n_nationkey = " NATION_OF(
                 "c") "\n"
                      "JOIN region r ON r.r_regionkey = n1.n_regionkey\n"
                      "JOIN nation n2 ON n2.n_nationkey = su.su_nationkey\n"
                      "WHERE i.i_id < 1000 AND i.i_data LIKE '%b' AND r.r_name = 'Europe'\n"
                      "  AND o.o_entry_d BETWEEN " FROM " AND " UNTIL "\n"
                      "GROUP BY l_year\n"
                      "ORDER BY l_year;\n",

    /* Q9: amounts by supplier nation and year for the '%bb' items. */
    "SELECT n.n_name, extract(year FROM o.o_entry_d) AS l_year,\n"
    "       sum(ol.ol_amount) AS sum_profit\n"
    "FROM item i\n"
    "JOIN stock s ON s.s_i_id = i.i_id\n"
    "JOIN supplier su ON su.su_suppkey = " SUPPLIER_OF(
        "s") "\n"
             "JOIN nation n ON n.n_nationkey = su.su_nationkey\n"
             "JOIN order_line ol ON ol.ol_i_id = s.s_i_id AND ol.ol_supply_w_id = s.s_w_id\n"
             "JOIN orders o ON o.o_w_id = ol.ol_w_id AND o.o_d_id = ol.ol_d_id AND o.o_id = "
             "ol.ol_o_id\n"
             "WHERE i.i_data LIKE '%bb'\n"
             "GROUP BY n.n_name, l_year\n"
             "ORDER BY n.n_name, l_year DESC;\n",

    /* Q10: customers by the revenue of their orders delivered since the order. */
    "SELECT c.c_id, c.c_last, sum(ol.ol_amount) AS revenue, c.c_city, c.c_phone, n.n_name\n"
    "FROM customer c\n"
    "JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id AND o.o_c_id = c.c_id\n"
    "JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id\n"
    "                  AND ol.ol_o_id = o.o_id\n"
    "JOIN nation n ON n.n_nationkey = " NATION_OF(
        "c") "\n"
             "WHERE o.o_entry_d >= " FROM " AND o.o_entry_d <= ol.ol_delivery_d\n"
             "GROUP BY c.c_id, c.c_last, c.c_city, c.c_phone, n.n_name\n"
             "ORDER BY revenue DESC;\n",

    /* Q11: the items most ordered from German suppliers' stock (over 0.5 % of it all). */
    "WITH german AS (\n"
    "    SELECT s.s_i_id, s.s_order_cnt\n"
    "    FROM stock s\n"
    "    JOIN supplier su ON su.su_suppkey = " SUPPLIER_OF(
        "s") "\n"
             "    JOIN nation n ON n.n_nationkey = su.su_nationkey\n"
             "    WHERE n.n_name = 'Germany')\n"
             "SELECT s_i_id, sum(s_order_cnt) AS ordercount\n"
             "FROM german\n"
             "GROUP BY s_i_id\n"
             "HAVING sum(s_order_cnt) > (SELECT sum(s_order_cnt) * 0.005 FROM german)\n"
             "ORDER BY ordercount DESC;\n",

    /* Q12: delivered lines by the order's line count, high (carrier 1 or 2) and low. */
    "SELECT o.o_ol_cnt,\n"
    "       sum(CASE WHEN o.o_carrier_id IN (1, 2) THEN 1 ELSE 0 END) AS high_line_count,\n"
    "       sum(CASE WHEN o.o_carrier_id NOT IN (1, 2) THEN 1 ELSE 0 END) AS low_line_count\n"
    "FROM orders o\n"
    "JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id\n"
    "                  AND ol.ol_o_id = o.o_id\n"
    "WHERE o.o_entry_d <= ol.ol_delivery_d AND ol.ol_delivery_d < " UNTIL "\n"
    "GROUP BY o.o_ol_cnt\n"
    "ORDER BY o.o_ol_cnt;\n",

    /* Q13: how many customers have how many orders of a carrier above 8. */
    "SELECT c_count, count(*) AS custdist\n"
    "FROM (SELECT c.c_id, count(o.o_id) AS c_count\n"
    "      FROM customer c\n"
    "      LEFT JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id\n"
    "                        AND o.o_c_id = c.c_id AND o.o_carrier_id > 8\n"
    "      GROUP BY c.c_id) per_customer\n"
    "GROUP BY c_count\n"
    "ORDER BY custdist DESC, c_count DESC;\n",

    /* Q14: the share of the period's delivered revenue from 'PR%' items. */
    "SELECT 100.00 * sum(CASE WHEN i.i_data LIKE 'PR%' THEN ol.ol_amount ELSE 0 END)\n"
    "         / (1 + sum(ol.ol_amount)) AS promo_revenue\n"
    "FROM order_line ol\n"
    "JOIN item i ON i.i_id = ol.ol_i_id\n"
    "WHERE ol.ol_delivery_d >= " FROM " AND ol.ol_delivery_d < " UNTIL ";\n",

    /* Q15: the suppliers of the greatest delivered revenue. */
    "WITH revenue AS (\n"
    "    SELECT " SUPPLIER_OF(
        "s") " AS supplier_no, sum(ol.ol_amount) AS total_revenue\n"
             "    FROM order_line ol\n"
             "    JOIN stock s ON s.s_i_id = ol.ol_i_id AND s.s_w_id = ol.ol_supply_w_id\n"
             "    WHERE ol.ol_delivery_d >= " FROM "\n"
             "    GROUP BY supplier_no)\n"
             "SELECT su.su_suppkey, su.su_name, su.su_address, su.su_phone, rv.total_revenue\n"
             "FROM supplier su\n"
             "JOIN revenue rv ON rv.supplier_no = su.su_suppkey\n"
             "WHERE rv.total_revenue = (SELECT max(total_revenue) FROM revenue)\n"
             "ORDER BY su.su_suppkey;\n",

    /* Q16: suppliers per item and price, leaving out those with complaints ('%bad%'). */
    "SELECT i.i_name, substr(i.i_data, 1, 3) AS brand, i.i_price,\n"
    "       count(DISTINCT " SUPPLIER_OF(
        "s") ") AS supplier_cnt\n"
             "FROM stock s\n"
             "JOIN item i ON i.i_id = s.s_i_id\n"
             "WHERE i.i_data NOT LIKE 'zz%'\n"
             "  AND " SUPPLIER_OF(
                 "s") " NOT IN (SELECT su_suppkey FROM supplier\n"
                      "                                   WHERE su_comment LIKE '%bad%')\n"
                      "GROUP BY i.i_name, brand, i.i_price\n"
                      "ORDER BY supplier_cnt DESC;\n",

    /* Q17: half the amount of the '%b' items' lines below their item's average quantity. */
    "SELECT sum(ol.ol_amount) / 2.0 AS avg_yearly\n"
    "FROM order_line ol\n"
    "JOIN (SELECT i.i_id, avg(l.ol_quantity) AS a\n"
    "      FROM item i\n"
    "      JOIN order_line l ON l.ol_i_id = i.i_id\n"
    "      WHERE i.i_data LIKE '%b'\n"
    "      GROUP BY i.i_id) t ON t.i_id = ol.ol_i_id\n"
    "WHERE ol.ol_quantity < t.a;\n",

    /* Q18: the orders worth more than 200. */
    "SELECT c.c_last, c.c_id, o.o_id, o.o_entry_d, o.o_ol_cnt, sum(ol.ol_amount) AS amount_sum\n"
    "FROM customer c\n"
    "JOIN orders o ON o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id AND o.o_c_id = c.c_id\n"
    "JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id\n"
    "                  AND ol.ol_o_id = o.o_id\n"
    "GROUP BY o.o_id, o.o_w_id, o.o_d_id, c.c_id, c.c_last, o.o_entry_d, o.o_ol_cnt\n"
    "HAVING sum(ol.ol_amount) > 200\n"
    "ORDER BY amount_sum DESC, o.o_entry_d;\n",

    /* Q19: revenue of three kinds of item, each from its own warehouses. */
    "SELECT sum(ol.ol_amount) AS revenue\n"
    "FROM order_line ol\n"
    "JOIN item i ON i.i_id = ol.ol_i_id\n"
    "WHERE ol.ol_quantity BETWEEN 1 AND 10 AND i.i_price BETWEEN 1 AND 400000\n"
    "  AND ((i.i_data LIKE '%a' AND ol.ol_w_id IN (1, 2, 3))\n"
    "    OR (i.i_data LIKE '%b' AND ol.ol_w_id IN (1, 2, 4))\n"
    "    OR (i.i_data LIKE '%c' AND ol.ol_w_id IN (1, 5, 3)));\n",

    /* Q20: German suppliers with a surplus of 'co%' items (stock over half of what was
     * delivered of it). */
    "SELECT su.su_name, su.su_address\n"
    "FROM supplier su\n"
    "JOIN nation n ON n.n_nationkey = su.su_nationkey\n"
    "WHERE n.n_name = 'Germany'\n"
    "  AND su.su_suppkey IN (\n"
    "      SELECT " SUPPLIER_OF(
        "s") "\n"
             "      FROM stock s\n"
             "      JOIN order_line ol ON ol.ol_i_id = s.s_i_id\n"
             "      WHERE s.s_i_id IN (SELECT i_id FROM item WHERE i_data LIKE 'co%')\n"
             "        AND ol.ol_delivery_d > timestamp '2010-05-23' + interval '12 hours'\n"
             "      GROUP BY s.s_i_id, s.s_w_id, s.s_quantity\n"
             "      HAVING 2 * s.s_quantity > sum(ol.ol_quantity))\n"
             "ORDER BY su.su_name;\n",

    /* Q21: German suppliers by their lines delivered last and after the order was entered. */
    "SELECT su.su_name, count(*) AS numwait\n"
    "FROM order_line l1\n"
    "JOIN orders o ON o.o_w_id = l1.ol_w_id AND o.o_d_id = l1.ol_d_id AND o.o_id = l1.ol_o_id\n"
    "JOIN stock s ON s.s_w_id = l1.ol_w_id AND s.s_i_id = l1.ol_i_id\n"
    "JOIN supplier su ON su.su_suppkey = " SUPPLIER_OF(
        "s") "\n"
             "JOIN nation n ON n.n_nationkey = su.su_nationkey\n"
             "WHERE n.n_name = 'Germany' AND l1.ol_delivery_d > o.o_entry_d\n"
             "  AND NOT EXISTS (SELECT 1 FROM order_line l2\n"
             "                  WHERE l2.ol_w_id = l1.ol_w_id AND l2.ol_d_id = l1.ol_d_id\n"
             "                    AND l2.ol_o_id = l1.ol_o_id\n"
             "                    AND l2.ol_delivery_d > l1.ol_delivery_d)\n"
             "GROUP BY su.su_name\n"
             "ORDER BY numwait DESC, su.su_name;\n",

    /* Q22: customers of some phone prefixes with no order and a balance above the average
     * positive one, by the first letter of their state. On TPC-C's data every customer has an
     * order (clause 4.3.3.1) and none is ever added, so this returns no row. */
    "SELECT substr(c.c_state, 1, 1) AS country, count(*) AS numcust,\n"
    "       sum(c.c_balance) AS totacctbal\n"
    "FROM customer c\n"
    "WHERE substr(c.c_phone, 1, 1) IN ('1', '2', '3', '4', '5', '6', '7')\n"
    "  AND c.c_balance > (SELECT avg(c_balance) FROM customer\n"
    "                     WHERE c_balance > 0.00\n"
    "                       AND substr(c_phone, 1, 1) IN ('1', '2', '3', '4', '5', '6', '7'))\n"
    "  AND NOT EXISTS (SELECT 1 FROM orders o\n"
    "                  WHERE o.o_w_id = c.c_w_id AND o.o_d_id = c.c_d_id\n"
    "                    AND o.o_c_id = c.c_id)\n"
    "GROUP BY country\n"
    "ORDER BY country;\n",
};

const char *ch_query_sql(int q)
{
    return q >= 1 && q <= CH_N_QUERIES ? texts[q - 1] : NULL;
}

void ch_query_name(int q, char *out, size_t size)
{
    snprintf(out, size, "q%d", q);
}

/* One item of --queries: "7" or "q7" (or "Q7"), 1..22; 0 when it is not one. */
static int query_number(const char *s, size_t len)
{
    if (len > 0 && (s[0] == 'q' || s[0] == 'Q')) {
        s++;
        len--;
    }
    if (len == 0 || len > 2)
        return 0;
    int v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    return v >= 1 && v <= CH_N_QUERIES ? v : 0;
}

int ch_queries_parse(const char *list, int *queries, struct err *e)
{
    if (!list) {
        for (int q = 1; q <= CH_N_QUERIES; q++)
            queries[q - 1] = q;
        return CH_N_QUERIES;
    }
    int n = 0, seen[CH_N_QUERIES + 1] = {0};
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int q = query_number(p, len);
        if (!q)
            return err_set(e, ERR_INPUT,
                           "run: --queries: '%.*s' is not a query (1 to 22, or q1 to q22)",
                           (int)len, p);
        if (seen[q])
            return err_set(e, ERR_INPUT, "run: --queries: q%d is given twice", q);
        seen[q] = 1;
        queries[n++] = q;
        if (!end)
            return n;
        p = end + 1;
    }
}
