#include "engine_fixture.h"

/* The client state machine where time matters, in virtual time: --timeout and cancel, a lost
 * connection and the reconnection backoff, connect failures and timeouts, -C, and the -R
 * schedule with --latency-limit skips. */

/* --timeout: a statement that does not answer is cancelled at the deadline; the error that
 * comes back counts as a timeout and the connection stays. */
static void test_timeout_cancels(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT pg_sleep(10);\n");
    f.cfg.tx_per_client = 2;
    f.cfg.timeout_us = 100000;
    fake_push_kind(FAKE_HANG);
    assert_int_equal(fx_start(&f), 0);
    struct client *c = fx_client(&f, 0);
    fx_at(&f, 99 * NS_PER_MS);
    assert_int_equal(c->state, SC_WAIT_RESULT);
    assert_int_equal(fake_n_cancels(), 0);
    fx_at(&f, 100 * NS_PER_MS);
    assert_int_equal(fake_n_cancels(), 1);
    assert_int_equal(c->state, SC_WAIT_RESULT);
    fake_release(c->conn,
                 (struct fake_reply){.kind = FAKE_ERROR,
                                     .sqlstate = "57014",
                                     .message = "canceling statement due to user request"});
    fx_at(&f, 101 * NS_PER_MS);
    fx_run(&f, 5);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.errors[PGF_TIMEOUT], 1);
    assert_int_equal(r.n_tx, 1); /* the second transaction ran on the same connection */
    assert_int_equal(fake_n_connects(), 1);
    engine_result_free(&r);
    fx_free(&f);
}

/* --timeout with no answer even to the cancel: after another timeout the transaction fails
 * as a timeout and the client drops the connection and reconnects after the backoff. */
static void test_timeout_unanswered_drops_connection(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.tx_per_client = 2;
    f.cfg.timeout_us = 100000;
    fake_push_kind(FAKE_HANG);
    assert_int_equal(fx_start(&f), 0);
    struct client *c = fx_client(&f, 0);
    fx_at(&f, 100 * NS_PER_MS);
    fx_at(&f, 200 * NS_PER_MS);
    assert_int_equal(c->state, CS_RECONNECT_WAIT);
    assert_int_equal(fake_n_open(), 0);
    assert_int_equal(atomic_load(&f.w->n_lost), 1);
    fx_at(&f, 299 * NS_PER_MS);
    assert_int_equal(fake_n_connects(), 1);
    fx_at(&f, 300 * NS_PER_MS); /* backoff: 100 ms */
    assert_int_equal(fake_n_connects(), 2);
    fx_run(&f, 10);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.errors[PGF_TIMEOUT], 1);
    assert_int_equal(r.n_tx, 1);
    assert_int_equal(atomic_load(&f.w->n_lost), 0);
    engine_result_free(&r);
    fx_free(&f);
}

/* A lost connection fails its transaction as "connection"; reconnecting backs off 100 ms,
 * then doubles while attempts fail, up to 1 s. */
static void test_lost_connection_backoff(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.tx_per_client = 2;
    fake_push_kind(FAKE_LOST);
    assert_int_equal(fx_start(&f), 0);
    struct client *c = fx_client(&f, 0);
    assert_int_equal(c->state, CS_RECONNECT_WAIT);
    assert_int_equal(timers_next(&f.w->timers), f.now + 100 * NS_PER_MS);
    fake_push_connect(FAKE_CONNECT_FAIL);
    fake_push_connect(FAKE_CONNECT_FAIL);
    fx_at(&f, 100 * NS_PER_MS); /* attempt 2: refused at its first poll */
    fx_events(&f);
    assert_int_equal(c->state, CS_RECONNECT_WAIT);
    assert_int_equal(timers_next(&f.w->timers), f.now + 200 * NS_PER_MS);
    fx_at(&f, 300 * NS_PER_MS); /* attempt 3: refused */
    fx_events(&f);
    assert_int_equal(timers_next(&f.w->timers), f.now + 400 * NS_PER_MS);
    fx_at(&f, 700 * NS_PER_MS); /* attempt 4 connects */
    fx_run(&f, 10);
    assert_int_equal(fake_n_connects(), 4);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.errors[PGF_CONNECTION], 1); /* failed reconnects are not transactions */
    assert_int_equal(r.n_failed, 1);
    assert_int_equal(r.n_tx, 1);
    assert_non_null(strstr(r.first_error, "server closed the connection unexpectedly"));
    assert_null(strchr(r.first_error, '\n'));
    engine_result_free(&r);
    fx_free(&f);
}

/* Setup failures abort: a connection refused, or failing at once. */
static void test_setup_failure(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    fake_push_connect(FAKE_CONNECT_FAIL);
    assert_int_equal(fx_start(&f), -1);
    assert_non_null(strstr(f.w->error, "could not connect to server: connection to server at"));
    assert_null(strchr(f.w->error, '\n'));
    fx_free(&f);

    fx_init(&f, "SELECT 1;\n");
    fake_push_connect(FAKE_CONNECT_AT_ONCE);
    assert_int_equal(fx_start(&f), -1);
    assert_non_null(strstr(f.w->error, "invalid connection option"));
    fx_free(&f);
}

/* A statement the server cannot prepare refuses the run at setup, also when the error and
 * the end of the PREPARE's results (ReadyForQuery) come in different reads. */
