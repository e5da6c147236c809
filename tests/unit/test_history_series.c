#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/rng.h"
#include "base/buf.h"
#include "history/history.h"
#include "report/history_out.h"
#include "stats/hist.h"
#include "replay_fixture.h"
#include "workload/workload.h"

/* A run of 10 one-second intervals around tps (1 % noise), latencies around lat_us. */
static void make_run(struct result *r, const char *workload, int clients, double tps, double lat_us,
                     int seq, struct rng *g)
{
    memset(r, 0, sizeof *r);
    r->run_id = xasprintf("00000000-0000-4000-8000-%012d", seq + 1000 * clients);
    r->started_at = xasprintf("2026-01-01T00:%02d:00Z", seq);
    r->label = xstrdup(seq % 2 ? "odd" : "even");
    r->complete = 1;
    r->workload.name = xstrdup(workload);
    r->workload.scale = 1;
    r->options.clients = clients;
    r->options.protocol = xstrdup("simple");
    r->meta = xcalloc(1, sizeof *r->meta);
    r->meta[r->n_meta++] = (struct result_meta){xstrdup("seq"), xasprintf("%d", 100 - seq)};
    r->hist_sub_buckets = HIST_SUB_BUCKETS;
    r->n_intervals = 10;
    r->intervals = xcalloc(10, sizeof *r->intervals);
    struct hist *all = hist_new();
    uint64_t total = 0;
    for (size_t i = 0; i < 10; i++) {
        struct result_interval *it = &r->intervals[i];
        struct hist *h = hist_new();
        uint64_t n = (uint64_t)(tps * (1 + 0.01 * (2 * rng_double(g) - 1)));
        for (uint64_t k = 0; k < n; k++) {
            int64_t v = (int64_t)(lat_us * (1 + 0.05 * (2 * rng_double(g) - 1)));
            hist_record(h, v);
            hist_record(all, v);
        }
        it->t_s = (double)i + 1;
        result_derive_interval(it, n, 0, 1, h);
        total += n;
        hist_free(h);
    }
    result_derive_summary(
        r, &(struct result_measured){.duration_s = 10, .transactions = total, .latency = all});
    hist_free(all);
}

/* 12 runs of one benchmark, the last 5 20 % slower; 3 of another (4 clients). */
struct fixture {
    struct result runs[15];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct rng g;
    rng_seed(&g, 9);
    for (int i = 0; i < 12; i++)
        make_run(&f->runs[i], "tpcb-like", 2, i < 7 ? 1000 : 800, i < 7 ? 2000 : 2500, i, &g);
    for (int i = 0; i < 3; i++)
        make_run(&f->runs[12 + i], "tpcb-like", 4, 1500, 2600, i, &g);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    for (int i = 0; i < 15; i++)
        result_free(&f->runs[i]);
    free(f);
    return 0;
}

static const struct history_metric *metric(const struct history_series *s, int m)
{
    for (size_t k = 0; k < s->n_metrics; k++)
        if (s->metrics[k].metric == m)
            return &s->metrics[k];
    fail_msg("metric %d missing", m);
    return NULL;
}

/* The fixture's runs with history's defaults. */
static void analyse_defaults(struct fixture *f, struct history_opts *o, struct history_out *out)
{
    struct err e = {0};
    history_opts_init(o);
    if (history_analyse(f->runs, 15, o, out, &e) != 0)
        fail_msg("analyse: %s", e.msg);
}

static void test_series_change_and_gate(void **state)
{
    struct fixture *f = *state;
    struct history_opts o;
    struct history_out out;
    struct err e = {0};
    analyse_defaults(f, &o, &out);
    assert_int_equal(out.n_series, 2); /* by clients */
    const struct history_series *s = &out.series[0];
    assert_non_null(strstr(s->key, "options.clients=2"));
    const struct history_metric *tps = metric(s, CMP_TPS), *p99 = metric(s, CMP_P99);
    assert_int_equal(tps->n_points, 12);
    assert_int_equal(tps->n_changes, 1);
    assert_int_equal(tps->changes[0].d.index, 7);
    assert_true(fabs(tps->changes[0].d.change_pct + 20) < 2);
    assert_int_equal(tps->changes[0].verdict, CMP_WORSE);
    assert_true(tps->regressed && !tps->accepted && tps->first == 7);
    assert_int_equal(p99->changes[p99->n_changes - 1].d.index, 7);
    assert_true(p99->regressed);
    /* every point has a CI around its figure */
    for (size_t i = 0; i < 12; i++)
        assert_true(tps->points[i].ci_low < tps->points[i].value &&
                    tps->points[i].value < tps->points[i].ci_high);
    /* the other series: 3 runs, too few for E-divisive; compare finds nothing worse */
    assert_int_equal(metric(&out.series[1], CMP_TPS)->n_changes, 0);
    assert_false(metric(&out.series[1], CMP_TPS)->regressed);
    assert_true(history_regressed(&out));
    history_out_free(&out);
    /* --accept of the first run of the slower segment: the gate passes */
    o.accepted = xcalloc(1, sizeof *o.accepted);
    o.accepted[o.n_accepted++] = xstrdup(f->runs[7].run_id);
    assert_int_equal(history_analyse(f->runs, 15, &o, &out, &e), 0);
    assert_true(metric(&out.series[0], CMP_TPS)->accepted);
    assert_false(history_regressed(&out));
    history_out_free(&out);
    history_opts_free(&o);
}

