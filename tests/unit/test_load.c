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
#include "workload/load/load_int.h"
#include "workload/workload.h"
#include "workload/workload_int.h"

/* Partitions the server chose for these keys (PostgreSQL 15, `partition by hash`). */
static void test_hash_partition_matches_server(void **state)
{
    (void)state;
    static const struct {
        int64_t key;
        int bigint, modulus, remainder;
    } cases[] = {
        {1, 0, 5, 0},
        {2, 0, 5, 1},
        {3, 0, 5, 1},
        {0, 0, 5, 3},
        {100000, 0, 5, 4},
        {2147483647, 0, 5, 4},
        {-5, 0, 5, 4},
        {-5LL, 1, 7, 0},
        {5000000000LL, 1, 7, 2},
        {2147483648LL, 1, 7, 3},
        {INT64_MAX, 1, 7, 3},
        {100000LL, 1, 7, 4},
        {1LL, 1, 7, 5},
        {-INT64_MAX, 1, 7, 5},
        {2LL, 1, 7, 6},
        {3LL, 1, 7, 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(load_hash_partition(cases[i].key, cases[i].bigint, cases[i].modulus),
                         cases[i].remainder);
}

/* sysbench's default distribution: in range, and 75 % of draws in the middle 1 %. */
static void test_sb_special_shape(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 42);
    int64_t n = 200000, middle = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = load_sb_special(&r, 1, 10000);
        assert_true(v >= 1 && v <= 10000);
        middle += v >= 4950 && v <= 5051;
    }
    double frac = (double)middle / (double)n;
    assert_true(frac > 0.74 && frac < 0.77);
    assert_int_equal(load_sb_special(&r, 1, 1), 1);
}

static void test_sb_digits_format(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 7);
    char buf[200];
    char *end = load_sb_digits(&r, buf, 10);
    assert_int_equal(end - buf, 119);
    for (int i = 0; i < 119; i++) {
        if (i % 12 == 11)
            assert_int_equal(buf[i], '-');
        else
            assert_true(buf[i] >= '0' && buf[i] <= '9');
    }
    /* Same seed, same digits: the data is a function of --seed. */
    struct rng r2;
    rng_seed(&r2, 7);
    char buf2[200];
    load_sb_digits(&r2, buf2, 10);
    assert_memory_equal(buf, buf2, 119);
}

/* Each sysbench script parses, with sysbench 1.0's statement count per transaction. */
static void test_sysbench_scripts(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int n_sql;
    } cases[] = {
        {"oltp-read-write", 20}, /* BEGIN, 10 points, 4 ranges, 2 updates, delete, insert, COMMIT */
        {"oltp-read-only", 16},
        {"oltp-point-select", 1},
        {"oltp-write-only", 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct workload *w = workload_find(cases[i].name);
        assert_non_null(w);
        assert_int_equal(w->dataset, DATASET_SYSBENCH);
        char *text = sysbench_script(w, 3, 20000);
        struct script_set s;
        struct err e = {0};
        script_set_init(&s);
        if (script_set_add(&s, "t", text, 1, &e) != 0)
            fail_msg("%s: %s", cases[i].name, e.msg);
        int n_sql = 0;
        for (int c = 0; c < s.scripts[0].n_cmds; c++) {
            const struct script_command *cmd = &s.scripts[0].cmds[c];
            if (cmd->kind != CMD_SQL)
                continue;
            n_sql++;
            if (strcmp(cmd->text, "BEGIN;") && strcmp(cmd->text, "COMMIT;"))
                assert_non_null(strstr(cmd->text, "sbtest3"));
        }
        assert_int_equal(n_sql, cases[i].n_sql);
        assert_non_null(strstr(text, "random(1, 20000)"));
        script_set_free(&s);
        free(text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_partition_matches_server),
        cmocka_unit_test(test_sb_special_shape),
        cmocka_unit_test(test_sb_digits_format),
        cmocka_unit_test(test_sysbench_scripts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
