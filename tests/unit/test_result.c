#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sparse_assert.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/buf.h"
#include "result/journal.h"
#include "result/result.h"
#include "stats/hist.h"
#include "stats/hist_compact.h"
#include "replay_fixture.h"
#include "workload/workload.h"

/* Each test gets a fresh directory under /tmp, removed with whatever is left in it. */
struct fixture {
    char dir[64];
    char path[128]; /* dir/result.json */
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/pgarena-test-XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/result.json", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    DIR *d = opendir(f->dir);
    struct dirent *de;
    char p[512];
    while (d && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            snprintf(p, sizeof p, "%s/%s", f->dir, de->d_name);
            unlink(p);
        }
    }
    if (d)
        closedir(d);
    rmdir(f->dir);
    free(f);
    return 0;
}

/* Names in dir other than "." and "..", space-separated and sorted by readdir order. */
static int dir_entries(const char *dir, char *names, size_t size)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    int n = 0;
    names[0] = '\0';
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        n++;
        strncat(names, de->d_name, size - strlen(names) - 2);
        strcat(names, " ");
    }
    closedir(d);
    return n;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static void sparse_of(struct hist_sparse *out, const int64_t *v, size_t n)
{
    struct hist *h = hist_new();
    for (size_t i = 0; i < n; i++)
        hist_record(h, v[i]);
    hist_to_sparse(h, out);
    hist_free(h);
}

/* A result with every field set to something distinct (values exact in binary). */
static void fill_result(struct result *r)
{
    memset(r, 0, sizeof *r);
    r->label = strdup("nightly \"quoted\" run");
    r->run_id = strdup("0b5e2f4c-9a1d-4e6f-8a2b-3c4d5e6f7a8b"); /* else a read derives one */
    r->started_at = strdup("2024-05-01T10:00:00Z");
    r->finished_at = strdup("2024-05-01T10:01:05Z");
    r->command = strdup("pgarena run -c 4 'host=db password=***'");
    r->complete = 1;
    r->end_reason = strdup("finished");
    r->client.hostname = strdup("bench-1");
    r->client.os = strdup("Linux 6.1 x86_64");
    r->client.pgarena_version = strdup("0.1.0-3-gabcdef");
    r->client.libpq_version = strdup("16.2");
    r->client.cpus = 8;
    r->client.memory_bytes = 16LL << 30;
    r->server.version = strdup("PostgreSQL 16.2 on x86_64");
    r->workload.name = strdup("tpcb-like");
    r->workload.scale = 10;
    r->workload.n_scripts = 2;
    r->workload.scripts = calloc(2, sizeof *r->workload.scripts);
    r->workload.scripts[0].name = strdup("builtin: tpcb-like");
    r->workload.scripts[0].weight = 3;
    r->workload.scripts[0].text = strdup("\\set aid random(1, 100000 * :scale)\nBEGIN;\nEND;\n");
    r->workload.scripts[1].name = strdup("caf\xc3\xa9.sql");
    r->workload.scripts[1].weight = 1;
    r->workload.scripts[1].text = strdup("SELECT 'a\tb', \"x\";\n-- \xe2\x82\xac\n");
    r->options.clients = 4;
    r->options.threads = 2;
    r->options.duration_s = 60.5;
    r->options.transactions_per_client = 1000;
    r->options.rate = 250.25;
    r->options.latency_limit_ms = 12.5;
    r->options.connect_per_tx = 1;
    r->options.protocol = strdup("prepared");
    r->options.warmup_s = 5;
    r->options.seed = 9007199254740993ULL; /* 2^53 + 1: not exact as a double */
    r->summary.duration_s = 60.125;
    r->summary.transactions = 123456;
    r->summary.failed = 78;
    r->summary.retried = 9;
    r->summary.tps = 2053.25;
    r->summary.latency_out_of_range = 5;
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        r->summary.errors[k] = 10 + (uint64_t)k;
    r->summary.latency_us = (struct latency_summary){.min = 100,
                                                     .mean = 1500.5,
                                                     .stddev = 250.75,
                                                     .p50 = 1400,
                                                     .p90 = 2000,
                                                     .p95 = 2500,
                                                     .p99 = 4000,
                                                     .p999 = 9000,
                                                     .max = 50000};
    r->summary.under_100ms = 0.5;
    r->summary.under_1000ms = 0.75;
    r->summary.under_5000ms = 1;
    static const int64_t v0[] = {100, 300, 300, 5000, 50000, 1 << 20};
    static const int64_t v2[] = {7};
    r->n_intervals = 3;
    r->intervals = calloc(3, sizeof *r->intervals);
    for (size_t i = 0; i < 3; i++) {
        struct result_interval *it = &r->intervals[i];
        it->t_s = (double)(i + 1);
        it->duration_s = i == 2 ? 0.5 : 1;
        it->transactions = 1000 + i;
        it->failed = i;
        it->tps = 1000.5 + (double)i;
        it->p50_us = 1200 + (double)i;
        it->p99_us = 3000.25;
        it->max_us = 50000;
    }
    sparse_of(&r->intervals[0].histogram, v0, 6);
    /* interval 1 keeps an empty histogram */
    sparse_of(&r->intervals[2].histogram, v2, 1);
    static const int64_t all[] = {100, 300, 300, 5000, 50000, 1 << 20, 7};
    sparse_of(&r->histogram, all, 7);
    r->n_clients = 3;
    r->clients = calloc(3, sizeof *r->clients);
    for (size_t i = 0; i < 3; i++)
        r->clients[i] = (struct result_client){40000 + i, i * 2};
    r->summary.n_scripts = 2;
    r->summary.scripts = calloc(2, sizeof *r->summary.scripts);
    for (size_t i = 0; i < 2; i++) {
        struct result_script_figures *sc = &r->summary.scripts[i];
        sc->name = strdup(r->workload.scripts[i].name);
        sc->weight = r->workload.scripts[i].weight;
        sc->transactions = 100000 + i;
        sc->failed = 70 + i;
        sc->tps = 1700.5 + (double)i;
        sc->latency_us = (struct latency_summary){.min = 100 + (double)i,
                                                  .mean = 1500.25,
                                                  .p50 = 1400,
                                                  .p90 = 2000,
                                                  .p95 = 2500,
                                                  .p99 = 4000,
                                                  .max = 50000};
    }
    sparse_of(&r->summary.scripts[0].histogram, v0, 6);
}

