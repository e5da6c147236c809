/* -b NAME as pgbench reads it (workload_by_prefix): pgbench's own three built-ins first, so
 * `-b t`, `-b si` and `-b se` (PostgreSQL's pgbench TAP suite uses them) mean what they mean to
 * pgbench although tpcc and the sysbench workloads are built-ins too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "workload/workload.h"

/* The name that `prefix` resolves to, or "ambiguous" / "unknown". */
static const char *resolve(const char *prefix)
{
    int n;
    const struct workload *w = workload_by_prefix(prefix, &n);
    if (w) {
        assert_int_equal(n, 1);
        return w->name;
    }
    return n > 1 ? "ambiguous" : (assert_int_equal(n, 0), "unknown");
}

static void test_pgbench_prefixes(void **state)
{
    (void)state;
    assert_string_equal(resolve("t"), "tpcb-like"); /* not tpcc */
    assert_string_equal(resolve("tp"), "tpcb-like");
    assert_string_equal(resolve("tpc"), "tpcb-like");
    assert_string_equal(resolve("si"), "simple-update");
    assert_string_equal(resolve("se"), "select-only");
    assert_string_equal(resolve("select"), "select-only");
    assert_string_equal(resolve("s"), "ambiguous"); /* simple-update, select-only */
}

static void test_others(void **state)
{
    (void)state;
    /* The whole name always wins; the rest by a unique prefix among all. */
    assert_string_equal(resolve("tpcc"), "tpcc");
    assert_string_equal(resolve("tpcb-like"), "tpcb-like");
    assert_string_equal(resolve("oltp-read-o"), "oltp-read-only");
    assert_string_equal(resolve("oltp-p"), "oltp-point-select");
    assert_string_equal(resolve("o"), "ambiguous");
    assert_string_equal(resolve("oltp-read"), "ambiguous");
    assert_string_equal(resolve("x"), "unknown");
    assert_string_equal(resolve(""), "unknown");
    assert_string_equal(resolve("tpcb-like-and-more"), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgbench_prefixes),
        cmocka_unit_test(test_others),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
