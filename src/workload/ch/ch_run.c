#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/num.h"
#include "workload/ch/ch.h"
#include "workload/ch/ch_result.h"
#include "workload/tpcc/tpcc.h"
#include "workload/workload_int.h"

#define WORKLOAD_OPTIONS_FILE "workload/ch/options.def"
#include "workload/option_names.h"

/*
 * The workload ch: TPC-C's workload (workload_tpcc: its options, detection, five scripts,
 * summary.tpcc and consistency check, called as they are) with the CH tables and the 22
 * queries besides. The queries are scripts q1..q22 of weight 0, which -c's terminals never
 * choose; --analytic-clients N more clients run them as streams (engine_config's stream_*).
 * summary.ch gives the streams' queries per hour and the geometric mean of the queries' mean
 * latencies (TPC-H's power figure, from the power test -c 0 --analytic-clients 1).
 */

static const struct workload *tpcc = &workload_tpcc;

/* -w ch's run options: TPC-C's first (its functions take them as theirs). */
struct ch_opts {
    struct tpcc_opts tpcc;
    int64_t analytic_clients; /* clients running the queries as streams, besides -c */
    const char *queries;      /* --queries LIST ("1,5,q7"), NULL: all 22 */
};

_Static_assert(sizeof(struct ch_opts) <= WORKLOAD_OPTS_SIZE, "ch's options fit");

static const char *const option_names[] = {option_ANALYTIC_CLIENTS, option_QUERIES, NULL};
static const struct workload_option_group ch_option_group = {option_names, "-w ch"};
static const struct workload_option_group *const option_groups[] = {&tpcc_option_group,
                                                                    &ch_option_group, NULL};

static void options_init(void *opts)
{
    struct ch_opts *o = opts;
    *o = (struct ch_opts){0};
    tpcc_options_init(&o->tpcc);
}

static int option(void *opts, const char *name, const char *arg, struct err *e)
{
    struct ch_opts *o = opts;
    if (strcmp(name, option_ANALYTIC_CLIENTS) == 0)
        return num_int("--analytic-clients", arg, 0, 10000, &o->analytic_clients, e);
    if (strcmp(name, option_QUERIES) == 0) {
        o->queries = arg;
        return 0;
    }
    return tpcc_option(&o->tpcc, name, arg, e);
}

static int check_run(const struct workload *w, struct workload_run_opts *o, struct err *e)
{
    (void)w;
    const struct ch_opts *co = o->opts;
    int queries[CH_N_QUERIES];
    if (ch_queries_parse(co->queries, queries, e) < 0)
        return -1;
    o->stream_clients = co->analytic_clients;
    return tpcc->check_run(tpcc, o, e);
}

static int check_init(const struct workload *w, const struct workload_init_given *g, struct err *e)
{
    (void)w;
    return tpcc->check_init(tpcc, g, e);
}

/* TPC-C's tables and state, then the CH tables, and the streams the run asks for. */
static int detect(const struct workload *w, struct pg_conn *c, struct workload_params *p,
                  struct err *e)
{
    (void)w;
    if (tpcc->detect(tpcc, c, p, e) < 0)
        return -1;
    if (ch_inspect(c, e) < 0) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        return err_set(e, ERR_INPUT, "run: %s", msg);
    }
    const struct ch_opts *co = p->opts;
    int queries[CH_N_QUERIES];
    int n = ch_queries_parse(co->queries, queries, e);
    if (n < 0)
        return -1;
    p->stream_scripts = n;
    return 0;
}

/* TPC-C's five scripts, then the queries: there even when no stream runs them, so that a run
 * with --analytic-clients 0 has the scripts of one with N, and compare sets them side by side. */