static void assert_str(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

#define assert_double(a, b)                                                                        \
    do {                                                                                           \
        if (!((a) == (b)))                                                                         \
            fail_msg("%s: %.17g != %.17g", #a, (double)(a), (double)(b));                          \
    } while (0)

static void assert_sparse(const struct hist_sparse *a, const struct hist_sparse *b)
{
    assert_sparse_equal_tol(a, b, 0);
}

/* Interval histograms are written in compact form (version 2) and read back lazily: y keeps
 * the compact text of x's histogram, no bins, the exact count, min, max and sums, and decodes
 * to what that text decodes to. */
static void assert_interval_compact(const struct result_interval *x,
                                    const struct result_interval *y)
{
    struct buf text;
    buf_init(&text);
    hist_compact_encode(&x->histogram, &text);
    assert_non_null(y->compact);
    assert_int_equal(y->compact_len, text.len);
    assert_memory_equal(y->compact, text.data, text.len);
    assert_null(y->histogram.bins);
    struct hist_sparse want = x->histogram, got;
    assert_int_equal(hist_compact_decode(text.data, text.len, &want), 0);
    assert_int_equal(result_interval_decoded(y, &got), 0);
    assert_sparse_equal_tol(&want, &got, 0);
    hist_sparse_free(&want);
    hist_sparse_free(&got);
    buf_free(&text);
}

static void assert_result_equal(const struct result *a, const struct result *b)
{
    assert_str(a->label, b->label);
    assert_str(a->started_at, b->started_at);
    assert_str(a->finished_at, b->finished_at);
    assert_str(a->command, b->command);
    assert_int_equal(a->complete, b->complete);
    assert_str(a->end_reason, b->end_reason);
    assert_str(a->client.hostname, b->client.hostname);
    assert_str(a->client.os, b->client.os);
    assert_str(a->client.pgarena_version, b->client.pgarena_version);
    assert_str(a->client.libpq_version, b->client.libpq_version);
    assert_int_equal(a->client.cpus, b->client.cpus);
    assert_int_equal(a->client.memory_bytes, b->client.memory_bytes);
    assert_str(a->server.version, b->server.version);
    assert_str(a->workload.name, b->workload.name);
    assert_int_equal(a->workload.scale, b->workload.scale);
    assert_int_equal(a->workload.n_scripts, b->workload.n_scripts);
    for (size_t i = 0; i < a->workload.n_scripts; i++) {
        assert_str(a->workload.scripts[i].name, b->workload.scripts[i].name);
        assert_int_equal(a->workload.scripts[i].weight, b->workload.scripts[i].weight);
        assert_str(a->workload.scripts[i].text, b->workload.scripts[i].text);
    }
    assert_int_equal(a->options.clients, b->options.clients);
    assert_int_equal(a->options.threads, b->options.threads);
    assert_double(a->options.duration_s, b->options.duration_s);
    assert_int_equal(a->options.transactions_per_client, b->options.transactions_per_client);
    assert_double(a->options.rate, b->options.rate);
    assert_double(a->options.latency_limit_ms, b->options.latency_limit_ms);
    assert_int_equal(a->options.connect_per_tx, b->options.connect_per_tx);
    assert_str(a->options.protocol, b->options.protocol);
    assert_double(a->options.warmup_s, b->options.warmup_s);
    assert_true(a->options.seed == b->options.seed);
    assert_double(a->summary.duration_s, b->summary.duration_s);
    assert_int_equal(a->summary.transactions, b->summary.transactions);
    assert_int_equal(a->summary.failed, b->summary.failed);
    assert_int_equal(a->summary.retried, b->summary.retried);
    assert_int_equal(a->summary.latency_out_of_range, b->summary.latency_out_of_range);
    assert_double(a->summary.tps, b->summary.tps);
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        assert_int_equal(a->summary.errors[k], b->summary.errors[k]);
    const struct latency_summary *la = &a->summary.latency_us, *lb = &b->summary.latency_us;
    assert_double(la->min, lb->min);
    assert_double(la->mean, lb->mean);
    assert_double(la->stddev, lb->stddev);
    assert_double(la->p50, lb->p50);
    assert_double(la->p90, lb->p90);
    assert_double(la->p95, lb->p95);
    assert_double(la->p99, lb->p99);
    assert_double(la->p999, lb->p999);
    assert_double(la->max, lb->max);
    assert_double(a->summary.under_100ms, b->summary.under_100ms);
    assert_double(a->summary.under_1000ms, b->summary.under_1000ms);
    assert_double(a->summary.under_5000ms, b->summary.under_5000ms);
    assert_int_equal(a->n_intervals, b->n_intervals);
    for (size_t i = 0; i < a->n_intervals; i++) {
        const struct result_interval *x = &a->intervals[i], *y = &b->intervals[i];
        assert_double(x->t_s, y->t_s);
        assert_double(x->duration_s, y->duration_s);
        assert_int_equal(x->transactions, y->transactions);
        assert_int_equal(x->failed, y->failed);
        assert_double(x->tps, y->tps);
        assert_double(x->p50_us, y->p50_us);
        assert_double(x->p99_us, y->p99_us);
        assert_double(x->max_us, y->max_us);
        assert_int_equal(x->n_tenths, y->n_tenths);
        assert_memory_equal(x->tenths, y->tenths, x->n_tenths * sizeof *x->tenths);
        assert_interval_compact(x, y);
    }
    assert_sparse(&a->histogram, &b->histogram);
    assert_int_equal(a->summary.n_scripts, b->summary.n_scripts);
    for (size_t i = 0; i < a->summary.n_scripts; i++) {
        const struct result_script_figures *x = &a->summary.scripts[i], *y = &b->summary.scripts[i];
        assert_str(x->name, y->name);
        assert_int_equal(x->weight, y->weight);
        assert_int_equal(x->transactions, y->transactions);
        assert_int_equal(x->failed, y->failed);
        assert_double(x->tps, y->tps);
        assert_double(x->latency_us.min, y->latency_us.min);
        assert_double(x->latency_us.mean, y->latency_us.mean);
        assert_double(x->latency_us.p50, y->latency_us.p50);
        assert_double(x->latency_us.p90, y->latency_us.p90);
        assert_double(x->latency_us.p95, y->latency_us.p95);
        assert_double(x->latency_us.p99, y->latency_us.p99);
        assert_double(x->latency_us.max, y->latency_us.max);
        assert_sparse(&x->histogram, &y->histogram);
    }
    assert_int_equal(a->n_clients, b->n_clients);
    for (size_t i = 0; i < a->n_clients; i++) {
        assert_int_equal(a->clients[i].transactions, b->clients[i].transactions);
        assert_int_equal(a->clients[i].failed, b->clients[i].failed);
    }
}

static void test_round_trip(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    assert_int_equal(r.histogram.n_bins, 6);
    assert_int_equal(result_write(&r, f->path, &e), 0);
    /* Only the target is left: no temporary file beside it. */
    char names[256];
    assert_int_equal(dir_entries(f->dir, names, sizeof names), 1);
    assert_string_equal(names, "result.json ");
    if (result_read(f->path, &back, &e) != 0)
        fail_msg("read back failed: %s", e.msg);
    assert_result_equal(&r, &back);
    /* Written again from what was read (intervals still compact): the same bytes. */
    char again[160];
    snprintf(again, sizeof again, "%s/again.json", f->dir);
    assert_int_equal(result_write(&back, again, &e), 0);
    struct buf t1, t2;
    buf_init(&t1);
    buf_init(&t2);
    FILE *f1 = fopen(f->path, "r"), *f2 = fopen(again, "r");
    assert_int_equal(buf_read_all(&t1, f1), 0);
    assert_int_equal(buf_read_all(&t2, f2), 0);
    fclose(f1);
    fclose(f2);
    assert_int_equal(t1.len, t2.len);
    assert_memory_equal(t1.data, t2.data, t1.len);
    buf_free(&t1);
    buf_free(&t2);
    unlink(again);
    result_free(&back);
    /* The same document in another layout (indented anew) reads the same, the whole way. */
    json_t *doc = json_load_file(f->path, 0, NULL);
    assert_non_null(doc);
    assert_int_equal(json_dump_file(doc, f->path, JSON_INDENT(3)), 0);
    json_decref(doc);
    if (result_read(f->path, &back, &e) != 0)
        fail_msg("read of the re-indented file failed: %s", e.msg);
    assert_result_equal(&r, &back);
    result_free(&back);

    /* Absent strings stay absent; no scripts, intervals or clients is fine. */
    struct result sparse;
    memset(&sparse, 0, sizeof sparse);
    sparse.summary.transactions = 1;
    sparse.end_reason = strdup("interrupted");
    assert_int_equal(result_write(&sparse, f->path, &e), 0);
    assert_int_equal(result_read(f->path, &back, &e), 0);
    assert_result_equal(&sparse, &back);
    assert_null(back.label);
    assert_int_equal(back.complete, 0);
    result_free(&back);
    result_free(&sparse);

    /* Writing again replaces the file. */
    assert_int_equal(result_write(&r, f->path, &e), 0);
    assert_int_equal(dir_entries(f->dir, names, sizeof names), 1);
    assert_int_equal(result_read(f->path, &back, &e), 0);
    assert_string_equal(back.label, r.label);
    result_free(&back);
    result_free(&r);
    assert_null(r.label);
    assert_null(r.intervals);
}

/* Sampling's paths (waits, client_cpu, host, statements_server) go out and come back; a
 * result without them writes none of them. */
static void test_sampling_round_trip(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    r.waits = (struct result_waits){
        1, 100, 42, 2, calloc(2, sizeof *r.waits.events), strdup("own-user"), NULL};
    r.waits.events[0] = (struct result_wait){strdup("Lock:transactionid"), 300};
    r.waits.events[1] = (struct result_wait){strdup("CPU"), 20};
    r.client_cpu = (struct result_client_cpu){1, 0.5, 0.25, 0.95};
    r.n_statements_server = 1;
    r.statements_server = calloc(1, sizeof *r.statements_server);
    r.statements_server[0] =
        (struct result_server_statement){strdup("UPDATE t SET v = $1"), 10, 12.5, 1.25, 10};
    struct result_interval *it = &r.intervals[0];
    it->n_waits = 2;
    it->waits = calloc(2, sizeof *it->waits);
    it->waits[0] = (struct result_wait){strdup("CPU"), 3};
    it->waits[1] = (struct result_wait){strdup("Client:ClientRead"), 7};
    it->has_client_cpu = 1;
    it->cpu_user = 0.125;
    it->cpu_system = 0.0625;
    it->has_host = 1;
    it->host = (struct result_host){0.5, 0.25, 0.125, 0.0625, 4096, 8192, 0.0625, 1};
    assert_int_equal(result_write(&r, f->path, &e), 0);
    if (result_read(f->path, &back, &e) != 0)
        fail_msg("read back failed: %s", e.msg);
    assert_result_equal(&r, &back);
    assert_int_equal(back.waits.present, 1);
    assert_int_equal(back.waits.sample_ms, 100);
    assert_int_equal(back.waits.samples, 42);
    assert_int_equal(back.waits.n_events, 2);
    assert_string_equal(back.waits.events[0].name, "Lock:transactionid");
    assert_int_equal(back.waits.events[0].count, 300);
    assert_string_equal(back.waits.visibility, "own-user");
    assert_null(back.waits.note);
    assert_double(back.client_cpu.max_thread_core, 0.95);
    assert_int_equal(back.n_statements_server, 1);
    assert_string_equal(back.statements_server[0].query, "UPDATE t SET v = $1");
    assert_double(back.statements_server[0].mean_ms, 1.25);
    const struct result_interval *bi = &back.intervals[0];
    /* Read back highest count first. */
    assert_int_equal(bi->n_waits, 2);
    assert_string_equal(bi->waits[0].name, "Client:ClientRead");
    assert_int_equal(bi->waits[0].count, 7);
    assert_double(bi->cpu_system, 0.0625);
    assert_int_equal(bi->host.write_bytes, 8192);
    assert_double(bi->host.iowait, 0.125);
    assert_int_equal(bi->host.has_steal, 1);
    assert_double(bi->host.steal, 0.0625);
    assert_int_equal(back.intervals[1].n_waits, 0);
    assert_int_equal(back.intervals[1].has_host, 0);
    result_free(&back);
    result_free(&r);

    fill_result(&r);
    assert_int_equal(result_write(&r, f->path, &e), 0);
    assert_int_equal(result_read(f->path, &back, &e), 0);
    assert_int_equal(back.waits.present, 0);
    assert_int_equal(back.client_cpu.present, 0);
    assert_null(back.statements_server_note);
    result_free(&back);
    result_free(&r);
}

/* Five shares each rounded alone sum to 10002 here; by largest remainder they sum to 10000. */
static void test_round_shares(void **state)
{
    (void)state;
    const double halves[5] = {0.20005, 0.20005, 0.20005, 0.2, 0.19985};
    int64_t v[5];
    result_round_shares(halves, 5, 10000, v);
    assert_int_equal(v[0] + v[1] + v[2] + v[3] + v[4], 10000);
    assert_int_equal(v[0], 2001); /* remainders .5, .5, .5, 0, .5: the first two get a unit */
    assert_int_equal(v[1], 2001);
    assert_int_equal(v[2], 2000);
    assert_int_equal(v[3], 2000);
    assert_int_equal(v[4], 1998);
    const double thirds[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
    result_round_shares(thirds, 3, 10000, v);
    assert_int_equal(v[0], 3334);
    assert_int_equal(v[1] + v[2], 6666);
    const double none[4] = {0, 0, 0, 0};
    result_round_shares(none, 4, 10000, v);
    assert_int_equal(v[0] + v[1] + v[2] + v[3], 0);
}

static void test_file_is_json(void **state)
{
    struct fixture *f = *state;
    struct result r;
    struct err e = {0};
    fill_result(&r);
    assert_int_equal(result_write(&r, f->path, &e), 0);
    result_free(&r);
    json_error_t je;
    json_t *root = json_load_file(f->path, 0, &je);
    if (!root)
        fail_msg("not JSON: %d:%d: %s", je.line, je.column, je.text);
    assert_true(json_is_object(root));
    assert_string_equal(json_string_value(json_object_get(root, "format")), "pgarena-result");
    json_t *version = json_object_get(root, "version");
    assert_true(json_is_integer(version));
    assert_int_equal(json_integer_value(version), 3);
    json_t *bins = json_object_get(json_object_get(root, "histogram"), "bins");
    assert_int_equal(json_array_size(bins), 6);
    assert_int_equal(json_integer_value(json_array_get(json_array_get(bins, 0), 0)), 7);
    assert_int_equal(json_array_size(json_object_get(root, "intervals")), 3);
    json_decref(root);
}

static void test_write_missing_dir(void **state)
{
    struct fixture *f = *state;
    struct result r;
    struct err e = {0};
    char path[256], sub[200], names[256];
    fill_result(&r);
    snprintf(sub, sizeof sub, "%s/missing", f->dir);
    snprintf(path, sizeof path, "%s/result.json", sub);
    assert_int_equal(result_write(&r, path, &e), -1);
    assert_int_equal(e.code, ERR_RUNTIME);
    assert_non_null(strstr(e.msg, path));
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(access(sub, F_OK), -1);
    assert_int_equal(dir_entries(f->dir, names, sizeof names), 0);

    /* The rename fails when the target is a directory: the temporary file goes too. */
    assert_int_equal(mkdir(sub, 0700), 0);
    e.code = ERR_NONE;
    assert_int_equal(result_write(&r, sub, &e), -1);
    assert_int_equal(e.code, ERR_RUNTIME);
    assert_int_equal(dir_entries(f->dir, names, sizeof names), 1);
    assert_string_equal(names, "missing ");
    assert_int_equal(rmdir(sub), 0);
    result_free(&r);
}

/* result_read(path) must fail with ERR_INPUT and "PATH:..." (then prefix_more, if any). */
static void expect_rejected(const char *path, const char *prefix_more, const char *why)
{
    struct result r;
    struct err e = {0};
    memset(&r, 0xab, sizeof r); /* whatever the caller had */
    if (result_read(path, &r, &e) == 0) {
        result_free(&r);
        fail_msg("%s: accepted", why);
    }
    assert_int_equal(e.code, ERR_INPUT);
    size_t n = strlen(path);
    if (strncmp(e.msg, path, n) != 0 || e.msg[n] != ':')
        fail_msg("%s: message does not start with the path: %s", why, e.msg);
    if (prefix_more && strncmp(e.msg + n, prefix_more, strlen(prefix_more)) != 0)
        fail_msg("%s: message lacks '%s' after the path: %s", why, prefix_more, e.msg);
    result_free(&r); /* safe after a failed read */
}

static void test_read_rejects_bad_files(void **state)
{
    struct fixture *f = *state;
    char path[256];
    snprintf(path, sizeof path, "%s/absent.json", f->dir);
    expect_rejected(path, NULL, "missing file");
    write_text(f->path, "");
    expect_rejected(f->path, NULL, "empty file");
    write_text(f->path, "{\n  \"format\": \"pgarena-result\",\n  \"version\": nope\n}\n");
    expect_rejected(f->path, ":3:", "invalid JSON");
    write_text(f->path, "{\"format\": \"pgarena-result\", \"version\": 1,\n\"version\": 1}");
    expect_rejected(f->path, ":2:", "duplicate key");
    write_text(f->path, "[1, 2]");
    expect_rejected(f->path, NULL, "an array");
    write_text(f->path, "{\"format\": \"other-tool\", \"version\": 1}");
    expect_rejected(f->path, NULL, "another format");
}

/* result_read_text reads exactly len bytes (no NUL needed) and names the text in messages. */
static void test_read_text(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    assert_int_equal(result_write(&r, f->path, &e), 0);
    FILE *in = fopen(f->path, "r");
    assert_non_null(in);
    char *text = malloc(1 << 16);
    size_t len = fread(text, 1, (1 << 16) - 8, in);
    fclose(in);
    assert_true(len > 0 && len < (1 << 16) - 8);
    memcpy(text + len, "garbage!", 8); /* after len: must not be read */
    if (result_read_text(text, len, "mem", &back, &e) != 0)
        fail_msg("read from memory failed: %s", e.msg);
    assert_result_equal(&r, &back);
    result_free(&back);

    assert_int_equal(result_read_text(text, len / 2, "half", &back, &e), -1);
    assert_int_equal(e.code, ERR_INPUT);
    assert_int_equal(strncmp(e.msg, "half:", 5), 0);
    text[len / 2] = '\0'; /* a NUL byte inside the text is not JSON */
    assert_int_equal(result_read_text(text, len, "nul", &back, &e), -1);
    assert_int_equal(strncmp(e.msg, "nul:", 4), 0);
    assert_int_equal(result_read_text("", 0, "empty", &back, &e), -1);
    assert_int_equal(strncmp(e.msg, "empty:", 6), 0);
    free(text);
    result_free(&r);

    /* A directory opens but cannot be read. */
    expect_rejected(f->dir, ": cannot read", "a directory");
}

/* Write a good file, change its JSON with mutate, and expect the reader to reject it. */
static void expect_mutation_rejected(const char *path, void (*mutate)(json_t *root),
                                     const char *why)
{
    struct result r;
    struct err e = {0};
    fill_result(&r);
    assert_int_equal(result_write(&r, path, &e), 0);
    result_free(&r);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    assert_non_null(root);
    mutate(root);
    assert_int_equal(json_dump_file(root, path, JSON_INDENT(1)), 0);
    json_decref(root);
    expect_rejected(path, NULL, why);
}

static json_t *hist_of(json_t *root, int interval)
{
    if (interval < 0)
        return json_object_get(root, "histogram");
    return json_object_get(json_array_get(json_object_get(root, "intervals"), (size_t)interval),
                           "histogram");
}

static void mut_version_4(json_t *root)
{
    json_object_set_new(root, "version", json_integer(4));
}

static void mut_version_0(json_t *root)
{
    json_object_set_new(root, "version", json_integer(0));
}

static void mut_version_string(json_t *root)
{
    json_object_set_new(root, "version", json_string("1"));
}

static void mut_no_format(json_t *root)
{
    json_object_del(root, "format");
}

static void mut_no_summary(json_t *root)
{
    json_object_del(root, "summary");
}

static void mut_summary_not_object(json_t *root)
{
    json_object_set_new(root, "summary", json_integer(3));
}

static void mut_no_histogram(json_t *root)
{
    json_object_del(root, "histogram");
}

static void mut_count_mismatch(json_t *root)
{
    json_t *h = hist_of(root, -1);
    json_object_set_new(h, "count",
                        json_integer(json_integer_value(json_object_get(h, "count")) + 1));
}

static void mut_bins_unsorted(json_t *root)
{
    json_t *bins = json_object_get(hist_of(root, -1), "bins");
    json_t *first = json_incref(json_array_get(bins, 0));
    json_array_remove(bins, 0);
    json_array_append_new(bins, first);
}

/* Interval histograms in version 1's form (bins) are still read: corrupt ones must fail. */
static void set_v1_bins(json_t *h, const char *bins)
{
    json_object_del(h, "compact");
    json_object_set_new(h, "bins", json_loads(bins, 0, NULL));
}

static void mut_interval_bin_duplicate(json_t *root)
{
    set_v1_bins(hist_of(root, 0), "[[100,1],[100,2],[5000,1],[50000,1],[1048576,1]]");
}

static void mut_interval_negative_count(json_t *root)
{
    set_v1_bins(hist_of(root, 2), "[[7,-1]]");
}

static void set_tx_100ms(json_t *root, const char *tenths)
{
    json_object_set_new(json_array_get(json_object_get(root, "intervals"), 1), "tx_100ms",
                        json_loads(tenths, JSON_DECODE_ANY, NULL));
}

static void mut_tx_100ms_not_array(json_t *root)
{
    set_tx_100ms(root, "{\"0\": 1}");
}

static void mut_tx_100ms_too_long(json_t *root)
{
    set_tx_100ms(root, "[1,1,1,1,1,1,1,1,1,1,1]");
}

static void mut_tx_100ms_negative(json_t *root)
{
    set_tx_100ms(root, "[1,-1,3]");
}

static void mut_tx_100ms_not_integer(json_t *root)
{
    set_tx_100ms(root, "[1,2.5,3]");
}

static void mut_tx_100ms_string(json_t *root)
{
    set_tx_100ms(root, "[\"1\"]");
}

static void mut_interval_bin_not_pair(json_t *root)
{
    set_v1_bins(hist_of(root, 0), "[[100,1],\"x\",[5000,1],[50000,1],[1048576,1]]");
}

static void mut_compact_not_base64(json_t *root)
{
    json_object_set_new(hist_of(root, 0), "compact", json_string("!!!!"));
}

static void mut_compact_count_mismatch(json_t *root)
{
    json_object_set_new(hist_of(root, 0), "count", json_integer(7));
}

static void mut_compact_max_outside(json_t *root)
{
    json_object_set_new(hist_of(root, 0), "max", json_integer(3 << 20));
}

static void mut_intervals_not_array(json_t *root)
{
    json_object_set_new(root, "intervals", json_object());
}

static void test_read_rejects_bad_documents(void **state)
{
    struct fixture *f = *state;
    static const struct {
        void (*mutate)(json_t *);
        const char *why;
    } cases[] = {
        {mut_version_4, "future version"},
        {mut_version_0, "version 0"},
        {mut_version_string, "version as a string"},
        {mut_no_format, "no format"},
        {mut_no_summary, "missing summary"},
        {mut_summary_not_object, "summary not an object"},
        {mut_no_histogram, "missing histogram"},
        {mut_count_mismatch, "bins not summing to count"},
        {mut_bins_unsorted, "bins unsorted"},
        {mut_interval_bin_duplicate, "interval bins repeated"},
        {mut_interval_negative_count, "negative bin count"},
        {mut_interval_bin_not_pair, "bin not a pair"},
        {mut_compact_not_base64, "compact text not base64"},
        {mut_compact_count_mismatch, "compact counts disagree with count"},
        {mut_compact_max_outside, "max outside the compact bins"},
        {mut_intervals_not_array, "intervals not an array"},
        {mut_tx_100ms_not_array, "tx_100ms not an array"},
        {mut_tx_100ms_too_long, "tx_100ms of 11"},
        {mut_tx_100ms_negative, "tx_100ms negative"},
        {mut_tx_100ms_not_integer, "tx_100ms not an integer"},
        {mut_tx_100ms_string, "tx_100ms a string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_mutation_rejected(f->path, cases[i].mutate, cases[i].why);
    /* The future-version message says so. */
    struct result r;
    struct err e = {0};
    expect_mutation_rejected(f->path, mut_version_4, "future version");
    assert_int_equal(result_read(f->path, &r, &e), -1);
    assert_non_null(strstr(e.msg, "version 4"));
}

/* A duet half's intervals carry tx_100ms (a short last one only the tenths it covers) and read
 * back; a file whose intervals have none writes no tx_100ms at all. */
static void test_tx_100ms_round_trip(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    struct buf text;
    buf_init(&text);
    assert_int_equal(result_write(&r, f->path, &e), 0);
    FILE *in = fopen(f->path, "r");
    assert_int_equal(buf_read_all(&text, in), 0);
    fclose(in);
    buf_append(&text, "", 1);
    assert_null(strstr(text.data, "tx_100ms"));

    r.has_duet = 1;
    snprintf(r.duet.id, sizeof r.duet.id, "0b5e2f4c-9a1d-4e6f-8a2b-3c4d5e6f7a80");
    snprintf(r.duet.partner, sizeof r.duet.partner, "0b5e2f4c-9a1d-4e6f-8a2b-3c4d5e6f7a81");
    r.duet.role = 'a';
    for (size_t i = 0; i < r.n_intervals; i++) {
        struct result_interval *it = &r.intervals[i];
        it->n_tenths = it->duration_s < 1 ? 5 : RESULT_INTERVAL_TENTHS;
        uint64_t left = it->transactions;
        for (size_t k = 0; k + 1 < it->n_tenths; k++) {
            it->tenths[k] = k == 3 ? 0 : 90 + k;
            left -= it->tenths[k];
        }
        it->tenths[it->n_tenths - 1] = left;
    }
    assert_int_equal(result_write(&r, f->path, &e), 0);
    if (result_read(f->path, &back, &e) != 0)
        fail_msg("read back failed: %s", e.msg);
    assert_result_equal(&r, &back);
    assert_int_equal(back.intervals[2].n_tenths, 5);
    uint64_t sum = 0;
    for (size_t k = 0; k < back.intervals[2].n_tenths; k++)
        sum += back.intervals[2].tenths[k];
    assert_int_equal(sum, back.intervals[2].transactions);
    result_free(&back);
    buf_free(&text);
    result_free(&r);
}

/* Whatever result_write cannot represent, it must not report success for a file that
 * result_read then rejects or reads back differently. */
static void expect_write_consistent(const char *path, const struct result *r,
                                    const struct result *expected)
{
    struct result back;
    struct err e = {0};
    if (result_write(r, path, &e) != 0) {
        assert_int_equal(access(path, F_OK), -1);
        return;
    }
    if (result_read(path, &back, &e) != 0)
        fail_msg("write succeeded, read failed: %s", e.msg);
    assert_result_equal(expected, &back);
    result_free(&back);
}

/* Text that is not UTF-8 is written with its non-ASCII bytes as '?' rather than dropped;
 * a NaN is written as null (read back as 0) rather than losing the summary. */
static void test_write_unrepresentable_values(void **state)
{
    struct fixture *f = *state;
    struct result r, expected;
    fill_result(&r);
    fill_result(&expected);
    free(r.workload.scripts[1].text);
    r.workload.scripts[1].text = strdup("-- caf\xe9\nSELECT 1;\n");
    free(expected.workload.scripts[1].text);
    expected.workload.scripts[1].text = strdup("-- caf?\nSELECT 1;\n");
    expect_write_consistent(f->path, &r, &expected);
    result_free(&r);
    fill_result(&r);
    r.summary.tps = NAN;
    expected.summary.tps = 0;
    free(expected.workload.scripts[1].text);
    expected.workload.scripts[1].text = strdup(r.workload.scripts[1].text);
    expect_write_consistent(f->path, &r, &expected);
    result_free(&r);
    result_free(&expected);
}

/* The environment: server settings, sizes, tables, warnings, statistics deltas. */
static void fill_environment(struct result *r)
{
    static const char *const settings[][2] = {{"fsync", "off"}, {"shared_buffers", "128MB"}};
    r->client.kernel = strdup("6.1.0-18-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1");
    r->client.cpu_model = strdup("AMD EPYC 7B13");
    r->client.distribution = strdup("Debian GNU/Linux 12 (bookworm)");
    r->server.n_settings = 2;
    r->server.settings = calloc(2, sizeof *r->server.settings);
    for (size_t i = 0; i < 2; i++)
        r->server.settings[i] =
            (struct result_setting){strdup(settings[i][0]), strdup(settings[i][1]), i == 0};
    r->server.database_size_bytes = 5LL << 32;
    r->server.dataset_bytes = -1;
    r->server.n_tables = 1;
    r->server.tables = calloc(1, sizeof *r->server.tables);
    r->server.tables[0] = (struct result_table){strdup("pgbench_accounts"), 1 << 20, 1 << 18};
    r->server.location = strdup("remote");
    r->server.ssl = 1;
    r->server.rtt_us = 250.5;
    r->server.capture_ms = 12.25;
    r->server.n_warnings = 1;
    r->server.warnings = calloc(1, sizeof *r->server.warnings);
    r->server.warnings[0] = (struct result_warning){strdup("fsync"), strdup("off"),
                                                    strdup("a crash can corrupt the database")};
    r->n_server_stats = 2;
    r->server_stats = calloc(2, sizeof *r->server_stats);
    r->server_stats[0] = (struct result_stat){strdup("xact_commit"), 123456, 1};
    r->server_stats[1] = (struct result_stat){strdup("wal_bytes"), 0, 0};
    r->cache_hit_ratio = 0.875;
}

static void assert_environment_equal(const struct result *a, const struct result *b)
{
    assert_str(a->client.kernel, b->client.kernel);
    assert_str(a->client.cpu_model, b->client.cpu_model);
    assert_str(a->client.distribution, b->client.distribution);
    assert_int_equal(a->server.n_settings, b->server.n_settings);
    for (size_t i = 0; i < a->server.n_settings; i++) {
        assert_str(a->server.settings[i].name, b->server.settings[i].name);
        assert_str(a->server.settings[i].value, b->server.settings[i].value);
        assert_int_equal(a->server.settings[i].non_default, b->server.settings[i].non_default);
    }
    assert_int_equal(a->server.database_size_bytes, b->server.database_size_bytes);
    assert_int_equal(a->server.dataset_bytes, b->server.dataset_bytes);
    assert_int_equal(a->server.n_tables, b->server.n_tables);
    for (size_t i = 0; i < a->server.n_tables; i++) {
        assert_str(a->server.tables[i].name, b->server.tables[i].name);
        assert_int_equal(a->server.tables[i].bytes, b->server.tables[i].bytes);
        assert_int_equal(a->server.tables[i].index_bytes, b->server.tables[i].index_bytes);
    }
    assert_str(a->server.location, b->server.location);
    assert_int_equal(a->server.ssl, b->server.ssl);
    assert_double(a->server.rtt_us, b->server.rtt_us);
    assert_double(a->server.capture_ms, b->server.capture_ms);
    assert_int_equal(a->server.n_warnings, b->server.n_warnings);
    for (size_t i = 0; i < a->server.n_warnings; i++) {
        assert_str(a->server.warnings[i].setting, b->server.warnings[i].setting);
        assert_str(a->server.warnings[i].value, b->server.warnings[i].value);
        assert_str(a->server.warnings[i].message, b->server.warnings[i].message);
    }
    assert_int_equal(a->n_server_stats, b->n_server_stats);
    for (size_t i = 0; i < a->n_server_stats; i++) {
        assert_str(a->server_stats[i].name, b->server_stats[i].name);
        assert_int_equal(a->server_stats[i].known, b->server_stats[i].known);
        assert_int_equal(a->server_stats[i].value, b->server_stats[i].value);
    }
    assert_double(a->cache_hit_ratio, b->cache_hit_ratio);
}

static void test_environment_round_trip(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    fill_environment(&r);
    assert_int_equal(result_write(&r, f->path, &e), 0);
    if (result_read(f->path, &back, &e) != 0)
        fail_msg("read back failed: %s", e.msg);
    assert_result_equal(&r, &back);
    assert_environment_equal(&r, &back);
    result_free(&back);
    result_free(&r);

    /* The documented paths: settings{name: value}, warnings[{setting, value, message}], unknown
     * numbers as null. */
    json_t *root = json_load_file(f->path, 0, NULL);
    json_t *server = json_object_get(root, "server"),
           *stats = json_object_get(root, "server_stats");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(server, "settings"), "shared_buffers")),
        "128MB");
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(server, "non_default_settings"), 0)),
        "fsync");
    assert_true(json_is_null(json_object_get(server, "dataset_bytes")));
    json_t *w = json_array_get(json_object_get(server, "warnings"), 0);
    assert_string_equal(json_string_value(json_object_get(w, "setting")), "fsync");
    assert_string_equal(json_string_value(json_object_get(w, "value")), "off");
    assert_int_equal(json_integer_value(json_object_get(stats, "xact_commit")), 123456);
    assert_true(json_is_null(json_object_get(stats, "wal_bytes")));
    json_decref(root);
}

