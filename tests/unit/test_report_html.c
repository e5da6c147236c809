/* The HTML report as a whole, from results made in memory: sections, charts, escaping, and
 * that it refers to nothing outside itself. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "report/html.h"
#include "report/html_int.h"
#include "stats/hist.h"

#define N_INTERVALS 12

/* A run of N_INTERVALS one-second intervals at about tps, latencies around base_us. */
static void make_run(struct result *r, const char *label, double tps, int64_t base_us,
                     uint64_t failed_per_interval)
{
    memset(r, 0, sizeof *r);
    r->label = label ? xstrdup(label) : NULL;
    r->started_at = xstrdup("2026-01-02T03:04:05Z");
    r->complete = 1;
    r->end_reason = xstrdup("finished");
    r->server.version = xstrdup("17.2");
    r->client.hostname = xstrdup("bench-1");
    r->workload.name = xstrdup("select-only");
    r->workload.scale = 10;
    r->workload.n_scripts = 1;
    r->workload.scripts = xcalloc(1, sizeof *r->workload.scripts);
    r->workload.scripts[0].name = xstrdup("builtin: select-only");
    r->workload.scripts[0].weight = 1;
    r->workload.scripts[0].text = xstrdup("SELECT abalance FROM pgbench_accounts WHERE aid = 1;");
    r->options.clients = 4;
    r->options.threads = 2;
    r->options.duration_s = N_INTERVALS;
    r->options.protocol = xstrdup("prepared");
    r->options.warmup_s = 2;
    r->n_intervals = N_INTERVALS;
    r->intervals = xcalloc(N_INTERVALS, sizeof *r->intervals);
    struct hist *all = hist_new(), *h = hist_new();
    for (size_t t = 0; t < N_INTERVALS; t++) {
        struct result_interval *it = &r->intervals[t];
        hist_reset(h);
        uint64_t n = (uint64_t)tps + t * 7;
        for (uint64_t k = 0; k < n; k++)
            hist_record(h, base_us + (int64_t)(k % 97) * base_us / 10);
        it->t_s = (double)t + 1;
        it->duration_s = 1;
        it->transactions = n;
        it->failed = failed_per_interval;
        it->tps = (double)n;
        it->p50_us = (double)hist_percentile(h, 50);
        it->p99_us = (double)hist_percentile(h, 99);
        it->max_us = (double)hist_max(h);
        hist_to_sparse(h, &it->histogram);
        hist_add(all, h);
        r->summary.transactions += n;
        r->summary.failed += failed_per_interval;
    }
    r->summary.errors[RESULT_ERR_SERIALIZATION] = r->summary.failed;
    r->summary.duration_s = N_INTERVALS;
    r->summary.tps = (double)r->summary.transactions / N_INTERVALS;
    summary_latency(all, &r->summary.latency_us);
    hist_to_sparse(all, &r->histogram);
    hist_free(h);
    hist_free(all);
}

static void add_warning(struct result *r, const char *setting, const char *value, const char *msg)
{
    r->server.warnings =
        xrealloc(r->server.warnings, (r->server.n_warnings + 1) * sizeof *r->server.warnings);
    r->server.warnings[r->server.n_warnings++] = (struct result_warning){
        .setting = xstrdup(setting), .value = xstrdup(value), .message = xstrdup(msg)};
}

