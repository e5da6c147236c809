#include "workload/pgbench/pgbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "workload/load/load_int.h"

/*
 * pgbench's dataset, as `pgbench -i` of PostgreSQL 15 leaves it: the same DDL (partitions
 * too), the same rows (branch and teller filler NULL, account filler an empty, blank-padded
 * string, balances 0), vacuumed and analyzed, primary keys on the three keyed tables.
 *
 * The units of parallel work are the tables and the partitions of pgbench_accounts. All are
 * created empty in one transaction first; each is then truncated and loaded with COPY FREEZE
 * in a transaction of its own (as pgbench does for accounts: rows written frozen and
 * all-visible, so VACUUM has almost nothing left to do and no anti-wraparound vacuum rewrites
 * the table during a benchmark). A table cannot be split further: several COPY streams into
 * one table need it committed first, so no FREEZE, and on 2 cores the VACUUM FREEZE that then
 * makes up for it cost more than the parallel COPY gained.
 *
 * COPY in text format: binary was measured no faster (5M accounts loaded by the server from a
 * file: 1.96 s text, 1.92 s binary, within the noise). Parsing is about a tenth of the
 * backend's time; the rest is forming tuples and writing heap and WAL.
 */

#define N_TELLERS  10 /* per branch, i.e. per scale unit */
#define N_ACCOUNTS 100000

/* From this scale on aid no longer fits an int: pgbench switches aid to bigint. */
#define SCALE_BIGINT 20000

#define ACCOUNTS_COLS "aid %s not null,bid int,abalance int,filler char(84)"

/* What to load: pgbench's own options. */
static const struct pgbench_init_opts *own(const struct load_options *opt)
{
    return opt->opts;
}

static const char accounts_shape[] =
    "aid integer, bid integer, abalance integer, filler character(84)";
static const char accounts_shape_big[] =
    "aid bigint, bid integer, abalance integer, filler character(84)";

static size_t branch_row(void *arg, char *out, int64_t row)
{
    (void)arg;
    char *p = load_put_int(out, row + 1);
    memcpy(p, "\t0\t\\N\n", 6);
    return (size_t)(p + 6 - out);
}

static size_t teller_row(void *arg, char *out, int64_t row)
{
    (void)arg;
    char *p = load_put_int(out, row + 1);
    *p++ = '\t';
    p = load_put_int(p, row / N_TELLERS + 1);
    memcpy(p, "\t0\t\\N\n", 6);
    return (size_t)(p + 6 - out);
}

/* Which accounts a COPY writes: all of its range, or those hashing to one partition. */
struct account_filter {
    int modulus; /* 0: no filter */
    int remainder;
    int bigint;
};

static size_t account_row(void *arg, char *out, int64_t row)
{
    const struct account_filter *f = arg;
    if (f && f->modulus && load_hash_partition(row + 1, f->bigint, f->modulus) != f->remainder)
        return 0;
    char *p = load_put_int(out, row + 1);
    *p++ = '\t';
    p = load_put_int(p, row / N_ACCOUNTS + 1);
    memcpy(p, "\t0\t\n", 4);
    return (size_t)(p + 4 - out);
}

/*
 * PostgreSQL's hash partitioning of one int4 or int8 key: hashint4extended/hashint8extended
 * with the partition seed (Bob Jenkins' lookup3 final mix, public domain), combined into a
 * 64-bit row hash, modulo the modulus. Computing it here lets each partition be loaded
 * directly, in its own transaction, with FREEZE; the server checks every row against the
 * partition's constraint, so a mistake here cannot load a wrong table.
 */
#define HASH_PARTITION_SEED 0x7A5B22367996DCFDULL

static uint32_t rot32(uint32_t x, int k)
{
    return (x << k) | (x >> (32 - k));
}

static uint64_t hash_uint32_extended(uint32_t k, uint64_t seed)
{
    uint32_t a, b, c;
    a = b = c = 0x9e3779b9 + (uint32_t)sizeof(uint32_t) + 3923095;
    if (seed != 0) {
        a += (uint32_t)(seed >> 32);
        b += (uint32_t)seed;
        /* mix(a, b, c) */
        a -= c, a ^= rot32(c, 4), c += b;
        b -= a, b ^= rot32(a, 6), a += c;
        c -= b, c ^= rot32(b, 8), b += a;
        a -= c, a ^= rot32(c, 16), c += b;
        b -= a, b ^= rot32(a, 19), a += c;
        c -= b, c ^= rot32(b, 4), b += a;
    }
    a += k;
    /* final(a, b, c) */
    c ^= b, c -= rot32(b, 14);
    a ^= c, a -= rot32(c, 11);
    b ^= a, b -= rot32(a, 25);
    c ^= b, c -= rot32(b, 16);
    a ^= c, a -= rot32(c, 4);
    b ^= a, b -= rot32(a, 14);
    c ^= b, c -= rot32(b, 24);
    return ((uint64_t)b << 32) | c;
}

