#include "workload/tpcc/tpcc_rows.h"

#include <string.h>

#include "workload/load/load_int.h"
#include "workload/tpcc/tpcc_int.h"

/*
 * The rows of clause 4.3.3.1. Each generator draws from a stream of its own per table,
 * warehouse and district, restarted at each district's first row, so the data is a function
 * of the seed alone (not of -j, the ranges or the partitions), and orders and order lines
 * agree on every order's line count because both draw it from the same stream.
 */

enum {
    TAG_ITEM = 1,
    TAG_WAREHOUSE,
    TAG_DISTRICT,
    TAG_CUSTOMER,
    TAG_HISTORY,
    TAG_ORDERS,
    TAG_OL_CNT,
    TAG_ORDER_LINE,
    TAG_STOCK
};

static void seed_stream(struct rng *r, uint64_t seed, int tag, int64_t w, int64_t d)
{
    rng_seed(r, seed ^ ((uint64_t)tag * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)w << 20) ^
                    ((uint64_t)d << 8));
}

/* Whether row's warehouse goes to this COPY (all, or those of one hash partition). */
static int wanted(const struct tpcc_gen *g, int64_t w)
{
    return !g->modulus || load_hash_partition(w, 0, g->modulus) == g->remainder;
}

static char *tab(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    p += n;
    *p++ = '\t';
    return p;
}

static char *num(char *p, int64_t v)
{
    p = load_put_int(p, v);
    *p++ = '\t';
    return p;
}

static char *address(struct rng *r, char *p)
{
    for (int i = 0; i < 3; i++) {
        p = tpcc_astring(r, p, 10, 20);
        *p++ = '\t';
    }
    for (int i = 0; i < 2; i++)
        *p++ = (char)('A' + rng_range(r, 0, 25));
    *p++ = '\t';
    p = tpcc_zip(r, p);
    *p++ = '\t';
    return p;
}

static size_t end_row(char *out, char *p)
{
    p[-1] = '\n'; /* the last field's tab */
    return (size_t)(p - out);
}

size_t tpcc_item_row(void *arg, char *out, int64_t row)
{
    struct tpcc_gen *g = arg;
    if (row == 0)
        seed_stream(&g->rng, g->seed, TAG_ITEM, 0, 0);
    char *p = num(out, row + 1);
    p = num(p, rng_range(&g->rng, 1, 10000));
    p = tpcc_astring(&g->rng, p, 14, 24);
    *p++ = '\t';
    p = tpcc_decimal(&g->rng, p, 100, 10000, 2);
    *p++ = '\t';
    p = tpcc_data(&g->rng, p);
    *p++ = '\t';
    return end_row(out, p);
}

size_t tpcc_warehouse_row(void *arg, char *out, int64_t row)
{
    struct tpcc_gen *g = arg;
    int64_t w = row + 1;
    seed_stream(&g->rng, g->seed, TAG_WAREHOUSE, w, 0);
    char *p = num(out, w);
    p = tpcc_astring(&g->rng, p, 6, 10);
    *p++ = '\t';
    p = address(&g->rng, p);
    p = tpcc_decimal(&g->rng, p, 0, 2000, 4);
    *p++ = '\t';
    p = tab(p, "300000.00", 9);
    return end_row(out, p);
}

size_t tpcc_district_row(void *arg, char *out, int64_t row)
{
    struct tpcc_gen *g = arg;
    int64_t w = row / TPCC_DISTRICTS + 1, d = row % TPCC_DISTRICTS + 1;
    seed_stream(&g->rng, g->seed, TAG_DISTRICT, w, d);
    char *p = num(out, d);
    p = num(p, w);
    p = tpcc_astring(&g->rng, p, 6, 10);
    *p++ = '\t';
    p = address(&g->rng, p);
    p = tpcc_decimal(&g->rng, p, 0, 2000, 4);
    *p++ = '\t';
    p = tab(p, "30000.00", 8);
    p = num(p, TPCC_ORDERS + 1);
    return end_row(out, p);
}

/* Split a per-district row number into warehouse, district and the 0-based row within the
 * district; restart the stream at a district's first row. */
static int64_t locate(struct tpcc_gen *g, struct rng *r, int tag, int64_t row, int64_t per_d,
                      int64_t *w, int64_t *d)
{
    int64_t k = row % per_d;
    *d = row / per_d % TPCC_DISTRICTS + 1;
    *w = row / per_d / TPCC_DISTRICTS + 1;
    if (k == 0)
        seed_stream(r, g->seed, tag, *w, *d);
    return k;
}

size_t tpcc_customer_row(void *arg, char *out, int64_t row)
{
    struct tpcc_gen *g = arg;
    int64_t w, d, k = locate(g, &g->rng, TAG_CUSTOMER, row, TPCC_CUSTOMERS, &w, &d);
    struct rng *r = &g->rng;
    char *p = num(out, k + 1);
    p = num(p, d);
    p = num(p, w);
    p = tpcc_astring(r, p, 8, 16);
    *p++ = '\t';
    p = tab(p, "OE", 2);
    p = tpcc_last_name(p, k < 1000 ? (int)k : (int)tpcc_nurand(r, 255, 0, 999, g->c_last));
    *p++ = '\t';
    p = address(r, p);
    p = tpcc_nstring(r, p, 16);
    *p++ = '\t';
    p = tab(p, g->now, strlen(g->now));
    p = tab(p, rng_range(r, 1, 10) == 1 ? "BC" : "GC", 2);
    p = tab(p, "50000.00", 8);
    p = tpcc_decimal(r, p, 0, 5000, 4);
    *p++ = '\t';
    p = tab(p, "-10.00\t10.00\t1\t0", 16);
    p = tpcc_astring(r, p, 300, 500);
    *p++ = '\t';
    return end_row(out, p);
}

