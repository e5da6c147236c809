/* The engine's feed clients (engine/feed.h) in virtual time against the fake connection: the
 * schedule of each statement, the order within a session, latency from the intended start,
 * sessions that cannot connect, named statements prepared once per session. */
#include "engine_fixture.h"

#define MAX_ITEMS 16

/* A feed of fixed items, one list per client; the outcomes are kept for the checks. */
struct test_feed {
    int n[2];
    struct engine_feed_item items[2][MAX_ITEMS];
    int next[2];
    int n_done, n_failed_sessions;
    struct engine_feed_outcome out[MAX_ITEMS * 2];
    uint32_t out_session[MAX_ITEMS * 2];
};

static struct test_feed TF;
static const struct pg_connopts session_conn = {0};

static void *tf_open(void *arg, int worker, int first, int n)
{
    (void)worker;
    (void)first;
    (void)n;
    return arg;
}

static int tf_next(void *ws, int client, struct engine_feed_item *it)
{
    struct test_feed *f = ws;
    if (f->next[client] >= f->n[client])
        return -1;
    *it = f->items[client][f->next[client]++];
    return 1;
}

static int tf_done(void *ws, int client, const struct engine_feed_item *it,
                   const struct engine_feed_outcome *o)
{
    (void)client;
    struct test_feed *f = ws;
    f->out_session[f->n_done] = it->session;
    f->out[f->n_done++] = *o;
    return 1;
}

static void tf_failed(void *ws, int client, uint32_t session, const char *why)
{
    (void)client;
    (void)session;
    (void)why;
    ((struct test_feed *)ws)->n_failed_sessions++;
}

static void tf_close(void *ws)
{
    (void)ws;
}

static void add(int client, enum engine_feed_kind kind, int64_t offset_us, const char *text)
{
    struct engine_feed_item *it = &TF.items[client][TF.n[client]++];
    *it = (struct engine_feed_item){.kind = kind,
                                    .offset_us = offset_us,
                                    .session = (uint32_t)client,
                                    .conn = &session_conn,
                                    .ordinal = (uint64_t)client,
                                    .proto = FEED_SIMPLE,
                                    .text = text,
                                    .name = "",
                                    .cancel_us = -1};
}

static struct engine_feed feed_of(double speed)
{
    return (struct engine_feed){.speed = speed,
                                .arg = &TF,
                                .open = tf_open,
                                .next = tf_next,
                                .done = tf_done,
                                .session_failed = tf_failed,
                                .close = tf_close};
}

/* A source's order (engine/feed.h's ready): "SELECT B" may not start before "SELECT A" is
 * done; the checks are counted. */
static int tf_ready_asks;

static int tf_ready(void *ws, int client, const struct engine_feed_item *it,
                    struct engine_feed_due *d)
{
    struct test_feed *f = ws;
    (void)client;
    assert_false(d->in_tx);
    tf_ready_asks++;
    if (strcmp(it->text, "SELECT B") != 0)
        return 1;
    for (int i = 0; i < f->n_done; i++)
        if (f->out_session[i] == 0)
            return 1;
    return 0;
}

/* Start a feed run of n clients at now (no setup connections). */
static void feed_start(struct fx *f, const struct engine_feed *feed, int n)
{
    f->cfg.feed = feed;
    f->cfg.clients = n;
    f->cfg.tx_per_client = 0;
    engine_state_init(&f->run, &f->cfg);
    f->w = &f->run.workers[0];
    assert_int_equal(f->w->n_setup_pending, 0);
    f->run.go_ns = f->run.start_ns = f->now;
    worker_begin(f->w, f->now);
}

#define MS(x) ((time_ns)(x)*NS_PER_MS)

/* A fixture (its one script is never run) and an empty feed. */
static void fresh(struct fx *f)
{
    fx_init(f, "\\set x 1\n");
    memset(&TF, 0, sizeof TF);
}

