/* compare's per-script latency rows: when they appear, their values, trials, JSON. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"
#include "report/compare_out.h"

static const struct cmp_config cfg = {CMP_DEFAULT_SEED, CMP_DEFAULT_MARGIN, CMP_RESAMPLES};

#define MAX_RUNS 8

struct fixture {
    struct result runs[MAX_RUNS];
    const char *paths[MAX_RUNS];
    size_t n;
    struct cmp_report rep;
};

/* A run of 10 one-second intervals at 1000 tps, 500 us each, with scripts names[0..n) whose
 * latencies are lat_us[i] (in one bin: the histogram says it, summary figures are decoys). */
static void add(struct fixture *f, const char *label, const char *const *names, size_t n,
                const int64_t *lat_us)
{
    struct result *r = &f->runs[f->n];
    memset(r, 0, sizeof *r);
    r->label = strdup(label);
    r->complete = 1;
    r->n_intervals = 10;
    r->intervals = calloc(10, sizeof *r->intervals);
    for (size_t t = 0; t < 10; t++) {
        struct result_interval *it = &r->intervals[t];
        it->t_s = (double)t + 1;
        it->duration_s = 1;
        it->transactions = 1000;
        it->histogram.n_bins = 1;
        it->histogram.bins = calloc(1, sizeof *it->histogram.bins);
        it->histogram.bins[0] = (struct hist_bin){500, 1000};
        it->histogram.count = 1000;
    }
    r->summary.n_scripts = n;
    r->summary.scripts = calloc(n, sizeof *r->summary.scripts);
    for (size_t i = 0; i < n; i++) {
        struct result_script_figures *s = &r->summary.scripts[i];
        s->name = strdup(names[i]);
        s->weight = 1;
        s->transactions = 5000;
        s->latency_us.p50 = s->latency_us.p95 = s->latency_us.p99 = 1; /* not used */
        s->histogram.n_bins = 1;
        s->histogram.bins = calloc(1, sizeof *s->histogram.bins);
        s->histogram.bins[0] = (struct hist_bin){lat_us[i], 5000};
        s->histogram.count = 5000;
        s->histogram.min_us = s->histogram.max_us = lat_us[i];
    }
    f->paths[f->n] = label;
    f->n++;
}

static int setup(void **state)
{
    *state = calloc(1, sizeof(struct fixture));
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    for (size_t i = 0; i < f->n; i++)
        result_free(&f->runs[i]);
    cmp_report_free(&f->rep);
    free(f);
    return 0;
}

static const char *const two[] = {"new-order", "payment"};

static void test_one_trial_per_side(void **state)
{
    struct fixture *f = *state;
    add(f, "a", two, 2, (const int64_t[]){1000, 200});
    add(f, "b", two, 2, (const int64_t[]){1500, 200});
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, NULL), 0);
    const struct cmp_outcome *o = &f->rep.outcomes[0];
    assert_int_equal(o->n_scripts, 2);
    assert_string_equal(o->scripts[0].name, "new-order");
    const struct cmp_metric *p50 = &o->scripts[0].metrics[0];
    assert_true(p50->a == 1000 && p50->b == 1500);
    assert_true(fabs(p50->change_pct - 50) < 1e-9);
    assert_true(isnan(p50->ci_low_pct) && isnan(p50->ci_high_pct));
    assert_int_equal(p50->verdict, CMP_INCONCLUSIVE);
    assert_true(o->scripts[1].metrics[2].change_pct == 0);
    assert_int_equal(cmp_any_worse(&f->rep), 0);

    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_int_equal(report_compare_json(fp, &f->rep, NULL), 0);
    fclose(fp);
    json_t *root = json_loads(text, 0, NULL);
    assert_non_null(root);
    json_t *rows = json_object_get(root, "scripts");
    assert_int_equal(json_array_size(rows), 6);
    json_t *row = json_array_get(rows, 3);
    assert_string_equal(json_string_value(json_object_get(row, "script")), "payment");
    assert_string_equal(json_string_value(json_object_get(row, "name")), "latency_p50");
    assert_true(json_is_null(json_object_get(row, "ci_low_pct")));
    json_decref(root);
    free(text);
}

