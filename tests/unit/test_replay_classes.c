#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "result/result.h"
#include "stats/hist.h"
#include "workload/replay/replay_classes.h"
#include "workload/replay/replay_int.h"

static void record(struct class_table *t, const char *text, int ok, int64_t us)
{
    class_table_record(t, text, strlen(text), ok, us);
}

static void free_top(struct result_script_figures *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].name);
        hist_sparse_free(&f[i].histogram);
    }
    free(f);
}

/* The top classes come by total time, failures counted but not timed; beyond the table's
 * room and beyond the top n, statements go into "other". */
static void test_top_and_other(void **state)
{
    (void)state;
    struct class_table *t = class_table_new(3);
    for (int i = 0; i < 10; i++)
        record(t, "SELECT $1", 1, 100); /* 1 ms in all */
    record(t, "UPDATE t SET v = $1", 1, 5000);
    record(t, "UPDATE t SET v = $1", 0, 0);
    record(t, "BEGIN", 1, 10);
    record(t, "DELETE FROM t", 1, 999999); /* no room left: "other" */
    struct result_script_figures *top;
    size_t n = class_table_top(t, 2, 10.0, &top);
    assert_int_equal(n, 3);
    assert_string_equal(top[0].name, "UPDATE t SET v = $1");
    assert_int_equal(top[0].transactions, 2);
    assert_int_equal(top[0].failed, 1);
    assert_int_equal(top[0].histogram.count, 1);
    assert_string_equal(top[1].name, "SELECT $1");
    assert_int_equal(top[1].transactions, 10);
    assert_true(top[1].latency_us.p50 >= 99 && top[1].latency_us.p50 <= 101);
    assert_true(top[1].tps > 0.99 && top[1].tps < 1.01);
    assert_string_equal(top[2].name, CLASS_OTHER); /* BEGIN (past the top 2) and DELETE */
    assert_int_equal(top[2].transactions, 2);
    assert_int_equal(top[2].histogram.count, 2);
    free_top(top, n);
    class_table_free(t);
}

/* Merging adds classes by text, whatever their order in each table. */
static void test_merge(void **state)
{
    (void)state;
    struct class_table *a = class_table_new(10), *b = class_table_new(10);
    record(a, "X", 1, 10);
    record(a, "Y", 1, 20);
    record(b, "Y", 1, 30);
    record(b, "Z", 0, 0);
    class_table_merge(a, b);
    struct result_script_figures *top;
    size_t n = class_table_top(a, 10, 1.0, &top);
    assert_int_equal(n, 3);
    assert_string_equal(top[0].name, "Y");
    assert_int_equal(top[0].transactions, 2);
    assert_int_equal(top[0].histogram.count, 2);
    assert_string_equal(top[2].name, "Z"); /* no time: last */
    assert_int_equal(top[2].failed, 1);
    free_top(top, n);
    class_table_free(a);
    class_table_free(b);
}

/* A worker hands its figures over and starts again from zero (its class entries kept):
 * handing over in pieces adds up to handing over once, and an emptied class is no class. */
static void test_hand_over_in_pieces(void **state)
{
    (void)state;
    struct replay_figures run, w;
    replay_figures_init(&run);
    replay_figures_init(&w);
    record(w.classes, "X", 1, 10);
    record(w.classes, "Y", 0, 0);
    w.sent = 2;
    w.failed_now = 1;
    replay_figures_reason(&w, "failed now with 42P01", 1);
    hist_record(w.lag, 50);
    replay_figures_merge(&run, &w);
    replay_figures_reset(&w);
    assert_int_equal(w.sent, 0);
    assert_int_equal(w.n_reasons, 0);
    assert_int_equal(hist_count(w.lag), 0);
    record(w.classes, "X", 1, 30);
    w.sent = 1;
    hist_record(w.lag, 70);
    replay_figures_merge(&run, &w); /* Y is empty in w now: not counted twice, nor made 0 */
    assert_int_equal(run.sent, 3);
    assert_int_equal(run.failed_now, 1);
    assert_int_equal(run.n_reasons, 1);
    assert_int_equal(run.reasons[0].count, 1);
    assert_int_equal(hist_count(run.lag), 2);
    struct result_script_figures *top;
    size_t n = class_table_top(run.classes, 10, 1.0, &top);
    assert_int_equal(n, 2);
    assert_string_equal(top[0].name, "X");
    assert_int_equal(top[0].transactions, 2);
    assert_int_equal(top[0].histogram.count, 2);
    assert_string_equal(top[1].name, "Y");
    assert_int_equal(top[1].transactions, 1);
    free_top(top, n);
    replay_figures_reset(&w);
    n = class_table_top(w.classes, 10, 1.0, &top); /* nothing since: no class */
    assert_int_equal(n, 0);
    free_top(top, n);
    replay_figures_free(&w);
    replay_figures_free(&run);
}

/* Transactions of a capture are told by their boundaries; COPY with data on the wire is
 * skipped. */
static void test_boundaries_and_copy(void **state)
{
    (void)state;
    assert_int_equal(replay_tx_boundary("BEGIN"), 1);
    assert_int_equal(replay_tx_boundary("  start transaction isolation level serializable"), 1);
    assert_int_equal(replay_tx_boundary("COMMIT;"), -1);
    assert_int_equal(replay_tx_boundary("end"), -1);
    assert_int_equal(replay_tx_boundary("ROLLBACK"), -1);
    assert_int_equal(replay_tx_boundary("rollback to savepoint a"), 0);
    assert_int_equal(replay_tx_boundary("SELECT 1"), 0);
    assert_int_equal(replay_tx_boundary("beginning"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_top_and_other),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_hand_over_in_pieces),
        cmocka_unit_test(test_boundaries_and_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
