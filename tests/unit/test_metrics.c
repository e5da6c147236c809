#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics/metrics_int.h"

/* --metrics-listen's pure parts: the listen address, the histogram buckets against the HDR
 * histogram's bins, the wait classes, and the text in both formats (the server itself is
 * tested against a real Prometheus in tests/integration/test_metrics.sh). */

static void test_parse_listen(void **state)
{
    (void)state;
    char host[64];
    int port = 0;
    struct err e = {0};
    assert_int_equal(metrics_parse_listen("9187", host, sizeof host, &port, &e), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 9187);
    assert_int_equal(metrics_parse_listen("0.0.0.0:80", host, sizeof host, &port, &e), 0);
    assert_string_equal(host, "0.0.0.0");
    assert_int_equal(port, 80);
    assert_int_equal(metrics_parse_listen("[::1]:65535", host, sizeof host, &port, &e), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(port, 65535);
    assert_int_equal(metrics_parse_listen("localhost:1", host, sizeof host, &port, &e), 0);
    assert_string_equal(host, "localhost");
    const char *bad[] = {
        "0", "65536", ":9187", "x", "1.2.3.4:", "[::1]9000", "9187 ", "-1", "[]:80", "a:+80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e = (struct err){0};
        assert_int_equal(metrics_parse_listen(bad[i], host, sizeof host, &port, &e), -1);
        assert_int_equal(e.code, ERR_INPUT);
        assert_non_null(strstr(e.msg, "is not [ADDR:]PORT"));
    }
}

/* Every bound is the lowest value of an HDR bin: a bucket holds exactly the values below it. */
static void test_bounds_are_bin_edges(void **state)
{
    (void)state;
    int64_t prev = 0;
    for (int i = 0; i < METRICS_N_BOUNDS; i++) {
        int64_t b = metrics_bound_us(i);
        assert_true(b > prev);
        prev = b;
        struct hist *h = hist_new();
        hist_record(h, b);
        hist_record(h, b - 1);
        struct hist_sparse s;
        hist_to_sparse(h, &s);
        assert_int_equal(s.n_bins, 2);
        assert_int_equal(s.bins[1].value_us, b);
        hist_sparse_free(&s);
        hist_free(h);
    }
    assert_int_equal(metrics_bound_us(0), 32);
    assert_int_equal(metrics_bound_us(1), 48);
    assert_int_equal(metrics_bound_us(METRICS_N_BOUNDS - 1), (int64_t)1 << 25);
}

static void test_hist_buckets(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    int64_t values[] = {0, 31, 32, 47, 48, 1000, 40000000};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        hist_record(h, values[i]);
    struct metrics_hist m;
    metrics_hist_set(&m, h);
    assert_int_equal(m.count, 7);
    assert_int_equal(m.bucket[0], 2);                /* 0, 31 */
    assert_int_equal(m.bucket[1], 2);                /* 32, 47 */
    assert_int_equal(m.bucket[2], 1);                /* 48 */
    assert_int_equal(m.bucket[METRICS_N_BOUNDS], 1); /* 40 s: above every bound */
    uint64_t sum = 0;
    for (int i = 0; i <= METRICS_N_BOUNDS; i++)
        sum += m.bucket[i];
    assert_int_equal(sum, 7);
    assert_true(m.sum_s > 40.0011 && m.sum_s < 40.0012);
    /* adding a sparse histogram adds to what is there */
    struct hist_sparse s;
    hist_to_sparse(h, &s);
    metrics_hist_add_sparse(&m, &s);
    assert_int_equal(m.count, 14);
    assert_int_equal(m.bucket[0], 4);
    hist_sparse_free(&s);
    hist_free(h);
}

static void test_wait_class(void **state)
{
    (void)state;
    assert_int_equal(metrics_wait_class("CPU"), METRICS_WAIT_CPU);
    assert_int_equal(metrics_wait_class("LWLock:WALWrite"), METRICS_WAIT_LWLOCK);
    assert_int_equal(metrics_wait_class("Lock:transactionid"), METRICS_WAIT_LOCK);
    assert_int_equal(metrics_wait_class("IO:DataFileRead"), METRICS_WAIT_IO);
    assert_int_equal(metrics_wait_class("Client:ClientRead"), METRICS_WAIT_CLIENT);
    assert_int_equal(metrics_wait_class("Locks:x"), -1);
    assert_int_equal(metrics_wait_class(""), -1);
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++)
        n++;
    return n;
}