/* A file without the environment (an earlier pgarena) reads with everything unknown. */
static void test_environment_absent(void **state)
{
    struct fixture *f = *state;
    struct result r;
    struct err e = {0};
    write_text(f->path, "{\"format\": \"pgarena-result\", \"version\": 1, \"server\": "
                        "{\"version\": \"15.1\"}, \"summary\": {\"transactions\": 1, "
                        "\"tps\": 1.0, \"latency_us\": {}}, \"intervals\": [], \"histogram\": "
                        "{\"unit\": \"us\", \"count\": 0, \"min\": 0, \"max\": 0, "
                        "\"bins\": []}}");
    if (result_read(f->path, &r, &e) != 0)
        fail_msg("read failed: %s", e.msg);
    assert_string_equal(r.server.version, "15.1");
    assert_int_equal(r.server.n_settings, 0);
    assert_int_equal(r.server.n_warnings, 0);
    assert_int_equal(r.n_server_stats, 0);
    assert_int_equal(r.server.database_size_bytes, -1);
    assert_int_equal(r.server.ssl, -1);
    assert_null(r.server.location);
    assert_true(r.cache_hit_ratio < 0 && r.server.rtt_us < 0);
    result_free(&r);
}

/* A version 1 file written by pgarena before the compact intervals (tests/data/result-v1.json,
 * select-only -c 2 -T 3) still reads, full-precision interval bins included. */
