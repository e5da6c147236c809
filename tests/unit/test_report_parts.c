/* Parts' rows (result/part.h) and their rendering (report/part_out.h): each formatting hint,
 * a row's text with its values, show's label column, HTML escaping of text values, compare's
 * columns and CSV. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "report/part_out.h"
#include "result/part.h"

/* What f wrote into a memory stream, for comparison (caller frees). */
struct sink {
    char *text;
    size_t len;
    FILE *f;
};

static void sink_open(struct sink *s)
{
    s->text = NULL;
    s->len = 0;
    s->f = open_memstream(&s->text, &s->len);
    assert_non_null(s->f);
}

static char *sink_close(struct sink *s)
{
    fclose(s->f);
    return s->text;
}

static const char *fmt1(char *t, size_t n, enum result_row_fmt fmt, int digits, double v,
                        const char *unit)
{
    struct result_value x = {.fmt = fmt, .digits = digits, .num = v, .unit = unit};
    return report_fmt_value(t, n, &x);
}

/* Each hint writes its number as its comment in part.h says, the unit right after it. */
static void test_value_hints(void **state)
{
    (void)state;
    char t[64];
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_FIXED, 0, 1234.5, NULL), "1234");
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_FIXED, 3, 1.25, " ms"), "1.250 ms");
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_G, 0, 1.5, "x"), "1.5x");
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_SIG, 4, 1234.56, NULL), "1,235");
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_SIG, 4, NAN, NULL), "-");
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_LATENCY, 0, 1250, NULL), "1.25 ms");
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_PERCENT, 1, 0.5, " %"), "50.0 %");
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_CHANGE, 1, 10, "%"), "+10.0%");
    assert_string_equal(fmt1(t, sizeof t, RESULT_FMT_CHANGE, 1, -2, "%"), "-2.0%");
    struct result_value c = {.fmt = RESULT_FMT_COUNT, .count = 1234567};
    assert_string_equal(report_fmt_value(t, sizeof t, &c), "1,234,567");
    c.fmt = RESULT_FMT_INT;
    c.count = UINT64_MAX; /* whole, not through a double */
    assert_string_equal(report_fmt_value(t, sizeof t, &c), "18446744073709551615");
    struct result_value s = {.fmt = RESULT_FMT_TEXT, .str = "a<b"};
    assert_string_equal(report_fmt_value(t, sizeof t, &s), "a<b");
    assert_string_equal(fmt1(t, 6, RESULT_FMT_FIXED, 3, 1234.5, NULL), "1234."); /* cut */
}

/* "%v" takes the values in order; other characters (a lone '%' too) as they are; values left
 * over are not written, "%v" without a value writes nothing; no text: the values alone. */
static void test_expand(void **state)
{
    (void)state;
    struct result_rows rs = {0};
    struct result_row *row = result_rows_add(&rs, RESULT_PLACE_SHOW_RATE, "x", "a %v, b %v (5 %)");
    result_row_count(row, RESULT_FMT_INT, 7, NULL);
    result_row_num(row, RESULT_FMT_FIXED, 1, 2.25, " s");
    result_row_num(row, RESULT_FMT_FIXED, 1, 9, NULL);
    struct buf b;
    buf_init(&b);
    report_row_expand(&b, row, 0);
    assert_string_equal(b.data, "a 7, b 2.2 s (5 %)");
    row = result_rows_add(&rs, RESULT_PLACE_SHOW_RATE, "y", "%v and %v");
    result_row_text(row, "one");
    buf_reset(&b);
    report_row_expand(&b, row, 0);
    assert_string_equal(b.data, "one and ");
    row = result_rows_add(&rs, RESULT_PLACE_SHOW_RATE, "z", NULL);
    result_row_count(row, RESULT_FMT_COUNT, 1000, NULL);
    result_row_text(row, "<&>");
    buf_reset(&b);
    report_row_expand(&b, row, 1);
    assert_string_equal(b.data, "1,000 &lt;&amp;&gt;");
    for (int i = 0; i < RESULT_ROW_VALUES + 2; i++) /* the ones past the last are dropped */
        result_row_count(row, RESULT_FMT_INT, 1, NULL);
    assert_int_equal(row->n, RESULT_ROW_VALUES);
    buf_free(&b);
    result_rows_free(&rs);
    assert_int_equal(rs.n, 0);
}