/* Client's session connects at 0, runs text at at_us and ends at end_us. */
static void one_statement(int client, int64_t at_us, const char *text, int64_t end_us)
{
    add(client, FEED_CONNECT, 0, NULL);
    add(client, FEED_STATEMENT, at_us, text);
    add(client, FEED_DISCONNECT, end_us, NULL);
}

/* The first session connects at 0 and runs SELECT 1 and SELECT 2 at 10 and 20 ms. */
static void two_selects(void)
{
    add(0, FEED_CONNECT, 0, NULL);
    add(0, FEED_STATEMENT, 10000, "SELECT 1");
    add(0, FEED_STATEMENT, 20000, "SELECT 2");
}

/* A statement goes at its offset, not before; the next waits for the one before it, and its
 * latency counts from its own intended start (the wait included); the lag is apart. */
static void test_schedule_and_latency(void **state)
{
    (void)state;
    struct fx f;
    fresh(&f);
    two_selects();
    add(0, FEED_DISCONNECT, 30000, NULL);
    struct engine_feed feed = feed_of(1);
    fake_push_kind(FAKE_HANG); /* SELECT 1 runs until released */
    feed_start(&f, &feed, 1);
    fx_at(&f, MS(5));
    assert_int_equal(fake_count_sent("Q SELECT"), 0);
    fx_at(&f, MS(10));
    assert_int_equal(fake_count_sent("Q SELECT 1"), 1);
    fx_at(&f, MS(25)); /* SELECT 2 is due, but SELECT 1 is still running */
    assert_int_equal(fake_count_sent("Q SELECT 2"), 0);
    fake_release(fake_last_conn(), (struct fake_reply){.kind = FAKE_COMMAND});
    fx_at(&f, MS(26));
    fx_at(&f, MS(26));
    assert_int_equal(fake_count_sent("Q SELECT 2"), 1);
    fx_at(&f, MS(40));
    fx_run(&f, 8);
    assert_int_equal(f.w->n_live, 0);
    assert_int_equal(TF.n_done, 2);
    assert_true(TF.out[0].ok && TF.out[1].ok);
    assert_int_equal(TF.out[0].latency_us, 16000); /* 10 ms .. 26 ms */
    assert_int_equal(TF.out[1].lag_us, 6000);      /* due at 20 ms, sent at 26 ms */
    assert_int_equal(TF.out[1].latency_us, 6000);  /* from 20 ms, not from 26 ms */
    assert_int_equal(fake_n_open(), 0);            /* the session's end closed it */
    struct engine_result r;
    fx_collect(&f, &r);
    assert_int_equal(r.n_tx, 2);
    engine_result_free(&r);
    fx_free(&f);
}

/* At speed 2 the same offsets come twice as soon; at speed max at once, in order. */
static void test_speed(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        struct fx f;
        fresh(&f);
        two_selects();
        struct engine_feed feed = feed_of(k == 0 ? 2 : 0);
        feed_start(&f, &feed, 1);
        fx_at(&f, MS(4));
        fx_at(&f, MS(4));
        assert_int_equal(fake_count_sent("Q SELECT 1"), k == 0 ? 0 : 1);
        fx_at(&f, MS(5));
        fx_at(&f, MS(5));
        assert_int_equal(fake_count_sent("Q SELECT 1"), 1);
        assert_int_equal(fake_count_sent("Q SELECT 2"), k == 0 ? 0 : 1);
        fx_at(&f, MS(10));
        fx_run(&f, 8);
        assert_int_equal(fake_count_sent("Q SELECT 2"), 1);
        assert_int_equal(TF.n_done, 2);
        fx_free(&f);
    }
}

/* A session that cannot connect is counted; its statements come back unsent; the next
 * client's session runs. */
