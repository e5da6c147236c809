/* Every run option works in a sweep as in a run (issue 23): table-driven over run's one option
 * table. For each option, `run CONN ARGS -c 3 -j 2 -o x.json --label default` and
 * `sweep CONN ARGS -c 3 -j 2 -o DIR` must give the same plan (the run's, and the sweep's first
 * cell's). The options run refuses in a sweep are refused there with one message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cli/run_opts.h"
#include "cli/sweep_cmd.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Each run option with the words that exercise it (with what it needs to be accepted). */
struct sample {
    const char *name; /* the long option */
    const char *words;
};

static const struct sample samples[] = {
    {"workload", "-w select-only"},
    {"scale", NULL}, /* an axis: -s LIST */
    {"clients", NULL},
    {"client", NULL},
    {"jobs", NULL}, /* the sweep's: threads per cell */
    {"time", "-T 7"},
    {"transactions", "-t 25"},
    {"protocol", "-M extended"},
    {"progress", "-P 3"},
    {"output", NULL},
    {"label", NULL},
    {"report", NULL},
    {"seed", "--seed 42"},
    {"random-seed", "--random-seed 43"},
    {"local", NULL},
    {"quiet", NULL},
    {"help", NULL},
    {"host", "-h /tmp/sock"},
    {"port", "-p 5433"},
    {"username", "-U alice"},
    {"rate", NULL},
    {"latency-limit", "--latency-limit 12.5"},
    {"warmup", "--warmup 2"},
    {"max-tries", "--max-tries 4"},
    {"timeout", "--timeout 900"},
    {"connect", "-C"},
    {"report-per-command", "-r"},
    {"file", "-f a.sql@2 -f b.sql"},
    {"builtin", "-b simple-update@3 -b select-only"},
    {"define", "-D x=1 -D y=2"},
    {"tables", "-w oltp-read-only --tables 3"},
    {"table-size", "-w oltp-point-select --table-size 500"},
    {"warehouses", "-w tpcc --warehouses 3"},
    {"mix", "-w tpcc --mix 40,44,4,4,8"},
    {"keying-thinking", "-w tpcc --keying-thinking"},
    {"procedures", "-w tpcc --procedures"},
    {"select-only", "-S"},
    {"skip-some-updates", "-N"},
    {"no-vacuum", "-n"},
    {"show-script", NULL},
    {"log", "-l"},
    {"log-prefix", "-l --log-prefix pfx"},
    {"sampling-rate", "-l --sampling-rate 0.25"},
    {"aggregate-interval", "-l --aggregate-interval 5 -T 10"},
    {"failures-detailed", "-l --failures-detailed"},
    {"progress-timestamp", "--progress-timestamp"},
    {"exit-on-abort", "--exit-on-abort"},
    {"debug", "--debug"},
    {"dbname", "-d b2"}, /* (the CONN after it wins, as in pgbench) */
    {"agents", NULL},
    {"agent-index", NULL},
    {"run-id", NULL},
    {"coord", NULL},
    {"merged", NULL},
    {"agent-wait", NULL},
    {"sample-ms", "--sample-ms 50"},
    {"no-sampling", "--no-sampling"},
    {"analytic-clients", "-w ch --analytic-clients 2"},
    {"queries", "-w ch --analytic-clients 1 --queries 1,q6,14"},
    {"meta", "--meta commit=abc"},
    {"metrics-listen", "--metrics-listen 9187"}, /* one endpoint for every cell */
    {"capture", NULL},                           /* a replay is swept with --replay */
    {"speed", NULL},                             /* the sweep's: a list of speeds */
    {"order", NULL}, /* a replay's; a replay sweep keeps the capture's order */
    {"map-db", NULL},
    {"map-user", NULL},
    {"session-set", NULL},
    {"reset-from", NULL},
    {"read-only", NULL},
    {"copy-from", NULL},     /* a replay's; not swept */
    {"force", NULL},         /* the sweep's: replace a different sweep */
    {"store", NULL},         /* the sweep stores its directory after */
    {"no-statements", NULL}, /* the sweep's with --local */
};

/* The options that are not run options in a sweep, with the words that give them and what the
 * sweep says (NULL: the sweep takes it as its own, tested apart). */
struct exception {
    const char *name, *words, *message;
};