int load_hash_partition(int64_t key, int bigint, int modulus)
{
    uint32_t k = (uint32_t)key;
    if (bigint) {
        uint32_t hi = (uint32_t)((uint64_t)key >> 32);
        k ^= key >= 0 ? hi : ~hi;
    }
    uint64_t h = hash_uint32_extended(k, HASH_PARTITION_SEED);
    uint64_t row = 0; /* hash_combine64(0, h) */
    row ^= h + 0x49a0f4dd15e5a8e3ULL + (row << 54) + (row >> 7);
    return (int)(row % (uint64_t)modulus);
}

/* A name quoted as an identifier, as pgbench quotes the tablespaces. */
static void put_ident(struct buf *b, const char *name)
{
    char *q = pg_quote_ident(name);
    buf_puts(b, q);
    free(q);
}

/* " tablespace "TS"" when opt asks for one (pgbench gives it to the tables, not the
 * partitions, which take their parent's). */
static void put_tablespace(struct buf *b, const struct load_options *opt)
{
    if (!own(opt)->tablespace)
        return;
    buf_puts(b, " tablespace ");
    put_ident(b, own(opt)->tablespace);
}

static int fillfactor(const struct load_options *opt)
{
    return own(opt)->fillfactor > 0 ? own(opt)->fillfactor : 100;
}

/* Step d: the tables and any partitions go. */
static void drop_sql(struct buf *b, const struct load_options *opt)
{
    buf_puts(b, "drop table if exists pgbench_accounts, pgbench_branches, pgbench_history, "
                "pgbench_tellers");
    for (int p = 1; p <= own(opt)->partitions; p++)
        buf_printf(b, ", pgbench_accounts_%d", p);
}

static void create_partitions(struct buf *b, const struct load_options *opt, const char *unlogged)
{
    int64_t part_size = ((int64_t)own(opt)->scale * N_ACCOUNTS + own(opt)->partitions - 1) /
                        (own(opt)->partitions ? own(opt)->partitions : 1);
    for (int p = 1; p <= own(opt)->partitions; p++) {
        buf_printf(b, ";\ncreate%s table pgbench_accounts_%d\n  partition of pgbench_accounts\n",
                   unlogged, p);
        if (own(opt)->partition_method == PGBENCH_PART_HASH) {
            buf_printf(b, "  for values with (modulus %d, remainder %d)", own(opt)->partitions,
                       p - 1);
        } else {
            buf_puts(b, "  for values from (");
            if (p == 1)
                buf_puts(b, "minvalue");
            else
                buf_printf(b, "%lld", (long long)((p - 1) * part_size + 1));
            if (p < own(opt)->partitions)
                buf_printf(b, ") to (%lld)", (long long)(p * part_size + 1));
            else
                buf_puts(b, ") to (maxvalue)");
        }
        buf_printf(b, " with (fillfactor=%d)", fillfactor(opt));
    }
}

/* Step t: the tables (and partitions), empty, as pgbench -i of PostgreSQL 15 writes them. A
 * server of 18 or later refuses an unlogged partitioned table: there, as pgbench 18 does, with
 * --unlogged-tables and --partitions only the partitions are unlogged and the four tables are
 * logged (a logged parent could not reference an unlogged pgbench_branches, nor a logged
 * pgbench_history an unlogged teller). Before 18 every table is unlogged, as pgbench 15 makes
 * them (a parent's persistence is nothing there: a partition has its own). */