static void test_render(void **state)
{
    (void)state;
    struct metrics m;
    memset(&m, 0, sizeof m);
    metrics_registry_init(&m);
    assert_int_equal(evwake_open(&m.wake), 0);
    static const char *const kinds[] = {"serialization", "other"};
    static const char *const scripts[] = {"builtin: tpcb-like", "my \"x\".sql"};
    struct metrics_run *r =
        metrics_run_add(&m, "id-1", "a \"b\"\\\n", "tpcb-like", kinds, 2, scripts, 2);
    metrics_run_add(&m, "id-2", NULL, "custom", kinds, 2, NULL, 0);
    struct metrics_figures f = {.phase = METRICS_MEASURING, .transactions = 42};
    f.failures[1] = 3;
    f.script_tx[1] = 40;
    f.latency.bucket[1] = 5;
    f.latency.bucket[3] = 2;
    f.latency.count = 7;
    f.latency.sum_s = 0.5;
    metrics_run_publish(r, &f);
    size_t len;
    char *om = metrics_render(&m, 1, &len);
    assert_int_equal(strlen(om), len);
    assert_true(len > 6 && strcmp(om + len - 6, "# EOF\n") == 0);
    assert_non_null(strstr(om, "# TYPE pgarena_transactions counter\n"));
    assert_non_null(
        strstr(om, "pgarena_transactions_total{run_id=\"id-1\",label=\"a \\\"b\\\"\\\\\\n\","
                   "workload=\"tpcb-like\"} 42\n"));
    assert_non_null(
        strstr(om, "pgarena_transactions_total{run_id=\"id-2\",workload=\"custom\"} 0\n"));
    assert_non_null(strstr(om, "kind=\"other\"} 3\n"));
    assert_non_null(strstr(om, "script=\"builtin: tpcb-like\"} 0\n"));
    assert_non_null(strstr(om, "script=\"my \\\"x\\\".sql\"} 40\n"));
    assert_int_equal(count_of(om, "pgarena_script_transactions_total{"), 2);
    assert_non_null(strstr(om, "phase=\"measuring\"} 1\n"));
    assert_non_null(strstr(om, "phase=\"starting\"} 0\n"));
    /* cumulative buckets: le 32 us holds 0, le 48 us 5, ..., +Inf the count */
    assert_non_null(strstr(om, "workload=\"tpcb-like\",le=\"0.000032\"} 0\n"));
    assert_non_null(strstr(om, "workload=\"tpcb-like\",le=\"0.000048\"} 5\n"));
    assert_non_null(strstr(om, "workload=\"tpcb-like\",le=\"0.000064\"} 5\n"));
    assert_non_null(strstr(om, "workload=\"tpcb-like\",le=\"0.000096\"} 7\n"));
    assert_non_null(strstr(om, "workload=\"tpcb-like\",le=\"33.554432\"} 7\n"));
    assert_non_null(strstr(om, "workload=\"tpcb-like\",le=\"+Inf\"} 7\n"));
    assert_non_null(strstr(om, "pgarena_latency_seconds_sum{run_id=\"id-1\""));
    /* every series of both runs: 2 kinds, 4 phases, 11 wait classes each */
    assert_int_equal(count_of(om, "pgarena_failures_total{"), 4);
    assert_int_equal(count_of(om, "pgarena_phase{"), 8);
    assert_int_equal(count_of(om, "pgarena_server_wait_samples_total{"), 2 * METRICS_N_WAITS);
    assert_int_equal(count_of(om, "pgarena_latency_seconds_bucket{"), 2 * (METRICS_N_BOUNDS + 1));
    char *text = metrics_render(&m, 0, &len);
    assert_null(strstr(text, "# EOF"));
    assert_non_null(strstr(text, "# TYPE pgarena_transactions_total counter\n"));
    assert_non_null(strstr(text, "# TYPE pgarena_latency_seconds histogram\n"));
    /* the same samples, only the metadata differs */
    assert_int_equal(count_of(text, "\npgarena_"), count_of(om, "\npgarena_"));
    free(om);
    free(text);
    evwake_close(&m.wake);
    metrics_registry_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_listen), cmocka_unit_test(test_bounds_are_bin_edges),
        cmocka_unit_test(test_hist_buckets), cmocka_unit_test(test_wait_class),
        cmocka_unit_test(test_render),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
