/* compare's contract: sides from labels, input errors, gates, environment diff, output. */
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

#include "base/rng.h"
#include "compare/compare.h"
#include "report/compare_out.h"
#include "replay_fixture.h"

static const struct cmp_config cfg = {CMP_DEFAULT_SEED, CMP_DEFAULT_MARGIN, CMP_RESAMPLES};

/* A run of n one-second intervals at about tps (1 % noise from seed), failing a share fail of
 * its transactions, each interval with latencies of about lat_us in a few bins (none if 0). */
struct spec {
    const char *label;
    size_t n;
    double tps, fail;
    int64_t lat_us;
    uint64_t seed;
};

static void make_run(struct result *r, const struct spec *s)
{
    memset(r, 0, sizeof *r);
    r->label = s->label ? strdup(s->label) : NULL;
    r->complete = 1;
    r->n_intervals = s->n;
    r->intervals = calloc(s->n, sizeof *r->intervals);
    struct rng g;
    rng_seed(&g, s->seed);
    for (size_t t = 0; t < s->n; t++) {
        struct result_interval *it = &r->intervals[t];
        uint64_t n = (uint64_t)llround(s->tps * (0.99 + 0.02 * rng_double(&g)));
        it->t_s = (double)t + 1;
        it->duration_s = 1;
        it->failed = (uint64_t)llround((double)n * s->fail);
        it->transactions = n - it->failed;
        if (s->lat_us == 0 || it->transactions == 0)
            continue;
        struct hist_sparse *h = &it->histogram;
        h->n_bins = 3;
        h->bins = calloc(3, sizeof *h->bins);
        uint64_t third = it->transactions / 3;
        for (int k = 0; k < 3; k++) {
            h->bins[k].value_us = s->lat_us + k * (s->lat_us / 8);
            h->bins[k].count = k < 2 ? third : it->transactions - 2 * third;
        }
        h->count = it->transactions;
    }
}

/* Environment items, as result_read would flatten them. */
static void set_env(struct result *r, const char *const *pairs)
{
    size_t n = 0;
    while (pairs[2 * n])
        n++;
    r->n_env = n;
    r->env = calloc(n, sizeof *r->env);
    for (size_t i = 0; i < n; i++)
        r->env[i] = (struct result_env_item){strdup(pairs[2 * i]), strdup(pairs[2 * i + 1])};
}

struct fixture {
    size_t n;
    struct result runs[8];
    const char *paths[8];
    struct cmp_report rep;
    struct err e;
};

static void add(struct fixture *f, const char *path, const struct spec *s)
{
    make_run(&f->runs[f->n], s);
    f->paths[f->n++] = path;
}

static int compare(struct fixture *f)
{
    return cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, &f->e);
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

static int setup(void **state)
{
    *state = calloc(1, sizeof(struct fixture));
    return 0;
}

static const struct cmp_metric *metric(struct fixture *f, size_t outcome, enum cmp_metric_id id)
{
    assert_true(outcome < f->rep.n_outcomes);
    return &f->rep.outcomes[outcome].metrics[id];
}

static int has_warning(struct fixture *f, const char *needle)
{
    for (size_t i = 0; i < f->rep.n_warnings; i++)
        if (strstr(f->rep.warnings[i], needle))
            return 1;
    return 0;
}

static void test_labels_make_sides(void **state)
{
    struct fixture *f = *state;
    add(f, "a1.json", &(struct spec){"base", 30, 1000, 0, 500, 1});
    add(f, "b1.json", &(struct spec){"new", 30, 800, 0, 600, 2});
    add(f, "a2.json", &(struct spec){"base", 30, 1010, 0, 500, 3});
    add(f, "b2.json", &(struct spec){"new", 30, 790, 0, 600, 4});
    add(f, "c1.json", &(struct spec){"other", 30, 1000, 0, 500, 5});
    assert_int_equal(compare(f), 0);
    assert_int_equal(f->rep.n_sides, 3);
    assert_string_equal(f->rep.sides[0].label, "base");
    assert_int_equal(f->rep.sides[0].n_trials, 2);
    assert_string_equal(f->rep.sides[0].paths[1], "a2.json");
    assert_int_equal(f->rep.n_outcomes, 2);
    assert_int_equal(f->rep.outcomes[0].side, 1);
    assert_int_equal(f->rep.outcomes[1].side, 2);
    /* Trials on both sides: Welch, no block bootstrap, a Mann-Whitney figure. */
    assert_int_equal(f->rep.outcomes[0].window.block, 0);
    assert_false(isnan(f->rep.outcomes[0].mwu_p));
    assert_int_equal(metric(f, 0, CMP_TPS)->verdict, CMP_WORSE);
    assert_int_equal(metric(f, 0, CMP_P50)->verdict, CMP_WORSE);
    assert_true(cmp_any_worse(&f->rep));
    /* One trial against two: the single side borrows the other's spread, and says so. */
    assert_true(has_warning(f, "B has one trial"));
}