size_t tpcc_history_row(void *arg, char *out, int64_t row)
{
    struct tpcc_gen *g = arg;
    int64_t w, d, k = locate(g, &g->rng, TAG_HISTORY, row, TPCC_CUSTOMERS, &w, &d);
    char *p = num(out, k + 1);
    p = num(p, d);
    p = num(p, w);
    p = num(p, d);
    p = num(p, w);
    p = tab(p, g->now, strlen(g->now));
    p = tab(p, "10.00", 5);
    p = tpcc_astring(&g->rng, p, 12, 24);
    *p++ = '\t';
    return end_row(out, p);
}

size_t tpcc_orders_row(void *arg, char *out, int64_t row)
{
    struct tpcc_gen *g = arg;
    int64_t w, d, k = locate(g, &g->rng, TAG_ORDERS, row, TPCC_ORDERS, &w, &d);
    if (!wanted(g, w))
        return 0;
    if (k == 0) { /* O_C_ID: a random permutation of the customers */
        seed_stream(&g->cnt, g->seed, TAG_OL_CNT, w, d);
        for (int i = 0; i < TPCC_CUSTOMERS; i++)
            g->perm[i] = i + 1;
        for (int i = TPCC_CUSTOMERS - 1; i > 0; i--) {
            int j = (int)rng_range(&g->rng, 0, i);
            int t = g->perm[i];
            g->perm[i] = g->perm[j];
            g->perm[j] = t;
        }
    }
    int64_t o = k + 1;
    char *p = num(out, o);
    p = num(p, d);
    p = num(p, w);
    p = num(p, g->perm[k]);
    p = tab(p, g->now, strlen(g->now));
    if (o < TPCC_FIRST_NEW)
        p = num(p, rng_range(&g->rng, 1, 10));
    else
        p = tab(p, "\\N", 2);
    p = num(p, rng_range(&g->cnt, 5, TPCC_MAX_LINES));
    p = num(p, 1);
    return end_row(out, p);
}

size_t tpcc_new_order_row(void *arg, char *out, int64_t row)
{
    (void)arg;
    int64_t per_d = TPCC_ORDERS - TPCC_FIRST_NEW + 1;
    int64_t k = row % per_d, d = row / per_d % TPCC_DISTRICTS + 1,
            w = row / per_d / TPCC_DISTRICTS + 1;
    char *p = num(out, TPCC_FIRST_NEW + k);
    p = num(p, d);
    p = num(p, w);
    return end_row(out, p);
}

/* Order lines: 15 slots per order, the slots past the order's line count skipped. */
size_t tpcc_order_line_row(void *arg, char *out, int64_t row)
{
    struct tpcc_gen *g = arg;
    int64_t slot = row % TPCC_MAX_LINES, order_row = row / TPCC_MAX_LINES;
    int64_t w, d, k;
    if (slot == 0) {
        k = locate(g, &g->rng, TAG_ORDER_LINE, order_row, TPCC_ORDERS, &w, &d);
        if (k == 0)
            seed_stream(&g->cnt, g->seed, TAG_OL_CNT, w, d);
        g->lines = (int)rng_range(&g->cnt, 5, TPCC_MAX_LINES);
    } else {
        k = order_row % TPCC_ORDERS;
        d = order_row / TPCC_ORDERS % TPCC_DISTRICTS + 1;
        w = order_row / TPCC_ORDERS / TPCC_DISTRICTS + 1;
    }
    if (slot >= g->lines || !wanted(g, w))
        return 0;
    int64_t o = k + 1;
    struct rng *r = &g->rng;
    char *p = num(out, o);
    p = num(p, d);
    p = num(p, w);
    p = num(p, slot + 1);
    p = num(p, rng_range(r, 1, TPCC_ITEMS));
    p = num(p, w);
    if (o < TPCC_FIRST_NEW) {
        p = tab(p, g->now, strlen(g->now));
        p = tab(p, "5\t0.00", 6);
    } else {
        p = tab(p, "\\N\t5", 4);
        p = tpcc_decimal(r, p, 1, 999999, 2);
        *p++ = '\t';
    }
    p = tpcc_astring(r, p, 24, 24);
    *p++ = '\t';
    return end_row(out, p);
}

size_t tpcc_stock_row(void *arg, char *out, int64_t row)
{
    struct tpcc_gen *g = arg;
    int64_t w = row / TPCC_STOCK + 1, i = row % TPCC_STOCK + 1;
    if (!wanted(g, w))
        return 0;
    if (i == 1)
        seed_stream(&g->rng, g->seed, TAG_STOCK, w, 0);
    struct rng *r = &g->rng;
    char *p = num(out, i);
    p = num(p, w);
    p = num(p, rng_range(r, 10, 100));
    for (int k = 0; k < 10; k++) {
        p = tpcc_astring(r, p, 24, 24);
        *p++ = '\t';
    }
    p = tab(p, "0\t0\t0", 5);
    p = tpcc_data(r, p);
    *p++ = '\t';
    return end_row(out, p);
}

int64_t tpcc_order_lines(uint64_t seed, int64_t w_lo, int64_t w_hi)
{
    int64_t n = 0;
    struct rng r;
    for (int64_t w = w_lo; w <= w_hi; w++)
        for (int d = 1; d <= TPCC_DISTRICTS; d++) {
            seed_stream(&r, seed, TAG_OL_CNT, w, d);
            for (int o = 0; o < TPCC_ORDERS; o++)
                n += rng_range(&r, 5, TPCC_MAX_LINES);
        }
    return n;
}
