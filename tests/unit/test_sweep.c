/* The sweep's pure parts: axis lists, the objective, cell file names, points. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sweep/sweep.h"
#include "compare/sweep_figs.h"
#include "result/result.h"
#include "stats/hist.h"

static void assert_list(const char *text, int integral, const double *want, size_t n_want)
{
    double *v;
    size_t n;
    struct err e = {0};
    assert_int_equal(sweep_parse_list("-c", text, integral, 1, 1e6, &v, &n, &e), 0);
    assert_int_equal(n, n_want);
    for (size_t i = 0; i < n; i++)
        assert_true(v[i] == want[i]);
    free(v);
}

static void assert_bad_list(const char *text)
{
    double *v = NULL;
    size_t n = 0;
    struct err e = {0};
    assert_int_equal(sweep_parse_list("-c", text, 1, 1, 1e6, &v, &n, &e), -1);
    assert_int_equal(e.code, ERR_INPUT);
    assert_null(v);
    assert_non_null(strstr(e.msg, "-c"));
}

static void test_lists(void **state)
{
    (void)state;
    assert_list("1,2,4,8", 1, (double[]){1, 2, 4, 8}, 4);
    assert_list("8,1", 1, (double[]){8, 1}, 2);
    assert_list("5", 1, (double[]){5}, 1);
    assert_list("1..64x2", 1, (double[]){1, 2, 4, 8, 16, 32, 64}, 7);
    assert_list("1..50x2", 1, (double[]){1, 2, 4, 8, 16, 32}, 6);
    /* Integral steps round, and a repeat after rounding is dropped. */
    assert_list("1..4x1.5", 1, (double[]){1, 2, 3}, 3);
    assert_list("100..400x1.5", 0, (double[]){100, 150, 225, 337.5}, 4);
    assert_list("2.5,7.5", 0, (double[]){2.5, 7.5}, 2);
    const char *bad[] = {"",      ",",      "1,",     ",1",      "1,,2",  "a",        "1,a",
                         "0",     "1.5",    "1,1",    "64..1x2", "1..64", "1..64x1",  "1..64x0.5",
                         "1..x2", "..64x2", "1..64x", " 1",      "1e9",   "1..64x2,3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_bad_list(bad[i]);
}

static void test_slo(void **state)
{
    (void)state;
    struct sweep_slo s;
    struct err e = {0};
    assert_int_equal(sweep_parse_slo("p99<=5ms", &s, &e), 0);
    assert_true(s.q == 0.99 && s.limit_us == 5000);
    assert_int_equal(sweep_parse_slo("p99.9<=250us", &s, &e), 0);
    assert_true(s.q == 0.999 && s.limit_us == 250);
    assert_int_equal(sweep_parse_slo("p50<=1.5ms", &s, &e), 0);
    assert_true(s.q == 0.5 && s.limit_us == 1500);
    assert_int_equal(sweep_parse_slo("max<=2s", &s, &e), 0);
    assert_true(s.q == 1 && s.limit_us == 2e6);
    assert_int_equal(sweep_parse_slo("p95<=10ms", &s, &e), 0);
    assert_true(s.q == 0.95);
    const char *bad[] = {"",       "p99",       "p99<5ms",   "p98<=5ms", "p99<=ms",
                         "p99<=5", "p99<=-1ms", "p99<=5min", "<=5ms",    "p99<=5 ms"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&e, 0, sizeof e);
        assert_int_equal(sweep_parse_slo(bad[i], &s, &e), -1);
        assert_int_equal(e.code, ERR_INPUT);
    }
}

static void test_cell_files_and_points(void **state)
{
    (void)state;
    struct sweep_setup setups[2] = {{"pg 16/a", ""}, {"B", ""}};
    struct sweep_doc d = {.n_setups = 2, .setups = setups};
    struct sweep_setting set[1] = {{"synchronous_commit", "off"}};
    struct sweep_cell a = {.setup = 0,
                           .clients = 8,
                           .rate = 250.5,
                           .scale = 10,
                           .n_settings = 1,
                           .settings = set,
                           .trial = 2};
    char *f = sweep_cell_file(&d, &a);
    assert_string_equal(f, "pg_16_a-c8-R250.5-s10-synchronous_commit=off-t2.json");
    free(f);
    struct sweep_cell b = a;
    b.setup = 1;
    b.trial = 1;
    assert_true(sweep_same_point(&a, &b));
    struct sweep_setting other[1] = {{"synchronous_commit", "on"}};
    b.settings = other;
    assert_false(sweep_same_point(&a, &b));
    b.settings = set;
    b.rate = 0;
    assert_false(sweep_same_point(&a, &b));
}

/* A replay sweep's speeds (the axis the workload declares): numbers and max, a geometric
 * range, each value as the option's argument; the cells' names, points and plan order (speed
 * outside clients, none of the latter). */
