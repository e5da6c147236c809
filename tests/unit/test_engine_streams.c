#include "engine_fixture.h"

#include <stdio.h>
#include <stdlib.h>

/* Analytic streams (engine_config's stream_*, -w ch): the last clients run the last scripts
 * one after another, a permutation per pass or in order, counted apart from the run. */

/* One terminal on script 0 and one stream over scripts 1..3, each running n transactions. */
static void start(struct fx *f, int in_order, int n)
{
    fx_init(f, "SELECT 0;\n");
    struct err e = {0};
    assert_int_equal(script_set_add(&f->scripts, "a", "SELECT 1;\n", 0, &e), 0);
    assert_int_equal(script_set_add(&f->scripts, "b", "SELECT 2;\n", 0, &e), 0);
    assert_int_equal(script_set_add(&f->scripts, "c", "SELECT 3;\n", 0, &e), 0);
    f->cfg.clients = 2;
    f->cfg.stream_clients = 1;
    f->cfg.stream_scripts = 3;
    f->cfg.stream_in_order = in_order;
    f->cfg.tx_per_client = n;
    assert_int_equal(fx_start(f), 0);
    fx_run(f, 200);
}

/* The stream's statements in the order sent, as digits ("123231..."). */
static void stream_order(char *out, size_t size)
{
    size_t k = 0;
    for (int i = 0; i < fake_n_sent() && k + 1 < size; i++) {
        const char *s = fake_sent(i); /* "Q SELECT 2;" */
        if (strncmp(s, "Q SELECT ", 9) == 0 && s[9] != '0')
            out[k++] = s[9];
    }
    out[k] = '\0';
}

static void test_stream_passes_are_permutations(void **state)
{
    (void)state;
    struct fx f;
    start(&f, 0, 30);
    char order[64];
    stream_order(order, sizeof order);
    assert_int_equal(strlen(order), 30);
    int differ = 0;
    for (int p = 0; p < 10; p++) {
        char pass[4];
        memcpy(pass, order + 3 * p, 3);
        pass[3] = '\0';
        assert_non_null(strchr(pass, '1'));
        assert_non_null(strchr(pass, '2'));
        assert_non_null(strchr(pass, '3'));
        differ |= memcmp(pass, order, 3) != 0;
    }
    assert_true(differ); /* drawn anew per pass, not one order repeated */
    assert_int_equal(fake_count_sent("Q SELECT 0"), 30); /* the terminal never ran a stream's */
    struct engine_result r;
    fx_collect(&f, &r);
    /* The run's totals are the terminal's; the scripts' figures hold the stream's too. */
    assert_int_equal(r.n_tx, 30);
    assert_int_equal(hist_count(r.latency), 30);
    assert_int_equal(r.scripts[0].n_tx, 30);
    for (int s = 1; s <= 3; s++) {
        assert_int_equal(r.scripts[s].n_tx, 10);
        assert_int_equal(hist_count(r.scripts[s].latency), 10);
    }
    engine_result_free(&r);
    fx_free(&f);
}

static void test_stream_in_order(void **state)
{
    (void)state;
    struct fx f;
    start(&f, 1, 7);
    char order[64];
    stream_order(order, sizeof order);
    assert_string_equal(order, "1231231");
    fx_free(&f);
}

/* A seeded run repeats its streams' permutations. */
static void test_stream_seeded(void **state)
{
    (void)state;
    char first[64], second[64];
    struct fx f;
    start(&f, 0, 12);
    stream_order(first, sizeof first);
    fx_free(&f);
    start(&f, 0, 12);
    stream_order(second, sizeof second);
    fx_free(&f);
    assert_string_equal(first, second);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stream_passes_are_permutations),
        cmocka_unit_test(test_stream_in_order),
        cmocka_unit_test(test_stream_seeded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
