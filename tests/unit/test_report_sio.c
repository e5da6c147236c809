/* Inside the server as text (report/sio.h): which events an interval overlaps, the end an
 * event's start pairs with, show --intervals' columns and the summary's grouped events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/sio.h"

static void add_event(struct result *r, double t, int kind, int start, const char *detail)
{
    r->events = realloc(r->events, (r->n_events + 1) * sizeof *r->events);
    r->events[r->n_events++] =
        (struct result_event){t, kind, start, detail ? strdup(detail) : NULL};
}

static void fill(struct result *r)
{
    memset(r, 0, sizeof *r);
    r->n_intervals = 4;
    r->intervals = calloc(4, sizeof *r->intervals);
    for (int i = 0; i < 4; i++) {
        struct result_interval *it = &r->intervals[i];
        it->t_s = i + 1;
        it->duration_s = 1;
        it->sio.have = SIO_HAVE_ANY | result_sio_fields_for_version(150000);
        it->sio.v[SIO_WAL_BYTES] = 2 * 1024 * 1024;
        it->sio.v[SIO_BLKS_HIT] = 90;
        it->sio.v[SIO_BLKS_READ] = 10;
    }
    r->intervals[3].sio.have = 0; /* not read */
    add_event(r, 0.5, RESULT_EV_AUTOVACUUM, 1, "public.a");
    add_event(r, 1.5, RESULT_EV_CHECKPOINT, 1, "timed");
    add_event(r, 1.7, RESULT_EV_AUTOVACUUM, 1, "public.b");
    add_event(r, 2.0, RESULT_EV_AUTOVACUUM, 0, "public.b");
    add_event(r, 3.0, RESULT_EV_CHECKPOINT, 0, NULL);
    add_event(r, 3.5, RESULT_EV_AUTOVACUUM, 1, "public.b");
    r->sio_per_tx = (struct result_sio_per_tx){1, 2048, 0.25, 1.5, -1};
    r->event_counts[RESULT_EV_CHECKPOINT] = 1;
    r->event_counts[RESULT_EV_AUTOVACUUM] = 3;
}

static void test_active_and_end(void **state)
{
    (void)state;
    struct result r;
    fill(&r);
    /* public.a never ends: it runs to the end of the run. */
    assert_true(report_event_end(&r, 0) == 4.0);
    assert_true(report_event_end(&r, 1) == 3.0);
    assert_true(report_event_end(&r, 2) == 2.0); /* its own table's end, not public.a's */
    assert_int_equal(report_sio_active(&r, RESULT_EV_CHECKPOINT, 0, 1), 0);
    assert_int_equal(report_sio_active(&r, RESULT_EV_CHECKPOINT, 1, 2), 1);
    assert_int_equal(report_sio_active(&r, RESULT_EV_CHECKPOINT, 2, 3), 1);
    assert_int_equal(report_sio_active(&r, RESULT_EV_CHECKPOINT, 3, 4), 0); /* ended at 3 */
    assert_int_equal(report_sio_active(&r, RESULT_EV_AUTOVACUUM, 1, 2), 2);
    assert_int_equal(report_sio_active(&r, RESULT_EV_AUTOVACUUM, 2, 3), 1);
    assert_true(report_sio_hit_ratio(&r.intervals[0].sio) == 0.9);
    assert_true(report_sio_hit_ratio(&r.intervals[3].sio) < 0);
    result_free(&r);
}

static char *text_of(void (*print)(FILE *, const struct result *, size_t), const struct result *r,
                     size_t i)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    print(f, r, i);
    fclose(f);
    return text;
}

static void summary(FILE *f, const struct result *r, size_t i)
{
    (void)i;
    report_text_sio_summary(f, r);
}

static void test_text(void **state)
{
    (void)state;
    struct result r;
    fill(&r);
    char *row = text_of(report_text_sio_row, &r, 1);
    assert_string_equal(row, "     2.00  yes  90.00     0.00   2");
    free(row);
    row = text_of(report_text_sio_row, &r, 3);
    assert_string_equal(row, "        -    -      -        -   -");
    free(row);
    char *s = text_of(summary, &r, 0);
    assert_non_null(
        strstr(s, "WAL 2.0 KB, full-page images 25.0 % of records, buffers written 1.50"));
    assert_null(strstr(s, "temp")); /* unknown: not printed */
    assert_non_null(strstr(s, "1 checkpoints, 3 autovacuum"));
    assert_non_null(strstr(s, "autovacuum public.b: 2, at 1.7 s to 3.5 s"));
    assert_non_null(strstr(s, "autovacuum public.a: 1, at 0.5 s\n"));
    free(s);
    result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_active_and_end),
        cmocka_unit_test(test_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
