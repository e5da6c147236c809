#include "workload/ch/ch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/rng.h"
#include "workload/load/load_int.h"
#include "workload/tpcc/tpcc.h"

/*
 * CH-benCHmark's three tables besides TPC-C's: their columns (BenchBase's CH names and types),
 * their rows, and their part of the load.
 *
 * Nations. A customer's nation is the ASCII code of the first letter of c_state, so nation
 * keys are the codes of '0'..'9', 'A'..'Z', 'a'..'z' (62). TPC-C's states are two capital
 * letters: only the 26 nations keyed 'A'..'Z' have customers, and they span the five regions
 * (Germany and Cambodia, which Q7 pairs, among them, and six European nations for Q2, Q5 and
 * Q8). Suppliers have every nation: supplier k's is nation k mod 62, so each nation has 161 or
 * 162 of the 10,000.
 */

static const char *const region_names[CH_N_REGIONS] = {"Africa", "America", "Asia", "Australia",
                                                       "Europe"};

enum { AFRICA = 1, AMERICA, ASIA, AUSTRALIA, EUROPE };

static const struct {
    const char *name;
    int region;
} nations[CH_N_NATIONS] = {
    /* '0'..'9': suppliers only */
    {"Algeria", AFRICA},
    {"Argentina", AMERICA},
    {"Bangladesh", ASIA},
    {"Fiji", AUSTRALIA},
    {"Austria", EUROPE},
    {"Angola", AFRICA},
    {"Bolivia", AMERICA},
    {"Bhutan", ASIA},
    {"Samoa", AUSTRALIA},
    {"Croatia", EUROPE},
    /* 'A'..'Z': the customers' nations */
    {"Australia", AUSTRALIA},
    {"Brazil", AMERICA},
    {"Cambodia", ASIA},
    {"Denmark", EUROPE},
    {"Egypt", AFRICA},
    {"France", EUROPE},
    {"Germany", EUROPE},
    {"Honduras", AMERICA},
    {"India", ASIA},
    {"Jamaica", AMERICA},
    {"Kenya", AFRICA},
    {"Latvia", EUROPE},
    {"Mongolia", ASIA},
    {"Namibia", AFRICA},
    {"Oman", ASIA},
    {"Portugal", EUROPE},
    {"Qatar", ASIA},
    {"Rwanda", AFRICA},
    {"Spain", EUROPE},
    {"Tonga", AUSTRALIA},
    {"Uruguay", AMERICA},
    {"Vietnam", ASIA},
    {"Nauru", AUSTRALIA},
    {"Ghana", AFRICA},
    {"Yemen", ASIA},
    {"Zambia", AFRICA},
    /* 'a'..'z': suppliers only */
    {"Belgium", EUROPE},
    {"Canada", AMERICA},
    {"Chile", AMERICA},
    {"China", ASIA},
    {"Colombia", AMERICA},
    {"Cuba", AMERICA},
    {"Estonia", EUROPE},
    {"Ethiopia", AFRICA},
    {"Finland", EUROPE},
    {"Greece", EUROPE},
    {"Hungary", EUROPE},
    {"Iceland", EUROPE},
    {"Indonesia", ASIA},
    {"Ireland", EUROPE},
    {"Italy", EUROPE},
    {"Japan", ASIA},
    {"Laos", ASIA},
    {"Mali", AFRICA},
    {"Mexico", AMERICA},
    {"Morocco", AFRICA},
    {"Nepal", ASIA},
    {"Norway", EUROPE},
    {"Panama", AMERICA},
    {"Peru", AMERICA},
    {"Poland", EUROPE},
    {"Senegal", AFRICA},
};

int ch_nation_key(int i)
{
    return i < 10 ? '0' + i : i < 36 ? 'A' + (i - 10) : 'a' + (i - 36);
}

const char *ch_nation_name(int i)
{
    return nations[i].name;
}

int ch_nation_region(int i)
{
    return nations[i].region;
}

const char *ch_region_name(int r)
{
    return region_names[r - 1];
}

int ch_supplier_nation(int suppkey)
{
    return suppkey % CH_N_NATIONS;
}

/* The tables, in BenchBase's CH shape (as format_type spells the types). */
struct ch_table {
    const char *name, *shape, *key;
    int64_t rows;
    load_row_fn row;
};

enum { TAG_REGION = 101, TAG_NATION, TAG_SUPPLIER };

struct ch_gen {
    uint64_t seed;
    struct rng rng;
};

static char *field(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    p[n] = '\t';
    return p + n + 1;
}

static char *num(char *p, int64_t v)
{
    p = load_put_int(p, v);
    *p++ = '\t';
    return p;
}

static size_t end_row(char *out, char *p)
{
    p[-1] = '\n';
    return (size_t)(p - out);
}

static void start(struct ch_gen *g, int tag, int64_t row)
{
    if (row == 0)
        rng_seed(&g->rng, g->seed ^ ((uint64_t)tag * 0x9e3779b97f4a7c15ULL));
}

static size_t region_row(void *arg, char *out, int64_t row)
{
    struct ch_gen *g = arg;
    start(g, TAG_REGION, row);
    char *p = num(out, row + 1);
    p = field(p, region_names[row]);
    p = tpcc_astring(&g->rng, p, 31, 115);
    *p++ = '\t';
    return end_row(out, p);
}

