#include "workload/sysbench/sysbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/rng.h"
#include "workload/load/load_int.h"

/*
 * sysbench 1.0's OLTP tables for the pgsql driver (oltp_common.lua, create_table): the same
 * definition, ids 1..table_size, k from sysbench's default distribution, c and pad random
 * digit groups, primary key sbtestN_pkey, index k_N, the serial's sequence advanced past the
 * ids. sysbench inserts rows with multi-row INSERTs into a table that already has its key;
 * here each table is one unit: truncated and filled with COPY FREEZE in one transaction, then
 * vacuumed, then its two indexes built at once on two connections.
 */

#define SB_COLS                                                                                    \
    "id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, "                 \
    "pad CHAR(60) DEFAULT '' NOT NULL"

/* What to load: sysbench's sizes. */
static const struct sysbench_sizes *own(const struct load_options *opt)
{
    return opt->opts;
}

static const char sb_shape[] = "id integer, k integer, c character(120), pad character(60)";

/* sb_rand_special's defaults: --rand-spec-iter, --rand-spec-pct, --rand-spec-res. */
#define SPECIAL_ITER 12
#define SPECIAL_PCT  1
#define SPECIAL_RES  75

int64_t load_sb_special(struct rng *r, int64_t lo, int64_t hi)
{
    double t = (double)(hi - lo);
    double rnd = rng_double(r);
    /* With probability (100 - res) %, a bell curve over the whole range (the mean of iter
     * uniform draws)... */
    if (rnd * t * 100.0 / (100.0 - SPECIAL_RES) < t) {
        double sum = 0;
        for (int i = 0; i < SPECIAL_ITER; i++)
            sum += rng_double(r);
        return lo + (int64_t)(sum * t / SPECIAL_ITER);
    }
    /* ...else uniform over pct % of the range around its middle, reusing the draw. */
    double d = t * SPECIAL_PCT / 100.0;
    return lo + (int64_t)(rnd * (d + 1) + t / 2 - t * SPECIAL_PCT / 200.0);
}

char *load_sb_digits(struct rng *r, char *p, int groups)
{
    for (int g = 0; g < groups; g++) {
        if (g)
            *p++ = '-';
        uint64_t v = rng_next(r) % 100000000000ULL; /* 11 digits; the bias is ~1e-8 */
        for (int i = 10; i >= 0; i--, v /= 10)
            p[i] = (char)('0' + v % 10);
        p += 11;
    }
    return p;
}

/* One table's rows, drawn in id order from the table's own generator, so the data depends
 * on the seed and the table number only, not on -j. */
struct sb_gen {
    struct rng rng;
    int64_t table_size;
};

static size_t sb_row(void *arg, char *out, int64_t row)
{
    struct sb_gen *g = arg;
    char *p = load_put_int(out, row + 1);
    *p++ = '\t';
    p = load_put_int(p, load_sb_special(&g->rng, 1, g->table_size));
    *p++ = '\t';
    p = load_sb_digits(&g->rng, p, 10);
    *p++ = '\t';
    p = load_sb_digits(&g->rng, p, 5);
    *p++ = '\n';
    return (size_t)(p - out);
}

static char *setup_sql(const struct load_options *opt)
{
    struct buf b;
    buf_init(&b);
    buf_puts(&b, "drop table if exists ");
    for (int t = 1; t <= own(opt)->tables; t++)
        buf_printf(&b, "%ssbtest%d", t > 1 ? ", " : "", t);
    for (int t = 1; t <= own(opt)->tables; t++)
        buf_printf(&b, ";\nCREATE TABLE sbtest%d(" SB_COLS ")", t);
    return b.data;
}

static void add_load(struct load_plan *p, const struct load_options *opt, int t)
{
    char what[64], copy[96], before[64], after[160];
    snprintf(what, sizeof what, "could not load sbtest%d", t);
    snprintf(copy, sizeof copy, "copy sbtest%d (id, k, c, pad) from stdin with (freeze on)", t);
    snprintf(before, sizeof before, "begin; truncate sbtest%d", t);
    snprintf(after, sizeof after,
             "select setval(pg_get_serial_sequence('sbtest%d', 'id'), %lld); commit", t,
             (long long)own(opt)->table_size);
    struct sb_gen *g = xmalloc(sizeof *g);
    rng_seed(&g->rng, opt->seed ^ (0x5b7e57ULL * (uint64_t)t));
    g->table_size = own(opt)->table_size;
    struct load_copy cp = {copy, sb_row, g, 0, own(opt)->table_size};
    load_plan_copy(p, what, before, &cp, after, own(opt)->table_size);
}

/* Loads, then vacuums, then both indexes of each table (in parallel: CREATE INDEX takes a
 * lock that lets another CREATE INDEX run), then the key made of the unique index. */
static void build_plan(struct load_plan *p, const struct load_options *opt)
{
    int n = own(opt)->tables;
    int *vacuum = xcalloc((size_t)n, sizeof *vacuum);
    int *pkey = xcalloc((size_t)n, sizeof *pkey);
    int *k = xcalloc((size_t)n, sizeof *k);
    char sql[200];
    p->setup_sql = setup_sql(opt);
    for (int t = 1; t <= n; t++)
        add_load(p, opt, t);
    for (int t = 1; t <= n; t++) {
        snprintf(sql, sizeof sql, "vacuum analyze sbtest%d", t);
        vacuum[t - 1] = load_plan_sql(p, "could not vacuum", sql);
        load_task_after(p, vacuum[t - 1], t - 1);
    }
    for (int t = 1; t <= n; t++) {
        snprintf(sql, sizeof sql, "create unique index sbtest%d_pkey on sbtest%d (id)", t, t);
        pkey[t - 1] = load_plan_sql(p, "could not create a primary key", sql);
        load_task_after(p, pkey[t - 1], vacuum[t - 1]);
        snprintf(sql, sizeof sql, "CREATE INDEX k_%d ON sbtest%d(k)", t, t);
        k[t - 1] = load_plan_sql(p, "could not create an index", sql);
        load_task_after(p, k[t - 1], vacuum[t - 1]);
    }
    for (int t = 1; t <= n; t++) {
        snprintf(sql, sizeof sql,
                 "alter table sbtest%d add constraint sbtest%d_pkey primary key using index "
                 "sbtest%d_pkey",
                 t, t, t);
        int c = load_plan_sql(p, "could not create a primary key", sql);
        load_task_after(p, c, pkey[t - 1]);
        load_task_after(p, c, k[t - 1]); /* its ACCESS EXCLUSIVE lock would wait anyway */
    }
    free(vacuum);
    free(pkey);
    free(k);
}

int load_sysbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e)
{
    if (own(opt)->tables < 1)
        return err_set(e, ERR_INPUT, "--tables must be at least 1, not %lld",
                       (long long)own(opt)->tables);
    if (own(opt)->table_size < 1)
        return err_set(e, ERR_INPUT, "--table-size must be at least 1, not %lld",
                       (long long)own(opt)->table_size);
    struct load_expect *ex = xcalloc((size_t)own(opt)->tables, sizeof *ex);
    char(*names)[32] = xcalloc((size_t)own(opt)->tables, 32);
    for (int t = 1; t <= own(opt)->tables; t++) {
        snprintf(names[t - 1], 32, "sbtest%d", t);
        ex[t - 1] = (struct load_expect){names[t - 1], sb_shape, NULL};
    }
    int rc = load_checked_run(conn, opt, ex, own(opt)->tables, build_plan, e);
    free(ex);
    free(names);
    return rc;
}
