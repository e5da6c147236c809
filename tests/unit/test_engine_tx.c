#include "engine_fixture.h"

#include <stdio.h>
#include <stdlib.h>

/* The client state machine running transactions against the fake connection: results,
 * errors by class, rollbacks, retries with the same random draws, pipelines, protocols. */

static void test_simple_transactions(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.tx_per_client = 3;
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 10);
    assert_int_equal(fx_client(&f, 0)->state, CS_FINISHED);
    assert_int_equal(fake_count_sent("Q SELECT 1"), 3);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 3);
    assert_int_equal(r.n_failed, 0);
    assert_int_equal(r.clients[0].n_tx, 3);
    assert_int_equal(r.statements[0].count, 3);
    engine_result_free(&r);
    fx_free(&f);
}

/* \gset takes the result's columns as variables; the next command uses them. */
static void test_gset_feeds_next_command(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 5 AS x \\gset\n\\set y :x + 1\nSELECT :y;\n");
    fake_push_row("x", "5");
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 10);
    assert_int_equal(fake_count_sent("Q SELECT 6"), 1);
    fx_free(&f);
}

/* \gset of no row fails the transaction as "other". */
static void test_gset_without_row_fails(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 5 AS x \\gset\nSELECT :x;\n");
    fake_push_kind(FAKE_COMMAND);
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 10);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_failed, 1);
    assert_int_equal(r.errors[PGF_OTHER], 1);
    assert_non_null(strstr(r.first_error, "\\gset expects one row"));
    engine_result_free(&r);
    fx_free(&f);
}

/* Each SQLSTATE class is counted as its own failure; inside a transaction block the client
 * rolls back before going on. */
static void test_errors_by_class(void **state)
{
    (void)state;
    static const struct {
        const char *sqlstate;
        enum pg_failure why;
    } cases[] = {{"40001", PGF_SERIALIZATION},
                 {"40P01", PGF_DEADLOCK},
                 {"23505", PGF_OTHER},
                 {"57014", PGF_TIMEOUT},
                 {"08006", PGF_CONNECTION}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct fx f;
        fx_init(&f, "BEGIN;\nSELECT 1;\nEND;\n");
        fake_push_kind(FAKE_COMMAND);
        fake_push_error(cases[k].sqlstate, "it failed");
        assert_int_equal(fx_start(&f), 0);
        fx_run(&f, 10);
        struct engine_result r;
        fx_collect(&f, &r);
        assert_int_equal(r.n_failed, 1);
        assert_int_equal(r.errors[cases[k].why], 1);
        assert_int_equal(r.n_tx, 0);
        if (cases[k].why != PGF_CONNECTION) {
            assert_int_equal(r.clients[0].n_failed, 1);
            assert_int_equal(fake_count_sent("ROLLBACK"), 1);
            assert_string_equal(r.first_error, "it failed");
        }
        assert_int_equal(fake_count_sent("Q END"), 0);
        engine_result_free(&r);
        fx_free(&f);
    }
}

/* A serialization failure is retried from the first command with the same random draws;
 * the transaction counts once, as retried. */
static void test_retry_repeats_draws(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "\\set a random(1, 1000000000)\nBEGIN;\nSELECT :a;\nEND;\n");
    f.cfg.max_tries = 3;
    fake_push_kind(FAKE_COMMAND);         /* BEGIN */
    fake_push_error("40001", "conflict"); /* SELECT */
    fake_push_kind(FAKE_COMMAND);         /* BEGIN */
    fake_push_error("40P01", "deadlock"); /* SELECT */
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 20);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 1);
    assert_int_equal(r.n_failed, 0);
    assert_int_equal(r.n_retried, 1);
    assert_int_equal(r.n_retries, 2);
    assert_int_equal(fake_count_sent("ROLLBACK"), 2);
    /* Sent: BEGIN, SELECT, ROLLBACK, BEGIN, SELECT, ROLLBACK, BEGIN, SELECT, END. */
    assert_int_equal(fake_n_sent(), 9);
    assert_string_equal(fake_sent(1), fake_sent(4));
    assert_string_equal(fake_sent(1), fake_sent(7));
    engine_result_free(&r);
    fx_free(&f);
}