static void test_read_version_1(void **state)
{
    (void)state;
    struct result r;
    struct err e = {0};
    const char *top = getenv("PGARENA_TEST_TOP");
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/result-v1.json", top ? top : ".");
    if (result_read(path, &r, &e) != 0)
        fail_msg("%s", e.msg);
    assert_string_equal(r.label, "v1-sample");
    assert_int_equal(r.n_intervals, 3);
    assert_int_equal(r.summary.transactions, 7758);
    uint64_t tx = 0, bins = 0;
    struct hist *h = hist_new();
    for (size_t i = 0; i < r.n_intervals; i++) {
        tx += r.intervals[i].transactions;
        bins += r.intervals[i].histogram.n_bins;
        assert_int_equal(r.intervals[i].histogram.count, r.intervals[i].transactions);
        assert_int_equal(hist_add_sparse(h, &r.intervals[i].histogram), 0);
    }
    assert_int_equal(tx, 7758);
    assert_true(bins > 3000); /* full precision: ~1,100 bins per interval */
    /* The intervals add up to the whole-run histogram, bin for bin. */
    struct hist_sparse all;
    hist_to_sparse(h, &all);
    assert_sparse(&all, &r.histogram);
    hist_sparse_free(&all);
    hist_free(h);
    result_free(&r);
}

