#include "engine_fixture.h"

/* Faults found in review (issue 12), each pinned by a test that failed before its fix. */

/* The clients the worker's wait set would wake now (a deadline long past: no waiting). */
static int ready_clients(struct fx *f, struct client **first)
{
    void *const *ev;
    int n = evwait_wait(f->w->ev, 0, &ev);
    int clients = 0;
    for (int i = 0; i < n; i++) {
        if (ev[i] != NULL && ev[i] >= (void *)f->w->clients &&
            ev[i] < (void *)(f->w->clients + f->w->n_clients)) {
            if (first && clients == 0)
                *first = ev[i];
            clients++;
        }
    }
    return clients;
}

/* libpq moving to the next host opens a new socket, often with the number of the old one:
 * the client must watch the new socket, or it waits forever ("timed out connecting"). */
static void test_new_socket_same_number_is_watched(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    fake_push_connect(FAKE_CONNECT_NEW_SOCKET);
    engine_state_init(&f.run, &f.cfg);
    f.w = &f.run.workers[0];
    struct client *c = fx_client(&f, 0);
    assert_int_equal(client_connect(c, f.now), 0);
    int before = pg_socket(c->conn);
    struct client *woken = NULL;
    assert_int_equal(ready_clients(&f, &woken), 1); /* writable: connecting */
    client_advance(c, f.now);                       /* the fake moves to a new socket */
    assert_int_equal(pg_socket(c->conn), before);   /* same number, a new socket */
    woken = NULL;
    assert_int_equal(ready_clients(&f, &woken), 1);
    assert_ptr_equal(woken, c);
    /* And the connection completes through the wait set alone. */
    for (int k = 0; k < 4 && c->state == CS_CONNECTING; k++)
        if (ready_clients(&f, &woken) == 1)
            client_advance(woken, f.now);
    assert_int_equal(c->state, CS_IDLE);
    assert_int_equal(f.w->n_setup_pending, 0);
    fx_free(&f);
}

/* clients[].failed counts every failed transaction of the client: those lost with the
 * connection and those timed out too, so the clients add up to the summary. */
static void test_client_failures_add_up(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.tx_per_client = 4;
    f.cfg.timeout_us = 100000;
    fake_push_kind(FAKE_LOST);            /* 1: connection lost */
    fake_push_kind(FAKE_HANG);            /* 2: no answer, not even to the cancel */
    fake_push_error("40001", "conflict"); /* 3: serialization */
    assert_int_equal(fx_start(&f), 0);
    for (int t = 1; t < 100 && f.w->n_live > 0; t++)
        fx_at(&f, t * 10 * NS_PER_MS);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_failed, 3);
    assert_int_equal(r.n_tx, 1);
    assert_int_equal(r.errors[PGF_CONNECTION], 1);
    assert_int_equal(r.errors[PGF_TIMEOUT], 1);
    assert_int_equal(r.clients[0].n_failed, 3);
    assert_int_equal(r.clients[0].n_tx, 1);
    engine_result_free(&r);
    fx_free(&f);
}

/* -C with --warmup: only the measured part's connections are counted. */
static void test_connect_time_excludes_warmup(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n\\sleep 100 ms\n");
    f.cfg.tx_per_client = 0;
    f.cfg.warmup_s = 1;
    f.cfg.duration_s = 1;
    f.cfg.connect_per_tx = 1;
    assert_int_equal(fx_start(&f), 0);
    for (int t = 1; t <= 2200 && f.w->n_live > 0; t++)
        fx_at(&f, t * NS_PER_MS);
    struct engine_result r;
    fx_collect(&f, &r);
    /* Ten transactions in the measured second, each with its connection; ten more in the
     * warmup second that do not count. */
    assert_true(r.n_tx >= 9 && r.n_tx <= 11);
    assert_int_equal(r.n_connects, r.n_tx);
    engine_result_free(&r);
    fx_free(&f);
}

/* Statements in a pipeline are counted per statement (-r, statements[]) too. */
static void test_pipelined_statements_counted(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "\\startpipeline\nSELECT 1;\nSELECT 2;\n\\endpipeline\nSELECT 3;\n");
    f.cfg.protocol = PROTO_EXTENDED;
    f.cfg.tx_per_client = 2;
    assert_int_equal(fx_start(&f), 0);
    fx_run(&f, 20);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 2);
    assert_int_equal(r.n_statements, 3);
    for (int i = 0; i < r.n_statements; i++)
        assert_int_equal(r.statements[i].count, 2);
    engine_result_free(&r);
    fx_free(&f);
}

/* A latency beyond the histogram's range is counted as such, not dropped unseen. */
static void test_latency_beyond_range_reported(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.tx_per_client = 2;
    fake_push_kind(FAKE_HANG);
    assert_int_equal(fx_start(&f), 0);
    struct client *c = fx_client(&f, 0);
    fake_release(c->conn, (struct fake_reply){.kind = FAKE_COMMAND});
    fx_at(&f, (HIST_MAX_US + 1000) * NS_PER_US); /* 50 days later */
    fx_run(&f, 5);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 2);
    assert_int_equal(hist_count(r.latency), 1);
    assert_int_equal(r.n_latency_out_of_range, 1);
    engine_result_free(&r);
    fx_free(&f);
}

/* A -t run whose server dies after one client finished: the clients still running are all
 * lost, which ends the run as server-lost instead of waiting forever. */
static void test_server_lost_counts_running_clients(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.clients = 2;
    f.cfg.tx_per_client = 1;
    fake_push_kind(FAKE_COMMAND); /* client 0: done */
    fake_push_kind(FAKE_LOST);    /* client 1: lost */
    assert_int_equal(fx_start(&f), 0);
    fx_events(&f);
    assert_int_equal(fx_client(&f, 0)->state, CS_FINISHED);
    assert_int_equal(fx_client(&f, 1)->state, CS_RECONNECT_WAIT);
    time_ns since = 0;
    engine_state_check_server_lost(&f.run, f.now, &since);
    assert_true(since > 0);
    engine_state_check_server_lost(&f.run, f.now + 10 * NS_PER_S, &since);
    assert_int_equal(atomic_load(&f.run.server_lost), 1);
    atomic_store(&engine_stop_flag, 0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_socket_same_number_is_watched),
        cmocka_unit_test(test_client_failures_add_up),
        cmocka_unit_test(test_connect_time_excludes_warmup),
        cmocka_unit_test(test_pipelined_statements_counted),
        cmocka_unit_test(test_latency_beyond_range_reported),
        cmocka_unit_test(test_server_lost_counts_running_clients),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
