#include "engine_fixture.h"

/* The workers' lateness (the client's health), in virtual time: how far past its deadline a
 * wait ended, split over the intervals it spans, counted once, nothing before the measured
 * start; handed to the series when the worker moves to another interval. */

static const struct interval *item(struct fx *f, size_t idx)
{
    const struct series *s = &f->w->series;
    assert_true(idx >= s->first && idx < s->first + s->n);
    return &s->items[idx - s->first];
}

static void test_late_split_over_intervals(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.duration_s = 10;
    f.cfg.tx_per_client = 0;
    assert_int_equal(fx_start(&f), 0);
    struct worker *w = f.w;
    time_ns t0 = f.run.start_ns;
    assert_int_equal(w->tick_ns, f.now + ENGINE_TICK_NS); /* the first tick, 100 ms ahead */
    /* A tick due at 0.9 s, the wait ended at 2.3 s (the process was stopped): 0.1 s late in
     * interval 0, the whole of interval 1, 0.3 s of interval 2. */
    worker_note_late(w, t0 + 900 * NS_PER_MS, t0 + 2300 * NS_PER_MS);
    /* Intervals 0 and 1 are in the series; 2 is still the worker's own. */
    assert_int_equal(item(&f, 0)->late_sum_ns, 100 * NS_PER_MS);
    assert_int_equal(item(&f, 1)->late_sum_ns, 1000 * NS_PER_MS);
    assert_int_equal(item(&f, 1)->late_max_ns, 1000 * NS_PER_MS);
    assert_int_equal(w->late_idx, 2);
    assert_int_equal(w->late_sum_ns, 300 * NS_PER_MS);
    /* A deadline before what was counted: only the rest counts (2.3 to 2.5 s). */
    worker_note_late(w, t0 + 2000 * NS_PER_MS, t0 + 2500 * NS_PER_MS);
    assert_int_equal(w->late_sum_ns, 500 * NS_PER_MS);
    assert_int_equal(w->late_max_ns, 300 * NS_PER_MS);
    /* On time, or early: nothing. */
    worker_note_late(w, t0 + 2600 * NS_PER_MS, t0 + 2600 * NS_PER_MS);
    assert_int_equal(w->late_sum_ns, 500 * NS_PER_MS);
    worker_flush_late(w);
    assert_int_equal(w->late_sum_ns, 0);
    assert_int_equal(item(&f, 2)->late_sum_ns, 500 * NS_PER_MS);
    assert_int_equal(item(&f, 2)->late_max_ns, 300 * NS_PER_MS);
    struct engine_result r;
    fx_collect(&f, &r);
    engine_result_free(&r);
    fx_free(&f);
}

/* The warmup is not measured: lateness before the measured start is not counted. */
static void test_late_not_in_warmup(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    f.cfg.duration_s = 10;
    f.cfg.tx_per_client = 0;
    f.cfg.warmup_s = 1;
    assert_int_equal(fx_start(&f), 0);
    struct worker *w = f.w;
    time_ns t0 = f.run.start_ns;
    worker_note_late(w, t0 - 500 * NS_PER_MS, t0 - 100 * NS_PER_MS);
    assert_int_equal(w->late_sum_ns, 0);
    worker_note_late(w, t0 - 500 * NS_PER_MS, t0 + 200 * NS_PER_MS);
    assert_int_equal(w->late_idx, 0);
    assert_int_equal(w->late_sum_ns, 200 * NS_PER_MS);
    struct engine_result r;
    fx_collect(&f, &r);
    engine_result_free(&r);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_split_over_intervals),
        cmocka_unit_test(test_late_not_in_warmup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