static void test_unlabeled_files_are_sides(void **state)
{
    struct fixture *f = *state;
    add(f, "x.json", &(struct spec){NULL, 20, 1000, 0, 0, 1});
    add(f, "y.json", &(struct spec){"", 20, 1000, 0, 0, 2});
    assert_int_equal(compare(f), 0);
    assert_string_equal(f->rep.sides[0].label, "x.json");
    assert_string_equal(f->rep.sides[1].label, "y.json");
}

static void test_one_label_is_an_error(void **state)
{
    struct fixture *f = *state;
    add(f, "a1.json", &(struct spec){"same", 20, 1000, 0, 0, 1});
    add(f, "a2.json", &(struct spec){"same", 20, 1000, 0, 0, 2});
    assert_int_equal(compare(f), -1);
    assert_int_equal(f->e.code, ERR_INPUT);
    assert_non_null(strstr(f->e.msg, "'same'"));
    assert_non_null(strstr(f->e.msg, "--label"));
}

static void test_no_interval_is_an_error(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 20, 1000, 0, 0, 1});
    add(f, "empty.json", &(struct spec){"b", 0, 1000, 0, 0, 2});
    assert_int_equal(compare(f), -1);
    assert_int_equal(f->e.code, ERR_INPUT);
    assert_string_equal(f->e.msg, "empty.json: no complete interval to compare");
}

static void test_partial_last_interval_left_out(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 20, 1000, 0, 0, 1});
    add(f, "b.json", &(struct spec){"b", 21, 1000, 0, 0, 2});
    f->runs[1].intervals[20].duration_s = 0.25; /* the run ended a quarter second in */
    f->runs[1].intervals[20].transactions = 1;
    assert_int_equal(compare(f), 0);
    assert_true(f->rep.outcomes[0].window.end_s == 20);
    assert_true(fabs(metric(f, 0, CMP_TPS)->change_pct) < 2);
}

/* Short single runs: small differences are unjudgeable, a halving is not. */
static void test_short_runs_gross_difference(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 10, 1000, 0, 500, 1});
    add(f, "b.json", &(struct spec){"b", 10, 500, 0, 1000, 2});
    add(f, "c.json", &(struct spec){"c", 10, 900, 0, 550, 3});
    assert_int_equal(compare(f), 0);
    const struct cmp_metric *half = metric(f, 0, CMP_TPS), *tenth = metric(f, 1, CMP_TPS);
    assert_int_equal(half->verdict, CMP_WORSE);
    assert_non_null(strstr(half->detail, "provisional: one trial per side"));
    assert_true(fabs(half->change_pct + 50) < 2);
    assert_int_equal(tenth->verdict, CMP_INCONCLUSIVE);
    assert_non_null(strstr(tenth->detail, "too short"));
    assert_true(has_warning(f, "one trial per side"));
    assert_true(has_warning(f, "too short to detect a warm-up"));
}

static void test_failures_gate_tps(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 120, 1000, 0, 500, 1});
    add(f, "b.json", &(struct spec){"b", 120, 1000, 0.05, 500, 2});
    add(f, "c.json", &(struct spec){"c", 120, 1000, 0, 500, 3});
    assert_int_equal(compare(f), 0);
    const struct cmp_metric *fail = metric(f, 0, CMP_FAILURE_RATE);
    assert_int_equal(fail->verdict, CMP_WORSE);
    assert_true(fail->a == 0 && fabs(fail->b - 0.05) < 0.001);
    assert_true(isnan(fail->change_pct)); /* undefined against zero */
    const struct cmp_metric *tps = metric(f, 0, CMP_TPS);
    assert_int_equal(tps->verdict, CMP_INCONCLUSIVE);
    assert_non_null(strstr(tps->detail, "different work"));
    assert_int_equal(metric(f, 1, CMP_FAILURE_RATE)->verdict, CMP_NO_DIFFERENCE);
    assert_string_equal(metric(f, 1, CMP_FAILURE_RATE)->detail, "no failures on either side");
}

static void test_thin_tail_not_judged(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 120, 50, 0, 500, 1});
    add(f, "b.json", &(struct spec){"b", 120, 50, 0, 500, 2});
    assert_int_equal(compare(f), 0);
    /* 6000 transactions: enough beyond p50 and p95 (300), not beyond p99 (60). */
    assert_int_not_equal(metric(f, 0, CMP_P95)->verdict, CMP_INCONCLUSIVE);
    assert_int_equal(metric(f, 0, CMP_P99)->verdict, CMP_INCONCLUSIVE);
    assert_non_null(strstr(metric(f, 0, CMP_P99)->detail, "too few transactions beyond p99"));
}

