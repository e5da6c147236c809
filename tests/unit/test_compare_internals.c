/* compare's server internals (compare/internals.c): which changes are listed, their order
 * (a change from zero first, then by relative size), the 5 % threshold, sides without
 * server_io, and the JSON. */
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

struct fixture {
    struct result runs[2];
    const char *paths[2];
    size_t n;
    struct cmp_report rep;
};

/* A run of 10 one-second intervals at 1000 tps with these per-transaction figures and
 * checkpoints (sampled = 0: no server_io at all). */
static void add(struct fixture *f, const char *label, int sampled, double wal, double temp,
                double fpi, uint64_t checkpoints)
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
        if (sampled) {
            it->sio.have = SIO_HAVE_ANY | result_sio_fields_for_version(150000);
            it->sio.v[SIO_BLKS_HIT] = 99;
            it->sio.v[SIO_BLKS_READ] = 1;
        }
    }
    r->summary.transactions = 10000;
    if (sampled)
        r->sio_per_tx = (struct result_sio_per_tx){1, wal, fpi, 2.0, temp};
    r->event_counts[RESULT_EV_CHECKPOINT] = checkpoints;
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

static void test_largest_first(void **state)
{
    struct fixture *f = *state;
    add(f, "a", 1, 1000, 0, 0.12, 1);
    add(f, "b", 1, 1380, 5000, 0.41, 6); /* WAL +38 %, temp from 0, FPI x3.4, checkpoints x6 */
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, NULL), 0);
    const struct cmp_outcome *o = &f->rep.outcomes[0];
    assert_true(o->internals_sampled);
    assert_int_equal(o->n_internals, 4); /* buffers and hit ratio did not change */
    assert_int_equal(o->internals[0].id, CMP_IN_TEMP_PER_TX);
    assert_true(isinf(o->internals[0].change_pct));
    assert_int_equal(o->internals[1].id, CMP_IN_CHECKPOINTS);
    assert_int_equal(o->internals[2].id, CMP_IN_FPI_SHARE);
    assert_int_equal(o->internals[3].id, CMP_IN_WAL_PER_TX);
    assert_true(fabs(o->internals[3].change_pct - 38) < 1e-9);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    report_compare_text(out, &f->rep);
    fclose(out);
    assert_non_null(strstr(text, "server internals that changed most:"));
    assert_non_null(strstr(text, "WAL per transaction"));
    assert_non_null(strstr(text, "(+38 %)"));
    assert_non_null(strstr(text, "12.0 % \u2192 41.0 %"));
    free(text);
    out = open_memstream(&text, &len);
    assert_int_equal(report_compare_json(out, &f->rep, NULL), 0);
    fclose(out);
    json_t *root = json_loads(text, 0, NULL);
    json_t *in = json_object_get(root, "internals");
    assert_int_equal(json_array_size(in), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(in, 0), "name")),
                        "temp_bytes_per_tx");
    assert_true(json_is_null(json_object_get(json_array_get(in, 0), "change_pct")));
    json_decref(root);
    free(text);
}

static void test_small_changes_and_unsampled(void **state)
{
    struct fixture *f = *state;
    add(f, "a", 1, 1000, 0, 0.12, 1);
    add(f, "b", 0, 0, 0, 0, 0);
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, NULL), 0);
    assert_false(f->rep.outcomes[0].internals_sampled);
    cmp_report_free(&f->rep);
    result_free(&f->runs[1]);
    f->n = 1;
    add(f, "b", 1, 1030, 0, 0.12, 1); /* +3 %: under the 5 % threshold */
    assert_int_equal(cmp_compare(f->runs, f->paths, f->n, &cfg, &f->rep, NULL), 0);
    assert_true(f->rep.outcomes[0].internals_sampled);
    assert_int_equal(f->rep.outcomes[0].n_internals, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_largest_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_changes_and_unsampled, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
