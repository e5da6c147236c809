/* A sweep's compared axis (the default and what --compare accepts), its records in sweep.json,
 * and its table, whose headers are never cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/mem.h"
#include "compare/sweep_figs.h"
#include "report/sweep_out.h"
#include "result/sweep.h"
#include "sweep/sweep.h"

#define LONG_SETTING "max_parallel_maintenance_workers"

/* One setup (or two), clients 1 and 2, a --set axis of two values, one trial. */
static void make_doc(struct sweep_doc *d, int setups)
{
    memset(d, 0, sizeof *d);
    d->n_clients = 2;
    d->clients = xcalloc(2, sizeof *d->clients);
    d->clients[0] = 1;
    d->clients[1] = 2;
    d->n_sets = 1;
    d->sets = xcalloc(1, sizeof *d->sets);
    d->sets[0].name = xstrdup(LONG_SETTING);
    d->sets[0].n = 2;
    d->sets[0].values = xcalloc(2, sizeof *d->sets[0].values);
    d->sets[0].values[0] = xstrdup("2");
    d->sets[0].values[1] = xstrdup("a-value-longer-than-its-column");
    d->trials = 1;
    d->n_setups = (size_t)setups;
    d->setups = xcalloc((size_t)setups, sizeof *d->setups);
    for (int u = 0; u < setups; u++) {
        d->setups[u].label = xstrdup(u ? "candidate-with-a-long-label" : "base");
        d->setups[u].conn = xstrdup("");
    }
    sweep_plan_cells(d);
}

static void test_default_axis(void **state)
{
    (void)state;
    struct sweep_doc d;
    struct err e = {0};
    make_doc(&d, 2);
    assert_string_equal(sweep_compare_axis(&d), "setup");
    d.compare_axis = xstrdup("none");
    assert_null(sweep_compare_axis(&d));
    sweep_doc_free(&d);
    make_doc(&d, 1);
    assert_string_equal(sweep_compare_axis(&d), LONG_SETTING);
    assert_int_equal(sweep_compare_check(&d, "clients", &e), 0);
    assert_int_equal(sweep_compare_check(&d, LONG_SETTING, &e), 0);
    assert_int_equal(sweep_compare_check(&d, "none", &e), 0);
    assert_int_equal(sweep_compare_check(&d, "setup", &e), -1);
    assert_non_null(strstr(e.msg, "one value"));
    assert_int_equal(sweep_compare_check(&d, "scale", &e), -1);
    assert_non_null(strstr(e.msg, "no values"));
    assert_int_equal(sweep_compare_check(&d, "work_mem", &e), -1);
    assert_non_null(strstr(e.msg, "no such axis"));
    char v[64];
    assert_string_equal(sweep_axis_value(v, sizeof v, &d, &d.cells[0], LONG_SETTING), "2");
    assert_string_equal(sweep_axis_value(v, sizeof v, &d, &d.cells[0], "clients"), "1");
    assert_string_equal(sweep_axis_value(v, sizeof v, &d, &d.cells[0], "setup"), "base");
    sweep_doc_free(&d);
}

/* The figures of a doc whose cells ran, with one comparison record on the value's point. */
static void make_figs(const struct sweep_doc *d, struct sweep_figs *f)
{
    memset(f, 0, sizeof *f);
    f->points = xcalloc(d->n_cells, sizeof *f->points);
    for (size_t i = 0; i < d->n_cells; i++) {
        int seen = 0;
        for (size_t k = 0; k < f->n; k++)
            seen |= sweep_same_point(&d->cells[f->points[k].first], &d->cells[i]);
        if (seen)
            continue;
        f->points[f->n].first = i;
        f->points[f->n].setups = xcalloc(d->n_setups, sizeof *f->points[f->n].setups);
        for (size_t u = 0; u < d->n_setups; u++)
            f->points[f->n].setups[u] = (struct sweep_fig_setup){1, 1000, 0, 0, 900, 0, 0};
        f->n++;
    }
    f->axis = xstrdup(LONG_SETTING);
    f->n_cmps = 1;
    f->cmps = xcalloc(1, sizeof *f->cmps);
    struct sweep_comparison *r = &f->cmps[0];
    r->axis = xstrdup(LONG_SETTING);
    r->baseline = xstrdup("2");
    r->value = xstrdup("a-value-longer-than-its-column");
    r->metric = xstrdup("tps");
    r->change_pct = 12.5;
    r->ci_low = 8.25;
    r->ci_high = 16.75;
    r->a = r->b = r->df = 6;
    r->verdict = xstrdup("better");
    r->method = xstrdup("pooled");
    r->homogeneous = 1;
    r->detail = xstrdup("beyond the ±2% margin");
    r->n_cell = 1;
    r->cell = xcalloc(1, sizeof *r->cell);
    r->cell[0] = (struct sweep_setting){xstrdup("clients"), xstrdup("1")};
    /* the value's first point: clients 1 with the second value */
    for (size_t p = 0; p < f->n; p++) {
        const struct sweep_cell *c = &d->cells[f->points[p].first];
        if (c->clients == 1 && strcmp(c->settings[0].value, "2") != 0)
            r->fig_point = p;
    }
}