static void test_different_scripts_no_rows(void **state)
{
    struct fixture *f = *state;
    static const char *const other[] = {"new-order", "delivery"};
    add(f, "a", two, 2, (const int64_t[]){1000, 200});
    add(f, "b", other, 2, (const int64_t[]){1000, 200});
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, NULL), 0);
    assert_int_equal(f->rep.outcomes[0].n_scripts, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_int_equal(report_compare_json(fp, &f->rep, NULL), 0);
    fclose(fp);
    json_t *root = json_loads(text, 0, NULL);
    assert_null(json_object_get(root, "scripts")); /* the documented shape, nothing more */
    json_decref(root);
    free(text);
}

static void test_one_script_no_rows(void **state)
{
    struct fixture *f = *state;
    add(f, "a", two, 1, (const int64_t[]){1000});
    add(f, "b", two, 1, (const int64_t[]){2000});
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, NULL), 0);
    assert_int_equal(f->rep.outcomes[0].n_scripts, 0);
}

/* With trials, a script twice as slow on B is `worse` and trips --fail-if-worse, while the
 * whole-run metrics (same intervals on both sides) are not worse. */
static void test_trials_verdict(void **state)
{
    struct fixture *f = *state;
    add(f, "a", two, 2, (const int64_t[]){1000, 200});
    add(f, "a", two, 2, (const int64_t[]){1010, 200});
    add(f, "a", two, 2, (const int64_t[]){990, 200});
    add(f, "b", two, 2, (const int64_t[]){2000, 200});
    add(f, "b", two, 2, (const int64_t[]){2020, 200});
    add(f, "b", two, 2, (const int64_t[]){1980, 200});
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, NULL), 0);
    const struct cmp_outcome *o = &f->rep.outcomes[0];
    for (int k = 0; k < CMP_N_METRICS; k++)
        assert_int_not_equal(o->metrics[k].verdict, CMP_WORSE);
    assert_int_equal(o->n_scripts, 2);
    assert_int_equal(o->scripts[0].metrics[0].verdict, CMP_WORSE);
    assert_true(o->scripts[0].metrics[0].ci_low_pct > 80);
    assert_int_equal(o->scripts[1].metrics[0].verdict, CMP_NO_DIFFERENCE);
    assert_int_equal(cmp_any_worse(&f->rep), 1);
}

/* Sample counts of one run: n events named names[i] seen counts[i] times. */
static void set_waits(struct result *r, const char *const *names, const uint64_t *counts, size_t n)
{
    r->waits.present = 1;
    r->waits.sample_ms = 100;
    r->waits.samples = 100;
    r->waits.n_events = n;
    r->waits.events = calloc(n, sizeof *r->waits.events);
    for (size_t i = 0; i < n; i++)
        r->waits.events[i] = (struct result_wait){strdup(names[i]), counts[i]};
}

/* The wait events whose share changed most, all trials of a side together, largest change
 * first; none when a run was not sampled; in --json as "waits". */
