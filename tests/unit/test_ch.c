#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "script/script.h"
#include "workload/ch/ch.h"
#include "workload/workload.h"

/* CH-benCHmark's pure parts: --queries, the nations and their keys, the suppliers' nations,
 * and the 22 query texts as scripts. */

static void test_queries_parse(void **state)
{
    (void)state;
    int q[CH_N_QUERIES];
    struct err e = {0};
    assert_int_equal(ch_queries_parse(NULL, q, &e), 22);
    for (int i = 0; i < 22; i++)
        assert_int_equal(q[i], i + 1);
    assert_int_equal(ch_queries_parse("6,q1,Q14,22", q, &e), 4);
    assert_int_equal(q[0], 6);
    assert_int_equal(q[1], 1);
    assert_int_equal(q[2], 14);
    assert_int_equal(q[3], 22);
    static const char *const bad[] = {"", "0", "23", "q", "1,", ",1", "1,,2", "x1", "1 ", "q023"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        e = (struct err){0};
        assert_int_equal(ch_queries_parse(bad[i], q, &e), -1);
        assert_int_equal(e.code, ERR_INPUT);
        assert_non_null(strstr(e.msg, "is not a query"));
    }
    e = (struct err){0};
    assert_int_equal(ch_queries_parse("3,q3", q, &e), -1);
    assert_non_null(strstr(e.msg, "q3 is given twice"));
}

/* The paper's rule: a customer's nation is the code of c_state's first letter, so the keys
 * are the codes of 0-9, A-Z, a-z; the capital ones (TPC-C's states) cover every region and
 * hold Germany and Cambodia (Q7) and European nations (Q2, Q5, Q8). */
static void test_nations(void **state)
{
    (void)state;
    int regions_of_customers[CH_N_REGIONS + 1] = {0}, europe = 0, germany = 0, cambodia = 0;
    for (int i = 0; i < CH_N_NATIONS; i++) {
        int k = ch_nation_key(i);
        assert_true((k >= '0' && k <= '9') || (k >= 'A' && k <= 'Z') || (k >= 'a' && k <= 'z'));
        for (int j = 0; j < i; j++) {
            assert_int_not_equal(ch_nation_key(j), k);
            assert_string_not_equal(ch_nation_name(j), ch_nation_name(i));
        }
        int r = ch_nation_region(i);
        assert_true(r >= 1 && r <= CH_N_REGIONS);
        assert_true(strlen(ch_nation_name(i)) <= 25);
        if (k >= 'A' && k <= 'Z') {
            regions_of_customers[r]++;
            europe += strcmp(ch_region_name(r), "Europe") == 0;
            germany += strcmp(ch_nation_name(i), "Germany") == 0 && r == 5;
            cambodia += strcmp(ch_nation_name(i), "Cambodia") == 0;
        }
    }
    for (int r = 1; r <= CH_N_REGIONS; r++)
        assert_true(regions_of_customers[r] > 0);
    assert_true(europe >= 3);
    assert_int_equal(germany, 1);
    assert_int_equal(cambodia, 1);
    assert_string_equal(ch_region_name(5), "Europe");
}

/* Every nation has 161 or 162 of the 10,000 suppliers. */
static void test_supplier_nations(void **state)
{
    (void)state;
    int n[CH_N_NATIONS] = {0};
    for (int k = 0; k < CH_N_SUPPLIERS; k++)
        n[ch_supplier_nation(k)]++;
    for (int i = 0; i < CH_N_NATIONS; i++)
        assert_true(n[i] == 161 || n[i] == 162);
}

/* Each query is one SQL command with no variable (so that every protocol runs it as it is),
 * named q1..q22; -w ch lists them with --show-script. */
static void test_query_scripts(void **state)
{
    (void)state;
    struct script_set s;
    script_set_init(&s);
    for (int q = 1; q <= CH_N_QUERIES; q++) {
        char name[8];
        ch_query_name(q, name, sizeof name);
        struct err e = {0};
        assert_int_equal(script_set_add(&s, name, ch_query_sql(q), 0, &e), 0);
        const struct script *sc = &s.scripts[q - 1];
        assert_int_equal(sc->n_cmds, 1);
        assert_int_equal(sc->cmds[0].kind, CMD_SQL);
        assert_int_equal(sc->cmds[0].n_params, 0);
        assert_null(strstr(ch_query_sql(q), "oorder"));
    }
    assert_int_equal(s.n_vars, 4); /* the predefined ones only */
    script_set_free(&s);
    assert_null(ch_query_sql(0));
    assert_null(ch_query_sql(23));
    const struct workload *w = workload_find("ch");
    assert_non_null(w);
    struct err e = {0}; /* --analytic-clients is ch's, its value checked as it is given */
    assert_int_equal(workload_option_check("analytic-clients", "2", &e), 1);
    assert_int_equal(workload_option_check("analytic-clients", "-1", &e), -1);
    assert_non_null(strstr(e.msg, "invalid value for --analytic-clients"));
    char *text = w->show_script(w);
    assert_non_null(strstr(text, "-- q22\n"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queries_parse),
        cmocka_unit_test(test_nations),
        cmocka_unit_test(test_supplier_nations),
        cmocka_unit_test(test_query_scripts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
