#ifndef PGARENA_WORKLOAD_TPCC_ROWS_H
#define PGARENA_WORKLOAD_TPCC_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "workload/tpcc/tpcc_int.h"

/*
 * Row generators of the TPC-C tables in COPY text format, as load_row_fn: row numbers are
 * warehouse-major ((w - 1) * rows per warehouse + ...), so a COPY of warehouses [a, b] is the
 * row range [(a - 1) * n, b * n). The caller owns the struct tpcc_gen (one per COPY).
 */

struct tpcc_gen {
    uint64_t seed;
    int c_last;      /* C of NURand(255, 0, 999) for C_LAST (the load's constant) */
    const char *now; /* the load's timestamp, "YYYY-MM-DD HH:MM:SS" */
    int modulus;     /* > 0: only the warehouses of hash partition `remainder` */
    int remainder;
    /* the generator's own state */
    struct rng rng, cnt;
    int lines;
    int perm[TPCC_CUSTOMERS];
};

/* Rows per warehouse of each table (order_line: 15 slots per order, unused ones skipped). */
#define TPCC_ROWS_DISTRICT    TPCC_DISTRICTS
#define TPCC_ROWS_CUSTOMER    (TPCC_DISTRICTS * TPCC_CUSTOMERS)
#define TPCC_ROWS_ORDERS      (TPCC_DISTRICTS * TPCC_ORDERS)
#define TPCC_ROWS_NEW_ORDER   (TPCC_DISTRICTS * (TPCC_ORDERS - TPCC_FIRST_NEW + 1))
#define TPCC_SLOTS_ORDER_LINE ((int64_t)TPCC_ROWS_ORDERS * TPCC_MAX_LINES)

size_t tpcc_item_row(void *arg, char *out, int64_t row);
size_t tpcc_warehouse_row(void *arg, char *out, int64_t row);
size_t tpcc_district_row(void *arg, char *out, int64_t row);
size_t tpcc_customer_row(void *arg, char *out, int64_t row);
size_t tpcc_history_row(void *arg, char *out, int64_t row);
size_t tpcc_orders_row(void *arg, char *out, int64_t row);
size_t tpcc_new_order_row(void *arg, char *out, int64_t row);
size_t tpcc_order_line_row(void *arg, char *out, int64_t row);
size_t tpcc_stock_row(void *arg, char *out, int64_t row);

/* How many order lines warehouses [w_lo, w_hi] get (for progress). */
int64_t tpcc_order_lines(uint64_t seed, int64_t w_lo, int64_t w_hi);

#endif
