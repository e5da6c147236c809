#include "engine_fixture.h"

#include <pthread.h>
#include <time.h>

/* A stop request while the clients connect, through the real engine_run (its threads): the
 * run fails with the cause the stop was given (run --agents: the run was lost by another
 * agent), or says it was interrupted when the stop had no cause, or came after one without
 * (a signal of the agent's own). The one client's connection never completes. */

struct stopped_run {
    struct fx f;
    struct engine_result out;
    struct err e;
    int rc;
};

static void *run_engine(void *arg)
{
    struct stopped_run *r = arg;
    r->rc = engine_run(&r->f.cfg, &r->out, &r->e);
    return NULL;
}

/* engine_run in a thread of its own, its client connecting (the fake counts the attempt
 * before the worker waits on it: read from here, as a test may), then stop (a function of
 * the test's) and the run's end. */
static void run_stopped(struct stopped_run *r, void (*stop)(void))
{
    memset(r, 0, sizeof *r);
    fx_init(&r->f, "SELECT 1;\n");
    fake_push_connect(FAKE_CONNECT_HANG);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, run_engine, r), 0);
    for (int i = 0; i < 5000 && fake_n_connects() == 0; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    assert_int_equal(fake_n_connects(), 1);
    stop();
    pthread_join(t, NULL);
    fx_free(&r->f);
}

#define LOST "run: run r1 was lost before it started: agent 1 could not take part: refused"

static void stop_with_cause(void)
{
    engine_request_stop_because(LOST);
}

static void stop_plain(void)
{
    engine_request_stop();
}

static void stop_plain_then_with_cause(void)
{
    engine_request_stop();
    engine_request_stop_because(LOST);
}

static void test_stop_with_cause_names_it(void **state)
{
    (void)state;
    struct stopped_run r;
    run_stopped(&r, stop_with_cause);
    assert_int_equal(r.rc, -1);
    assert_int_equal(r.e.code, ERR_RUNTIME);
    assert_string_equal(r.e.msg, LOST);
}

static void test_plain_stop_says_interrupted(void **state)
{
    (void)state;
    struct stopped_run r;
    run_stopped(&r, stop_plain);
    assert_int_equal(r.rc, -1);
    assert_string_equal(r.e.msg, "interrupted while connecting");
}

static void test_first_stop_keeps_its_cause(void **state)
{
    (void)state;
    struct stopped_run r;
    run_stopped(&r, stop_plain_then_with_cause);
    assert_int_equal(r.rc, -1);
    assert_string_equal(r.e.msg, "interrupted while connecting");
}

/* The cause of one run's stop is not the next run's. */
static void test_next_run_forgets_the_cause(void **state)
{
    (void)state;
    struct stopped_run r;
    run_stopped(&r, stop_with_cause);
    assert_string_equal(r.e.msg, LOST);
    run_stopped(&r, stop_plain);
    assert_string_equal(r.e.msg, "interrupted while connecting");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_with_cause_names_it),
        cmocka_unit_test(test_plain_stop_says_interrupted),
        cmocka_unit_test(test_first_stop_keeps_its_cause),
        cmocka_unit_test(test_next_run_forgets_the_cause),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
