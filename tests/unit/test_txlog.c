/* run -l: pgbench 15's per-transaction and aggregate log lines, and the aggregation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/txlog.h"

static const struct txlog_opts plain = {.max_tries = 1};

static void test_transaction_lines(void **state)
{
    (void)state;
    char line[256];
    struct txlog_tx t = {.client = 3,
                         .number = 17,
                         .script = 1,
                         .end_epoch_us = 1796051906893203LL,
                         .latency_us = 39146,
                         .lag_us = 72,
                         .tries = 2,
                         .status = TXLOG_OK};
    txlog_format_tx(line, sizeof line, &plain, &t);
    assert_string_equal(line, "3 17 39146 1 1796051906 893203\n");
    struct txlog_opts rate = {.rate = 1, .max_tries = 3};
    txlog_format_tx(line, sizeof line, &rate, &t);
    assert_string_equal(line, "3 17 39146 1 1796051906 893203 72 1\n");
    t.status = TXLOG_SKIPPED;
    txlog_format_tx(line, sizeof line, &rate, &t);
    assert_string_equal(line, "3 17 skipped 1 1796051906 893203 0 1\n");
    t.status = TXLOG_SERIALIZATION;
    txlog_format_tx(line, sizeof line, &plain, &t);
    assert_string_equal(line, "3 17 failed 1 1796051906 893203\n");
    struct txlog_opts detailed = {.max_tries = 1, .failures_detailed = 1};
    txlog_format_tx(line, sizeof line, &detailed, &t);
    assert_string_equal(line, "3 17 serialization 1 1796051906 893203\n");
    t.status = TXLOG_DEADLOCK;
    txlog_format_tx(line, sizeof line, &detailed, &t);
    assert_string_equal(line, "3 17 deadlock 1 1796051906 893203\n");
    t.status = TXLOG_FAILED;
    txlog_format_tx(line, sizeof line, &detailed, &t);
    assert_string_equal(line, "3 17 failed 1 1796051906 893203\n");
}

/* accumStats' rules: successes give latency (and lag with -R); retries count for all; skipped
 * only counts; the optional fields print 0 unless their option is on. */
static void test_aggregate(void **state)
{
    (void)state;
    struct txlog_opts all = {.rate = 1, .latency_limit = 1, .max_tries = 3, .failures_detailed = 1};
    struct txlog_agg a = {.start_epoch_us = 1796051910123456LL};
    struct txlog_tx t = {.latency_us = 100, .lag_us = 5, .tries = 1, .status = TXLOG_OK};
    txlog_agg_add(&a, &all, &t);
    t.latency_us = 300;
    t.lag_us = 1;
    t.tries = 3;
    txlog_agg_add(&a, &all, &t);
    t.status = TXLOG_SERIALIZATION;
    t.tries = 2;
    txlog_agg_add(&a, &all, &t);
    t.status = TXLOG_DEADLOCK;
    t.tries = 1;
    txlog_agg_add(&a, &all, &t);
    t.status = TXLOG_SKIPPED;
    txlog_agg_add(&a, &all, &t);
    t.status = TXLOG_FAILED;
    txlog_agg_add(&a, &all, &t);
    char line[256];
    txlog_format_agg(line, sizeof line, &all, &a);
    assert_string_equal(line, "1796051910 2 400 100000 100 300 6 26 1 5 1 2 3 1 1\n");
    txlog_format_agg(line, sizeof line, &plain, &a);
    assert_string_equal(line, "1796051910 2 400 100000 100 300 0 0 0 0 0 0 0 0 0\n");
    struct txlog_agg empty = {.start_epoch_us = 1796051911000000LL};
    txlog_format_agg(line, sizeof line, &all, &empty);
    assert_string_equal(line, "1796051911 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
}

/* Intervals are written once they end, empty ones too; the last, partial one is not. */
static void test_file_intervals(void **state)
{
    (void)state;
    char path[] = "/tmp/pgarena-txlog-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct txlog_opts o = {.aggregate_s = 1, .max_tries = 1};
    struct txlog *l = txlog_open(path, &o, 1, NULL);
    assert_non_null(l);
    int64_t t0 = 1796051910000000LL;
    txlog_start(l, t0);
    int64_t ends[] = {t0 + 100, t0 + 900000, t0 + 2500000, t0 + 3100000};
    for (int i = 0; i < 4; i++) {
        struct txlog_tx t = {.end_epoch_us = ends[i], .latency_us = 10, .tries = 1};
        txlog_record(l, &t);
    }
    assert_int_equal(txlog_close(l, t0 + 3500000, NULL), 0);
    FILE *f = fopen(path, "r");
    char text[1024] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(path);
    assert_string_equal(text, "1796051910 2 20 200 10 10 0 0 0 0 0 0 0 0 0\n"
                              "1796051911 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                              "1796051912 1 10 100 10 10 0 0 0 0 0 0 0 0 0\n");
}

static void test_open_fails(void **state)
{
    (void)state;
    struct err e = {0};
    assert_null(txlog_open("/nonexistent-dir/log", &plain, 1, &e));
    assert_int_equal(e.code, ERR_INPUT);
    assert_non_null(strstr(e.msg, "/nonexistent-dir/log"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transaction_lines),
        cmocka_unit_test(test_aggregate),
        cmocka_unit_test(test_file_intervals),
        cmocka_unit_test(test_open_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