static void test_failed_session(void **state)
{
    (void)state;
    struct fx f;
    fresh(&f);
    one_statement(0, 1000, "SELECT 1", 2000);
    one_statement(1, 1000, "SELECT 2", 2000);
    fake_push_connect(FAKE_CONNECT_FAIL);
    struct engine_feed feed = feed_of(1);
    feed_start(&f, &feed, 2);
    for (int t = 0; t <= 3; t++)
        fx_at(&f, MS(t));
    fx_run(&f, 8);
    assert_int_equal(TF.n_failed_sessions, 1);
    assert_int_equal(TF.n_done, 2);
    assert_int_equal(TF.out_session[0] + TF.out_session[1], 1);
    assert_int_equal(TF.out[0].sent + TF.out[1].sent, 1);
    assert_int_equal(fake_count_sent("Q SELECT"), 1);
    fx_free(&f);
}

/* A named statement is prepared once in its session and executed each time. */
static void test_named_prepared_once(void **state)
{
    (void)state;
    struct fx f;
    fresh(&f);
    static const char *const one[] = {"1"}, *const two[] = {NULL};
    add(0, FEED_CONNECT, 0, NULL);
    for (int i = 0; i < 2; i++) {
        add(0, FEED_STATEMENT, 1000 + 1000 * i, "SELECT $1::int");
        struct engine_feed_item *it = &TF.items[0][TF.n[0] - 1];
        it->proto = FEED_NAMED;
        it->name = "s1";
        it->n_params = 1;
        it->params = i ? two : one;
    }
    struct engine_feed feed = feed_of(0);
    feed_start(&f, &feed, 1);
    fx_run(&f, 12);
    assert_int_equal(fake_count_sent("P s1"), 1);
    assert_int_equal(fake_count_sent("E s1 | 1"), 1);
    assert_int_equal(fake_count_sent("E s1 | NULL"), 1);
    assert_int_equal(TF.n_done, 2);
    fx_free(&f);
}

/* A named statement item of client 0 at at_us. */
static struct engine_feed_item *named(int64_t at_us, const char *name, const char *text)
{
    add(0, FEED_STATEMENT, at_us, text);
    struct engine_feed_item *it = &TF.items[0][TF.n[0] - 1];
    it->proto = FEED_NAMED;
    it->name = name;
    return it;
}

/* The session's DEALLOCATE is followed: the name's next use prepares it again; a name used
 * for another text without one (a protocol Close, which no log shows) is deallocated by the
 * engine and prepared anew; DISCARD ALL forgets every name. Nothing fails with 26000 or
 * 42P05. */
static void test_named_prepared_again(void **state)
{
    (void)state;
    struct fx f;
    fresh(&f);
    add(0, FEED_CONNECT, 0, NULL);
    named(1000, "s1", "SELECT 1");
    named(2000, "s1", "SELECT 1");
    add(0, FEED_STATEMENT, 3000, "DEALLOCATE \"s1\"");
    TF.items[0][TF.n[0] - 1].unprepare = FEED_UNPREPARE_NAMES;
    TF.items[0][TF.n[0] - 1].unprepare_names = "s1\0";
    named(4000, "s1", "SELECT 2");
    named(5000, "s1", "SELECT 3");
    add(0, FEED_STATEMENT, 6000, "DISCARD ALL");
    TF.items[0][TF.n[0] - 1].unprepare = FEED_UNPREPARE_ALL;
    named(7000, "s1", "SELECT 3");
    struct engine_feed feed = feed_of(0);
    feed_start(&f, &feed, 1);
    fx_run(&f, 40);
    assert_int_equal(TF.n_done, 7);
    int prepared = 0;
    for (int i = 0; i < TF.n_done; i++) {
        assert_true(TF.out[i].ok);
        prepared += TF.out[i].prepared;
    }
    assert_int_equal(prepared, 4);
    assert_int_equal(fake_count_sent("P s1"), 4);
    assert_int_equal(fake_count_sent("E s1"), 5);
    assert_int_equal(fake_count_sent("Q DEALLOCATE \"s1\""), 2); /* the capture's, the engine's */
    assert_true(TF.out[3].prepared && TF.out[4].prepared && TF.out[6].prepared);
    assert_false(TF.out[1].prepared);
    fx_free(&f);
}

