/* The report's pure parts: number formatting, escaping, ticks, palette, percentile curves. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/rng.h"
#include "report/fmt.h"
#include "report/html_int.h"
#include "report/svg.h"
#include "stats/hist.h"

static void test_count(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(report_fmt_count(buf, sizeof buf, 0), "0");
    assert_string_equal(report_fmt_count(buf, sizeof buf, 999), "999");
    assert_string_equal(report_fmt_count(buf, sizeof buf, 1000), "1,000");
    assert_string_equal(report_fmt_count(buf, sizeof buf, 1234567), "1,234,567");
    assert_string_equal(report_fmt_count(buf, sizeof buf, UINT64_MAX),
                        "18,446,744,073,709,551,615");
    /* Cut to the buffer, still terminated. */
    char small[6];
    assert_string_equal(report_fmt_count(small, sizeof small, 1234567), "1,234");
}

static void test_sig_and_num(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(report_fmt_sig(buf, sizeof buf, 1234.5, 4), "1,235");
    assert_string_equal(report_fmt_sig(buf, sizeof buf, 1234.5, 3), "1,230");
    assert_string_equal(report_fmt_sig(buf, sizeof buf, 0.012345, 3), "0.0123");
    assert_string_equal(report_fmt_sig(buf, sizeof buf, 9.996, 3), "10.0");
    assert_string_equal(report_fmt_sig(buf, sizeof buf, -2.5, 2), "-2.5");
    assert_string_equal(report_fmt_sig(buf, sizeof buf, -12345, 3), "-12,300");
    assert_string_equal(report_fmt_sig(buf, sizeof buf, 0, 3), "0");
    assert_string_equal(report_fmt_sig(buf, sizeof buf, NAN, 3), "-");
    assert_string_equal(report_fmt_sig(buf, sizeof buf, 35180.2, 4), "35,180");
    assert_string_equal(report_fmt_num(buf, sizeof buf, 3.0, 3), "3");
    assert_string_equal(report_fmt_num(buf, sizeof buf, 2.5, 3), "2.5");
    assert_string_equal(report_fmt_num(buf, sizeof buf, 1500, 3), "1,500");
    assert_string_equal(report_fmt_num(buf, sizeof buf, 0.1, 3), "0.1");
}

static void test_latency(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(report_fmt_latency(buf, sizeof buf, 850), "850 µs");
    assert_string_equal(report_fmt_latency(buf, sizeof buf, 43), "43.0 µs");
    assert_string_equal(report_fmt_latency(buf, sizeof buf, 1250), "1.25 ms");
    assert_string_equal(report_fmt_latency(buf, sizeof buf, 3400000), "3.40 s");
    assert_string_equal(report_fmt_latency(buf, sizeof buf, 999.7), "1.00 ms");
    assert_string_equal(report_fmt_latency(buf, sizeof buf, 7200e6), "7,200 s");
    assert_string_equal(report_fmt_latency(buf, sizeof buf, NAN), "-");
    assert_string_equal(report_fmt_latency_tick(buf, sizeof buf, 1000), "1 ms");
    assert_string_equal(report_fmt_latency_tick(buf, sizeof buf, 2500), "2.5 ms");
    assert_string_equal(report_fmt_latency_tick(buf, sizeof buf, 200), "200 µs");
    assert_string_equal(report_fmt_latency_tick(buf, sizeof buf, 10), "10 µs");
    assert_string_equal(report_fmt_latency_tick(buf, sizeof buf, 1e6), "1 s");
    assert_string_equal(report_fmt_latency_tick(buf, sizeof buf, 0.5), "0.5 µs");
}

static void test_tick_labels(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 1500, 500), "1.5k");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 40000, 10000), "40k");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 2500, 500), "2.5k");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 2e6, 1e6), "2M");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 1.5e6, 5e5), "1.5M");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 0.25, 0.05), "0.25");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 0.5, 0.5), "0.5");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 0, 10000), "0");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 3, 1), "3");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, -5, 5), "-5");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 900, 100), "900");
    /* A tick that is zero up to rounding prints as 0, never "-0". */
    assert_string_equal(report_fmt_tick(buf, sizeof buf, 0.1 + 0.2 - 0.3 - 1e-16, 0.1), "0.0");
    assert_string_equal(report_fmt_tick(buf, sizeof buf, -1e-17, 0.1), "0.0");
    assert_string_equal(report_fmt_nines(buf, sizeof buf, 0), "0%");
    assert_string_equal(report_fmt_nines(buf, sizeof buf, 1), "90%");
    assert_string_equal(report_fmt_nines(buf, sizeof buf, 2), "99%");
    assert_string_equal(report_fmt_nines(buf, sizeof buf, 3), "99.9%");
    assert_string_equal(report_fmt_nines(buf, sizeof buf, 5), "99.999%");
    assert_string_equal(report_fmt_nines(buf, sizeof buf, 2.5), "99.7%");
    assert_string_equal(report_fmt_change(buf, sizeof buf, 3.14), "+3.1%");
    assert_string_equal(report_fmt_change(buf, sizeof buf, -2), "-2.0%");
    assert_string_equal(report_fmt_change(buf, sizeof buf, -0.04), "0.0%");
    assert_string_equal(report_fmt_change(buf, sizeof buf, NAN), "-");
}