static void create_sql(struct buf *b, const struct load_options *opt, int server_version)
{
    const char *aid = own(opt)->scale >= SCALE_BIGINT ? "bigint" : "int";
    const char *unlogged = own(opt)->unlogged ? " unlogged" : "";
    const char *table = own(opt)->partitions && server_version >= 180000 ? "" : unlogged;
    int ff = fillfactor(opt);
    buf_printf(b,
               "create%s table pgbench_history(tid int,bid int,aid %s,delta int,"
               "mtime timestamp,filler char(22))",
               table, aid);
    put_tablespace(b, opt);
    buf_printf(b,
               ";\ncreate%s table pgbench_tellers(tid int not null,bid int,tbalance int,"
               "filler char(84)) with (fillfactor=%d)",
               table, ff);
    put_tablespace(b, opt);
    buf_printf(b, ";\ncreate%s table pgbench_accounts(" ACCOUNTS_COLS ")", table, aid);
    if (own(opt)->partitions)
        buf_printf(b, " partition by %s (aid)",
                   own(opt)->partition_method == PGBENCH_PART_HASH ? "hash" : "range");
    else
        buf_printf(b, " with (fillfactor=%d)", ff);
    put_tablespace(b, opt);
    buf_printf(b,
               ";\ncreate%s table pgbench_branches(bid int not null,bbalance int,"
               "filler char(88)) with (fillfactor=%d)",
               table, ff);
    put_tablespace(b, opt);
    create_partitions(b, opt, unlogged);
}

/* One table or partition to load: its COPY, then its vacuum, then its primary key. */
struct unit {
    char name[64];
    const char *key;        /* primary key column */
    int partition;          /* 1-based, 0 for a table */
    int load, vacuum, pkey; /* task indexes */
};

static void add_load(struct load_plan *p, const struct load_options *opt, struct unit *u)
{
    int64_t n_accounts = (int64_t)own(opt)->scale * N_ACCOUNTS;
    char what[128], copy[128], before[128];
    snprintf(what, sizeof what, "could not load %s", u->name);
    snprintf(copy, sizeof copy, "copy %s from stdin", u->name);
    struct load_copy cp = {copy, account_row, NULL, 0, n_accounts};
    if (strcmp(u->name, "pgbench_branches") == 0) {
        cp = (struct load_copy){copy, branch_row, NULL, 0, own(opt)->scale};
    } else if (strcmp(u->name, "pgbench_tellers") == 0) {
        cp = (struct load_copy){copy, teller_row, NULL, 0, (int64_t)own(opt)->scale * N_TELLERS};
    } else if (u->partition && own(opt)->partition_method == PGBENCH_PART_HASH) {
        struct account_filter *f = xmalloc(sizeof *f);
        *f = (struct account_filter){own(opt)->partitions, u->partition - 1,
                                     own(opt)->scale >= SCALE_BIGINT};
        cp.arg = f;
    } else if (u->partition) {
        int64_t size = (n_accounts + own(opt)->partitions - 1) / own(opt)->partitions;
        cp.first = (u->partition - 1) * size < n_accounts ? (u->partition - 1) * size : n_accounts;
        cp.end = u->partition * size < n_accounts ? u->partition * size : n_accounts;
    }
    int64_t rows = cp.end - cp.first;
    if (cp.arg) /* an even share, the rest on the last: the sum is exact */
        rows = n_accounts / own(opt)->partitions +
               (u->partition == own(opt)->partitions ? n_accounts % own(opt)->partitions : 0);
    if (strncmp(u->name, "pgbench_accounts", 16) != 0) { /* pgbench does not freeze these */
        u->load = load_plan_copy(p, what, NULL, &cp, NULL, rows);
        return;
    }
    snprintf(copy, sizeof copy, "copy %s from stdin with (freeze on)", u->name);
    snprintf(before, sizeof before, "begin; truncate %s", u->name);
    u->load = load_plan_copy(p, what, before, &cp, "commit", rows);
}

/* Step v: vacuum and analyze. Partitions are vacuumed only: the parent's ANALYZE samples
 * them all. */
static void add_vacuums(struct load_plan *p, const struct load_options *opt, struct unit *u, int n)
{
    char sql[160];
    int analyze = own(opt)->partitions
                      ? load_plan_sql(p, "could not analyze", "analyze pgbench_accounts")
                      : -1;
    for (int i = 0; i < n; i++) {
        snprintf(sql, sizeof sql, "vacuum %s%s", u[i].partition ? "" : "analyze ", u[i].name);
        u[i].vacuum = load_plan_sql(p, "could not vacuum", sql);
        if (u[i].partition)
            load_task_after(p, analyze, u[i].vacuum);
    }
    load_plan_sql(p, "could not vacuum", "vacuum analyze pgbench_history");
}