static void test_speeds(void **state)
{
    (void)state;
    double *v;
    size_t n;
    struct err e = {0};
    const struct workload_sweep_axis *a = workload_find("replay")->sweep_axis;
    assert_non_null(a);
    assert_string_equal(a->name, "speed");
    char arg[32];
    assert_string_equal(sweep_axis_arg(a, SWEEP_SPEED_MAX, arg, sizeof arg), "max");
    assert_string_equal(sweep_axis_arg(a, 0.1, arg, sizeof arg), "0.10000000000000001");
    assert_int_equal(sweep_parse_axis(a, "1,2,max", &v, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_true(v[0] == 1 && v[1] == 2 && v[2] == SWEEP_SPEED_MAX);
    free(v);
    assert_int_equal(sweep_parse_axis(a, "0.5..4x2", &v, &n, &e), 0);
    assert_int_equal(n, 4);
    assert_true(v[0] == 0.5 && v[3] == 4);
    free(v);
    const char *bad[] = {"", "0", "1,1", "max,max", "1,", "maxx", "1..max", "-1", "2..1x2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v = NULL;
        memset(&e, 0, sizeof e);
        assert_int_equal(sweep_parse_axis(a, bad[i], &v, &n, &e), -1);
        assert_int_equal(e.code, ERR_INPUT);
        assert_non_null(strstr(e.msg, "--speed"));
        assert_null(v);
    }
    struct sweep_setup setups[2] = {{"A", ""}, {"B", ""}};
    double speeds[2] = {2, SWEEP_SPEED_MAX};
    struct sweep_doc d = {
        .n_setups = 2, .setups = setups, .trials = 1, .n_speeds = 2, .speeds = speeds};
    sweep_plan_cells(&d);
    assert_int_equal(d.n_cells, 4);
    assert_string_equal(d.cells[0].file, "A-speed2-t1.json");
    assert_string_equal(d.cells[1].file, "B-speed2-t1.json");
    assert_string_equal(d.cells[3].file, "B-speedmax-t1.json");
    assert_true(d.cells[3].speed == SWEEP_SPEED_MAX && d.cells[3].clients == 0);
    assert_true(sweep_same_point(&d.cells[0], &d.cells[1]));
    assert_false(sweep_same_point(&d.cells[1], &d.cells[3]));
    char buf[32];
    assert_string_equal(sweep_axis_value(buf, sizeof buf, &d, &d.cells[3], "speed"), "max");
    assert_string_equal(sweep_axis_value(buf, sizeof buf, &d, &d.cells[0], "speed"), "2");
    assert_string_equal(sweep_compare_axis(&d), "setup");
    d.n_setups = 1;
    assert_string_equal(sweep_compare_axis(&d), "speed");
    assert_int_equal(sweep_compare_check(&d, "speed", &e), 0);
    for (size_t i = 0; i < d.n_cells; i++) {
        free(d.cells[i].file);
        free(d.cells[i].settings);
    }
    free(d.cells);
}

/* A result of 1-s intervals of 100 transactions each, all at latency lat_us[i]. */
static void steady_result(struct result *r, const int64_t *lat_us, size_t n)
{
    memset(r, 0, sizeof *r);
    r->intervals = calloc(n, sizeof *r->intervals);
    r->n_intervals = n;
    for (size_t i = 0; i < n; i++) {
        struct result_interval *it = &r->intervals[i];
        it->t_s = (double)(i + 1);
        it->duration_s = 1;
        it->transactions = 100;
        it->tps = 100;
        struct hist *h = hist_new();
        hist_record_n(h, lat_us[i], 100);
        hist_to_sparse(h, &it->histogram);
        hist_free(h);
    }
}

static void free_steady_result(struct result *r)
{
    for (size_t i = 0; i < r->n_intervals; i++)
        hist_sparse_free(&r->intervals[i].histogram);
    free(r->intervals);
}

/* Growth of the median counts only when latency climbs through the steady part: a queue that
 * fluctuates (high in the middle) is no growth, whatever its last third over its first. */
static void test_steady_growth(void **state)
{
    (void)state;
    const int64_t climbing[] = {100, 100, 100, 200, 200, 400, 400};
    const int64_t bump[] = {100, 100, 100, 900, 900, 300, 300};
    struct result r;
    struct cmp_steady st;
    steady_result(&r, climbing, 7);
    assert_int_equal(cmp_steady_figures(&r, 0.99, &st), 0);
    assert_true(st.p50_growth > 3.5 && st.p50_growth < 4.5);
    assert_true(st.tps > 99 && st.tps < 101);
    free_steady_result(&r);
    steady_result(&r, bump, 7);
    assert_int_equal(cmp_steady_figures(&r, 0.99, &st), 0);
    assert_true(st.p50_growth == 1);
    free_steady_result(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_slo),
        cmocka_unit_test(test_cell_files_and_points),
        cmocka_unit_test(test_speeds),
        cmocka_unit_test(test_steady_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