static void test_escape(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b);
    report_escape(&b, "<a href=\"x\">&'</a>");
    assert_string_equal(b.data, "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
    buf_reset(&b);
    report_escape(&b, "tab\there\nnew \x01\x1f\x7f µs"); /* controls dropped, UTF-8 kept */
    assert_string_equal(b.data, "tab\there\nnew  µs");
    buf_reset(&b);
    report_escape(&b, NULL);
    assert_string_equal(b.data, "");
    buf_free(&b);
}

/* step is 1, 2 or 5 times a power of ten. */
static int is_125(double step)
{
    double m = step / pow(10, floor(log10(step)));
    return fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9;
}

static void assert_ticks(const struct svg_ticks *t, const double *want, size_t n)
{
    assert_int_equal(t->n, n);
    for (size_t i = 0; i < n; i++)
        assert_true(fabs(t->v[i] - want[i]) <= 1e-9 * fmax(1, fabs(want[i])));
    assert_true(t->lo == t->v[0] && t->hi == t->v[n - 1]);
}

static void test_linear_ticks(void **state)
{
    (void)state;
    struct svg_ticks t;
    svg_ticks_linear(0, 37000, 6, &t);
    assert_ticks(&t, (double[]){0, 10000, 20000, 30000, 40000}, 5);
    svg_ticks_linear(0, 1, 6, &t);
    assert_ticks(&t, (double[]){0, 0.2, 0.4, 0.6, 0.8, 1.0}, 6);
    svg_ticks_linear(-3, 12, 8, &t); /* 15 / 7 is just over 2: steps of 5 */
    assert_ticks(&t, (double[]){-5, 0, 5, 10, 15}, 5);
    svg_ticks_linear(5, 5, 6, &t); /* empty: one unit wider */
    assert_ticks(&t, (double[]){5, 6, 7, 8, 9, 10}, 6);
    svg_ticks_linear(0, 0, 6, &t);
    assert_ticks(&t, (double[]){0, 0.2, 0.4, 0.6, 0.8, 1.0}, 6);
    svg_ticks_linear(NAN, NAN, 6, &t);
    assert_int_equal(t.n, 6);
    svg_ticks_linear(0, 5, 6, &t); /* the distribution's nines: whole steps */
    assert_ticks(&t, (double[]){0, 1, 2, 3, 4, 5}, 6);

    /* Any range that is not lost in the rounding of its own magnitude (over a millionth of
     * it): round steps, the data inside, never too many ticks. */
    struct rng g;
    rng_seed(&g, 8);
    for (int k = 0; k < 2000; k++) {
        double mag = (double)(rng_next(&g) % 12) - 4;
        double lo = (rng_double(&g) - 0.5) * pow(10, mag);
        double hi = lo + (0.1 + rng_double(&g)) * pow(10, mag - 5 + (double)(rng_next(&g) % 10));
        int max_n = 2 + (int)(rng_next(&g) % 10);
        svg_ticks_linear(lo, hi, max_n, &t);
        assert_true(is_125(t.step));
        assert_true(t.lo <= lo + 1e-9 * fabs(lo) && t.hi >= hi - 1e-9 * fabs(hi));
        assert_true(t.n >= 2 && t.n <= (size_t)max_n + 2);
        for (size_t i = 1; i < t.n; i++)
            assert_true(fabs(t.v[i] - t.v[i - 1] - t.step) < 1e-6 * t.step);
    }
}