static void test_prepare_refused(void **state)
{
    (void)state;
    for (int late = 0; late <= 1; late++) {
        struct fx f;
        fx_init(&f, "SELECT 1;\nSELECT 1 + ;\n");
        f.cfg.protocol = PROTO_PREPARED;
        fake_push_prepare((struct fake_reply){.kind = FAKE_COMMAND});
        fake_push_prepare((struct fake_reply){.kind = FAKE_ERROR,
                                              .sqlstate = "42601",
                                              .message = "syntax error at or near \";\"",
                                              .late_end = late});
        assert_int_equal(fx_start(&f), -1);
        assert_int_equal(f.w->setup_refused, 1);
        assert_non_null(strstr(f.w->error, "t.sql:2: the server cannot prepare this statement: "
                                           "syntax error at or near \";\": SELECT 1 + ;"));
        assert_int_equal(fake_count_sent("E "), 0); /* nothing ran */
        fx_free(&f);
    }
}

/* A server that accepts and never answers: the connect timeout (10 s) fails the setup. */
static void test_connect_timeout(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    fake_push_connect(FAKE_CONNECT_HANG);
    engine_state_init(&f.run, &f.cfg);
    f.w = &f.run.workers[0];
    client_connect(fx_client(&f, 0), f.now);
    fx_at(&f, 9 * NS_PER_S);
    assert_int_equal(f.w->setup_failed, 0);
    fx_at(&f, 10 * NS_PER_S);
    assert_int_equal(f.w->setup_failed, 1);
    assert_non_null(strstr(f.w->error, "timed out connecting to server"));
    fx_free(&f);
}

/* -C: a new connection for every transaction, its time counted. */
static void test_connect_per_transaction(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.tx_per_client = 3;
    f.cfg.connect_per_tx = 1;
    assert_int_equal(fx_start(&f), 0);
    for (int t = 1; t < 20 && f.w->n_live > 0; t++)
        fx_at(&f, t * NS_PER_MS);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 3);
    assert_int_equal(fake_n_connects(), 4); /* setup + one per transaction */
    assert_int_equal(r.n_connects, 3);
    assert_int_equal(fake_n_open(), 0);
    engine_result_free(&r);
    fx_free(&f);
}

/* -R: transactions start on the schedule, latency counts from the intended start, and with
 * --latency-limit the starts already too late are skipped. */
static void test_rate_schedule_and_skips(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.tx_per_client = 0;
    f.cfg.duration_s = 2;
    f.cfg.rate = 100;
    f.cfg.latency_limit_us = 5000;
    assert_int_equal(fx_start(&f), 0);
    struct client *c = fx_client(&f, 0);
    assert_int_equal(c->state, SC_THROTTLE);
    time_ns first = script_of(c)->sched_at;
    assert_true(first > f.now);
    /* Serve every start on time for one second... */
    while (f.now < FX_T0 + NS_PER_S)
        fx_at(&f, timers_next(&f.w->timers) - FX_T0);
    uint64_t on_time = f.w->n_tx;
    assert_true(on_time > 50 && on_time < 150);
    assert_int_equal(f.w->n_skipped, 0);
    /* ...then stall for half a second: the starts missed by more than 5 ms are skipped. */
    fx_at(&f, 1500 * NS_PER_MS);
    assert_true(f.w->n_skipped > 25);
    while (f.w->n_live > 0 && timers_next(&f.w->timers) > 0)
        fx_at(&f, timers_next(&f.w->timers) - FX_T0);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_failed, 0);
    assert_true(r.n_tx + r.n_skipped > 150 && r.n_tx + r.n_skipped < 250);
    /* The late ones were skipped (a bucket's top may be 0.1 % above). */
    assert_true(hist_max(r.latency) <= 5005);
    engine_result_free(&r);
    fx_free(&f);
}

/* A -T run ends at its end: a client waiting for its schedule finishes. */
static void test_duration_ends_run(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n\\sleep 300 ms\n");
    f.cfg.tx_per_client = 0;
    f.cfg.duration_s = 1;
    assert_int_equal(fx_start(&f), 0);
    fx_events(&f);
    struct client *c = fx_client(&f, 0);
    assert_int_equal(c->state, SC_SLEEP);
    for (int t = 300; t <= 1200; t += 300)
        fx_at(&f, t * NS_PER_MS);
    assert_int_equal(c->state, CS_FINISHED);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 4); /* ended at 300, 600, 900, 1200 ms */
    engine_result_free(&r);
    fx_free(&f);
}

/* --timeout during \sleep fails the transaction as a timeout. */
static void test_timeout_in_sleep(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "\\sleep 1 s\nSELECT 1;\n");
    f.cfg.timeout_us = 200000;
    assert_int_equal(fx_start(&f), 0);
    fx_at(&f, 200 * NS_PER_MS);
    fx_run(&f, 5);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.errors[PGF_TIMEOUT], 1);
    assert_int_equal(fake_count_sent("SELECT"), 0);
    engine_result_free(&r);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeout_cancels),
        cmocka_unit_test(test_timeout_unanswered_drops_connection),
        cmocka_unit_test(test_lost_connection_backoff),
        cmocka_unit_test(test_setup_failure),
        cmocka_unit_test(test_prepare_refused),
        cmocka_unit_test(test_connect_timeout),
        cmocka_unit_test(test_connect_per_transaction),
        cmocka_unit_test(test_rate_schedule_and_skips),
        cmocka_unit_test(test_duration_ends_run),
        cmocka_unit_test(test_timeout_in_sleep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
