#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/rng.h"
#include "script/script.h"
#include "workload/tpcc/tpcc.h"
#include "workload/tpcc/tpcc_int.h"
#include "workload/tpcc/tpcc_rows.h"

/* Clause 4.3.2.3's example: 371 is PRI CALLY OUGHT. */
static void test_last_names(void **state)
{
    (void)state;
    char buf[TPCC_LAST_NAME_MAX + 1];
    *tpcc_last_name(buf, 371) = '\0';
    assert_string_equal(buf, "PRICALLYOUGHT");
    *tpcc_last_name(buf, 0) = '\0';
    assert_string_equal(buf, "BARBARBAR");
    *tpcc_last_name(buf, 999) = '\0';
    assert_string_equal(buf, "EINGEINGEING");
}

static void test_nurand_range_and_skew(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 1);
    static int hits[1000];
    for (int i = 0; i < 200000; i++) {
        int64_t v = tpcc_nurand(&r, 255, 0, 999, 123);
        assert_true(v >= 0 && v <= 999);
        hits[v]++;
    }
    /* Non-uniform: the most drawn value comes up far more than the uniform 200. */
    int max = 0;
    for (int i = 0; i < 1000; i++)
        max = hits[i] > max ? hits[i] : max;
    assert_true(max > 400);
}

static void test_strings(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 2);
    char buf[64];
    int original = 0;
    for (int i = 0; i < 10000; i++) {
        char *end = tpcc_astring(&r, buf, 8, 16);
        assert_true(end - buf >= 8 && end - buf <= 16);
        for (char *p = buf; p < end; p++)
            assert_true((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') ||
                        (*p >= 'a' && *p <= 'z'));
        end = tpcc_data(&r, buf);
        assert_true(end - buf >= 26 && end - buf <= 50);
        *end = '\0';
        original += strstr(buf, "ORIGINAL") != NULL;
    }
    assert_in_range(original, 850, 1150);
    *tpcc_zip(&r, buf) = '\0';
    assert_int_equal(strlen(buf), 9);
    assert_string_equal(buf + 4, "11111");
    *tpcc_decimal(&r, buf, 5, 5, 2) = '\0';
    assert_string_equal(buf, "0.05");
    *tpcc_decimal(&r, buf, 2000, 2000, 4) = '\0';
    assert_string_equal(buf, "0.2000");
    *tpcc_decimal(&r, buf, 999999, 999999, 2) = '\0';
    assert_string_equal(buf, "9999.99");
}

/* Clause 2.1.6.1: the run's C for C_LAST differs from the load's by 65..119, not 96 or 112. */
static void test_constants(void **state)
{
    (void)state;
    for (uint64_t seed = 0; seed < 300; seed++) {
        struct tpcc_consts load, run, back;
        tpcc_consts_load(seed, &load);
        tpcc_consts_run(seed, &load, &run);
        assert_true(tpcc_c_last_ok(load.c_last, run.c_last));
        char *text = tpcc_consts_comment(&load);
        assert_int_equal(tpcc_consts_parse(text, &back), 0);
        assert_memory_equal(&load, &back, sizeof load);
        free(text);
    }
    assert_false(tpcc_c_last_ok(100, 196));
    assert_false(tpcc_c_last_ok(100, 212));
    assert_true(tpcc_c_last_ok(100, 165));
    struct tpcc_consts k;
    assert_int_equal(tpcc_consts_parse("made by someone else", &k), -1);
}

/* Orders and order lines agree on each order's line count; rows are one line each. */
static void test_rows(void **state)
{
    (void)state;
    static struct tpcc_gen g;
    memset(&g, 0, sizeof g);
    g.seed = 7;
    g.now = "2026-01-01 00:00:00";
    char out[1100];
    int64_t lines = 0;
    for (int64_t row = 0; row < TPCC_ROWS_ORDERS; row++) {
        size_t n = tpcc_orders_row(&g, out, row);
        assert_true(n > 0 && out[n - 1] == '\n');
    }
    for (int64_t row = 0; row < TPCC_SLOTS_ORDER_LINE; row++)
        lines += tpcc_order_line_row(&g, out, row) > 0;
    assert_int_equal(lines, tpcc_order_lines(7, 1, 1));
    for (int64_t row = 0; row < TPCC_ROWS_CUSTOMER; row += 997) {
        size_t n = tpcc_customer_row(&g, out, row);
        assert_true(n < 1024 && out[n - 1] == '\n' && memchr(out, '\n', n) == out + n - 1);
    }
}

/* Every script parses, in both modes, with and without keying times, for 1 and 3
 * warehouses. */
static void test_scripts_parse(void **state)
{
    (void)state;
    for (int mode = 0; mode < 8; mode++) {
        struct tpcc_run o = {mode & 1 ? 3 : 1, (mode >> 1) & 1, (mode >> 2) & 1, {10, 20, 30}};
        struct script_set s;
        script_set_init(&s);
        for (int tx = 0; tx < TPCC_N_TX; tx++) {
            char *text = tpcc_script((enum tpcc_tx)tx, &o);
            struct err e = {0};
            int rc = script_set_add(&s, tpcc_tx_names[tx], text, tpcc_default_mix[tx], &e);
            if (rc < 0)
                fail_msg("%s: %s", tpcc_tx_names[tx], e.msg);
            if (tx == TPCC_NEW_ORDER)
                assert_non_null(strstr(text, tpcc_rollback_sql));
            free(text);
        }
        assert_int_equal(s.total_weight, 100);
        script_set_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_last_names), cmocka_unit_test(test_nurand_range_and_skew),
        cmocka_unit_test(test_strings),    cmocka_unit_test(test_constants),
        cmocka_unit_test(test_rows),       cmocka_unit_test(test_scripts_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