static void test_environment_diff(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 20, 1000, 0, 0, 1});
    add(f, "b.json", &(struct spec){"b", 20, 1000, 0, 0, 2});
    set_env(&f->runs[0], (const char *[]){"server.version", "16.2", "options.clients", "2",
                                          "options.seed", "1", "server.settings.work_mem", "4MB",
                                          "server.warnings.message", "fsync is off", NULL});
    set_env(&f->runs[1], (const char *[]){"server.version", "17.0", "options.clients", "4",
                                          "options.seed", "2", NULL});
    assert_int_equal(compare(f), 0);
    assert_int_equal(f->rep.n_diffs, 3);
    const struct cmp_diff *d = f->rep.diffs;
    assert_string_equal(d[0].path, "server.version");
    assert_string_equal(d[0].a, "16.2");
    assert_string_equal(d[0].b, "17.0");
    assert_false(d[0].unfair);
    assert_string_equal(d[1].path, "options.clients");
    assert_true(d[1].unfair);
    assert_string_equal(d[2].path, "server.settings.work_mem");
    assert_string_equal(d[2].b, "(absent)");
    assert_true(has_warning(f, "not like for like: options.clients differs (a: 2; b: 4)"));
    assert_true(has_warning(f, "server warning on a only: fsync is off"));
}

/* The same warning on both sides, its measured size aside, is no difference. */
static void test_warnings_matched_by_setting(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 20, 1000, 0, 0, 1});
    add(f, "b.json", &(struct spec){"b", 20, 1000, 0, 0, 2});
    set_env(&f->runs[0],
            (const char *[]){"server.warnings.setting", "shared_buffers", "server.warnings.value",
                             "128MB", "server.warnings.message", "the dataset (81 MB) fits", NULL});
    set_env(&f->runs[1],
            (const char *[]){"server.warnings.setting", "shared_buffers", "server.warnings.value",
                             "128MB", "server.warnings.message", "the dataset (86 MB) fits",
                             "server.warnings.setting", "fsync", "server.warnings.value", "off",
                             "server.warnings.message", "fsync is off", NULL});
    assert_int_equal(compare(f), 0);
    assert_false(has_warning(f, "the dataset"));
    assert_true(has_warning(f, "not like for like: a server warning on b only: fsync is off"));
}

/* Replays: one that diverged from its capture and one whose client was late itself are named;
 * a replay behind because of the server (a large lag, little of it the client's) is not. */
static void test_replay_warnings(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 20, 1000, 0, 0, 1});
    add(f, "b.json", &(struct spec){"b", 20, 1000, 0, 0, 2});
    add(f, "c.json", &(struct spec){"c", 20, 1000, 0, 0, 3});
    for (size_t i = 0; i < 3; i++) {
        replay_fixture(&f->runs[i])->lag.p99_us = 900000; /* behind: the server's */
        replay_fixture(&f->runs[i])->client_lag.p99_us = 300;
    }
    replay_fixture(&f->runs[1])->failed_now = 4;
    replay_fixture(&f->runs[2])->client_lag.p99_us = 25000;
    assert_int_equal(compare(f), 0);
    assert_false(has_warning(f, "a.json"));
    assert_true(has_warning(f, "b.json: the replay diverged from its capture (4 failed now"));
    assert_false(has_warning(f, "b.json: the replaying client"));
    assert_true(has_warning(f, "c.json: the replaying client was late itself"));
    assert_true(has_warning(f, "p99 25.0 ms"));
}

static void test_trials_that_differ(void **state)
{
    struct fixture *f = *state;
    add(f, "a1.json", &(struct spec){"a", 20, 1000, 0, 0, 1});
    add(f, "a2.json", &(struct spec){"a", 20, 1000, 0, 0, 2});
    add(f, "b.json", &(struct spec){"b", 20, 1000, 0, 0, 3});
    set_env(&f->runs[0], (const char *[]){"workload.scale", "10", NULL});
    set_env(&f->runs[1], (const char *[]){"workload.scale", "50", NULL});
    set_env(&f->runs[2], (const char *[]){"workload.scale", "10", NULL});
    assert_int_equal(compare(f), 0);
    assert_true(has_warning(f, "the trials of a differ in workload.scale (10, 50)"));
    assert_int_equal(f->rep.n_diffs, 1);
    assert_string_equal(f->rep.diffs[0].a, "10, 50");
}

static char *capture(struct fixture *f, int json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (json)
        assert_int_equal(report_compare_json(fp, &f->rep, NULL), 0);
    else
        report_compare_text(fp, &f->rep);
    fclose(fp);
    return text;
}