/* A statement the feed's ready holds back waits past its due time without its worker
 * blocking (the other client's statement runs and ends), starts as soon as that statement
 * ends (woken, not at the next look), and the wait counts in its lag, not in its client's. */
static void test_ready_holds_back(void **state)
{
    (void)state;
    struct fx f;
    fresh(&f);
    tf_ready_asks = 0;
    one_statement(0, 10000, "SELECT A", 40000);
    one_statement(1, 15000, "SELECT B", 40000);
    struct engine_feed feed = feed_of(1);
    feed.ready = tf_ready;
    fake_push_kind(FAKE_HANG); /* SELECT A runs until released */
    feed_start(&f, &feed, 2);
    for (int t = 0; t <= 20; t++)
        fx_at(&f, MS(t));
    assert_int_equal(fake_count_sent("Q SELECT A"), 1);
    assert_int_equal(fake_count_sent("Q SELECT B"), 0); /* due at 15 ms, held back */
    assert_true(tf_ready_asks >= 2);
    fake_release(f.w->clients[0].conn, (struct fake_reply){.kind = FAKE_COMMAND});
    fx_at(&f, MS(21) + 1);
    fx_at(&f, MS(21) + 1);
    assert_int_equal(fake_count_sent("Q SELECT B"), 1);
    fx_at(&f, MS(50));
    fx_run(&f, 8);
    assert_int_equal(TF.n_done, 2);
    assert_int_equal(TF.out_session[1], 1);
    assert_true(TF.out[1].ok);
    assert_int_equal(TF.out[1].lag_us, 6000); /* due at 15 ms, sent at 21 ms */
    assert_int_equal(TF.out[1].client_lag_us, 0);
    fx_free(&f);
}

/* A statement its client sent before the one before it had its results (next_pipelined) is
 * sent in pipeline mode once it is due, while that one still runs; each has its Sync; the
 * outcomes come in order, each latency from its own intended start. A Sync group's statements
 * (sync_open) share one Sync. Then the pipeline mode is left: the next statement is sent
 * after the one before. */
static void test_pipelined_sent_ahead(void **state)
{
    (void)state;
    struct fx f;
    fresh(&f);
    add(0, FEED_CONNECT, 0, NULL);
    add(0, FEED_STATEMENT, 10000, "SELECT A");
    add(0, FEED_STATEMENT, 12000, "SELECT B");
    add(0, FEED_STATEMENT, 13000, "SELECT C");
    add(0, FEED_STATEMENT, 30000, "SELECT D");
    add(0, FEED_DISCONNECT, 40000, NULL);
    for (int i = 1; i <= 4; i++)
        TF.items[0][i].proto = FEED_UNNAMED;
    TF.items[0][1].next_pipelined = 1; /* B went before A's results, */
    TF.items[0][2].next_pipelined = 1; /* C before B's, */
    TF.items[0][2].sync_open = 1;      /* in B's Sync group */
    struct engine_feed feed = feed_of(1);
    fake_push_kind(FAKE_HANG); /* SELECT A runs until released */
    feed_start(&f, &feed, 1);
    for (int t = 0; t <= 11; t++)
        fx_at(&f, MS(t));
    assert_int_equal(fake_count_sent("X SELECT A"), 1);
    assert_int_equal(fake_count_sent("X SELECT B"), 0); /* due at 12 ms */
    fx_at(&f, MS(12));
    fx_at(&f, MS(13));
    assert_int_equal(fake_count_sent("X SELECT B"), 1); /* A still runs */
    assert_int_equal(fake_count_sent("X SELECT C"), 1);
    assert_int_equal(fake_count_sent("SYNC"), 2); /* A's; B and C's */
    assert_int_equal(TF.n_done, 0);
    fake_release(f.w->clients[0].conn, (struct fake_reply){.kind = FAKE_COMMAND});
    fx_at(&f, MS(20));
    fx_at(&f, MS(20));
    assert_int_equal(TF.n_done, 3);
    for (int t = 21; t <= 45; t++)
        fx_at(&f, MS(t));
    fx_run(&f, 8);
    assert_int_equal(TF.n_done, 4);
    for (int i = 0; i < 4; i++)
        assert_true(TF.out[i].ok);
    assert_int_equal(TF.out[0].latency_us, 10000); /* 10 ms .. 20 ms */
    assert_int_equal(TF.out[1].lag_us, 0);         /* sent when due */
    assert_int_equal(TF.out[1].latency_us, 8000);  /* 12 ms .. 20 ms */
    assert_int_equal(TF.out[2].latency_us, 7000);  /* 13 ms .. 20 ms */
    assert_true(!TF.out[0].sent_ahead && TF.out[1].sent_ahead && TF.out[2].sent_ahead);
    assert_false(TF.out[3].sent_ahead);
    assert_int_equal(fake_count_sent("SYNC"), 2); /* D: out of pipeline mode */
    assert_int_equal(fake_count_sent("X SELECT D"), 1);
    assert_false(f.w->clients[0].conn && pg_in_pipeline(f.w->clients[0].conn));
    fx_free(&f);
}