/* All of the file f, closed (the caller frees the text). */
static char *slurp(FILE *f)
{
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    char *text = xcalloc((size_t)len + 1, 1);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    return text;
}

/* The sweep's table, as text (the caller frees it). */
static char *table_text(const struct sweep_doc *d, const struct sweep_figs *f)
{
    FILE *out = tmpfile();
    report_sweep_text(out, d, f);
    return slurp(out);
}

static void test_table_never_cuts(void **state)
{
    (void)state;
    struct sweep_doc d;
    struct sweep_figs f;
    make_doc(&d, 1);
    make_figs(&d, &f);
    char *text = table_text(&d, &f);
    assert_non_null(strstr(text, "baseline " LONG_SETTING "=2"));
    char *header = strchr(text, '\n') + 1;
    char *end = strchr(header, '\n');
    *end = '\0';
    assert_non_null(strstr(header, " " LONG_SETTING " "));
    *end = '\n';
    assert_non_null(strstr(text, "a-value-longer-than-its-column"));
    assert_non_null(strstr(text, "+12.5% [+8.2%, +16.8%] better pooled"));
    assert_non_null(strstr(text, "baseline"));
    free(text);
    sweep_figs_free(&f);
    sweep_doc_free(&d);
}

static void test_records_in_sweep_json(void **state)
{
    (void)state;
    struct sweep_doc d;
    struct sweep_figs f;
    make_doc(&d, 1);
    make_figs(&d, &f);
    d.comparisons = f.cmps;
    d.n_comparisons = f.n_cmps;
    f.cmps = NULL;
    f.n_cmps = 0;
    char path[] = "/tmp/pgarena-test-sweepcmp-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    struct err e = {0};
    assert_int_equal(sweep_doc_write(&d, path, &e), 0);
    close(fd);
    FILE *in = fopen(path, "r"); /* written anew by a rename */
    char buf[8192] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, in);
    buf[n] = '\0';
    fclose(in);
    assert_non_null(strstr(buf, "\"axis\": \"" LONG_SETTING "\""));
    assert_non_null(strstr(buf, "\"method\": \"pooled\""));
    assert_non_null(strstr(buf, "\"homogeneous\": true"));
    assert_non_null(strstr(buf, "\"clients\": 1")); /* a number in the cell */
    /* Read back: the cells and the axis, not the records (they are figured again). */
    struct sweep_doc back;
    d.compare_axis = xstrdup(LONG_SETTING);
    assert_int_equal(sweep_doc_write(&d, path, &e), 0);
    assert_int_equal(sweep_doc_read(path, &back, &e), 0);
    assert_string_equal(back.compare_axis, LONG_SETTING);
    assert_int_equal(back.n_cells, d.n_cells);
    unlink(path);
    sweep_doc_free(&back);
    sweep_figs_free(&f);
    sweep_doc_free(&d);
}

/* A copy of f's first record, as a per-script one of metric m. */
static void add_script_record(struct sweep_figs *f, const char *m, double change, const char *v)
{
    f->cmps = xrealloc(f->cmps, (f->n_cmps + 1) * sizeof *f->cmps);
    const struct sweep_comparison *r0 = &f->cmps[0];
    struct sweep_comparison *r = &f->cmps[f->n_cmps++];
    *r = (struct sweep_comparison){xstrdup(r0->axis),
                                   xstrdup(r0->baseline),
                                   xstrdup(r0->value),
                                   1,
                                   xcalloc(1, sizeof *r->cell),
                                   xstrdup(m),
                                   300,
                                   180,
                                   change,
                                   change - 5,
                                   change + 5,
                                   xstrdup(v),
                                   xstrdup("cell"),
                                   2,
                                   -1,
                                   xstrdup(""),
                                   xstrdup("q18"),
                                   r0->fig_point,
                                   0,
                                   NULL,
                                   0,
                                   NULL,
                                   0};
    r->cell[0] = (struct sweep_setting){xstrdup("clients"), xstrdup("1")};
}