static size_t nation_row(void *arg, char *out, int64_t row)
{
    struct ch_gen *g = arg;
    start(g, TAG_NATION, row);
    char *p = num(out, ch_nation_key((int)row));
    p = field(p, nations[row].name);
    p = num(p, nations[row].region);
    p = tpcc_astring(&g->rng, p, 31, 114);
    *p++ = '\t';
    return end_row(out, p);
}

/* Supplier k: TPC-H's kinds of values (a name from the key, a phone whose country code comes
 * from the nation, a balance in [-999.99, 9999.99]); 1 % of the comments hold "bad", the
 * complaints Q16 leaves out. */
static size_t supplier_row(void *arg, char *out, int64_t row)
{
    struct ch_gen *g = arg;
    struct rng *r = &g->rng;
    start(g, TAG_SUPPLIER, row);
    int nation = ch_supplier_nation((int)row);
    char *p = num(out, row);
    p += sprintf(p, "Supplier#%09lld\t", (long long)row);
    p = tpcc_astring(r, p, 10, 40);
    *p++ = '\t';
    p = num(p, ch_nation_key(nation));
    p += sprintf(p, "%02d-", 10 + nation);
    p = tpcc_nstring(r, p, 3);
    *p++ = '-';
    p = tpcc_nstring(r, p, 3);
    *p++ = '-';
    p = tpcc_nstring(r, p, 4);
    *p++ = '\t';
    int64_t cents = rng_range(r, -99999, 999999);
    p += sprintf(p, "%s%lld.%02lld\t", cents < 0 ? "-" : "", (long long)(llabs(cents) / 100),
                 (long long)(llabs(cents) % 100));
    char *comment = p;
    p = tpcc_astring(r, p, 25, 100);
    if (rng_range(r, 1, 100) == 1) {
        int at = (int)rng_range(r, 0, (p - comment) - 3);
        memcpy(comment + at, "bad", 3);
    }
    *p++ = '\t';
    return end_row(out, p);
}

static const struct ch_table tables[] = {
    {"supplier",
     "su_suppkey integer, su_name character(25), su_address character varying(40), "
     "su_nationkey integer, su_phone character(15), su_acctbal numeric(12,2), "
     "su_comment character(101)",
     "su_suppkey", CH_N_SUPPLIERS, supplier_row},
    {"nation",
     "n_nationkey integer, n_name character(25), n_regionkey integer, n_comment character(152)",
     "n_nationkey", CH_N_NATIONS, nation_row},
    {"region", "r_regionkey integer, r_name character(55), r_comment character(152)", "r_regionkey",
     CH_N_REGIONS, region_row},
};

#define N_TABLES ((int)(sizeof tables / sizeof tables[0]))

/* The three tables created with TPC-C's (in its setup transaction), each loaded by one COPY
 * FREEZE, then given its key and analyzed. */
static void build(struct load_plan *p, const struct load_options *opt)
{
    struct buf b;
    buf_init(&b);
    buf_puts(&b, p->setup_sql);
    buf_puts(&b, ";\ndrop table if exists supplier, nation, region");
    for (int t = 0; t < N_TABLES; t++)
        buf_printf(&b, ";\ncreate table %s (%s)", tables[t].name, tables[t].shape);
    buf_puts(&b, ";\n");
    free(p->setup_sql);
    p->setup_sql = b.data;
    for (int t = 0; t < N_TABLES; t++) {
        const struct ch_table *tb = &tables[t];
        char what[64], before[64], copy[96], sql[160];
        snprintf(what, sizeof what, "could not load %s", tb->name);
        snprintf(before, sizeof before, "begin; truncate %s", tb->name);
        snprintf(copy, sizeof copy, "copy %s from stdin with (freeze on)", tb->name);
        struct ch_gen *g = xcalloc(1, sizeof *g);
        g->seed = opt->seed;
        struct load_copy cp = {copy, tb->row, g, 0, tb->rows};
        int c = load_plan_copy(p, what, before, &cp, "commit", tb->rows);
        snprintf(sql, sizeof sql, "alter table %s add primary key (%s)", tb->name, tb->key);
        int k = load_plan_sql(p, "could not create a primary key", sql);
        load_task_after(p, k, c);
        snprintf(sql, sizeof sql, "analyze %s", tb->name);
        int a = load_plan_sql(p, "could not analyze", sql);
        load_task_after(p, a, k);
    }
}

int load_ch(const struct pg_connopts *conn, const struct load_options *opt, struct err *e)
{
    struct load_expect ex[N_TABLES];
    for (int t = 0; t < N_TABLES; t++)
        ex[t] = (struct load_expect){tables[t].name, tables[t].shape, NULL};
    return tpcc_load_with(conn, opt, ex, N_TABLES, build, e);
}

int ch_inspect(struct pg_conn *c, struct err *e)
{
    for (int t = 0; t < N_TABLES; t++) {
        char sql[96], value[32];
        struct err qe = {0};
        snprintf(sql, sizeof sql, "select count(*) from %s", tables[t].name);
        if (pg_query_value(c, sql, value, sizeof value, &qe) < 0)
            return err_set(e, ERR_INPUT,
                           "-w ch needs the table %s (supplier, nation and region besides "
                           "TPC-C's) that pgarena init -w ch loads: %s",
                           tables[t].name, qe.msg);
        if (strtoll(value, NULL, 10) != tables[t].rows)
            return err_set(e, ERR_INPUT,
                           "-w ch: table %s holds %s rows, not %lld; run pgarena init -w ch again",
                           tables[t].name, value, (long long)tables[t].rows);
    }
    return 0;
}
