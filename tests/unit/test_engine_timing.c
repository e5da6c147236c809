/* The engine's timing properties that integration tests used to judge by the wall clock
 * (issue 35: a VM that loses its CPU for seconds made them flake), here in virtual time
 * against the fake connection: --warmup's transactions run but are not counted; a statement's
 * latency is the time from its send to its result (a known spread of server times gives
 * known percentiles); a paced replay feed lasts its schedule divided by the speed, and a
 * session that falls behind its schedule has a lag that is not the client's own; a server
 * gone for good ends the run 10 s after it lost every client. The integration tests keep
 * what only a real server shows: counts, server-side effects and orderings. */
#include "engine_fixture.h"

#define MS(x) ((time_ns)(x)*NS_PER_MS)

/* --warmup 2 -T 2 with a transaction every 100 ms: the server runs the warm-up's too, the
 * run counts only the measured part's, which lasts 2 s in two intervals. */
static void test_warmup_runs_but_is_not_counted(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n\\sleep 100 ms\n");
    f.cfg.tx_per_client = 0;
    f.cfg.warmup_s = 2;
    f.cfg.duration_s = 2;
    assert_int_equal(fx_start(&f), 0);
    for (int t = 0; t <= 4300 && f.w->n_live > 0; t++)
        fx_at(&f, t * NS_PER_MS);
    assert_int_equal(f.w->n_live, 0);
    struct engine_result r;
    fx_collect(&f, &r);
    int sent = fake_count_sent("SELECT 1");
    /* One SELECT every 100 ms from 0 until the end at 4 s. A transaction counts when it ends
     * in the measured part: the 21 ending at 2.0, 2.1, .. 4.0 s; the warm-up's 19 ending at
     * 0.1 .. 1.9 s ran on the server and do not. */
    assert_int_equal(sent, 40);
    assert_int_equal(r.n_tx, 21);
    assert_int_equal(hist_count(r.latency), r.n_tx);
    assert_int_equal(r.duration_ns, 2 * NS_PER_S);
    assert_int_equal(r.series.n, 2);
    engine_result_free(&r);
    fx_free(&f);
}

/* One client, 100 transactions, the k-th answered (100 + 200 k) us after it was sent, in a
 * shuffled order: latencies uniform over 0.1 .. 19.9 ms, so p50 is 9.9 ms, p90 17.9 ms and
 * their distance 8 ms, as a uniform 0-20 ms pg_sleep gives on a real server. */
static void test_latency_is_send_to_result(void **state)
{
    (void)state;
    enum { N = 100 };
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.tx_per_client = N;
    for (int k = 0; k < N; k++)
        fake_push_kind(FAKE_HANG);
    assert_int_equal(fx_start(&f), 0);
    time_ns t = 0;
    for (int k = 0; k < N; k++) {
        fx_at(&f, t);
        assert_int_equal(fake_count_sent("SELECT 1"), k + 1);
        int slot = (k * 37) % N; /* a permutation of 0 .. 99: 37 and 100 are coprime */
        t += (time_ns)(100 + 200 * slot) * NS_PER_US;
        fake_release(fx_client(&f, 0)->conn, (struct fake_reply){.kind = FAKE_COMMAND});
        fx_at(&f, t);
    }
    fx_run(&f, 5);
    assert_int_equal(f.w->n_live, 0);
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, N);
    /* The histogram's bins are 0.1 % wide. */
    int64_t p50 = hist_percentile(r.latency, 50), p90 = hist_percentile(r.latency, 90);
    assert_in_range(p50, 9890, 9910);
    assert_in_range(p90, 17880, 17920);
    assert_in_range(p90 - p50, 7970, 8030);
    assert_int_equal(hist_min(r.latency), 100);
    assert_int_equal(hist_max(r.latency), 19900);
    engine_result_free(&r);
    fx_free(&f);
}

/* A paced replay feed: one session that connects at 0 and sends 8 statements, one every gap
 * ms from gap ms on. Items are made on the fly; the outcomes are kept. */
struct paced {
    int gap_ms;
    int next;
    int done;
    struct engine_feed_outcome out[8];
};

static struct paced PACED;
static const struct pg_connopts paced_conn = {0};

static void *paced_open(void *arg, int worker, int first, int n)
{
    (void)worker;
    (void)first;
    (void)n;
    return arg;
}

static int paced_next(void *ws, int client, struct engine_feed_item *it)
{
    struct paced *p = ws;
    if (client != 0 || p->next > 8)
        return -1;
    int k = p->next++;
    *it = (struct engine_feed_item){.kind = k == 0 ? FEED_CONNECT : FEED_STATEMENT,
                                    .offset_us = (int64_t)k * p->gap_ms * 1000,
                                    .session = 0,
                                    .conn = &paced_conn,
                                    .proto = FEED_SIMPLE,
                                    .text = k == 0 ? NULL : "SELECT v FROM t",
                                    .name = "",
                                    .cancel_us = -1};
    return 1;
}

static int paced_done(void *ws, int client, const struct engine_feed_item *it,
                      const struct engine_feed_outcome *o)
{
    (void)client;
    (void)it;
    struct paced *p = ws;
    p->out[p->done++] = *o;
    return 1;
}

static void paced_failed(void *ws, int client, uint32_t session, const char *why)
{
    (void)ws;
    (void)client;
    (void)session;
    (void)why;
    fail_msg("the paced session failed");
}