/* Step p: primary keys; the partitions' first, which the parent's then finds and attaches. */
static void add_pkeys(struct load_plan *p, const struct load_options *opt, struct unit *u, int n)
{
    struct buf b;
    buf_init(&b);
    int parent = -1;
    if (own(opt)->partitions) {
        buf_puts(&b, "alter table pgbench_accounts add primary key (aid)");
        if (own(opt)->index_tablespace) {
            buf_puts(&b, " using index tablespace ");
            put_ident(&b, own(opt)->index_tablespace);
        }
        parent = load_plan_sql(p, "could not create a primary key", b.data);
    }
    for (int i = 0; i < n; i++) {
        buf_reset(&b);
        buf_printf(&b, "alter table %s add primary key (%s)", u[i].name, u[i].key);
        if (own(opt)->index_tablespace) {
            buf_puts(&b, " using index tablespace ");
            put_ident(&b, own(opt)->index_tablespace);
        }
        u[i].pkey = load_plan_sql(p, "could not create a primary key", b.data);
        if (u[i].partition)
            load_task_after(p, parent, u[i].pkey);
    }
    buf_free(&b);
}

/* Step f: pgbench's foreign keys, one after another (each locks two tables). */
static void add_fkeys(struct load_plan *p)
{
    static const char *const fks[] = {
        "alter table pgbench_tellers add constraint pgbench_tellers_bid_fkey foreign key (bid) "
        "references pgbench_branches",
        "alter table pgbench_accounts add constraint pgbench_accounts_bid_fkey foreign key (bid) "
        "references pgbench_branches",
        "alter table pgbench_history add constraint pgbench_history_bid_fkey foreign key (bid) "
        "references pgbench_branches",
        "alter table pgbench_history add constraint pgbench_history_tid_fkey foreign key (tid) "
        "references pgbench_tellers",
        "alter table pgbench_history add constraint pgbench_history_aid_fkey foreign key (aid) "
        "references pgbench_accounts"};
    int prev = -1;
    for (size_t i = 0; i < sizeof fks / sizeof *fks; i++) {
        int t = load_plan_sql(p, "could not create a foreign key", fks[i]);
        if (prev >= 0)
            load_task_after(p, t, prev);
        prev = t;
    }
}

/* Step G: the rows generated by the server, in one transaction, as pgbench does it. */
static void add_server_side(struct load_plan *p, const struct load_options *opt)
{
    char *sql = xasprintf(
        "begin; truncate table pgbench_accounts, pgbench_branches, pgbench_history, "
        "pgbench_tellers;\n"
        "insert into pgbench_branches(bid,bbalance) select bid, 0 from generate_series(1, %d) "
        "as bid;\n"
        "insert into pgbench_tellers(tid,bid,tbalance) select tid, (tid - 1) / %d + 1, 0 from "
        "generate_series(1, %lld) as tid;\n"
        "insert into pgbench_accounts(aid,bid,abalance,filler) select aid, (aid - 1) / %d + 1, "
        "0, '' from generate_series(1, %lld) as aid;\n"
        "commit",
        own(opt)->scale, N_TELLERS, (long long)own(opt)->scale * N_TELLERS, N_ACCOUNTS,
        (long long)own(opt)->scale * N_ACCOUNTS);
    load_plan_sql(p, "could not generate data", sql);
    free(sql);
}

/* Step g: the rows sent with COPY, a table or partition per connection; largest first, so
 * the long COPY starts at once. Tables not just created may hold rows: all are emptied. */
static void add_loads(struct load_plan *p, const struct load_options *opt, struct unit *u, int n,
                      int fresh)
{
    int truncate = -1;
    if (!fresh)
        truncate = load_plan_sql(p, "could not truncate",
                                 "truncate table pgbench_accounts, pgbench_branches, "
                                 "pgbench_history, pgbench_tellers");
    for (int i = 0; i < n; i++) {
        add_load(p, opt, &u[i]);
        if (truncate >= 0)
            load_task_after(p, u[i].load, truncate);
    }
}

/* Every task from `from` on waits for a barrier after the tasks [prev, from): pgbench runs
 * its steps in order, each when the one before has finished. */
static void barrier(struct load_plan *p, int prev, int from)
{
    if (prev == from)
        return;
    int b = load_plan_sql(p, "could not load", "select");
    for (int t = prev; t < from; t++)
        load_task_after(p, b, t);
    for (int t = from; t < b; t++)
        load_task_after(p, t, b);
}

/* pgbench -i's steps (-I, default "dtgvp"), in order: d and t at the start in one
 * transaction before anything else (the setup), each later step a set of tasks that starts
 * once the step before it is done. */
