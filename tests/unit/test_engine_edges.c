#include "engine_fixture.h"

/* The interval edges (engine/edges.c) in virtual time: the main thread calls the hook at the
 * measured start and at each interval's end, once each and in order, never before its time,
 * with the edge's own time even when it comes late; a -T run's last edge is its end (the last
 * interval cut short), and a -t run has none at its end. Each interval handed over has its two
 * edges: interval i ends at edge i + 1. */

#define MAX_SEEN 64

struct seen {
    size_t n;
    size_t k[MAX_SEEN];
    time_ns edge[MAX_SEEN], at[MAX_SEEN];
    const time_ns *now;
    size_t n_iv;
    double iv_t_s[MAX_SEEN], iv_duration_s[MAX_SEEN];
};

static void on_edge(size_t k, time_ns edge_ns, void *arg)
{
    struct seen *s = arg;
    assert_true(s->n < MAX_SEEN);
    s->k[s->n] = k;
    s->edge[s->n] = edge_ns;
    s->at[s->n++] = *s->now;
}

static void on_interval(const struct engine_interval *iv, void *arg)
{
    struct seen *s = arg;
    assert_true(s->n_iv < MAX_SEEN);
    assert_int_equal(iv->idx, s->n_iv);
    uint64_t in_tenths = 0; /* the same transactions, by tenth */
    for (int k = 0; k < SERIES_TENTHS; k++)
        in_tenths += iv->tenths[k];
    assert_int_equal(in_tenths, iv->n_tx);
    s->iv_t_s[s->n_iv] = iv->t_s;
    s->iv_duration_s[s->n_iv++] = iv->duration_s;
}

static void fx_edges_init(struct fx *f, struct seen *s, const char *script)
{
    memset(s, 0, sizeof *s);
    s->now = &f->now;
    fx_init(f, script);
    f->cfg.interval_edge = on_edge;
    f->cfg.interval_edge_arg = s;
    f->cfg.interval_done = on_interval;
    f->cfg.interval_arg = s;
}

/* The main thread at virtual time t (ms after the start): the clients' events, then the
 * edges, as supervise does. No edge it calls is due after now, and the next one is. */
static void step(struct fx *f, int64_t t_ms)
{
    fx_at(f, t_ms * NS_PER_MS);
    engine_state_edges(&f->run, f->now);
    time_ns next = engine_state_next_edge(&f->run);
    assert_true(next < 0 || next > f->now);
}

/* Every edge seen once, in order, at or after its time. */
static void assert_in_order(const struct seen *s)
{
    for (size_t i = 0; i < s->n; i++) {
        assert_int_equal(s->k[i], i);
        assert_true(s->at[i] >= s->edge[i]);
        if (i > 0)
            assert_true(s->edge[i] > s->edge[i - 1]);
    }
}

/* -T 1 with 400 ms intervals, transactions of 100 ms: started; its measured start. */
static time_ns start_one_second_run(struct fx *f, struct seen *s)
{
    fx_edges_init(f, s, "SELECT 1;\n\\sleep 100 ms\n");
    f->cfg.tx_per_client = 0;
    f->cfg.duration_s = 1;
    f->cfg.interval_us = 400000;
    assert_int_equal(fx_start(f), 0);
    return f->run.start_ns;
}

static void collect(struct fx *f)
{
    struct engine_result r;
    fx_collect(f, &r);
    engine_result_free(&r);
}

/* -T 1 with 400 ms intervals, the main thread waking every 25 ms: edges at 0, 400, 800 and
 * 1000 ms (the last interval's 200 ms), each at the wake-up after it; none after. (The
 * transactions end on the wake-ups, the last at 1000 ms: a completion past the end would
 * lengthen the last interval, not move its edge.) */
static void test_edges_of_a_duration_run(void **state)
{
    (void)state;
    struct fx f;
    struct seen s;
    time_ns start = start_one_second_run(&f, &s);
    assert_int_equal(engine_state_next_edge(&f.run), start);
    for (int64_t t = 0; t <= 1500; t += 25)
        step(&f, t);
    assert_int_equal(s.n, 4);
    assert_in_order(&s);
    const int64_t want_ms[] = {0, 400, 800, 1000};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(s.edge[i], start + want_ms[i] * NS_PER_MS);
        assert_true(s.at[i] - s.edge[i] < 25 * NS_PER_MS);
    }
    assert_int_equal(engine_state_next_edge(&f.run), -1);
    assert_int_equal(engine_state_edge_ns(&f.run, 4), -1);
    /* The intervals handed over end at the edges: 0.4, 0.8 and 1.0 s (0.2 s long). */
    collect(&f);
    assert_int_equal(s.n_iv, 3);
    for (size_t i = 0; i < s.n_iv; i++)
        assert_int_equal((time_ns)(s.iv_t_s[i] * 1e9 + 0.5), s.edge[i + 1] - start);
    assert_float_equal(s.iv_duration_s[2], 0.2, 1e-9);
    fx_free(&f);
}

