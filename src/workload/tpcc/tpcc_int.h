#ifndef PGARENA_WORKLOAD_TPCC_INT_H
#define PGARENA_WORKLOAD_TPCC_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/rng.h"
#include "workload/tpcc/tpcc.h"

/*
 * What the TPC-C files share inside the workload module: the spec's sizes (clause 4.3.3.1)
 * and the generators of its values (4.3.2): NURand, last names from syllables, random
 * a-strings and n-strings, zip codes, and the 10 % of data strings holding "ORIGINAL".
 * Generators write at p and return the end; they never write a NUL, and their characters
 * need no escaping in COPY's text format. Nothing here allocates.
 */

#define TPCC_ITEMS         100000
#define TPCC_STOCK         100000 /* per warehouse */
#define TPCC_DISTRICTS     10     /* per warehouse */
#define TPCC_CUSTOMERS     3000   /* per district */
#define TPCC_ORDERS        3000   /* per district */
#define TPCC_FIRST_NEW     2101   /* orders from this id on are undelivered (new_order rows) */
#define TPCC_MAX_LINES     15
#define TPCC_UNUSED_ITEM   (TPCC_ITEMS + 1) /* New-Order's rollback: an item id not loaded */
#define TPCC_LAST_NAME_MAX 16

/* NURand(A, x, y) of clause 2.1.6 with the constant c. */
int64_t tpcc_nurand(struct rng *r, int64_t a, int64_t x, int64_t y, int64_t c);

/* The last name of number n (0..999): three syllables, by its three digits (4.3.2.3). */
char *tpcc_last_name(char *p, int n);

/* The syllables, for the SQL expression that builds a last name from its number. */
extern const char *const tpcc_syllables[10];

/* tpcc_astring and tpcc_nstring: in tpcc.h (-w ch's rows use them too). */

/* A zip code: 4 random digits then "11111". */
char *tpcc_zip(struct rng *r, char *p);

/* I_DATA or S_DATA: an a-string of [26, 50] characters, 10 % of them holding "ORIGINAL" at a
 * random position. */
char *tpcc_data(struct rng *r, char *p);

/* A random value in [lo, hi] hundredths (or ten-thousandths, with 4 decimals) as decimal
 * text: tpcc_decimal(r, p, 100, 10000, 2) is a price in [1.00, 100.00]. */
char *tpcc_decimal(struct rng *r, char *p, int64_t lo, int64_t hi, int decimals);

/* The run's C for C_LAST from the load's (2.1.6.1): their difference lies in [65, 119] and
 * is neither 96 nor 112. */
int tpcc_c_last_run(struct rng *r, int c_load);

/* Whether two C values for C_LAST are a valid load/run pair. */
int tpcc_c_last_ok(int c_load, int c_run);

#endif