/* --where, --by, --order meta.KEY (numbers as numbers: seq runs 100 down to 89). */
static void test_where_by_order(void **state)
{
    struct fixture *f = *state;
    struct history_opts o;
    struct history_out out;
    struct err e = {0};
    history_opts_init(&o);
    assert_int_equal(history_add_filter(&o, "options.clients<3", &e), 0);
    assert_int_equal(history_add_filter(&o, "label!=odd", &e), 0);
    assert_int_equal(history_set_order(&o, "meta.seq", &e), 0);
    assert_int_equal(history_set_by(&o, "workload.name,meta.nosuch", &e), 0);
    assert_int_equal(history_analyse(f->runs, 15, &o, &out, &e), 0);
    assert_int_equal(out.n_series, 1);
    assert_string_equal(out.series[0].key, "workload.name=tpcb-like, meta.nosuch=(absent)");
    const struct history_metric *tps = metric(&out.series[0], CMP_TPS);
    assert_int_equal(tps->n_points, 6); /* the even runs of 2 clients */
    assert_int_equal(out.n_filtered, 9);
    assert_string_equal(tps->points[0].order, "90");  /* run 10 first */
    assert_string_equal(tps->points[5].order, "100"); /* run 0 last */
    history_out_free(&out);
    history_opts_free(&o);
    /* refused */
    history_opts_init(&o);
    assert_int_equal(history_add_filter(&o, "nosuch=1", &e), -1);
    assert_non_null(strstr(e.msg, "not a field"));
    assert_int_equal(history_add_filter(&o, "label", &e), -1);
    assert_int_equal(history_add_filter(&o, "=x", &e), -1);
    assert_int_equal(history_set_by(&o, "options.seed", &e), -1);
    assert_int_equal(history_set_metrics(&o, "tps,latency_p42", &e), -1);
    assert_int_equal(history_set_order(&o, "label", &e), -1);
    assert_int_equal(history_set_metrics(&o, "failure_rate", &e), 0);
    history_opts_free(&o);
}

/* Duet halves (sweep --duet) are not solo runs: left out of every series, and counted. */
static void test_duet_halves_left_out(void **state)
{
    struct fixture *f = *state;
    struct history_opts o;
    struct history_out out;
    for (int i = 12; i < 15; i++) /* the 4-client runs become halves */
        f->runs[i].has_duet = 1;
    analyse_defaults(f, &o, &out);
    assert_int_equal(out.n_duet, 3);
    assert_int_equal(out.n_series, 1);
    assert_non_null(strstr(out.series[0].key, "options.clients=2"));
    assert_int_equal(metric(&out.series[0], CMP_TPS)->n_points, 12);
    history_out_free(&out);
    history_opts_free(&o);
}

/* Fewer than 5 earlier runs: compare of the newest against them decides. */
static void test_gate_by_compare(void **state)
{
    (void)state;
    struct result runs[4];
    struct rng g;
    rng_seed(&g, 3);
    for (int i = 0; i < 4; i++)
        make_run(&runs[i], "select-only", 1, i < 3 ? 1000 : 600, 1000, i, &g);
    struct history_opts o;
    struct history_out out;
    struct err e = {0};
    history_opts_init(&o);
    assert_int_equal(history_analyse(runs, 4, &o, &out, &e), 0);
    const struct history_metric *tps = metric(&out.series[0], CMP_TPS);
    assert_true(tps->regressed && tps->by_compare);
    assert_int_equal(tps->first, 3);
    assert_true(tps->change_pct < -30);
    history_out_free(&out);
    history_opts_free(&o);
    for (int i = 0; i < 4; i++)
        result_free(&runs[i]);
}