static void build_plan(struct load_plan *p, const struct load_options *opt)
{
    const struct pgbench_init_opts *o = own(opt);
    /* As pgbench makes them: -n blanks out v, --foreign-keys adds f. */
    const char *given = o->init_steps ? o->init_steps : "dtgvp";
    char *all_steps = xasprintf("%s%s", given, o->foreign_keys && !strchr(given, 'f') ? "f" : "");
    for (char *c = all_steps; o->no_vacuum && *c; c++)
        if (*c == 'v')
            *c = ' ';
    const char *steps = all_steps;
    int n = own(opt)->partitions ? own(opt)->partitions + 2 : 3;
    struct unit *u = xcalloc((size_t)n, sizeof *u);
    for (int i = 0; i < n - 2; i++) {
        u[i].key = "aid";
        u[i].partition = own(opt)->partitions ? i + 1 : 0;
        if (own(opt)->partitions)
            snprintf(u[i].name, sizeof u[i].name, "pgbench_accounts_%d", i + 1);
        else
            snprintf(u[i].name, sizeof u[i].name, "pgbench_accounts");
    }
    u[n - 2] = (struct unit){.name = "pgbench_tellers", .key = "tid"};
    u[n - 1] = (struct unit){.name = "pgbench_branches", .key = "bid"};
    struct buf b;
    buf_init(&b);
    int fresh = 0; /* the tables were just created: empty */
    for (; *steps == 'd' || *steps == 't' || *steps == ' '; steps++) {
        if (*steps == ' ')
            continue;
        buf_puts(&b, b.len ? ";\n" : "");
        if (*steps == 'd')
            drop_sql(&b, opt);
        else
            create_sql(&b, opt, p->server_version);
        fresh = *steps == 't';
    }
    p->setup_sql = b.len ? xstrdup(b.data) : NULL;
    int prev = 0;
    for (; *steps; steps++) {
        int from = p->n_tasks;
        buf_reset(&b);
        switch (*steps) {
        case 'd':
        case 't':
            if (*steps == 'd')
                drop_sql(&b, opt);
            else
                create_sql(&b, opt, p->server_version);
            load_plan_sql(p, *steps == 'd' ? "could not drop tables" : "could not create tables",
                          b.data);
            break;
        case 'g':
            add_loads(p, opt, u, n, fresh);
            break;
        case 'G':
            add_server_side(p, opt);
            break;
        case 'v':
            add_vacuums(p, opt, u, n);
            break;
        case 'p':
            add_pkeys(p, opt, u, n);
            break;
        case 'f':
            add_fkeys(p);
            break;
        default: /* ' ' */
            continue;
        }
        fresh = *steps == 't';
        barrier(p, prev, from);
        prev = p->n_tasks > from ? from : prev;
    }
    buf_free(&b);
    free(u);
    free(all_steps);
}

/* The names init may replace, with the shapes that make them pgbench's. */
static int expectations(const struct load_options *opt, struct load_expect *ex, char (*names)[64])
{
    static const struct load_expect fixed[] = {
        {"pgbench_accounts", accounts_shape, accounts_shape_big},
        {"pgbench_branches", "bid integer, bbalance integer, filler character(88)", NULL},
        {"pgbench_history",
         "tid integer, bid integer, aid integer, delta integer, mtime timestamp without time "
         "zone, filler character(22)",
         "tid integer, bid integer, aid bigint, delta integer, mtime timestamp without time "
         "zone, filler character(22)"},
        {"pgbench_tellers", "tid integer, bid integer, tbalance integer, filler character(84)",
         NULL},
    };
    int n = 0;
    for (; n < 4; n++)
        ex[n] = fixed[n];
    for (int p = 1; p <= own(opt)->partitions; p++, n++) {
        snprintf(names[p - 1], 64, "pgbench_accounts_%d", p);
        ex[n] = (struct load_expect){names[p - 1], accounts_shape, accounts_shape_big};
    }
    return n;
}

int load_pgbench(const struct pg_connopts *conn, const struct load_options *opt, struct err *e)
{
    if (own(opt)->scale < 1)
        return err_set(e, ERR_INPUT, "scale must be at least 1, not %d", own(opt)->scale);
    if (own(opt)->partitions < 0)
        return err_set(e, ERR_INPUT, "partitions must be at least 0, not %d", own(opt)->partitions);
    struct load_expect *ex = xcalloc((size_t)own(opt)->partitions + 4, sizeof *ex);
    char(*names)[64] = xcalloc((size_t)own(opt)->partitions + 1, 64);
    int n = expectations(opt, ex, names);
    int rc = load_checked_run(conn, opt, ex, n, build_plan, e);
    free(ex);
    free(names);
    return rc;
}