/* A COPY TO STDOUT's rows are read as they come (one per read here: the client waits for
 * the next without blocking its worker, whose other client's statement runs meanwhile) and
 * dropped; the COPY succeeds and its session goes on. */
static void test_copy_out_read_and_dropped(void **state)
{
    (void)state;
    struct fx f;
    fresh(&f);
    add(0, FEED_CONNECT, 0, NULL);
    add(0, FEED_STATEMENT, 1000, "COPY t TO STDOUT");
    add(0, FEED_STATEMENT, 2000, "SELECT 2");
    add(0, FEED_DISCONNECT, 3000, NULL);
    one_statement(1, 1500, "SELECT B", 3000);
    fake_push((struct fake_reply){.kind = FAKE_COPY_OUT, .copy_rows = 5});
    struct engine_feed feed = feed_of(1);
    feed_start(&f, &feed, 2);
    for (int t = 0; t <= 1; t++)
        fx_at(&f, MS(t));
    assert_int_equal(fake_count_sent("Q COPY t TO STDOUT"), 1);
    assert_true(fake_copy_rows_read() < 5); /* the rows come one per read */
    for (int t = 2; t <= 4; t++)
        fx_at(&f, MS(t));
    fx_run(&f, 16);
    assert_int_equal(fake_copy_rows_read(), 5);
    assert_int_equal(TF.n_failed_sessions, 0);
    assert_int_equal(TF.n_done, 3);
    for (int i = 0; i < 3; i++)
        assert_true(TF.out[i].ok);
    assert_int_equal(fake_count_sent("Q SELECT 2"), 1);
    assert_int_equal(fake_count_sent("Q SELECT B"), 1);
    fx_free(&f);
}

/* A COPY FROM STDIN is given its item's data whole (in chunks the output takes, waiting
 * when it is full), then its end; one without data (a COPY inside a statement of several,
 * whose data no log holds) is given no rows: it succeeds, its session goes on, and the
 * outcome counts it. */
static void test_copy_in_fed(void **state)
{
    (void)state;
    struct fx f;
    fresh(&f);
    static const char data[] = "1\tone\n2\ttwo\n3\tthree\n";
    one_statement(0, 1000, "COPY t FROM STDIN", 3000);
    TF.items[0][1].copy_data = data;
    TF.items[0][1].copy_len = sizeof data - 1;
    one_statement(1, 1000, "COPY u FROM STDIN", 3000);
    fake_push((struct fake_reply){.kind = FAKE_COPY_IN});
    fake_push((struct fake_reply){.kind = FAKE_COPY_IN});
    struct engine_feed feed = feed_of(1);
    feed_start(&f, &feed, 2);
    for (int t = 0; t <= 4; t++)
        fx_at(&f, MS(t));
    fx_run(&f, 16);
    assert_string_equal(fake_copy_in(), data); /* u's COPY added nothing */
    assert_int_equal(fake_count_sent("COPY END"), 2);
    assert_int_equal(TF.n_done, 2);
    assert_int_equal(TF.n_failed_sessions, 0);
    for (int i = 0; i < 2; i++) {
        assert_true(TF.out[i].ok);
        assert_int_equal(TF.out[i].copy_empty, TF.out_session[i] == 1);
    }
    fx_free(&f);
}