/* report --history: self-contained, a chart per series and metric, the change linked. */
static void test_report(void **state)
{
    struct fixture *f = *state;
    struct history_opts o;
    struct history_out out;
    struct err e = {0};
    analyse_defaults(f, &o, &out);
    char path[] = "/tmp/pgarena-history-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    if (report_history_html_write(f->runs, &out, NULL, path, &e) != 0)
        fail_msg("report: %s", e.msg);
    FILE *fp = fopen(path, "r");
    struct buf b;
    buf_init(&b);
    assert_int_equal(buf_read_all(&b, fp), 0);
    fclose(fp);
    unlink(path);
    size_t svgs = 0;
    for (const char *p = b.data; (p = strstr(p, "<svg")); p++)
        svgs++;
    assert_int_equal(svgs, 4); /* 2 series x tps, latency_p99 */
    assert_non_null(strstr(b.data, "<a href=\"#h0-0-c0\">"));
    assert_non_null(strstr(b.data, "<tr id=\"h0-0-c0\"><th>7</th>"));
    assert_non_null(strstr(b.data, "worse"));
    assert_null(strstr(b.data, "http://"));
    assert_null(strstr(b.data, "https://"));
    assert_null(strstr(b.data, "<script"));
    buf_free(&b);
    history_out_free(&out);
    history_opts_free(&o);
}

/* Replays: no scripts, so the default grouping adds their capture and speed; the key of a run
 * that is not a replay does not name them. */
static void test_replays_grouped_by_capture_and_speed(void **state)
{
    (void)state;
    struct result runs[7];
    struct rng g;
    rng_seed(&g, 3);
    for (int i = 0; i < 6; i++) {
        make_run(&runs[i], "replay", 0, 1000, 2000, i, &g);
        replay_fixture(&runs[i])->capture = xstrdup(i < 4 ? "app.pgc" : "other.pgc");
        replay_fixture(&runs[i])->speed = i < 2 ? 1 : i < 4 ? 0 : 1; /* 0: max */
    }
    make_run(&runs[6], "tpcb-like", 2, 1000, 2000, 6, &g);
    struct history_opts o;
    struct history_out out;
    struct err e = {0};
    history_opts_init(&o);
    assert_int_equal(history_analyse(runs, 7, &o, &out, &e), 0);
    assert_int_equal(out.n_series, 4);
    int at_max = 0, plain = 0;
    for (size_t i = 0; i < out.n_series; i++) {
        const struct history_series *s = &out.series[i];
        if (strstr(s->key, "replay.capture=app.pgc, replay.speed=max")) {
            at_max = 1;
            assert_int_equal(metric(s, CMP_TPS)->n_points, 2);
            assert_string_equal(s->fields[s->n_fields - 1], "replay.speed");
        }
        if (strstr(s->key, "workload.name=tpcb-like")) {
            plain = 1;
            assert_null(strstr(s->key, "replay."));
            for (size_t f = 0; f < s->n_fields; f++)
                assert_null(strstr(s->fields[f], "replay."));
        }
    }
    assert_true(at_max && plain);
    history_out_free(&out);
    history_opts_free(&o);
    for (int i = 0; i < 7; i++)
        result_free(&runs[i]);
}

/* The machine line of two segments: the stalled share when it moved by 5 points or more, the
 * kernel and CPU model when their values differ; NULL when neither. */
static void test_machine_line(void **state)
{
    (void)state;
    struct result r[4];
    memset(r, 0, sizeof r);
    const size_t idx[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; i++) {
        r[i].client_health = (struct result_client_health){.present = 1, .intervals = 10};
        r[i].client.kernel = "6.1.0";
        r[i].client.cpu_model = "Xeon";
    }
    assert_null(history_machine_line(r, idx, 2, 4));
    r[3].client_health.intervals_stalled = 1; /* 5 % of the second segment: 5 points */
    char *line = history_machine_line(r, idx, 2, 4);
    assert_string_equal(line,
                        "the machine changed too: client stalled in 0.0 % of intervals -> 5.0 %");
    free(line);
    r[3].client_health.intervals_stalled = 0;
    r[2].client_health.intervals_stalled = 0;
    r[0].client_health.intervals_stalled = 0;
    r[1].client_health.intervals_stalled = 0;
    r[2].client.kernel = "6.8.0";
    r[3].client.cpu_model = NULL;
    line = history_machine_line(r, idx, 2, 4);
    assert_string_equal(line, "the machine changed too: kernel 6.1.0 -> 6.8.0, 6.1.0; cpu Xeon -> "
                              "Xeon, ?");
    free(line);
    /* Runs without client_health: no health figures to differ by. */
    r[2].client.kernel = "6.1.0";
    r[3].client.cpu_model = "Xeon";
    r[2].client_health.present = r[3].client_health.present = 0;
    r[3].client_health.intervals_stalled = 10;
    assert_null(history_machine_line(r, idx, 2, 4));
}

int main(void)
{
    workload_parts_register(); /* replay {}: read, merged, its fields */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_series_change_and_gate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_where_by_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_duet_halves_left_out, setup, teardown),
        cmocka_unit_test(test_gate_by_compare),
        cmocka_unit_test_setup_teardown(test_report, setup, teardown),
        cmocka_unit_test(test_replays_grouped_by_capture_and_speed),
        cmocka_unit_test(test_machine_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