/* The main thread lost its CPU from 10 to 950 ms: edges 1 and 2 come together, in order,
 * each with its own time; then the end at 1000 ms. */
static void test_edges_after_a_lost_cpu(void **state)
{
    (void)state;
    struct fx f;
    struct seen s;
    time_ns start = start_one_second_run(&f, &s);
    step(&f, 10);
    assert_int_equal(s.n, 1);
    step(&f, 950);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.edge[1], start + 400 * NS_PER_MS);
    assert_int_equal(s.edge[2], start + 800 * NS_PER_MS);
    assert_int_equal(s.at[1], start + 950 * NS_PER_MS);
    assert_int_equal(s.at[2], start + 950 * NS_PER_MS);
    step(&f, 999);
    assert_int_equal(s.n, 3);
    step(&f, 1000);
    step(&f, 5000);
    assert_int_equal(s.n, 4);
    assert_in_order(&s);
    assert_int_equal(s.edge[3], start + 1000 * NS_PER_MS);
    collect(&f);
    fx_free(&f);
}

/* --warmup 1: nothing during the warmup; edge 0 is the measured start, after it. */
static void test_edges_after_the_warmup(void **state)
{
    (void)state;
    struct fx f;
    struct seen s;
    fx_edges_init(&f, &s, "SELECT 1;\n\\sleep 100 ms\n");
    f.cfg.tx_per_client = 0;
    f.cfg.duration_s = 2;
    f.cfg.warmup_s = 1;
    assert_int_equal(fx_start(&f), 0);
    time_ns go = f.now;
    assert_int_equal(engine_state_next_edge(&f.run), go + NS_PER_S);
    step(&f, 999);
    assert_int_equal(s.n, 0);
    for (int64_t t = 1000; t <= 3500; t += 250)
        step(&f, t);
    assert_int_equal(s.n, 3);
    assert_in_order(&s);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(s.edge[i], go + (time_ns)(1 + i) * NS_PER_S);
    collect(&f);
    assert_int_equal(s.n_iv, 2);
    fx_free(&f);
}

/* A -t run ends when its transactions are done: the edges go on at each interval while it
 * runs, and its end (2.5 s here) has none: its last interval is handed over without one. */
static void test_edges_of_a_count_run(void **state)
{
    (void)state;
    struct fx f;
    struct seen s;
    fx_edges_init(&f, &s, "SELECT 1;\n\\sleep 500 ms\n");
    f.cfg.tx_per_client = 5;
    assert_int_equal(fx_start(&f), 0);
    time_ns start = f.run.start_ns;
    for (int64_t t = 0; t <= 2500 && f.w->n_live > 0; t += 100)
        step(&f, t);
    assert_int_equal(f.w->n_live, 0);
    assert_int_equal(s.n, 3); /* 0, 1 and 2 s */
    assert_in_order(&s);
    assert_int_equal(engine_state_next_edge(&f.run), start + 3 * NS_PER_S);
    collect(&f);
    assert_int_equal(s.n_iv, 3);
    assert_float_equal(s.iv_t_s[2], 2.5, 1e-9);
    fx_free(&f);
}

/* No hook: no edge to wait for, and nothing called. */
static void test_edges_without_a_hook(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.duration_s = 1;
    f.cfg.tx_per_client = 0;
    assert_int_equal(fx_start(&f), 0);
    assert_int_equal(engine_state_next_edge(&f.run), -1);
    engine_state_edges(&f.run, f.now + 5 * NS_PER_S);
    assert_int_equal(f.run.n_edges, 0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges_of_a_duration_run),
        cmocka_unit_test(test_edges_after_a_lost_cpu),
        cmocka_unit_test(test_edges_after_the_warmup),
        cmocka_unit_test(test_edges_of_a_count_run),
        cmocka_unit_test(test_edges_without_a_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