/* The journal: a header and interval lines; recover rebuilds the summary from them, leaves
 * a torn last line out, and result_write copies the lines into a file that reads back. */
static void test_journal_recover(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    struct journal *j = journal_create(f->path, &r, &e);
    assert_non_null(j);
    for (size_t i = 0; i < r.n_intervals; i++)
        assert_int_equal(journal_append(j, &r.intervals[i], &e), 0);
    assert_int_equal(journal_count(j), 3);
    /* While the run holds it, recover refuses. */
    assert_int_equal(journal_recover(f->path, &back, &e), -1);
    assert_non_null(strstr(e.msg, "still writing"));
    journal_close(j, 0);
    char *jpath = journal_path(f->path);
    FILE *torn = fopen(jpath, "a");
    fputs("{\"t_s\":4.0,\"transac", torn); /* killed mid-write */
    fclose(torn);
    /* show and the others, given the missing result, name recover. */
    assert_int_equal(result_read(f->path, &back, &e), -1);
    assert_int_equal(e.code, ERR_INPUT);
    assert_non_null(strstr(e.msg, "pgarena recover"));
    assert_int_equal(journal_recover(f->path, &back, &e), 0);
    assert_int_equal(back.complete, 0);
    assert_string_equal(back.end_reason, "killed");
    assert_string_equal(back.label, r.label);
    assert_int_equal(back.n_journal, 3);
    assert_int_equal(back.summary.transactions, 1000 + 1001 + 1002);
    assert_int_equal(back.summary.failed, 0 + 1 + 2);
    assert_double(back.summary.duration_s, 3);
    assert_double(back.summary.tps, 3003.0 / 3);
    assert_int_equal(back.histogram.count, 7);
    assert_int_equal(back.summary.latency_us.min, 7);
    assert_int_equal(back.summary.latency_us.max, 1 << 20);
    assert_non_null(back.finished_at);
    assert_int_equal(result_write(&back, f->path, &e), 0);
    result_free(&back);
    assert_int_equal(result_read(f->path, &back, &e), 0);
    assert_int_equal(back.n_intervals, 3);
    assert_double(back.intervals[2].t_s, 3);
    assert_int_equal(back.intervals[0].histogram.count, 6);
    assert_int_equal(back.intervals[0].histogram.max_us, 1 << 20);
    result_free(&back);
    unlink(jpath);
    free(jpath);
    result_free(&r);
}