static const struct exception exceptions[] = {
    {"scale", NULL, NULL},
    {"clients", NULL, NULL},
    {"client", NULL, NULL},
    {"jobs", NULL, NULL},
    {"output", NULL, NULL},
    {"label", NULL, NULL},
    {"store", NULL, NULL},
    {"local", NULL, NULL},
    {"quiet", NULL, NULL},
    {"help", NULL, NULL},
    {"rate", NULL, NULL},
    {"report", "--report r.html", "--report is not a sweep option"},
    {"show-script", "--show-script tpcb-like", "are for pgarena run"},
    {"agents", "--agents 2", "--agents and its options are for pgarena run"},
    {"agent-index", "--agent-index 1", "--agents and its options are for pgarena run"},
    {"run-id", "--run-id x", "--agents and its options are for pgarena run"},
    {"coord", "--coord db", "--agents and its options are for pgarena run"},
    {"merged", "--merged m.json", "--agents and its options are for pgarena run"},
    {"agent-wait", "--agent-wait 5", "--agents and its options are for pgarena run"},
    {"no-statements", NULL, NULL},
    {"speed", NULL, NULL},
    {"force", NULL, NULL},
    {"capture", "-w replay --capture x.pgc", "-w replay is swept with --replay CAPTURE"},
    {"map-db", "--map-db a=b", "are for --replay CAPTURE"},
    {"map-user", "--map-user a=b", "are for --replay CAPTURE"},
    {"session-set", "--session-set a=b", "are for --replay CAPTURE"},
    {"reset-from", "--reset-from t", "are for --replay CAPTURE"},
    {"read-only", "--read-only", "are for --replay CAPTURE"},
    {"order", "--order session", "are for -w replay"},
    {"copy-from", "--copy-from /", "are for -w replay"},
};