static int scripts(const struct workload *w, const struct workload_params *p, struct script_set *s,
                   struct err *e)
{
    (void)w;
    if (tpcc->scripts(tpcc, p, s, e) < 0)
        return -1;
    const struct ch_opts *co = p->opts;
    int queries[CH_N_QUERIES];
    int n = ch_queries_parse(co->queries, queries, e);
    for (int i = 0; i < n; i++) {
        char name[8];
        ch_query_name(queries[i], name, sizeof name);
        if (script_set_add(s, name, ch_query_sql(queries[i]), 0, e) < 0)
            return -1;
    }
    return 0;
}

static char *show_script(const struct workload *w)
{
    (void)w;
    struct buf b;
    buf_init(&b);
    for (int q = 1; q <= CH_N_QUERIES; q++)
        buf_printf(&b, "-- q%d\n%s\n", q, ch_query_sql(q));
    return b.data;
}

static void measure_start(const struct workload *w, struct workload_params *p)
{
    (void)w;
    tpcc->measure_start(tpcc, p);
}

/* summary.tpcc as TPC-C's, and summary.ch from the queries' scripts. */
static void result(const struct workload *w, const struct workload_params *p, struct result *r)
{
    (void)w;
    tpcc->result(tpcc, p, r);
    struct ch_figures *out = xcalloc(1, sizeof *out);
    const struct ch_opts *co = p->opts;
    out->analytic_clients = (int)co->analytic_clients;
    int queries[CH_N_QUERIES];
    struct err e = {0};
    int n = co->analytic_clients > 0 ? ch_queries_parse(co->queries, queries, &e) : 0;
    uint64_t done = 0;
    double log_sum = 0;
    int timed = 0;
    for (int i = 0; i < n; i++) {
        char name[8];
        ch_query_name(queries[i], name, sizeof name);
        for (size_t k = 0; k < r->summary.n_scripts; k++) {
            const struct result_script_figures *sf = &r->summary.scripts[k];
            if (!sf->name || strcmp(sf->name, name) != 0)
                continue;
            done += sf->transactions;
            if (sf->transactions > 0 && sf->latency_us.mean > 0) {
                log_sum += log(sf->latency_us.mean / 1000.0);
                timed++;
            }
        }
    }
    double hours = r->summary.duration_s / 3600.0;
    out->queries_per_hour = hours > 0 ? (double)done / hours : 0;
    out->power_geomean_ms = n > 0 && timed == n ? exp(log_sum / n) : NAN;
    result_part_set(r, &ch_result_part, out);
}

static void free_state(const struct workload *w, struct workload_params *p)
{
    (void)w;
    tpcc->free_state(tpcc, p);
}

static void interrupted(const struct load_options *opt, struct err *e)
{
    (void)opt;
    err_set(e, ERR_RUNTIME,
            "init interrupted: the CH-benCHmark tables (TPC-C's nine, supplier, nation, "
            "region) are incomplete; run init again");
}

/* pgarena check -w ch: TPC-C's conditions (the CH tables are never written). */
static int check(const struct pg_connopts *conn, int all, int jobs, char *report,
                 size_t report_size, struct err *e)
{
    return tpcc->check(conn, all, jobs, report, report_size, e);
}

const struct workload workload_ch = {
    .name = "ch",
    .description =
        "CH-benCHmark: TPC-C's transactions and 22 analytic queries (--analytic-clients)",
    .dataset = DATASET_CH,
    .why_no_b = "CH-benCHmark's scripts are made from its tables",
    .check_run = check_run,
    .check_init = check_init,
    .detect = detect,
    .scripts = scripts,
    .show_script = show_script,
    .load = load_ch,
    .interrupted = interrupted,
    .check = check,
    .measure_start = measure_start,
    .result = result,
    .free_state = free_state,
    .part = &ch_result_part,
    .options = option_groups,
    .options_init = options_init,
    .option = option,
    .load_sizes = tpcc_load_sizes,
    .init_options = tpcc_init_option_groups,
    .init_options_init = tpcc_init_options_init,
    .init_option = tpcc_init_option,
    .foreign_option = tpcc_foreign_option,
};
