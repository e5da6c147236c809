/* The cumulative counts a worker publishes for the journal's counters lines (engine/counters.c),
 * in virtual time against the fake connection: asked for an interval, they hold exactly the
 * transactions (and statements) of that interval and those before it, the same ones the
 * intervals handed over up to it hold, and a request that comes after the worker moved past
 * the interval gives none. */
#include "engine_fixture.h"

#define MS(x) ((time_ns)(x)*NS_PER_MS)

/* Two clients running script for 4 s, asking for counters. */
static void setup_clients(struct fx *f, const char *script)
{
    fx_init(f, script);
    f->cfg.clients = 2;
    f->cfg.tx_per_client = 0;
    f->cfg.duration_s = 4;
    f->cfg.counters = 1;
    assert_int_equal(fx_start(f), 0);
}

/* Two clients, a transaction each every 100 ms, starting at 0: a SELECT, then 100 ms of sleep
 * that the transaction ends with. Before 2.0 s (the end of interval 1) each has sent 20
 * SELECTs (at 0, 0.1, .. 1.9 s) and ended 19 transactions (at 0.1, .. 1.9 s); the ones ending
 * at 2.0 s are interval 2's. */
static void setup_two_clients(struct fx *f)
{
    setup_clients(f, "SELECT 1;\n\\sleep 100 ms\n");
}

static void test_counts_through_the_interval_asked_for(void **state)
{
    (void)state;
    struct fx f;
    setup_two_clients(&f);
    for (int t = 0; t <= 500; t++)
        fx_at(&f, MS(t));
    atomic_store(&f.run.counters_want, 1); /* asked at 0.5 s, for interval 1 */
    for (int t = 501; t <= 2050; t++)
        fx_at(&f, MS(t));
    struct engine_result so_far;
    assert_int_equal(engine_counters_collect(&f.run, 1, &so_far), 1);
    assert_int_equal(so_far.n_clients, 2);
    assert_int_equal(so_far.clients[0].n_tx, 19);
    assert_int_equal(so_far.clients[1].n_tx, 19);
    assert_int_equal(so_far.n_scripts, 1);
    assert_int_equal(so_far.scripts[0].n_tx, 38);
    assert_int_equal(hist_count(so_far.scripts[0].latency), 38);
    assert_int_equal(so_far.n_statements, 1);
    assert_int_equal(so_far.statements[0].count, 40);
    /* The intervals handed over up to 1 hold the same transactions. */
    struct interval acc = {0};
    series_take_into(&f.w->series, 1, 0, &acc);
    assert_int_equal(acc.n_tx, 38);
    hist_sparse_free(&acc.latency);
    /* They are for interval 1 only: not for 0, nor for 2 (asked for, not yet published). */
    struct engine_result none;
    assert_int_equal(engine_counters_collect(&f.run, 0, &none), 0);
    assert_int_equal(engine_counters_collect(&f.run, 2, &none), 0);
    engine_result_free(&so_far);
    fx_free(&f);
}

/* Sparse events (a transaction every 700 ms per client: statements at 0, 0.7, 1.4, 2.1 s,
 * ends at 0.7, 1.4, 2.1 s): the worker reads the request at its first event in an interval
 * (1.4 s, in interval 1), and publishes before the first one past interval 1 (2.1 s) counts. */
static void test_sparse_events_counted_up_to_the_interval(void **state)
{
    (void)state;
    struct fx f;
    setup_clients(&f, "SELECT 1;\n\\sleep 700 ms\n");
    for (int t = 0; t <= 500; t++)
        fx_at(&f, MS(t));
    atomic_store(&f.run.counters_want, 1);
    for (int t = 501; t <= 2200; t++)
        fx_at(&f, MS(t));
    struct engine_result so_far;
    assert_int_equal(engine_counters_collect(&f.run, 1, &so_far), 1);
    assert_int_equal(so_far.clients[0].n_tx, 2);
    assert_int_equal(so_far.clients[1].n_tx, 2);
    assert_int_equal(so_far.statements[0].count, 6);
    struct interval acc = {0};
    series_take_into(&f.w->series, 1, 0, &acc);
    assert_int_equal(acc.n_tx, 4);
    hist_sparse_free(&acc.latency);
    engine_result_free(&so_far);
    fx_free(&f);
}

/* Asked at 1.5 s for interval 0, which the worker has moved past: what it publishes holds
 * interval 1's transactions too, so it is none for interval 0. */
static void test_asked_too_late_gives_none(void **state)
{
    (void)state;
    struct fx f;
    setup_two_clients(&f);
    for (int t = 0; t <= 1500; t++)
        fx_at(&f, MS(t));
    atomic_store(&f.run.counters_want, 0);
    for (int t = 1501; t <= 2500; t++)
        fx_at(&f, MS(t));
    assert_int_equal(f.w->pub.hi, 0); /* published, for interval 0, */
    assert_int_equal(f.w->pub.lo, 1); /* holding interval 1's */
    struct engine_result none;
    assert_int_equal(engine_counters_collect(&f.run, 0, &none), 0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts_through_the_interval_asked_for),
        cmocka_unit_test(test_asked_too_late_gives_none),
        cmocka_unit_test(test_sparse_events_counted_up_to_the_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