/* argv from words (split at spaces) after a command name; the strings are kept in *store. */
static int make_argv(const char *cmd, const char *words, const char *tail, char **argv,
                     char **store)
{
    size_t n = strlen(words ? words : "") + strlen(tail) + 4;
    char *text = malloc(n);
    snprintf(text, n, "%s %s", words ? words : "", tail);
    *store = text;
    int argc = 0;
    argv[argc++] = (char *)cmd;
    for (char *w = strtok(text, " "); w && argc < 62; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    return argc;
}

static int str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Every field of two plans, but the command line they record. */
static void assert_same_plan(const char *what, const struct bench_plan *a,
                             const struct bench_plan *b)
{
#define SAME(expr)                                                                                 \
    do {                                                                                           \
        if (!(expr))                                                                               \
            fail_msg("%s: run and sweep differ in %s", what, #expr);                               \
    } while (0)
    SAME(str_eq(a->conn.host, b->conn.host) && str_eq(a->conn.port, b->conn.port));
    SAME(str_eq(a->conn.user, b->conn.user) && str_eq(a->conn.dbname, b->conn.dbname));
    SAME(a->workload == b->workload && a->workload_given == b->workload_given);
    SAME(a->n_specs == b->n_specs && a->n_defines == b->n_defines);
    for (int i = 0; i < a->n_specs && i < b->n_specs; i++)
        SAME(a->specs[i].kind == b->specs[i].kind && str_eq(a->specs[i].arg, b->specs[i].arg));
    for (int i = 0; i < a->n_defines && i < b->n_defines; i++)
        SAME(str_eq(a->defines[i], b->defines[i]));
    SAME(a->scale == b->scale);
    SAME(a->clients == b->clients && a->threads == b->threads);
    SAME(a->duration_s == b->duration_s && a->tx_per_client == b->tx_per_client);
    SAME(a->seed == b->seed && a->seed_given == b->seed_given);
    SAME(a->protocol == b->protocol && a->rate == b->rate);
    SAME(a->latency_limit_ms == b->latency_limit_ms && a->warmup_s == b->warmup_s);
    SAME(a->max_tries == b->max_tries && a->timeout_ms == b->timeout_ms);
    SAME(a->connect_per_tx == b->connect_per_tx && a->per_statement == b->per_statement);
    SAME(a->progress_timestamp == b->progress_timestamp);
    SAME(str_eq(a->output, b->output) && str_eq(a->label, b->label));
    SAME(a->log.on == b->log.on && a->log.failures_detailed == b->log.failures_detailed);
    SAME(str_eq(a->log.prefix, b->log.prefix) && a->log.sampling_rate == b->log.sampling_rate);
    SAME(a->log.aggregate_s == b->log.aggregate_s);
    SAME(a->n_options == b->n_options);
    for (int i = 0; i < a->n_options && i < b->n_options; i++)
        SAME(str_eq(a->options[i].name, b->options[i].name) &&
             str_eq(a->options[i].arg, b->options[i].arg));
    SAME(a->agents.count == b->agents.count);
    SAME(a->sampling.off == b->sampling.off && a->sampling.sample_ms == b->sampling.sample_ms);
    SAME(a->sampling.ms_given == b->sampling.ms_given);
    SAME(a->stream_clients == b->stream_clients);
    SAME(str_eq(a->metrics_listen, b->metrics_listen));
#undef SAME
}

static const struct sample *sample_of(const char *name)
{
    for (size_t i = 0; i < N_OF(samples); i++)
        if (strcmp(samples[i].name, name) == 0)
            return &samples[i];
    return NULL;
}

static const struct exception *exception_of(const char *name)
{
    for (size_t i = 0; i < N_OF(exceptions); i++)
        if (strcmp(exceptions[i].name, name) == 0)
            return &exceptions[i];
    return NULL;
}

/* A new run option needs a row here: the test cannot pass it by. */
static void test_every_run_option_has_a_row(void **state)
{
    (void)state;
    char *usage = cli_help_string(CLI_RUN);
    for (const struct option *o = cli_getopt_table(CLI_RUN, NULL); o->name; o++) {
        if (!sample_of(o->name))
            fail_msg("run option --%s has no row in samples[]", o->name);
        const struct sample *s = sample_of(o->name);
        if (!s->words && !exception_of(o->name))
            fail_msg("run option --%s is neither sampled nor an exception", o->name);
        char flag[64];
        snprintf(flag, sizeof flag, "--%s", o->name);
        /* every option of the table is one that run --help lists (pgbench's aliases aside) */
        if (strcmp(o->name, "client") != 0 && strcmp(o->name, "random-seed") != 0 &&
            strcmp(o->name, "host") != 0 && strcmp(o->name, "port") != 0 &&
            strcmp(o->name, "username") != 0 && strcmp(o->name, "help") != 0 &&
            strcmp(o->name, "select-only") != 0 && strcmp(o->name, "skip-some-updates") != 0)
            if (!strstr(usage, flag))
                fail_msg("run --help does not list %s", flag);
    }
    free(usage);
}

static void test_every_run_option_reaches_the_cells(void **state)
{
    (void)state;
    int n_tested = 0;
    for (const struct option *opt = cli_getopt_table(CLI_RUN, NULL); opt->name; opt++) {
        const struct sample *s = sample_of(opt->name);
        if (!s || !s->words)
            continue;
        char *argv[64], *store;
        struct err e = {0};

        struct cli_run_opts run;
        cli_run_opts_init(&run);
        int argc = make_argv("run", s->words, "-c 3 -j 2 -o x.json --label default dbname=b", argv,
                             &store);
        optind = 0;
        int rc = cli_run_parse_argv(argc, argv, &run, &e);
        if (rc != 0)
            fail_msg("run %s: refused: %s", s->words, e.msg);

        struct sweep_opts so;
        memset(&so, 0, sizeof so);
        char *store2;
        char *argv2[64];
        int argc2 = make_argv("sweep", s->words, "-c 3 -j 2 -o DIR dbname=b", argv2, &store2);
        rc = sweep_parse(argc2, argv2, &so, &e);
        if (rc != 0)
            fail_msg("sweep %s: refused: %s", s->words, e.msg);

        /* the first cell, as the sweep plans it */
        struct sweep_exec x = {.o = &so, .command = "sweep"};
        x.doc = so.plan;
        sweep_plan_cells(&x.doc);
        assert_true(x.doc.n_cells >= 1);
        struct bench_plan cell;
        sweep_cell_plan(&x, &x.doc.cells[0], "x.json", &cell);
        assert_same_plan(s->words, &run.plan, &cell);
        n_tested++;

        pg_connopts_free(&cell.conn);
        pg_connopts_free(&run.plan.conn);
        so.plan = x.doc;
        sweep_opts_free(&so);
        free(store);
        free(store2);
    }
    assert_true(n_tested >= 35);
}

/* sweep's parse of words and tail, refused with ERR_INPUT and a message holding want. */
static void assert_sweep_refused(const char *words, const char *tail, const char *want)
{
    char *argv[64], *store;
    int argc = make_argv("sweep", words, tail, argv, &store);
    struct sweep_opts so;
    memset(&so, 0, sizeof so);
    struct err e = {0};
    int rc = sweep_parse(argc, argv, &so, &e);
    if (rc != -1 || e.code != ERR_INPUT || !strstr(e.msg, want))
        fail_msg("sweep %s: rc %d, message '%s'", words, rc, e.msg);
    sweep_opts_free(&so);
    free(store);
}

/* Each exception is refused by sweep with its one message, before anything runs. */
static void test_exceptions_are_refused(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_OF(exceptions); i++) {
        if (exceptions[i].words)
            assert_sweep_refused(exceptions[i].words, "-c 1 -o DIR", exceptions[i].message);
    }
}

/* `sweep WORDS -o DIR dbname=b` parsed and its cells planned into x (x->o is so; the caller
 * frees store, and so after so->plan = x->doc). */
static void plan_sweep(const char *words, struct sweep_opts *so, struct sweep_exec *x, char **store)
{
    char *argv[64];
    int argc = make_argv("sweep", words, "-o DIR dbname=b", argv, store);
    memset(so, 0, sizeof *so);
    struct err e = {0};
    assert_int_equal(sweep_parse(argc, argv, so, &e), 0);
    *x = (struct sweep_exec){.o = so, .command = "sweep"};
    x->doc = so->plan;
    sweep_plan_cells(&x->doc);
}

/* The axes: -c, -R and -s lists make cells whose plans carry each value. */
static void test_axes_reach_the_cell_plans(void **state)
{
    (void)state;
    char *store;
    struct sweep_opts so;
    struct sweep_exec x;
    plan_sweep("-c 1,4 -R 100,200 -s 2,3 --init -j 2 -T 3", &so, &x, &store);
    assert_int_equal(x.doc.n_cells, 8);
    int seen = 0;
    for (size_t k = 0; k < x.doc.n_cells; k++) {
        const struct sweep_cell *c = &x.doc.cells[k];
        struct bench_plan p;
        sweep_cell_plan(&x, c, c->file, &p);
        assert_int_equal(p.clients, c->clients);
        assert_int_equal(p.threads, c->clients < 2 ? c->clients : 2);
        assert_true(p.rate == c->rate);
        assert_int_equal(p.scale, c->scale);
        assert_int_equal(p.duration_s, 3);
        assert_string_equal(p.output, c->file);
        assert_string_equal(p.conn.dbname, "dbname=b");
        seen |= (p.clients == 4) << 0 | (p.rate == 200) << 1 | (p.scale == 3) << 2;
        pg_connopts_free(&p.conn);
    }
    assert_int_equal(seen, 7);
    so.plan = x.doc;
    sweep_opts_free(&so);
    free(store);
}

/* -c 0 (-w ch's power test) is a clients value: cells, file names, threads for the streams,
 * sweep.json's clients 0 (not null) read back, so resume finds the cells; refused as run
 * refuses it, and with --max-rate (no client to pace). */
static void test_power_test_cells(void **state)
{
    (void)state;
    char *store;
    struct sweep_opts so;
    struct sweep_exec x;
    plan_sweep("-w ch -c 0,1 --analytic-clients 3 -j 2 -t 8", &so, &x, &store);
    struct err e = {0};
    assert_int_equal(x.doc.n_cells, 2);
    assert_string_equal(x.doc.cells[0].file, "default-c0-t1.json");
    assert_string_equal(x.doc.cells[1].file, "default-c1-t1.json");
    for (size_t k = 0; k < 2; k++) {
        struct bench_plan p;
        sweep_cell_plan(&x, &x.doc.cells[k], x.doc.cells[k].file, &p);
        assert_int_equal(p.clients, (int64_t)k);
        assert_int_equal(p.threads, k == 0 ? 2 : 1); /* 0: min(-j, the 3 streams) */
        assert_int_equal(p.tx_per_client, 8);
        assert_int_equal(p.stream_clients, 3);
        pg_connopts_free(&p.conn);
    }
    char path[] = "/tmp/pgarena-test-sweep-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    x.doc.cells[0].status = SWEEP_COMPLETE;
    assert_int_equal(sweep_doc_write(&x.doc, path, &e), 0);
    FILE *f = fopen(path, "r");
    char text[8192] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    assert_non_null(strstr(text, "\"clients\": 0,"));
    assert_null(strstr(text, "\"clients\": null"));
    struct sweep_doc old;
    assert_int_equal(sweep_doc_read(path, &old, &e), 0);
    unlink(path);
    assert_int_equal(old.n_clients, 2);
    assert_int_equal(old.clients[0], 0);
    assert_int_equal(old.cells[0].clients, 0);
    x.doc.cells[0].status = SWEEP_PENDING;
    sweep_resume_from(&x.doc, &old);
    assert_int_equal(x.doc.cells[0].status, SWEEP_COMPLETE);
    assert_int_equal(x.doc.cells[1].status, SWEEP_PENDING);
    sweep_doc_free(&old);
    so.plan = x.doc;
    sweep_opts_free(&so);
    free(store);
    assert_sweep_refused("-c 0", "-o DIR dbname=b", "invalid value for -c: '0'");
    assert_sweep_refused("-w ch -c 0,2", "-o DIR dbname=b",
                         "0 only with -w ch --analytic-clients N");
    assert_sweep_refused("-w ch -c 0 --analytic-clients 1 --max-rate --slo p99<=5ms",
                         "-o DIR dbname=b", "-c 0 has none");
    assert_sweep_refused("-c -1", "-o DIR dbname=b", "invalid list for -c");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_run_option_has_a_row),
        cmocka_unit_test(test_every_run_option_reaches_the_cells),
        cmocka_unit_test(test_exceptions_are_refused),
        cmocka_unit_test(test_axes_reach_the_cell_plans),
        cmocka_unit_test(test_power_test_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