static void paced_close(void *ws)
{
    (void)ws;
}

/* Start a paced feed run at speed (0: max), statements every gap_ms. */
static void paced_start(struct fx *f, struct engine_feed *feed, double speed, int gap_ms)
{
    fx_init(f, "\\set x 1\n");
    memset(&PACED, 0, sizeof PACED);
    PACED.gap_ms = gap_ms;
    *feed = (struct engine_feed){.speed = speed,
                                 .arg = &PACED,
                                 .open = paced_open,
                                 .next = paced_next,
                                 .done = paced_done,
                                 .session_failed = paced_failed,
                                 .close = paced_close};
    f->cfg.feed = feed;
    f->cfg.tx_per_client = 0;
    engine_state_init(&f->run, &f->cfg);
    f->w = &f->run.workers[0];
    f->run.go_ns = f->run.start_ns = f->now;
    worker_begin(f->w, f->now);
}

/* Step virtual time by 1 ms until the run is over (at most 2 s); every statement sent is
 * answered hold_ms after its send. Returns the run's result (the caller frees it). */
static void paced_run(struct fx *f, int hold_ms, struct engine_result *r)
{
    int sent = 0, answered = 0;
    time_ns sent_at[8] = {0};
    for (int t = 0; t <= 2000 && f->w->n_live > 0; t++) {
        fx_at(f, t * NS_PER_MS);
        for (int k = 0; k < 20; k++) {
            if (answered < sent && f->now - sent_at[answered] >= MS(hold_ms)) {
                fake_release(fx_client(f, 0)->conn, (struct fake_reply){.kind = FAKE_COMMAND});
                answered++;
            }
            fx_events(f); /* what became due after an answer at this instant */
            for (; sent < fake_count_sent("SELECT v FROM t"); sent++)
                sent_at[sent] = f->now;
        }
    }
    assert_int_equal(f->w->n_live, 0);
    assert_int_equal(PACED.done, 8);
    assert_int_equal(sent, 8);
    fx_collect(f, r);
    assert_int_equal(r->n_tx, 8);
}

/* The run's duration at a speed (0: max), each statement answered at once. */
static time_ns paced_duration(double speed)
{
    struct fx f;
    struct engine_feed feed;
    paced_start(&f, &feed, speed, 100);
    for (int k = 0; k < 8; k++)
        fake_push_kind(FAKE_HANG);
    struct engine_result r;
    paced_run(&f, 0, &r);
    time_ns d = r.duration_ns;
    engine_result_free(&r);
    fx_free(&f);
    return d;
}

/* Its schedule at speed 1 (800 ms), half of it at speed 2, no wait at speed max. */
static void test_replay_lasts_schedule_over_speed(void **state)
{
    (void)state;
    assert_int_equal(paced_duration(1), MS(800));
    assert_int_equal(paced_duration(2), MS(400));
    assert_int_equal(paced_duration(0), 0);
}

/* A session that falls behind: statements of 50 ms due every 10 ms. The k-th (from 0) is sent
 * when the one before ends, at 10 + 50 k ms, 40 k ms behind its schedule; none of that lag is
 * the client's own (it sends at the previous statement's end). */
static void test_replay_behind_lag_is_not_the_clients(void **state)
{
    (void)state;
    struct fx f;
    struct engine_feed feed;
    paced_start(&f, &feed, 1, 10);
    for (int k = 0; k < 8; k++)
        fake_push_kind(FAKE_HANG);
    struct engine_result r;
    paced_run(&f, 50, &r);
    for (int k = 0; k < 8; k++) {
        assert_true(PACED.out[k].sent && PACED.out[k].ok);
        assert_int_equal(PACED.out[k].lag_us, 40000 * k);
        assert_int_equal(PACED.out[k].client_lag_us, 0);
        assert_int_equal(PACED.out[k].latency_us, 40000 * k + 50000);
    }
    engine_result_free(&r);
    fx_free(&f);
}

/* The server gone for good: every client lost and every reconnect refused. The run gives up
 * (server-lost) 10 s after every client was lost, not before, checked every 100 ms of virtual
 * time as the run's main loop does. */
static void test_server_lost_after_ten_seconds(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.clients = 2;
    f.cfg.tx_per_client = 0;
    f.cfg.duration_s = 60;
    fake_push_kind(FAKE_LOST);
    fake_push_kind(FAKE_LOST);
    assert_int_equal(fx_start(&f), 0);
    for (int k = 0; k < 40; k++) /* 2 clients, backing off to 1 s: some 30 attempts in 10 s */
        fake_push_connect(FAKE_CONNECT_FAIL);
    time_ns since = 0;
    int at = -1;
    for (int t = 0; t <= 30000 && at < 0; t += 100) {
        fx_at(&f, t * NS_PER_MS);
        fx_events(&f);
        engine_state_check_server_lost(&f.run, f.now, &since);
        if (atomic_load(&f.run.server_lost))
            at = t;
    }
    assert_int_equal(at, 10000);
    assert_true(fake_n_connects() > 2 + 5); /* it kept trying, backing off up to 1 s */
    atomic_store(&engine_stop_flag, 0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_warmup_runs_but_is_not_counted),
        cmocka_unit_test(test_latency_is_send_to_result),
        cmocka_unit_test(test_replay_lasts_schedule_over_speed),
        cmocka_unit_test(test_replay_behind_lag_is_not_the_clients),
        cmocka_unit_test(test_server_lost_after_ten_seconds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