static size_t count_of(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* Nothing that would make a browser fetch or run anything. */
static void assert_self_contained(const char *html)
{
    assert_null(strstr(html, "http:"));
    assert_null(strstr(html, "https:"));
    assert_null(strstr(html, "src="));
    assert_null(strstr(html, "href="));
    assert_null(strstr(html, "@import"));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<link"));
    for (const char *p = strstr(html, "url("); p; p = strstr(p + 1, "url("))
        assert_int_equal(p[4], '#'); /* only fragments of this document */
}

static char *render(const struct result *runs, const char *const *paths, size_t n,
                    const char *title, const char *no_cmp_reason)
{
    struct report_input in = {
        .n = n, .runs = runs, .paths = paths, .title = title, .no_cmp_reason = no_cmp_reason};
    struct buf b;
    buf_init(&b);
    report_html(&b, &in);
    return b.data;
}

static void test_two_setups(void **state)
{
    (void)state;
    struct result runs[2];
    make_run(&runs[0], "pg16 <default>", 1000, 200, 0);
    make_run(&runs[1], "pg17 & tuned", 1200, 150, 0);
    const char *paths[] = {"a.json", "b.json"};
    char *html = render(runs, paths, 2, NULL, "not compared here");
    assert_true(strncmp(html, "<!DOCTYPE html>\n", 16) == 0);
    assert_non_null(strstr(html, "</html>\n"));
    assert_self_contained(html);
    /* Throughput, p50, p99, max over time, and the distribution; every svg closed. */
    assert_int_equal(count_of(html, "<svg class=\"chart\""), 5);
    assert_int_equal(count_of(html, "<svg"), count_of(html, "</svg>"));
    assert_non_null(strstr(html, "<title>pgarena report: pg16 &lt;default&gt; vs pg17 &amp; "
                                 "tuned</title>"));
    assert_null(strstr(html, "<default>"));
    assert_null(strstr(html, "& tuned"));
    /* Every chart has a legend entry per setup, and the warm-up is shaded. */
    assert_int_equal(count_of(html, "<g class=\"lg\">"), 10);
    assert_int_equal(count_of(html, "warm-up, not measured</title>"), 4);
    assert_non_null(strstr(html, "No comparison: not compared here"));
    assert_non_null(strstr(html, "select-only at scale 10, 4 clients on 2 threads, prepared"));
    assert_non_null(strstr(html, "PostgreSQL 17.2"));
    assert_null(strstr(html, "id=\"failures\"")); /* none failed */
    assert_non_null(strstr(html, "id=\"environment\""));
    assert_non_null(strstr(html, "id=\"warnings\""));
    assert_non_null(strstr(html, "@media print"));
    free(html);
    result_free(&runs[0]);
    result_free(&runs[1]);
}

static void test_one_run_with_failures(void **state)
{
    (void)state;
    struct result r;
    make_run(&r, NULL, 500, 1000, 3);
    r.complete = 0;
    free(r.end_reason);
    r.end_reason = xstrdup("interrupted");
    const char *path = "dir/run.json";
    char *html = render(&r, &path, 1, "My <b>title</b>", NULL);
    assert_self_contained(html);
    assert_non_null(strstr(html, "<h1>My &lt;b&gt;title&lt;/b&gt;</h1>"));
    assert_null(strstr(html, "id=\"comparison\"")); /* one setup: nothing to compare */
    assert_non_null(strstr(html, "id=\"failures\""));
    assert_int_equal(count_of(html, "<svg class=\"chart\""), 6); /* and failures over time */
    assert_non_null(strstr(html, "<td>36</td>"));                /* serialization, 12 x 3 */
    /* Named by its path, without a label; cut short is a warning and said in the summary. */
    assert_non_null(strstr(html, "</svg>dir/run.json <span class=\"meta\">"));
    assert_non_null(strstr(html, "the run was cut short (interrupted)"));
    assert_non_null(strstr(html, "The run was cut short (interrupted)"));
    free(html);
    result_free(&r);
}

static void test_trials_share_a_style(void **state)
{
    (void)state;
    struct result runs[3];
    make_run(&runs[0], "A", 1000, 200, 0);
    make_run(&runs[1], "B", 1100, 200, 0);
    make_run(&runs[2], "A", 1010, 210, 0);
    const char *paths[] = {"a1.json", "b.json", "a2.json"};
    /* A warning on one setting: once per setup, whatever the numbers in its message. */
    add_warning(&runs[0], "shared_buffers", "128MB", "the dataset (78.7 MB) fits <in> memory");
    add_warning(&runs[2], "shared_buffers", "128MB", "the dataset (81.1 MB) fits <in> memory");
    add_warning(&runs[1], "shared_buffers", "128MB", "the dataset (80.0 MB) fits <in> memory");
    struct report_input in = {.n = 3, .runs = runs, .paths = paths};
    struct buf b;
    buf_init(&b);
    struct report_doc d;
    report_doc_init(&d, &b, &in);
    assert_int_equal(d.n_sides, 2);
    assert_int_equal(d.side_of[0], 0);
    assert_int_equal(d.side_of[1], 1);
    assert_int_equal(d.side_of[2], 0);
    assert_int_equal(d.sides[0].n, 2);
    report_doc_free(&d);
    buf_free(&b);
    char *html = render(runs, paths, 3, NULL, NULL);
    assert_non_null(strstr(html, ">A (2 runs)</text>"));
    assert_int_equal(count_of(html, "<li>A (<code>shared_buffers = 128MB</code>): the dataset "
                                    "(78.7 MB) fits &lt;in&gt; memory</li>"),
                     1);
    assert_int_equal(count_of(html, "(<code>shared_buffers = 128MB</code>)"), 2);
    /* Environments side by side: a column per run, each trial named by its file. */
    assert_non_null(strstr(html, "a2.json</span></th>"));
    free(html);
    for (int i = 0; i < 3; i++)
        result_free(&runs[i]);
}

static void test_environment_differences(void **state)
{
    (void)state;
    struct result runs[2];
    make_run(&runs[0], "A", 1000, 200, 0);
    make_run(&runs[1], "B", 1000, 200, 0);
    runs[1].options.clients = 8;
    runs[1].options.seed = 99; /* differs in any two runs: not highlighted */
    const char *paths[] = {"a.json", "b.json"};
    char *html = render(runs, paths, 2, NULL, NULL);
    assert_non_null(
        strstr(html, "<tr class=\"diff\"><th>options.clients</th><td>4</td><td>8</td>"));
    assert_non_null(strstr(html, "<tr><th>options.seed</th>"));
    assert_non_null(strstr(html, "1 entry differ"));
    free(html);
    result_free(&runs[0]);
    result_free(&runs[1]);
}

static void test_empty_run(void **state)
{
    (void)state;
    struct result r;
    memset(&r, 0, sizeof r); /* nothing measured, nothing known */
    const char *path = "empty.json";
    char *html = render(&r, &path, 1, NULL, NULL);
    assert_self_contained(html);
    assert_int_equal(count_of(html, "<svg class=\"chart\""), 5);
    assert_null(strstr(html, "nan"));
    assert_null(strstr(html, "inf"));
    free(html);
}

/* report_html_write into a fresh directory; returns the document (caller frees). */
static char *write_and_read(const struct result *runs, const char *const *paths, size_t n)
{
    char dir[] = "/tmp/pgarena-report-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *out = xasprintf("%s/r.html", dir);
    struct err e = {0};
    assert_int_equal(report_html_write(runs, paths, n, NULL, out, &e), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    struct buf b;
    buf_init(&b);
    char chunk[4096];
    for (size_t got; (got = fread(chunk, 1, sizeof chunk, f)) > 0;)
        buf_append(&b, chunk, got);
    fclose(f);
    unlink(out);
    rmdir(dir);
    free(out);
    return b.data;
}

/* The time charts of Why and Inside the server (report_time_chart): a figure drawn only when
 * some run has it, except the client's CPU (and the WAL rate and hit ratio of a run with
 * server_io), which are drawn always; the events as bands on the server's charts only. */
static void test_time_charts(void **state)
{
    (void)state;
    struct result r;
    make_run(&r, "sampled", 500, 300, 0);
    r.client_cpu = (struct result_client_cpu){1, 0.5, 0.25, 0.4};
    for (size_t t = 0; t < r.n_intervals; t++) {
        struct result_interval *it = &r.intervals[t];
        it->has_client_cpu = 1;
        it->cpu_user = 0.5;
        it->cpu_system = 0.25;
        it->sio.have = 1u << SIO_WAL_BYTES;
        it->sio.v[SIO_WAL_BYTES] = 4 * 1024 * 1024;
    }
    r.n_events = 1;
    r.events = xcalloc(1, sizeof *r.events);
    r.events[0] = (struct result_event){.t_s = 3, .kind = RESULT_EV_CHECKPOINT, .start = 1};
    const char *paths[] = {"r.json"};
    char *html = render(&r, paths, 1, NULL, "one run");
    assert_non_null(strstr(html, "<h3>Client CPU</h3>"));
    assert_non_null(strstr(html, "<h3>WAL rate</h3>"));
    assert_non_null(strstr(html, "<h3>Shared-buffer hit ratio</h3>"));
    assert_null(strstr(html, "<h3>Host CPU busy</h3>")); /* no host figures */
    assert_null(strstr(html, "<h3>Disk writes</h3>"));
    assert_null(strstr(html, "<h3>Replication lag</h3>")); /* no standby */
    /* The checkpoint's band on the WAL rate's chart, none on the client CPU's. */
    const char *wal = strstr(html, "<h3>WAL rate</h3>"), *cpu = strstr(html, "<h3>Client CPU</h3>");
    const char *wal_end = strstr(wal, "</figure>"), *cpu_end = strstr(cpu, "</figure>");
    const char *band = strstr(wal, "checkpoint at 3.0 s");
    assert_true(band && band < wal_end);
    band = strstr(cpu, "checkpoint at 3.0 s");
    assert_true(!band || band > cpu_end);
    free(html);
    r.n_events = 0;
    free(r.events);
    r.events = NULL;
    result_free(&r);
}

static void test_comparison(void **state)
{
    (void)state;
    struct result runs[3];
    make_run(&runs[0], "A", 1000, 200, 0);
    make_run(&runs[1], "B", 1500, 100, 0);
    make_run(&runs[2], "C", 800, 300, 1);
    const char *paths[] = {"a.json", "b.json", "c.json"};
    char *html = write_and_read(runs, paths, 3);
    assert_self_contained(html);
    /* compare's table for each setup against A: five metrics, each with a verdict. */
    assert_int_equal(count_of(html, "<table class=\"num cmp\">"), 2);
    assert_int_equal(count_of(html, "<tr class=\"metric\">"), 10);
    assert_int_equal(count_of(html, "<td><span class=\"verdict v-"), 10);
    assert_int_equal(count_of(html, "<td class=\"ci\"><svg"), 8); /* no rate change in A, B */
    assert_non_null(strstr(html, "<tr class=\"metric\"><th>throughput</th><td>1,039 tps</td>"
                                 "<td>1,539 tps</td><td>+48.1%</td>"));
    assert_non_null(strstr(html, "The baseline of the comparison."));
    assert_int_equal(count_of(html, "<b>Against A:</b>"), 2);
    assert_int_equal(count_of(html, "<svg class=\"chart\""), 6); /* C failed: failures too */
    free(html);

    /* A run without an interval cannot be compared: the report says why, and goes on. */
    runs[1].n_intervals = 0;
    html = write_and_read(runs, paths, 2);
    assert_non_null(strstr(html, "<p>No comparison: b.json: no complete interval to compare</p>"));
    assert_non_null(strstr(html, "id=\"distribution\""));
    free(html);
    runs[1].n_intervals = N_INTERVALS;
    for (int i = 0; i < 3; i++)
        result_free(&runs[i]);
}

static void test_write(void **state)
{
    (void)state;
    char dir[] = "/tmp/pgarena-report-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct result r;
    make_run(&r, "A", 100, 100, 0);
    const char *path = "a.json";
    char *out = xasprintf("%s/r.html", dir);
    struct err e = {0};
    assert_int_equal(report_html_write(&r, &path, 1, NULL, out, &e), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char head[16] = {0};
    assert_int_equal(fread(head, 1, 15, f), 15);
    assert_string_equal(head, "<!DOCTYPE html>");
    fclose(f);
    char *bad = xasprintf("%s/missing/r.html", dir);
    assert_int_equal(report_html_write(&r, &path, 1, NULL, bad, &e), -1);
    assert_int_equal(e.code, ERR_INPUT);
    assert_non_null(strstr(e.msg, bad));
    /* Nothing but the report is left behind: no temporary file. */
    DIR *dh = opendir(dir);
    int entries = 0;
    for (struct dirent *de; (de = readdir(dh));)
        entries += de->d_name[0] != '.';
    closedir(dh);
    assert_int_equal(entries, 1);
    unlink(out);
    rmdir(dir);
    free(out);
    free(bad);
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_setups),
        cmocka_unit_test(test_one_run_with_failures),
        cmocka_unit_test(test_trials_share_a_style),
        cmocka_unit_test(test_environment_differences),
        cmocka_unit_test(test_empty_run),
        cmocka_unit_test(test_time_charts),
        cmocka_unit_test(test_comparison),
        cmocka_unit_test(test_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