/* Out of tries: the last failure counts, by its class. */
static void test_retry_gives_up(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.max_tries = 2;
    fake_push_error("40001", "conflict");
    fake_push_error("40001", "conflict");
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 20);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_failed, 1);
    assert_int_equal(r.errors[PGF_SERIALIZATION], 1);
    assert_int_equal(r.n_retries, 1);
    assert_int_equal(fake_count_sent("ROLLBACK"), 0); /* no transaction block was open */
    engine_result_free(&r);
    fx_free(&f);
}

/* The three protocols: text substituted, parameters bound, prepared at connect. */
static void test_protocols(void **state)
{
    (void)state;
    const char *script = "\\set a 7\nSELECT :a, 'x';\n";
    struct fx f;
    fx_init(&f, script);
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 10);
    assert_int_equal(fake_count_sent("Q SELECT 7, 'x';"), 1);
    fx_free(&f);

    fx_init(&f, script);
    f.cfg.protocol = PROTO_EXTENDED;
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 10);
    assert_int_equal(fake_count_sent("X SELECT $1, 'x'; | 7"), 1);
    fx_free(&f);

    fx_init(&f, script);
    f.cfg.protocol = PROTO_PREPARED;
    assert_int_equal(fx_start(&f), 0);
    assert_string_equal(fake_sent(0), "P P0_1");
    fx_run(&f, 10);
    assert_int_equal(fake_count_sent("E P0_1 | 7"), 1);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 1);
    engine_result_free(&r);
    fx_free(&f);
}

/* A pipeline sends its commands and a sync, then reads every result. */
static void test_pipeline(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "\\startpipeline\nSELECT 1;\nSELECT 2 AS v \\gset\n\\endpipeline\nSELECT :v;\n");
    f.cfg.protocol = PROTO_EXTENDED;
    fake_push_kind(FAKE_COMMAND);
    fake_push_row("v", "9");
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 10);
    assert_int_equal(fake_n_sent(), 4);
    assert_string_equal(fake_sent(2), "SYNC");
    assert_int_equal(fake_count_sent("X SELECT $1; | 9"), 1);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 1);
    engine_result_free(&r);
    fx_free(&f);
}

/* An error inside a pipeline fails the transaction once the pipeline is read to its sync. */
static void test_pipeline_error(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "\\startpipeline\nSELECT 1;\nSELECT 2;\n\\endpipeline\n");
    f.cfg.protocol = PROTO_EXTENDED;
    fake_push_error("22012", "division by zero");
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 10);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_failed, 1);
    assert_int_equal(r.errors[PGF_OTHER], 1);
    assert_int_equal(fx_client(&f, 0)->state, CS_FINISHED);
    engine_result_free(&r);
    fx_free(&f);
}

/* A statement the parser could not see is a COPY (its words in variables): the server asks
 * for rows. libpq hands out the COPY's result again and again until the COPY ends, so before
 * the fix the client spun in its result loop. The COPY FROM STDIN is failed, a COPY TO
 * STDOUT's rows are read and dropped; the transaction fails (rolled back) and the client is
 * aborted, as pgbench aborts it: the run ends as an error, not after -t's 5 transactions. */