static void test_script_records(void **state)
{
    (void)state;
    struct sweep_doc d;
    struct sweep_figs f;
    make_doc(&d, 1);
    make_figs(&d, &f);
    char *text = table_text(&d, &f);
    assert_null(strstr(text, "per script")); /* whole-run records only: no block */
    free(text);
    add_script_record(&f, "latency_p50", -40, "better");
    add_script_record(&f, "latency_p99", -20, "better");
    text = table_text(&d, &f);
    /* The whole-run row keeps its tps record; the block lists the script's. */
    assert_non_null(strstr(text, "+12.5% [+8.2%, +16.8%] better pooled"));
    assert_non_null(strstr(text, "per script: latency change [95% CI] verdict method\n"));
    assert_non_null(strstr(text, " q18: p50 -40.0% [-45.0%, -35.0%] better cell; p99 -20.0%"));
    free(text);
    d.comparisons = f.cmps;
    d.n_comparisons = f.n_cmps;
    json_t *j = sweep_comparisons_json(&d);
    assert_int_equal(json_array_size(j), 3);
    assert_null(json_object_get(json_array_get(j, 0), "script"));
    assert_string_equal(json_string_value(json_object_get(json_array_get(j, 1), "script")), "q18");
    json_decref(j);
    d.comparisons = NULL;
    d.n_comparisons = 0;
    sweep_figs_free(&f);
    sweep_doc_free(&d);
}

/* The HTML report of the sweep, as text (the caller frees it). */
static char *html_text(const struct sweep_doc *d, const struct sweep_figs *f)
{
    char path[] = "/tmp/pgarena-test-html-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct err e = {0};
    assert_int_equal(report_sweep_html_write(d, f, NULL, path, &e), 0);
    char *text = slurp(fopen(path, "r"));
    unlink(path);
    return text;
}

/* The report's per-script table: a row per latency metric of each value side and script,
 * with change, interval, verdict, method and the detail as title ("-" for a missing record);
 * none without per-script records. No curves when no cell had throughput (-c 0). */
static void test_script_records_in_html(void **state)
{
    (void)state;
    struct sweep_doc d;
    struct sweep_figs f;
    make_doc(&d, 1);
    make_figs(&d, &f);
    char *html = html_text(&d, &f);
    assert_null(strstr(html, "id=\"scripts\""));
    assert_non_null(strstr(html, "id=\"curves\""));
    free(html);
    add_script_record(&f, "latency_p50", -40, "better");
    add_script_record(&f, "latency_p99", -20, "inconclusive");
    free(f.cmps[2].detail);
    f.cmps[2].detail = xstrdup("about 6 trials per side would settle it");
    html = html_text(&d, &f);
    assert_non_null(strstr(html,
                           "<tr><th rowspan=\"3\">1 client, " LONG_SETTING
                           "=a-value-longer-than-its-column</th><th rowspan=\"3\">q18</th>"
                           "<th>p50</th><td>-40.0% [-45.0%, -35.0%] <span class=\"verdict "
                           "v-better\">better</span> <small>cell</small></td></tr>\n"
                           "<tr><th>p95</th><td>-</td></tr>\n<tr><th>p99</th><td title=\"about "
                           "6 trials per side would settle it\">-20.0% [-25.0%, -15.0%] <span "
                           "class=\"verdict v-inconclusive\">inconclusive</span>"));
    /* The cell table keeps its run-level records only. */
    assert_non_null(strstr(html, "+12.5% [+8.2%, +16.8%] <span class=\"verdict v-better\">"));
    free(html);
    for (size_t i = 0; i < f.n; i++)
        f.points[i].setups[0].tps = 0;
    html = html_text(&d, &f);
    assert_null(strstr(html, "id=\"curves\""));
    assert_non_null(strstr(html, "No curves: no cell ran a terminal"));
    free(html);
    sweep_figs_free(&f);
    sweep_doc_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_axis),           cmocka_unit_test(test_table_never_cuts),
        cmocka_unit_test(test_records_in_sweep_json),  cmocka_unit_test(test_script_records),
        cmocka_unit_test(test_script_records_in_html),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