static void test_json_shape(void **state)
{
    struct fixture *f = *state;
    add(f, "a.json", &(struct spec){"a", 10, 1000, 0, 500, 1});
    add(f, "b.json", &(struct spec){"b", 10, 1000, 0, 0, 2});
    assert_int_equal(compare(f), 0);
    char *text = capture(f, 1);
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    assert_non_null(root);
    assert_int_equal(json_object_size(root), 2);
    json_t *metrics = json_object_get(root, "metrics");
    assert_int_equal(json_array_size(metrics), CMP_N_METRICS);
    assert_true(json_is_array(json_object_get(root, "warnings")));
    static const char *const keys[] = {"name",       "a",           "b",       "change_pct",
                                       "ci_low_pct", "ci_high_pct", "verdict", "detail"};
    for (size_t i = 0; i < json_array_size(metrics); i++) {
        json_t *m = json_array_get(metrics, i);
        assert_int_equal(json_object_size(m), 8);
        for (int k = 0; k < 8; k++)
            assert_non_null(json_object_get(m, keys[k]));
        assert_string_equal(json_string_value(json_object_get(m, "name")), cmp_metric_names[i]);
    }
    /* B recorded no latency: its values and the change are null, not NaN. */
    json_t *p50 = json_array_get(metrics, 1);
    assert_true(json_is_null(json_object_get(p50, "b")));
    assert_true(json_is_null(json_object_get(p50, "change_pct")));
    assert_string_equal(json_string_value(json_object_get(p50, "verdict")), "inconclusive");
    json_decref(root);
    free(text);
}

static void test_text_fits_100_columns(void **state)
{
    struct fixture *f = *state;
    add(f, "a-very-long-file-name-for-the-baseline-side.json",
        &(struct spec){"baseline-with-a-long-label", 120, 1000, 0, 500, 1});
    add(f, "b.json", &(struct spec){"b", 120, 700, 0.01, 900, 2});
    set_env(&f->runs[0], (const char *[]){"workload.scripts.text",
                                          "\\set aid random(1, 100000 * :scale)\nSELECT abalance "
                                          "FROM pgbench_accounts WHERE aid = :aid;\n",
                                          NULL});
    assert_int_equal(compare(f), 0);
    char *text = capture(f, 0);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        size_t cols = 0;
        for (const unsigned char *c = (const unsigned char *)line; *c; c++)
            cols += (*c & 0xc0) != 0x80; /* count characters, not UTF-8 bytes */
        if (cols > 100)
            fail_msg("line of %zu columns: %s", cols, line);
    }
    free(text);
}

/* The line naming a stalled run: the side's label, the trial, the time lost (ms below a
 * second), the count of intervals and the worst's cause; none for a clean or unknown run. */
static void test_stall_text(void **state)
{
    (void)state;
    char buf[100] = "untouched";
    struct result_client_health h = {.present = 1, .intervals = 60};
    assert_int_equal(cmp_stall_text(buf, sizeof buf, "B", 2, &h), 0);
    assert_string_equal(buf, "untouched");
    struct result_client_health unknown = {0};
    assert_int_equal(cmp_stall_text(buf, sizeof buf, "B", 2, &unknown), 0);
    h.intervals_stalled = 3;
    h.stalled_ms = 4149;
    h.worst_cause = RESULT_STALL_STEAL;
    int n = cmp_stall_text(buf, sizeof buf, "B", 2, &h);
    assert_string_equal(buf, "B trial 2: client stalled 4.1 s (3 intervals), steal");
    assert_int_equal(n, (int)strlen(buf));
    assert_int_equal(cmp_stall_text(NULL, 0, "B", 2, &h), n);
    h.intervals_stalled = 1;
    h.stalled_ms = 850;
    h.worst_cause = RESULT_STALL_LATE;
    cmp_stall_text(buf, sizeof buf, "pg17", 1, &h);
    assert_string_equal(buf, "pg17 trial 1: client stalled 850 ms (1 interval), late");
    h.stalled_ms = 999.6; /* rounds into seconds, not "1000 ms" */
    h.worst_cause = RESULT_STALL_RUNQUEUE;
    cmp_stall_text(buf, sizeof buf, "A", 3, &h);
    assert_string_equal(buf, "A trial 3: client stalled 1.0 s (1 interval), runqueue");
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_labels_make_sides),
        T(test_unlabeled_files_are_sides),
        T(test_one_label_is_an_error),
        T(test_no_interval_is_an_error),
        T(test_partial_last_interval_left_out),
        T(test_short_runs_gross_difference),
        T(test_failures_gate_tps),
        T(test_thin_tail_not_judged),
        T(test_environment_diff),
        T(test_warnings_matched_by_setting),
        T(test_trials_that_differ),
        T(test_replay_warnings),
        T(test_json_shape),
        T(test_text_fits_100_columns),
        cmocka_unit_test(test_stall_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