/* A sampled run's journal: events lines between the interval lines (out of time order, as
 * a short checkpoint is found late) and a line of a kind this reader does not know; recover
 * orders and counts the events, takes the measured start, lists the server version's fields
 * and sums the intervals' server_io (zeros left out of their lines) into the per-tx figures.
 * A journal without events lines (an older pgarena's) recovers none of these. */
static void test_journal_recover_events(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    char *jpath = journal_path(f->path);
    for (int with_events = 1; with_events >= 0; with_events--) {
        fill_result(&r);
        free(r.server.version);
        r.server.version = strdup("15.4 (Debian 15.4-1)");
        struct journal *j = journal_create(f->path, &r, &e);
        assert_non_null(j);
        struct result_event ev[] = {{2.5, RESULT_EV_CHECKPOINT, 1, "requested"},
                                    {3.0, RESULT_EV_CHECKPOINT, 0, NULL},
                                    {1.5, RESULT_EV_AUTOVACUUM, 1, "public.t"}};
        for (size_t i = 0; i < r.n_intervals; i++) {
            struct result_interval *it = &r.intervals[i];
            it->sio.have = SIO_HAVE_ANY | result_sio_fields_for_version(150000);
            it->sio.v[SIO_WAL_BYTES] = 1000 * (int64_t)(i + 1);
            it->sio.v[SIO_WAL_RECORDS] = 10;
            it->sio.v[SIO_WAL_FPI] = i == 1 ? 5 : 0;
            it->sio.v[SIO_BLKS_HIT] = 30;
            it->sio.v[SIO_BLKS_READ] = i == 0 ? 10 : 0;
            it->sio.v[SIO_CKPT_REQ] = i == 2;
            assert_int_equal(journal_append(j, it, &e), 0);
            if (with_events && i == 0)
                assert_int_equal(
                    journal_append_events(j, "2026-12-01T16:00:00.000Z", NULL, 0, 1, &e), 0);
            if (with_events && i == 2)
                assert_int_equal(journal_append_events(j, "2026-12-01T16:00:00.000Z", ev, 3, 3, &e),
                                 0);
        }
        journal_close(j, 0);
        FILE *more = fopen(jpath, "a");
        fputs("{\"later\":{\"t_s\":3.5}}\n{\"events\":{\"t_s\":4.0,\"even", more); /* torn */
        fclose(more);
        assert_int_equal(journal_recover(f->path, &back, &e), 0);
        assert_int_equal(back.n_journal, 3);
        if (!with_events) {
            assert_int_equal(back.n_events, 0);
            assert_int_equal(back.sio_fields, 0);
            assert_false(back.sio_per_tx.present);
            assert_null(back.measured_start_at);
            assert_int_equal(back.n_server_stats, 0);
        } else {
            assert_int_equal(back.n_events, 3);
            assert_double(back.events[0].t_s, 1.5);
            assert_int_equal(back.events[0].kind, RESULT_EV_AUTOVACUUM);
            assert_string_equal(back.events[0].detail, "public.t");
            assert_double(back.events[1].t_s, 2.5);
            assert_string_equal(back.events[1].detail, "requested");
            assert_int_equal(back.events[2].start, 0);
            assert_int_equal(back.event_counts[RESULT_EV_CHECKPOINT], 1);
            assert_int_equal(back.event_counts[RESULT_EV_AUTOVACUUM], 1);
            assert_int_equal(back.event_counts[RESULT_EV_STANDBY_LAG], 0);
            assert_string_equal(back.measured_start_at, "2026-12-01T16:00:00.000Z");
            assert_int_equal(back.sio_fields, result_sio_fields_for_version(150000));
            assert_true(back.sio_per_tx.present);
            assert_double(back.sio_per_tx.wal_bytes, 6000.0 / 3003);
            assert_double(back.sio_per_tx.fpi_share, 5.0 / 30);
            assert_double(back.sio_per_tx.temp_bytes, 0);
            /* server_stats, read at the run's end, from the intervals: null where they lack. */
            assert_int_equal(back.n_server_stats, 20);
            for (size_t i = 0; i < back.n_server_stats; i++) {
                const struct result_stat *st = &back.server_stats[i];
                if (strcmp(st->name, "wal_bytes") == 0)
                    assert_true(st->known && st->value == 6000);
                else if (strcmp(st->name, "checkpoints") == 0 ||
                         strcmp(st->name, "checkpoints_requested") == 0)
                    assert_true(st->known && st->value == 1);
                else if (strcmp(st->name, "xact_commit") == 0 ||
                         strcmp(st->name, "tup_inserted") == 0)
                    assert_false(st->known);
            }
            assert_double(back.cache_hit_ratio, 90.0 / 100);
        }
        /* The file written from it reads back the same, its intervals the interval lines. */
        assert_int_equal(result_write(&back, f->path, &e), 0);
        result_free(&back);
        assert_int_equal(result_read(f->path, &back, &e), 0);
        assert_int_equal(back.n_intervals, 3);
        assert_int_equal(back.n_events, with_events ? 3 : 0);
        assert_int_equal(back.intervals[0].sio.v[SIO_WAL_BYTES], 1000);
        if (with_events)
            assert_true((back.intervals[0].sio.have >> SIO_WAL_FPI) & 1); /* a listed zero */
        result_free(&back);
        unlink(f->path);
        unlink(jpath);
        result_free(&r);
    }
    /* The header says the journal's version: a later one is refused, none is version 1. */
    fill_result(&r);
    struct journal *j = journal_create(f->path, &r, &e);
    assert_non_null(j);
    assert_int_equal(journal_append(j, &r.intervals[0], &e), 0);
    journal_close(j, 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "grep -q ',\"journal_version\":2}$' '%s'", jpath);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "sed -i '1s/,\"journal_version\":2}$/,\"journal_version\":3}/' '%s'",
             jpath);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(journal_recover(f->path, &back, &e), -1);
    assert_int_equal(e.code, ERR_INPUT);
    assert_non_null(strstr(e.msg, "journal version 3 is newer than this pgarena reads (2)"));
    snprintf(cmd, sizeof cmd, "sed -i '1s/,\"journal_version\":3}$/}/' '%s'", jpath);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(journal_recover(f->path, &back, &e), 0);
    assert_int_equal(back.n_journal, 1);
    result_free(&back);
    unlink(jpath);
    result_free(&r);
    assert_true(journal_line_is_interval("{\"t_s\":1.0}", 11));
    assert_false(journal_line_is_interval("{\"events\":{}}", 13));
    free(jpath);
}

/* A replay's figures at time t: n statements sent, all of one class. */
static void replay_snapshot(struct result *s, uint64_t n)
{
    memset(s, 0, sizeof *s);
    struct replay_result *p = replay_fixture(s);
    p->capture = strdup("app.pgc");
    p->speed = 2;
    p->statements = 40;
    p->sent = n;
    p->lag.max_us = 100.0 * (double)n;
    p->client_lag.max_us = 2.0 * (double)n;
    s->summary.has_classes = 1;
    s->summary.n_classes = 1;
    s->summary.classes = calloc(2, sizeof *s->summary.classes);
    struct result_script_figures *c = &s->summary.classes[0];
    c->name = strdup("SELECT v FROM t WHERE id = $1");
    struct hist *h = hist_new();
    for (uint64_t i = 0; i < n; i++)
        hist_record(h, (int64_t)(100 + i));
    result_derive_class(c, n, 0, s->summary.duration_s, h);
    hist_free(h);
}

/* The result file at path with its JSON changed by mutate (NULL: as it is) read back: 0, or
 * -1 with e set. */
static int read_mutated(const char *path, void (*mutate)(json_t *), struct result *r, struct err *e)
{
    json_t *root = json_load_file(path, 0, NULL);
    assert_non_null(root);
    if (mutate)
        mutate(root);
    char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    int rc = result_read_text(text, strlen(text), "x.json", r, e);
    free(text);
    return rc;
}

