#ifndef PGARENA_WORKLOAD_CH_H
#define PGARENA_WORKLOAD_CH_H

#include <stddef.h>

#include "base/err.h"
#include "pg/pg.h"
#include "workload/load/load.h"

/*
 * CH-benCHmark (the workload `ch`; Cole et al., "The mixed workload CH-benCHmark", DBTest
 * 2011): TPC-C's tables and transactions (workload/tpcc/) plus the tables supplier, nation
 * and region, and 22 analytic queries over all of them, run at once by other clients. Names
 * follow BenchBase's CH schema (su_*, n_*, r_*) except that TPC-C's order table is our
 * `orders`. Ownership: the texts returned are static.
 */

#define CH_N_QUERIES   22
#define CH_N_SUPPLIERS 10000
#define CH_N_NATIONS   62
#define CH_N_REGIONS   5

/* The text of query q (1..22) as a script (one statement, ';'-terminated); NULL outside. */
const char *ch_query_sql(int q);

/* Query q's script name: "q1".."q22". */
void ch_query_name(int q, char *out, size_t size);

/* --queries LIST ("1,6,q14"; NULL: all 22 in order) into queries[] (room for CH_N_QUERIES),
 * in the order given; returns how many, or -1 with e (ERR_INPUT: not a query, or one twice). */
int ch_queries_parse(const char *list, int *queries, struct err *e);

/* The key of nation i (0..61): the ASCII codes of '0'..'9', 'A'..'Z', 'a'..'z' in turn, so
 * that a customer's nation is the code of the first letter of c_state (the paper's rule). */
int ch_nation_key(int i);

/* Nation i's name and region (1..5; region r's name is ch_region_name(r)). */
const char *ch_nation_name(int i);
int ch_nation_region(int i);
const char *ch_region_name(int r);

/* The nation index (0..61) of supplier su_suppkey (0..9999). */
int ch_supplier_nation(int suppkey);

/*
 * -w ch's dataset: load_tpcc's tables and rows for opt->warehouses warehouses, then region (5
 * rows), nation (62) and supplier (10,000: keys 0..9999, the values mod(s_w_id * s_i_id,
 * 10000) takes), each with its primary key, analyzed. Errors as load_tpcc.
 */
int load_ch(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);

/* Row counts in the CH tables on c: 0 when supplier, nation and region hold the paper's
 * sizes; ERR_INPUT naming what is missing or short otherwise. */
int ch_inspect(struct pg_conn *c, struct err *e);

#endif