/* A statement of three COPY FROM STDIN with data in two parts (its client failing none, or
 * the one copy_fail_at says with "aborted"), fed to a server that runs it. */
static void run_three_copies(struct fx *f, const char *data, const size_t *parts, int fail_at)
{
    fresh(f);
    one_statement(0, 1000, "COPY t FROM STDIN; COPY t FROM STDIN; COPY t FROM STDIN", 3000);
    struct engine_feed_item *it = &TF.items[0][1];
    it->copy_data = data;
    it->copy_len = strlen(data);
    it->n_copy_parts = 2;
    it->copy_parts = parts;
    it->copy_fail = fail_at >= 0 ? "aborted" : NULL;
    it->copy_fail_at = fail_at >= 0 ? fail_at : 0;
    fake_push((struct fake_reply){.kind = FAKE_COPY_IN, .copies = 3});
    static struct engine_feed feed; /* the run's until fx_free */
    feed = feed_of(1);
    feed_start(f, &feed, 1);
    for (int t = 0; t <= 4; t++)
        fx_at(f, MS(t));
    fx_run(f, 16);
    assert_string_equal(fake_copy_in(), data);
    assert_int_equal(TF.n_done, 1);
}

/* A statement of several COPY FROM STDIN with its data in parts: each COPY is given its own
 * part, in order, and one beyond the parts no rows (counted in copy_empty). */
static void test_copy_in_parts(void **state)
{
    (void)state;
    struct fx f;
    static const size_t parts[] = {7, 5};
    run_three_copies(&f, "1\n2\n\\.\n3\n\\.\n", parts, -1);
    assert_int_equal(fake_count_sent("COPY END 7"), 1);
    assert_int_equal(fake_count_sent("COPY END 5"), 1);
    assert_int_equal(fake_count_sent("COPY END 0"), 1);
    assert_true(TF.out[0].ok);
    assert_int_equal(TF.out[0].copy_empty, 1);
    fx_free(&f);
}

/* A COPY its client failed in the capture (copy_fail): given its part, then ended with a
 * CopyFail carrying the client's message, not a CopyDone; the COPY before it ends as usual,
 * and the statement fails with the server's error (57014), its further COPY not run. */
static void test_copy_in_failed(void **state)
{
    (void)state;
    struct fx f;
    static const size_t parts[] = {7, 2};
    run_three_copies(&f, "1\n2\n\\.\n3\n", parts, 1);
    assert_int_equal(fake_count_sent("COPY END 7"), 1);
    assert_int_equal(fake_count_sent("COPY FAIL aborted"), 1);
    assert_int_equal(fake_count_sent("COPY END 2"), 0);
    assert_int_equal(fake_count_sent("COPY END 0"), 0);
    assert_false(TF.out[0].ok);
    assert_string_equal(TF.out[0].sqlstate, "57014");
    assert_int_equal(TF.out[0].copy_empty, 0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule_and_latency),
        cmocka_unit_test(test_speed),
        cmocka_unit_test(test_failed_session),
        cmocka_unit_test(test_named_prepared_once),
        cmocka_unit_test(test_named_prepared_again),
        cmocka_unit_test(test_ready_holds_back),
        cmocka_unit_test(test_pipelined_sent_ahead),
        cmocka_unit_test(test_copy_out_read_and_dropped),
        cmocka_unit_test(test_copy_in_fed),
        cmocka_unit_test(test_copy_in_parts),
        cmocka_unit_test(test_copy_in_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