static void test_log_ticks(void **state)
{
    (void)state;
    struct svg_ticks t;
    svg_ticks_log(15, 8300, &t); /* three decades: decades only */
    assert_ticks(&t, (double[]){10, 100, 1000, 10000}, 4);
    svg_ticks_log(900, 1100, &t);
    assert_ticks(&t, (double[]){500, 1000, 2000}, 3);
    svg_ticks_log(0, 50, &t); /* lo unusable: a decade below hi */
    assert_ticks(&t, (double[]){5, 10, 20, 50}, 4);
    svg_ticks_log(7, 7, &t);
    assert_ticks(&t, (double[]){2, 5, 10, 20}, 4);
    svg_ticks_log(43, 8300, &t);
    assert_ticks(&t, (double[]){20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}, 9);
    svg_ticks_log(1, 3.6e9, &t); /* one microsecond to an hour */
    assert_int_equal(t.n, 10);
    assert_true(t.lo == 1 && t.hi == 5e9);
}

static void test_palette(void **state)
{
    (void)state;
    for (size_t i = 0; i < SVG_N_STYLES; i++) {
        const char *c = svg_color(i);
        assert_int_equal(strlen(c), 7);
        assert_int_equal(c[0], '#');
        assert_true(strspn(c + 1, "0123456789ABCDEF") == 6);
        for (size_t j = 0; j < i; j++) {
            assert_string_not_equal(svg_color(i), svg_color(j));
            assert_string_not_equal(svg_dash(i), svg_dash(j));
        }
    }
    assert_string_equal(svg_color(SVG_N_STYLES), svg_color(0)); /* cycles */
    assert_string_equal(svg_dash(0), "none");                   /* the first is solid */
    /* Okabe-Ito's blue and vermillion come first: the two most distinct for two setups. */
    assert_string_equal(svg_color(0), "#0072B2");
    assert_string_equal(svg_color(1), "#D55E00");
}

static void sparse_of(struct hist_sparse *s, int64_t lo, int64_t hi, int64_t times)
{
    struct hist *h = hist_new();
    for (int64_t v = lo; v <= hi; v++)
        hist_record_n(h, v, (uint64_t)times);
    hist_to_sparse(h, s);
    hist_free(h);
}

static void test_percentile_curve(void **state)
{
    (void)state;
    struct hist_sparse s;
    sparse_of(&s, 1, 1000, 1); /* 1..1000 once each: the value at p is about 1000 p */
    struct report_point pts[31];
    assert_int_equal(report_percentile_curve(&s, 6, pts, 31), 31);
    assert_true(pts[0].x == 0 && pts[0].y == 1); /* the minimum */
    assert_true(fabs(pts[30].x - 3) < 1e-12);    /* log10(1000): stops at 1 - 1/count */
    assert_true(fabs(pts[10].x - 1) < 1e-12 && fabs(pts[10].y - 900) <= 1);
    assert_true(fabs(pts[20].x - 2) < 1e-12 && fabs(pts[20].y - 990) <= 1);
    assert_true(fabs(pts[30].y - 999) <= 1);
    for (size_t i = 1; i < 31; i++) /* a percentile curve never goes down */
        assert_true(pts[i].y >= pts[i - 1].y && pts[i].x > pts[i - 1].x);
    assert_int_equal(report_percentile_curve(&s, 2, pts, 31), 31); /* capped */
    assert_true(fabs(pts[30].x - 2) < 1e-12 && fabs(pts[30].y - 990) <= 1);
    assert_int_equal(report_percentile_curve(&s, 6, pts, 1), 0); /* no room for a line */
    hist_sparse_free(&s);

    sparse_of(&s, 1000, 1999, 10); /* 10,000 values: bin resolution 0.1 % */
    assert_int_equal(report_percentile_curve(&s, 6, pts, 5), 5);
    assert_true(fabs(pts[4].x - 4) < 1e-12);
    assert_true(fabs(pts[2].y - 1990) <= 2); /* x = 2: p99 */
    hist_sparse_free(&s);

    struct hist_sparse empty = {0};
    assert_int_equal(report_percentile_curve(&empty, 6, pts, 31), 0);
    struct hist_bin bad = {.value_us = 1000001, .count = 1}; /* not a bin boundary */
    struct hist_sparse corrupt = {
        .n_bins = 1, .bins = &bad, .count = 1, .min_us = 1000001, .max_us = 1000001};
    assert_int_equal(report_percentile_curve(&corrupt, 6, pts, 31), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_sig_and_num),
        cmocka_unit_test(test_latency),
        cmocka_unit_test(test_tick_labels),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_linear_ticks),
        cmocka_unit_test(test_log_ticks),
        cmocka_unit_test(test_palette),
        cmocka_unit_test(test_percentile_curve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
