#ifndef PGARENA_WORKLOAD_TPCC_H
#define PGARENA_WORKLOAD_TPCC_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "pg/pg.h"

/*
 * TPC-C (the workload `tpcc`): the NURand constants, the five transactions as scripts in
 * pgbench's language (client-side SQL, or calls of the PL/pgSQL functions init installs), and
 * the consistency conditions of clause 3.3.2. The loader is load_tpcc (below).
 * Ownership: strings returned are the caller's to free.
 */

/* The C constants of NURand (clause 2.1.6): for C_LAST (A = 255), C_ID (1023), OL_I_ID
 * (8191). */
struct tpcc_consts {
    int c_last, c_id, ol_i_id;
};

/* The load's constants, drawn from the seed. */
void tpcc_consts_load(uint64_t seed, struct tpcc_consts *k);

/* The run's constants from the load's: C_LAST at a difference the spec allows, the other
 * two drawn anew (clause 2.1.6.1). */
void tpcc_consts_run(uint64_t seed, const struct tpcc_consts *load, struct tpcc_consts *run);

/* The text init records in the comment of table warehouse, and reading it back (-1 when the
 * text is not one). */
char *tpcc_consts_comment(const struct tpcc_consts *k);
int tpcc_consts_parse(const char *text, struct tpcc_consts *k);

/* CREATE FUNCTION statements of the five transactions (and tpcc_last_name), ';'-separated. */
extern const char tpcc_procedures_sql[];

enum tpcc_tx {
    TPCC_NEW_ORDER,
    TPCC_PAYMENT,
    TPCC_ORDER_STATUS,
    TPCC_DELIVERY,
    TPCC_STOCK_LEVEL,
    TPCC_N_TX
};

/* The scripts' names: "new-order", "payment", "order-status", "delivery", "stock-level". */
extern const char *const tpcc_tx_names[TPCC_N_TX];

/* The spec's mix (45/43/4/4/4). */
extern const int tpcc_default_mix[TPCC_N_TX];

struct tpcc_run {
    int warehouses;      /* terminals are bound to warehouse client_id % warehouses + 1 */
    int keying_thinking; /* \sleep the keying time before and the think time after */
    int procedures;      /* call the PL/pgSQL functions instead of client-side SQL */
    struct tpcc_consts c;
};

/* The workload (tpcc_run.c): -w ch's runs TPC-C's operations as its own. */
struct workload;
extern const struct workload workload_tpcc;

/* -w tpcc's run options (workload_params' opts; -w ch's begin with them). */
struct tpcc_opts {
    int64_t warehouses; /* 0: all that are loaded */
    int mix[TPCC_N_TX];
    int keying_thinking, procedures;
};

/* init's options of TPC-C's tables (load_options' opts). */
struct tpcc_init_opts {
    int warehouses; /* --warehouses, default 1 */
    int partitions; /* --partitions: > 0 hash-partitions order_line and stock */
};

/* --warehouses, --mix, --keying-thinking and --procedures (tpcc_run.c): the group, the
 * defaults and one option into a struct tpcc_opts, and the warehouses a load takes (into a
 * struct tpcc_init_opts); init's --warehouses and --partitions likewise. */
struct workload_option_group;
struct load_options;
extern const struct workload_option_group tpcc_option_group;
extern const struct workload_option_group *const tpcc_init_option_groups[];
void tpcc_options_init(void *opts);
int tpcc_option(void *opts, const char *name, const char *arg, struct err *e);
void tpcc_load_sizes(const void *opts, int64_t scale, void *init_opts);
void tpcc_init_options_init(void *opts);
int tpcc_init_option(void *opts, const char *name, const char *arg, struct err *e);
/* Another dataset's run option (-s, --tables, --table-size) refused in TPC-C's words. */
int tpcc_foreign_option(const struct workload *w, const char *name, struct err *e);

/* The script of one transaction. */
char *tpcc_script(enum tpcc_tx tx, const struct tpcc_run *o);

/* The statement by which a New-Order script rolls back, as it appears in the script; the
 * number of its executions is the number of rolled-back New-Orders. */
extern const char tpcc_rollback_sql[];

/*
 * What a database holds of TPC-C, read on c: the number of warehouses, the load's
 * constants, whether the functions of --procedures are installed. ERR_INPUT naming what is
 * missing when a table is absent or has other columns, or the tables are empty.
 */
struct tpcc_db {
    int warehouses;
    struct tpcc_consts load;
    int has_constants; /* 0 when the comment is missing (a foreign loader): defaults used */
    int has_procedures;
};
int tpcc_inspect(struct pg_conn *c, struct tpcc_db *db, struct err *e);

/* The server's sum(d_next_o_id): New-Orders committed so far plus a constant. */
int tpcc_next_o_id_sum(struct pg_conn *c, int64_t *out, struct err *e);

/*
 * The consistency conditions of clause 3.3.2: 1 to 4, or with all 1 to 12 (11 only when no
 * Delivery has run: every district still has order 2101 undelivered), over `jobs`
 * connections at once (each condition one query on one connection; run it on a database no
 * benchmark is writing). Returns 0 when all hold, 1 when one fails (failure: the first by
 * number, with the warehouse/district, e.g. "condition 1 fails: warehouse 3: w_ytd
 * 300010.00, sum(d_ytd) 300000.00"), -1 on an error (e). `checked` gets the conditions run,
 * as "1 2 3 4".
 */
int tpcc_check(const struct pg_connopts *conn, int all, int jobs, char *failure,
               size_t failure_size, char *checked, size_t checked_size, struct err *e);

/*
 * TPC-C's nine tables (clause 1.3, HammerDB's names) with the rows of clause 4.3.3.1 for
 * opt->opts's warehouses (a struct tpcc_init_opts): item loaded once, the other tables by warehouse
 * ranges over the connections, then primary keys, the indexes customer_i2 and orders_i2, ANALYZE.
 * Also installs the PL/pgSQL functions of `run --procedures` and records the NURand constants
 * (tpcc_consts_comment) in the comment of table warehouse. With partitions > 0, order_line
 * and stock are hash-partitioned by warehouse. Errors as load_pgbench.
 */
int load_tpcc(const struct pg_connopts *conn, const struct load_options *opt, struct err *e);

/*
 * TPC-C's load (load_tpcc) with a workload's own tables besides (-w ch): the n_more tables
 * of `more` are checked with TPC-C's before anything changes (load_check_tables), and `build`
 * (may be NULL) adds their setup to p->setup_sql and their tasks to TPC-C's plan
 * (workload/load/load_int.h). One load at a time. Errors as load_tpcc.
 */
struct load_plan;
struct load_options;
struct load_expect;
int tpcc_load_with(const struct pg_connopts *conn, const struct load_options *opt,
                   const struct load_expect *more, int n_more,
                   void (*build)(struct load_plan *p, const struct load_options *opt),
                   struct err *e);

/* TPC-C's generators of random strings for another workload's rows (clause 4.3.2.2): an
 * a-string of [min, max] letters and digits, an n-string of len digits, drawn from r; they
 * write at p and return the end (no NUL; nothing COPY's text format must escape). */
struct rng;
char *tpcc_astring(struct rng *r, char *p, int min, int max);
char *tpcc_nstring(struct rng *r, char *p, int len);

#endif