static void mut_replay_number(json_t *root)
{
    json_object_set_new(root, "replay", json_integer(5));
}

static void mut_classes_bad(json_t *root)
{
    json_t *bad = json_pack("[{s:i}]", "nope", 1);
    json_object_set_new(json_object_get(root, "summary"), "classes", bad);
}

static void mut_lag_histogram_bad(json_t *root)
{
    json_t *lag = json_object_get(json_object_get(root, "replay"), "lag_us");
    json_object_set_new(lag, "histogram", json_string("zz"));
}

static void mut_no_replay_classes_bad(json_t *root)
{
    json_object_del(root, "replay");
    mut_classes_bad(root);
}

/* replay {} is the replay workload's part: read back only when registered, refused with the
 * same message whether the section or the statement classes beside it are malformed; a file
 * of no part with malformed classes reads without them. */
static void test_replay_part_read(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    replay_fixture(&r)->capture = strdup("app.pgc");
    r.summary.has_classes = 1;
    assert_int_equal(result_write(&r, f->path, &e), 0);
    assert_int_equal(read_mutated(f->path, NULL, &back, &e), 0);
    assert_string_equal(replay_result_of(&back)->capture, "app.pgc");
    assert_true(back.summary.has_classes);
    result_free(&back);
    void (*const bad[])(json_t *) = {mut_replay_number, mut_classes_bad, mut_lag_histogram_bad};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(read_mutated(f->path, bad[i], &back, &e), -1);
        assert_string_equal(e.msg, "x.json: invalid replay or summary.classes");
    }
    assert_int_equal(read_mutated(f->path, mut_no_replay_classes_bad, &back, &e), 0);
    assert_null(replay_result_of(&back));
    assert_int_equal(back.summary.n_classes, 0);
    result_free(&back);
    result_parts_register(NULL); /* a program that registers none: the core figures only */
    assert_int_equal(read_mutated(f->path, mut_replay_number, &back, &e), 0);
    assert_null(replay_result_of(&back));
    result_free(&back);
    workload_parts_register();
    result_free(&r);
}

/* replay.secrets_replaced, passwords and session_set: written only when there are some (a
 * replay without them has the keys it had), read back, and merged over agents (the counts
 * added up, the settings the first's). */
static void test_replay_fidelity_keys(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    struct replay_result *p = replay_fixture(&r);
    r.summary.has_classes = 1;
    assert_int_equal(result_write(&r, f->path, &e), 0);
    json_t *root = json_load_file(f->path, 0, NULL);
    json_t *o = json_object_get(root, "replay");
    assert_null(json_object_get(o, "secrets_replaced"));
    assert_null(json_object_get(o, "passwords"));
    assert_null(json_object_get(o, "session_set"));
    json_decref(root);
    p->secrets_replaced = 2;
    p->n_session_set = 2;
    p->session_set = calloc(3, sizeof *p->session_set);
    p->session_set[0] = strdup("DateStyle=ISO, DMY");
    p->session_set[1] = strdup("extra_float_digits=1");
    assert_int_equal(result_write(&r, f->path, &e), 0);
    root = json_load_file(f->path, 0, NULL);
    o = json_object_get(root, "replay");
    assert_int_equal(json_integer_value(json_object_get(o, "secrets_replaced")), 2);
    assert_string_equal(json_string_value(json_object_get(o, "passwords")), "generated");
    assert_int_equal(json_array_size(json_object_get(o, "session_set")), 2);
    json_decref(root);
    assert_int_equal(read_mutated(f->path, NULL, &back, &e), 0);
    const struct replay_result *q = replay_result_of(&back);
    assert_int_equal(q->secrets_replaced, 2);
    assert_int_equal(q->n_session_set, 2);
    assert_string_equal(q->session_set[0], "DateStyle=ISO, DMY");
    assert_string_equal(q->session_set[1], "extra_float_digits=1");
    void *const parts[] = {p, (void *)q};
    struct replay_result *m = replay_result_merge(parts, 2);
    assert_int_equal(m->secrets_replaced, 4);
    assert_int_equal(m->n_session_set, 2);
    assert_string_equal(m->session_set[1], "extra_float_digits=1");
    replay_result_free(m);
    result_free(&back);
    result_free(&r);
}

/* A replay's journal: snapshot lines of replay {} and summary.classes[] between the interval
 * lines; recover takes the last whole one (a torn one after it is left out), the intervals
 * are the interval lines only, and the result written from it reads back the same. */
static void test_journal_recover_replay(void **state)
{
    struct fixture *f = *state;
    struct result r, snap, back;
    struct err e = {0};
    fill_result(&r);
    struct journal *j = journal_create(f->path, &r, &e);
    assert_non_null(j);
    for (size_t i = 0; i < r.n_intervals; i++) {
        assert_int_equal(journal_append(j, &r.intervals[i], &e), 0);
        replay_snapshot(&snap, 5 * (i + 1));
        assert_true(journal_append_snapshot(j, &snap, (double)(i + 1), &e) > 100);
        result_free(&snap);
    }
    assert_int_equal(journal_count(j), 3);
    journal_close(j, 0);
    char *jpath = journal_path(f->path);
    FILE *torn = fopen(jpath, "a");
    fputs("{\"snapshot\":{\"t_s\":4.0,\"replay\":{\"sent\":99", torn); /* killed mid-write */
    fclose(torn);
    assert_true(journal_line_is_snapshot("{\"snapshot\":{}}", 15));
    assert_false(journal_line_is_snapshot("{\"t_s\":1.0}", 11));
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0) {
            assert_int_equal(journal_recover(f->path, &back, &e), 0);
            assert_int_equal(back.n_journal, 3);
            assert_int_equal(back.summary.transactions, 1000 + 1001 + 1002);
            assert_int_equal(result_write(&back, f->path, &e), 0);
            result_free(&back);
        }
        assert_int_equal(result_read(f->path, &back, &e), 0);
        const struct replay_result *p = replay_result_of(&back);
        assert_non_null(p);
        assert_string_equal(p->capture, "app.pgc");
        assert_int_equal(p->sent, 15);
        assert_double(p->speed, 2);
        assert_double(p->as_of_s, 3);
        assert_double(p->lag.max_us, 1500);
        assert_double(p->client_lag.max_us, 30);
        assert_int_equal(back.summary.n_classes, 1);
        assert_string_equal(back.summary.classes[0].name, "SELECT v FROM t WHERE id = $1");
        assert_int_equal(back.summary.classes[0].transactions, 15);
        assert_int_equal(back.summary.classes[0].histogram.count, 15);
        assert_int_equal(back.n_intervals, 3);
        assert_double(back.intervals[2].t_s, 3);
        result_free(&back);
    }
    unlink(jpath);
    free(jpath);
    result_free(&r);
}

/* A sampled run's journal: recover sums the intervals' wait events into the whole run's waits
 * (the header has none yet), estimates the sampling rounds from the period, and says so. */
static void test_journal_recover_waits(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    r.waits = (struct result_waits){1, 100, 0, 0, calloc(1, sizeof *r.waits.events), NULL, NULL};
    for (size_t i = 0; i < r.n_intervals; i++) {
        struct result_interval *it = &r.intervals[i];
        it->n_waits = 2;
        it->waits = calloc(2, sizeof *it->waits);
        it->waits[0] = (struct result_wait){strdup("CPU"), 11 + i};
        it->waits[1] = (struct result_wait){strdup(i == 2 ? "IO:DataFileRead" : "Lock:tuple"), 20};
    }
    struct journal *j = journal_create(f->path, &r, &e);
    assert_non_null(j);
    for (size_t i = 0; i < r.n_intervals; i++)
        assert_int_equal(journal_append(j, &r.intervals[i], &e), 0);
    journal_close(j, 0);
    assert_int_equal(journal_recover(f->path, &back, &e), 0);
    assert_int_equal(back.waits.present, 1);
    assert_int_equal(back.waits.sample_ms, 100);
    assert_int_equal(back.waits.samples, 30); /* 3 s at 100 ms */
    assert_int_equal(back.waits.n_events, 3);
    assert_string_equal(back.waits.events[0].name, "Lock:tuple");
    assert_int_equal(back.waits.events[0].count, 40);
    assert_string_equal(back.waits.events[1].name, "CPU");
    assert_int_equal(back.waits.events[1].count, 11 + 12 + 13);
    assert_string_equal(back.waits.events[2].name, "IO:DataFileRead");
    assert_int_equal(back.waits.events[2].count, 20);
    assert_non_null(back.waits.note);
    assert_non_null(strstr(back.waits.note, "rebuilt by recover"));
    /* and it is written and read back as any result's */
    assert_int_equal(result_write(&back, f->path, &e), 0);
    result_free(&back);
    assert_int_equal(result_read(f->path, &back, &e), 0);
    assert_int_equal(back.waits.n_events, 3);
    assert_int_equal(back.waits.samples, 30);
    result_free(&back);
    char *jpath = journal_path(f->path);
    unlink(jpath);
    free(jpath);
    result_free(&r);

    /* Not sampled (no waits in the header): none rebuilt, whatever the intervals hold. */
    fill_result(&r);
    r.intervals[0].n_waits = 1;
    r.intervals[0].waits = calloc(1, sizeof *r.intervals[0].waits);
    r.intervals[0].waits[0] = (struct result_wait){strdup("CPU"), 1};
    j = journal_create(f->path, &r, &e);
    assert_non_null(j);
    assert_int_equal(journal_append(j, &r.intervals[0], &e), 0);
    journal_close(j, 0);
    assert_int_equal(journal_recover(f->path, &back, &e), 0);
    assert_int_equal(back.waits.present, 0);
    result_free(&back);
    jpath = journal_path(f->path);
    unlink(jpath);
    free(jpath);
    result_free(&r);
}