static void test_wait_events_changed_most(void **state)
{
    struct fixture *f = *state;
    const char *one[] = {"all"};
    const int64_t lat[] = {500};
    const char *a_names[] = {"CPU", "Client:ClientRead", "IO:WALSync"};
    const char *b_names[] = {"Lock:transactionid", "CPU", "Client:ClientRead", "IO:WALSync"};
    const uint64_t a1[] = {60, 38, 2}, a2[] = {60, 40, 0}, b1[] = {82, 10, 8, 0};
    add(f, "A", one, 1, lat);
    set_waits(&f->runs[0], a_names, a1, 3);
    add(f, "A", one, 1, lat);
    set_waits(&f->runs[1], a_names, a2, 3);
    add(f, "B", one, 1, lat);
    set_waits(&f->runs[2], b_names, b1, 4);
    struct err e = {0};
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, &e), 0);
    const struct cmp_outcome *o = &f->rep.outcomes[0];
    assert_true(o->waits_sampled);
    /* A: CPU 120/200, ClientRead 78/200, WALSync 2/200; B: Lock 82 %, CPU 10 %, ... */
    assert_int_equal(o->n_waits, 4);
    assert_string_equal(o->waits[0].name, "Lock:transactionid");
    assert_float_equal(o->waits[0].a_share, 0, 1e-12);
    assert_float_equal(o->waits[0].b_share, 0.82, 1e-12);
    assert_float_equal(o->waits[0].change_points, 82, 1e-9);
    assert_string_equal(o->waits[1].name, "CPU");
    assert_float_equal(o->waits[1].change_points, 10 - 60, 1e-9);
    assert_string_equal(o->waits[2].name, "Client:ClientRead");
    /* -1 point: still listed, by the name 17 gave it */
    assert_string_equal(o->waits[3].name, "IO:WalSync");
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_int_equal(report_compare_json(mem, &f->rep, &e), 0);
    fclose(mem);
    json_t *j = json_loads(text, 0, NULL);
    assert_non_null(j);
    json_t *w = json_array_get(json_object_get(j, "waits"), 0);
    assert_string_equal(json_string_value(json_object_get(w, "name")), "Lock:transactionid");
    assert_float_equal(json_real_value(json_object_get(w, "b_share")), 0.82, 1e-12);
    json_decref(j);
    free(text);

    /* One run without sampling: nothing to say. */
    cmp_report_free(&f->rep);
    result_free(&f->runs[1]);
    add(f, "A", one, 1, lat);
    f->runs[1] = f->runs[3];
    f->n = 3;
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, &e), 0);
    assert_false(f->rep.outcomes[0].waits_sampled);
    assert_int_equal(f->rep.outcomes[0].n_waits, 0);
}

/* A 16 run against an 18 one: the events 17 renamed are one event each, shown by the newer
 * name (WALSync at 19 % and WalSync at 22 % were -19 and +22 points). */
static void test_wait_events_renamed_in_17(void **state)
{
    struct fixture *f = *state;
    const char *one[] = {"all"};
    const int64_t lat[] = {500};
    const char *a_names[] = {"CPU", "IO:WALSync", "IO:WALWrite", "IPC:BufferIO"};
    const char *b_names[] = {"CPU", "IO:WalSync", "IO:WalWrite", "IPC:BufferIo"};
    const uint64_t a1[] = {70, 19, 10, 1}, b1[] = {60, 22, 10, 8};
    add(f, "A", one, 1, lat);
    set_waits(&f->runs[0], a_names, a1, 4);
    add(f, "B", one, 1, lat);
    set_waits(&f->runs[1], b_names, b1, 4);
    struct err e = {0};
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, &e), 0);
    const struct cmp_outcome *o = &f->rep.outcomes[0];
    assert_true(o->waits_sampled);
    assert_int_equal(o->n_waits, 3); /* WalWrite did not change */
    assert_string_equal(o->waits[0].name, "CPU");
    assert_float_equal(o->waits[0].change_points, -10, 1e-9);
    assert_string_equal(o->waits[1].name, "IPC:BufferIo");
    assert_float_equal(o->waits[1].change_points, 7, 1e-9);
    assert_string_equal(o->waits[2].name, "IO:WalSync");
    assert_float_equal(o->waits[2].a_share, 0.19, 1e-12);
    assert_float_equal(o->waits[2].change_points, 3, 1e-9);

    /* The table, each entry found (sorted for bsearch); names not renamed stay. */
    assert_string_equal(result_wait_name_current("Activity:AutoVacuumMain"),
                        "Activity:AutovacuumMain");
    assert_string_equal(result_wait_name_current("IO:WALSenderTimelineHistoryRead"),
                        "IO:WalsenderTimelineHistoryRead");
    assert_string_equal(result_wait_name_current("IPC:ProcArrayGroupUpdate"),
                        "IPC:ProcarrayGroupUpdate");
    assert_string_equal(result_wait_name_current("IPC:HashGrowBatchesAllocate"),
                        "IPC:HashGrowBatchesReallocate"); /* 15 to 16 */
    assert_string_equal(result_wait_name_current("IO:WalSync"), "IO:WalSync");
    assert_string_equal(result_wait_name_current("Lock:relation"), "Lock:relation");
    assert_string_equal(result_wait_name_current("CPU"), "CPU");
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_one_trial_per_side),       T(test_different_scripts_no_rows),
        T(test_one_script_no_rows),       T(test_trials_verdict),
        T(test_wait_events_changed_most), T(test_wait_events_renamed_in_17),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
