#include "workload/load.h"

#include <stdio.h>
#include <string.h>

#include "workload/load_int.h"

/*
 * pgbench's dataset, as `pgbench -i` of PostgreSQL 15 leaves it: the same DDL, the same rows
 * (branch and teller filler NULL, account filler an empty, blank-padded string, balances 0),
 * accounts written frozen, vacuumed and analyzed, primary keys on the three keyed tables.
 */

#define N_TELLERS  10 /* per branch, i.e. per scale unit */
#define N_ACCOUNTS 100000

/* From this scale on aid no longer fits an int: pgbench switches aid to bigint. */
#define SCALE_BIGINT 20000

#define DROP_SQL                                                                                   \
    "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, pgbench_tellers"

static size_t branch_row(char *out, int64_t row)
{
    char *p = load_put_int(out, row + 1);
    memcpy(p, "\t0\t\\N\n", 6);
    return (size_t)(p + 6 - out);
}

static size_t teller_row(char *out, int64_t row)
{
    char *p = load_put_int(out, row + 1);
    *p++ = '\t';
    p = load_put_int(p, row / N_TELLERS + 1);
    memcpy(p, "\t0\t\\N\n", 6);
    return (size_t)(p + 6 - out);
}

static size_t account_row(char *out, int64_t row)
{
    char *p = load_put_int(out, row + 1);
    *p++ = '\t';
    p = load_put_int(p, row / N_ACCOUNTS + 1);
    memcpy(p, "\t0\t\n", 4);
    return (size_t)(p + 4 - out);
}

/* Create the four tables on c, in the caller's transaction. */
static int create_tables(struct load_ctx *x, PGconn *c, int scale, struct err *e)
{
    const char *aid = scale >= SCALE_BIGINT ? "bigint" : "int";
    char sql[1024];
    snprintf(sql, sizeof sql,
             "create table pgbench_history(tid int,bid int,aid %s,delta int,mtime timestamp,"
             "filler char(22));\n"
             "create table pgbench_tellers(tid int not null,bid int,tbalance int,"
             "filler char(84)) with (fillfactor=100);\n"
             "create table pgbench_accounts(aid %s not null,bid int,abalance int,"
             "filler char(84)) with (fillfactor=100);\n"
             "create table pgbench_branches(bid int not null,bbalance int,"
             "filler char(88)) with (fillfactor=100)",
             aid, aid);
    return load_exec(x, c, "could not create the pgbench tables", sql, e);
}

/*
 * Load phase. The tables are created in the loading transaction, which makes COPY FREEZE
 * valid: accounts are written frozen and all-visible, so VACUUM has little left to do and no
 * anti-wraparound vacuum rewrites the table during a later benchmark. Branches and tellers
 * are not frozen, because pgbench 15 inserts them plainly (they are a page or two).
 *
 * One connection, whatever opt->jobs says. Splitting accounts over several COPY streams
 * needs the table committed first, so no FREEZE: on 2 cores at scale 50 the COPY gained
 * 0.15 s, the VACUUM FREEZE it then needs cost 1.1 s, and the heap was no longer in aid
 * order (correlation 0.57), so not pgbench's table any more.
 */
static int load_rows(struct load_ctx *x, PGconn *c, int scale, struct err *e)
{
    int64_t n_branches = scale;
    struct load_copy branches = {"copy pgbench_branches from stdin", branch_row, 0, n_branches};
    struct load_copy tellers = {"copy pgbench_tellers from stdin", teller_row, 0,
                                n_branches * N_TELLERS};
    struct load_copy accounts = {"copy pgbench_accounts from stdin with (freeze on)", account_row,
                                 0, n_branches * N_ACCOUNTS};

    load_phase(x, "load", branches.end + tellers.end + accounts.end);
    /* The drop commits on its own, as in pgbench, so that the old and the new dataset never
     * need disk space together. */
    if (load_exec(x, c, "could not drop the pgbench tables", DROP_SQL, e) < 0 ||
        load_exec(x, c, "could not begin", "begin", e) < 0 || create_tables(x, c, scale, e) < 0 ||
        load_copy(x, c, &branches, e) < 0 || load_copy(x, c, &tellers, e) < 0 ||
        load_copy(x, c, &accounts, e) < 0 || load_exec(x, c, "could not commit", "commit", e) < 0)
        return -1;
    load_phase_end(x);
    return 0;
}

struct pgbench_step {
    const char *sql;
    int64_t rows_per_scale; /* of the table the step works on, for progress */
};

static int run_steps(struct load_ctx *x, PGconn *c, const char *phase, const char *what,
                     const struct pgbench_step *steps, int n, int scale, struct err *e)
{
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += steps[i].rows_per_scale * scale;
    load_phase(x, phase, total);
    for (int i = 0; i < n; i++) {
        if (load_exec(x, c, what, steps[i].sql, e) < 0)
            return -1;
        load_advance(x, steps[i].rows_per_scale * scale);
    }
    load_phase_end(x);
    return 0;
}

static int build_keys(struct load_ctx *x, PGconn *c, int scale, struct err *e)
{
    static const struct pgbench_step steps[] = {
        {"alter table pgbench_branches add primary key (bid)", 1},
        {"alter table pgbench_tellers add primary key (tid)", N_TELLERS},
        {"alter table pgbench_accounts add primary key (aid)", N_ACCOUNTS},
    };
    return run_steps(x, c, "keys", "could not create a primary key", steps, 3, scale, e);
}

static int vacuum(struct load_ctx *x, PGconn *c, int scale, struct err *e)
{
    static const struct pgbench_step steps[] = {
        {"vacuum analyze pgbench_branches", 1},
        {"vacuum analyze pgbench_tellers", N_TELLERS},
        {"vacuum analyze pgbench_accounts", N_ACCOUNTS},
        {"vacuum analyze pgbench_history", 0},
    };
    return run_steps(x, c, "vacuum", "could not vacuum", steps, 4, scale, e);
}

int load_pgbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e)
{
    if (opt->scale < 1)
        return err_set(e, ERR_INPUT, "scale must be at least 1, not %d", opt->scale);
    struct load_ctx x;
    load_ctx_init(&x, opt);
    PGconn *c = load_connect(conn, e);
    if (!c)
        return -1;
    int rc = load_rows(&x, c, opt->scale, e);
    if (rc == 0)
        rc = build_keys(&x, c, opt->scale, e);
    if (rc == 0)
        rc = vacuum(&x, c, opt->scale, e);
    PQfinish(c);
    return rc;
}