/* A sampled run's client_cpu and waits.visibility: derived from the intervals' client CPU
 * over their lengths and the last sampler line (a journal without sampler lines, as a pgarena
 * before them wrote, has neither). */
static void test_journal_recover_client(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    for (int with_lines = 1; with_lines >= 0; with_lines--) {
        fill_result(&r);
        r.waits =
            (struct result_waits){1, 100, 0, 0, calloc(1, sizeof *r.waits.events), NULL, NULL};
        for (size_t i = 0; i < r.n_intervals; i++) {
            struct result_interval *it = &r.intervals[i];
            it->has_client_cpu = i != 1; /* one interval without: left out */
            it->cpu_user = 0.5 * (double)(i + 1);
            it->cpu_system = 0.25;
        }
        r.intervals[2].duration_s = 3; /* user (0.5 * 1 + 1.5 * 3) / 4, system 0.25 */
        struct journal *j = journal_create(f->path, &r, &e);
        assert_non_null(j);
        for (size_t i = 0; i < r.n_intervals; i++) {
            assert_int_equal(journal_append(j, &r.intervals[i], &e), 0);
            struct journal_sampler s = {1, 0.1 * (double)(i + 1), i == 0 ? -1 : 0};
            if (with_lines)
                assert_int_equal(journal_append_sampler(j, &s, r.intervals[i].t_s, &e), 0);
        }
        journal_close(j, 0);
        assert_int_equal(journal_recover(f->path, &back, &e), 0);
        assert_int_equal(back.client_cpu.present, with_lines);
        if (with_lines) {
            assert_double(back.client_cpu.user, 5.0 / 4);
            assert_double(back.client_cpu.system, 0.25);
            assert_double(back.client_cpu.max_thread_core, 0.1 * (double)r.n_intervals);
            assert_string_equal(back.waits.visibility, "own-user");
        } else {
            assert_null(back.waits.visibility);
        }
        result_free(&back);
        char *jpath = journal_path(f->path);
        unlink(jpath);
        free(jpath);
        result_free(&r);
    }
}

/* A journal with counters lines: recover keeps every interval (the summary is theirs, past
 * the last counters line too) and takes clients[], the scripts' figures, retries, skips, late
 * ones and the failure classes from the last one that reads, whose time it writes as
 * counters_as_of_s (a torn last one is left out), and a round trip keeps that. */
static void test_journal_recover_counters(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    struct journal *j = journal_create(f->path, &r, &e);
    assert_non_null(j);
    struct result_client clients[2][3] = {{{300, 0}, {350, 0}, {350, 0}},
                                          {{600, 0}, {700, 1}, {701, 0}}};
    for (size_t i = 0; i < r.n_intervals; i++) {
        assert_int_equal(journal_append(j, &r.intervals[i], &e), 0);
        if (i == 2)
            break;
        struct journal_script_counts sc[2] = {{750 + 751 * i, i, {0}, 4 + i, 0},
                                              {250 + 250 * i, 0, {0}, 0, 2}};
        struct journal_counters c = {.t_s = r.intervals[i].t_s,
                                     .retried = 5 + i,
                                     .retries = 9 + i,
                                     .skipped = 2,
                                     .late = 10 * (i + 1),
                                     .errors = {i},
                                     .n_scripts = 2,
                                     .scripts = sc,
                                     .n_clients = 3,
                                     .clients = clients[i]};
        assert_true(journal_append_counters(j, &c, &e) > 50);
    }
    journal_close(j, 0);
    char *jpath = journal_path(f->path);
    FILE *torn = fopen(jpath, "a");
    fputs("{\"counters\":{\"t_s\":3.0,\"retr", torn); /* killed mid-write */
    fclose(torn);
    assert_int_equal(journal_recover(f->path, &back, &e), 0);
    assert_int_equal(back.n_journal, 3);
    assert_int_equal(back.summary.transactions, 1000 + 1001 + 1002);
    assert_int_equal(back.summary.failed, 0 + 1 + 2);
    assert_double(back.summary.duration_s, 3);
    assert_double(back.counters_as_of_s, 2);
    assert_int_equal(back.n_clients, 3);
    assert_int_equal(back.clients[1].transactions, 700);
    assert_int_equal(back.clients[1].failed, 1);
    assert_int_equal(back.summary.n_scripts, 2);
    assert_int_equal(back.summary.scripts[0].transactions, 1501);
    assert_int_equal(back.summary.scripts[1].transactions, 500);
    assert_double(back.summary.scripts[0].tps, 1501.0 / 2);
    /* pgbench 18's per-script retried and skipped, as of the last counters line */
    assert_int_equal(back.summary.scripts[0].retried, 5);
    assert_int_equal(back.summary.scripts[1].retried, 0);
    assert_int_equal(back.summary.scripts[0].skipped, 0);
    assert_int_equal(back.summary.scripts[1].skipped, 2);
    assert_int_equal(back.summary.retried, 6);
    assert_int_equal(back.summary.retries, 10);
    assert_int_equal(back.summary.skipped, 2);
    assert_int_equal(back.summary.late, 20);
    assert_int_equal(back.summary.errors[0], 1); /* the failures through 2 s, by class */
    assert_int_equal(result_write(&back, f->path, &e), 0);
    result_free(&back);
    assert_int_equal(result_read(f->path, &back, &e), 0);
    assert_int_equal(back.n_intervals, 3);
    assert_double(back.counters_as_of_s, 2);
    assert_int_equal(back.summary.scripts[0].retried, 5); /* written and read again */
    assert_int_equal(back.summary.scripts[1].skipped, 2);
    result_free(&back);
    unlink(jpath);
    free(jpath);
    result_free(&r);
}

/* A journal line that does not fit (a full disk; here a file size limit, which fails a write
 * the same way part-way through) is undone: the journal ends with the last whole line, and
 * recover finds every interval before it. */
static void test_journal_full_disk_keeps_whole_lines(void **state)
{
    struct fixture *f = *state;
    struct result r, back;
    struct err e = {0};
    fill_result(&r);
    struct journal *j = journal_create(f->path, &r, &e);
    assert_non_null(j);
    assert_int_equal(journal_append(j, &r.intervals[0], &e), 0);
    char *jpath = journal_path(f->path);
    struct stat st;
    assert_int_equal(stat(jpath, &st), 0);
    struct rlimit was, low;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    low = was;
    low.rlim_cur = (rlim_t)st.st_size + 10; /* 10 bytes of the next line fit, not the rest */
    void (*old)(int) = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
    int rc = journal_append(j, &r.intervals[1], &e);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    signal(SIGXFSZ, old);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(e.msg, "cannot write the journal"));
    assert_int_equal(stat(jpath, &st), 0);
    FILE *in = fopen(jpath, "r");
    assert_non_null(in);
    assert_int_equal(fseek(in, -1, SEEK_END), 0);
    assert_int_equal(fgetc(in), '\n');
    fclose(in);
    journal_close(j, 0);
    assert_int_equal(journal_recover(f->path, &back, &e), 0);
    assert_int_equal(back.n_journal, 1);
    assert_int_equal(back.summary.transactions, 1000);
    result_free(&back);
    unlink(jpath);
    free(jpath);
    result_free(&r);
}

int main(void)
{
    workload_parts_register(); /* replay {}: read, merged, its fields */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tx_100ms_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replay_part_read, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replay_fidelity_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sampling_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_is_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_missing_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_rejects_bad_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_rejects_bad_documents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_unrepresentable_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_environment_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_environment_absent, setup, teardown),
        cmocka_unit_test(test_read_version_1),
        cmocka_unit_test_setup_teardown(test_journal_recover, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_recover_client, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_recover_counters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_recover_waits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_recover_replay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_recover_events, setup, teardown),
        cmocka_unit_test(test_round_shares),
        cmocka_unit_test_setup_teardown(test_journal_full_disk_keeps_whole_lines, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