/* show: "LABEL:" in a column 21 wide, an empty label indents; the rows of other places are
 * not written. HTML: the text as it is (it is HTML), text values escaped. */
static void test_text_and_html(void **state)
{
    (void)state;
    struct result_rows rs = {0};
    struct result_row *row = result_rows_add(&rs, RESULT_PLACE_SHOW_RATE, "NOPM", "%v (server)");
    result_row_num(row, RESULT_FMT_FIXED, 0, 345.25, NULL);
    result_rows_add(&rs, RESULT_PLACE_SHOW_RATE, "", "more");
    result_rows_add(&rs, RESULT_PLACE_SHOW_MODE, "mode", "elsewhere");
    row = result_rows_add(&rs, RESULT_PLACE_HTML_SUMMARY, "s", " A <b>%v</b>.");
    result_row_text(row, "x&y");
    row = result_rows_add(&rs, RESULT_PLACE_SHOW_RATE, "a label of twenty-one", "v");
    struct sink s;
    sink_open(&s);
    report_rows_text(s.f, &rs, RESULT_PLACE_SHOW_RATE);
    char *text = sink_close(&s);
    assert_string_equal(text, "NOPM:                345 (server)\n"
                              "                     more\n"
                              "a label of twenty-one:v\n");
    free(text);
    struct buf b;
    buf_init(&b);
    report_rows_html(&b, &rs, RESULT_PLACE_HTML_SUMMARY);
    assert_string_equal(b.data, " A <b>x&amp;y</b>.");
    buf_free(&b);
    result_rows_free(&rs);
}

/* compare: a heading row (no values) and a side's row of label and values in columns; CSV: a
 * record per value with its label and unit apart. */
static void test_compare_and_csv(void **state)
{
    (void)state;
    struct result_rows rs = {0};
    result_rows_add(&rs, RESULT_PLACE_COMPARE, "Figure (what)", NULL);
    struct result_row *row = result_rows_add(&rs, RESULT_PLACE_COMPARE, "base", NULL);
    result_row_num(row, RESULT_FMT_FIXED, 0, 150, NULL);
    row = result_rows_add(&rs, RESULT_PLACE_COMPARE, "tuned", NULL);
    result_row_num(row, RESULT_FMT_FIXED, 0, 165, NULL);
    result_row_num(row, RESULT_FMT_CHANGE, 1, 10, "%");
    struct sink s;
    sink_open(&s);
    report_rows_compare(s.f, &rs);
    char *text = sink_close(&s);
    assert_string_equal(text, "\nFigure (what):\n"
                              "  base                        150\n"
                              "  tuned                       165  +10.0%\n");
    free(text);
    sink_open(&s);
    report_rows_csv(s.f, &rs, RESULT_PLACE_COMPARE);
    text = sink_close(&s);
    assert_string_equal(text, "base,150,\ntuned,165,\ntuned,+10.0,%\n");
    free(text);
    result_rows_free(&rs);
    /* A string copied in lives as long as the rows. */
    char made[16];
    snprintf(made, sizeof made, "x, \"y\"");
    row = result_rows_add(&rs, RESULT_PLACE_SHOW_RATE, result_rows_str(&rs, made), NULL);
    result_row_text(row, result_rows_str(&rs, made));
    made[0] = 0;
    sink_open(&s);
    report_rows_csv(s.f, &rs, RESULT_PLACE_SHOW_RATE);
    text = sink_close(&s);
    assert_string_equal(text, "\"x, \"\"y\"\"\",\"x, \"\"y\"\"\",\n");
    free(text);
    result_rows_free(&rs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_hints),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_text_and_html),
        cmocka_unit_test(test_compare_and_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