static void copy_aborts_client(struct fake_reply copy, const char *what)
{
    struct fx f;
    fx_init(&f, "BEGIN;\nSELECT 1;\nEND;\n");
    f.cfg.tx_per_client = 5;
    fake_push_kind(FAKE_COMMAND); /* BEGIN */
    fake_push(copy);
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 20);
    assert_int_equal(fx_client(&f, 0)->state, CS_FINISHED);
    assert_int_equal(fake_count_sent("Q SELECT 1"), 1);
    assert_int_equal(fake_count_sent("ROLLBACK"), 1);
    assert_int_equal(fake_count_sent("Q END"), 0);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 0);
    assert_int_equal(r.n_failed, 1);
    assert_int_equal(r.errors[PGF_OTHER], 1);
    assert_int_equal(r.n_aborted, 1);
    assert_int_equal(r.end_reason, END_ERROR);
    char want[128];
    snprintf(want, sizeof want, "client 0 aborted at t.sql:2: COPY ... %s is not supported", what);
    if (!strstr(r.first_error, want))
        fail_msg("%s", r.first_error);
    assert_non_null(strstr(r.end_note, "1 of 1 clients aborted"));
    engine_result_free(&r);
    fx_free(&f);
}

static void test_copy_in_aborts_client(void **state)
{
    (void)state;
    copy_aborts_client((struct fake_reply){.kind = FAKE_COPY_IN}, "FROM STDIN");
}

static void test_copy_out_aborts_client(void **state)
{
    (void)state;
    copy_aborts_client((struct fake_reply){.kind = FAKE_COPY_OUT, .copy_rows = 3}, "TO STDOUT");
}

/* The COPY FROM STDIN is failed with a message, not ended: the server takes no rows. */
static void test_copy_in_is_failed(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    fake_push_kind(FAKE_COPY_IN);
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 10);
    assert_int_equal(fake_count_sent("COPY FAIL"), 1);
    assert_int_equal(fake_count_sent("COPY END"), 0);
    assert_string_equal(fake_copy_in(), "");
    fx_free(&f);
}

/* A COPY TO STDOUT's rows are all read (one more readable after each read of the socket). */
static void test_copy_out_rows_dropped(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    fake_push((struct fake_reply){.kind = FAKE_COPY_OUT, .copy_rows = 4});
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 20);
    assert_int_equal(fx_client(&f, 0)->state, CS_FINISHED);
    assert_int_equal(fake_copy_rows_read(), 4);
    fx_free(&f);
}

/* In a -T run the other clients go on to its end: one aborted client makes the run
 * incomplete, not shorter. */
static void test_copy_aborts_one_client_of_two(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n\\sleep 100 ms\n");
    f.cfg.clients = 2;
    f.cfg.tx_per_client = 0;
    f.cfg.duration_s = 1;
    fake_push_kind(FAKE_COPY_IN); /* the first client's first statement */
    assert_int_equal(fx_start(&f), 0);
    for (int t = 0; t <= 1200; t += 100)
        fx_at(&f, t * NS_PER_MS);
    assert_int_equal(fx_client(&f, 0)->state, CS_FINISHED);
    assert_int_equal(fx_client(&f, 1)->state, CS_FINISHED);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_aborted, 1);
    assert_int_equal(r.end_reason, END_ERROR);
    assert_int_equal(r.clients[0].n_failed + r.clients[1].n_failed, 1);
    assert_true(r.clients[0].n_tx + r.clients[1].n_tx >= 9);
    assert_int_equal(r.duration_ns, NS_PER_S);
    engine_result_free(&r);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_transactions),
        cmocka_unit_test(test_gset_feeds_next_command),
        cmocka_unit_test(test_gset_without_row_fails),
        cmocka_unit_test(test_errors_by_class),
        cmocka_unit_test(test_retry_repeats_draws),
        cmocka_unit_test(test_retry_gives_up),
        cmocka_unit_test(test_protocols),
        cmocka_unit_test(test_pipeline),
        cmocka_unit_test(test_pipeline_error),
        cmocka_unit_test(test_copy_in_aborts_client),
        cmocka_unit_test(test_copy_out_aborts_client),
        cmocka_unit_test(test_copy_in_is_failed),
        cmocka_unit_test(test_copy_out_rows_dropped),
        cmocka_unit_test(test_copy_aborts_one_client_of_two),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
