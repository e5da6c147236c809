#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/err.h"
#include "base/mem.h"
#include "report/part_out.h"
#include "result/result.h"
#include "workload/ch/ch_result.h"
#include "workload/tpcc/tpcc_result.h"
#include "workload/workload.h"

/* summary.tpcc and summary.ch as the tpcc and ch workloads' parts (result/part.h): their JSON,
 * the merge of agents' sections, and their lines in show, report and compare. */

static struct tpcc_figures *tpcc_figures(int warehouses, double nopm, double nopm_client)
{
    struct tpcc_figures *t = xcalloc(1, sizeof *t);
    *t = (struct tpcc_figures){warehouses, nopm, nopm_client, 600.5, 7, xstrdup("procedures"), 0};
    return t;
}

static struct ch_figures *ch_figures(int analytic_clients, double geomean_ms)
{
    struct ch_figures *c = xcalloc(1, sizeof *c);
    *c = (struct ch_figures){analytic_clients, 1234.5, geomean_ms};
    return c;
}

/* r written to a file and read back into back; text: the file's text (caller frees). */
static char *write_read(const struct result *r, struct result *back)
{
    char path[] = "/tmp/pgarena-tpcc-result-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct err e = {0};
    assert_int_equal(result_write(r, path, &e), 0);
    assert_int_equal(result_read(path, back, &e), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    struct buf b;
    buf_init(&b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_printf(&b, "%.*s", (int)n, chunk);
    fclose(f);
    unlink(path);
    return b.data;
}

static const char *at(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    assert_non_null(p);
    return p;
}

/* Both sections go out and come back with their values, at their places in summary
 * (connections, tpcc, ch, scripts): the file's key order is the one before the parts. */
static void test_round_trip_and_key_order(void **state)
{
    (void)state;
    struct result r = {0}, back;
    result_part_set(&r, &tpcc_result_part, tpcc_figures(12, 345.25, 350.5));
    result_part_set(&r, &ch_result_part, ch_figures(3, 87.25));
    char *text = write_read(&r, &back);
    const char *summary = at(text, "\"summary\"");
    const char *tpcc = at(summary, "\"tpcc\""), *ch = at(summary, "\"ch\"");
    assert_true(at(summary, "\"connections\"") < tpcc);
    assert_true(tpcc < ch && ch < at(summary, "\"scripts\""));
    free(text);
    const struct tpcc_figures *t = result_part_get(&back, "tpcc");
    assert_non_null(t);
    assert_int_equal(t->warehouses, 12);
    assert_true(t->nopm == 345.25 && t->nopm_client == 350.5 && t->tpm == 600.5);
    assert_int_equal(t->new_order_rollbacks, 7);
    assert_string_equal(t->mode, "procedures");
    assert_false(t->keying_thinking);
    const struct ch_figures *c = result_part_get(&back, "ch");
    assert_non_null(c);
    assert_int_equal(c->analytic_clients, 3);
    assert_true(c->queries_per_hour == 1234.5 && c->power_geomean_ms == 87.25);
    result_free(&back);
    /* An unknown geometric mean and NOPM are null, read back as NaN. */
    result_part_set(&r, &ch_result_part, ch_figures(3, NAN));
    ((struct tpcc_figures *)result_part_get(&r, "tpcc"))->nopm = NAN;
    text = write_read(&r, &back);
    assert_non_null(strstr(text, "\"power_geomean_ms\": null"));
    assert_non_null(strstr(text, "\"nopm\": null"));
    free(text);
    assert_true(isnan(((const struct ch_figures *)result_part_get(&back, "ch"))->power_geomean_ms));
    result_free(&back);
    /* Without the parts: neither key. */
    result_part_set(&r, &tpcc_result_part, NULL);
    result_part_set(&r, &ch_result_part, NULL);
    text = write_read(&r, &back);
    assert_null(strstr(text, "\"tpcc\""));
    assert_null(strstr(text, "\"ch\""));
    assert_null(result_part_get(&back, "tpcc"));
    assert_null(result_part_get(&back, "ch"));
    free(text);
    result_free(&back);
    result_free(&r);
}

/* Agents' sections: NOPM is the server's count, the first agent's; the clients' figures add
 * up; an agent without a section adds nothing. summary.ch is not merged. */
static void test_merge(void **state)
{
    (void)state;
    struct tpcc_figures *a = tpcc_figures(4, 100, 40), *b = tpcc_figures(4, 101, 50);
    void *parts[] = {NULL, a, NULL, b};
    struct tpcc_figures *m = tpcc_result_part.merge(parts, 4);
    assert_non_null(m);
    assert_true(m->nopm == 100 && m->nopm_client == 90 && m->tpm == 1201);
    assert_int_equal(m->new_order_rollbacks, 14);
    assert_int_equal(m->warehouses, 4);
    assert_string_equal(m->mode, "procedures");
    assert_true(m->mode != a->mode);
    void *none[] = {NULL, NULL};
    assert_null(tpcc_result_part.merge(none, 2));
    assert_null(ch_result_part.merge);
    tpcc_result_part.free(m);
    tpcc_result_part.free(a);
    tpcc_result_part.free(b);
}

static char *show_text(const struct result *r, enum result_part_place place)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    report_parts_text(r, place, f);
    fclose(f);
    return text;
}

/* show's lines after tps: TPC-C's then CH's; nothing at the other places. */
static void test_show_lines(void **state)
{
    (void)state;
    struct result r = {0};
    result_part_set(&r, &tpcc_result_part, tpcc_figures(12, 345.25, 350.5));
    result_part_set(&r, &ch_result_part, ch_figures(2, NAN));
    char *text = show_text(&r, RESULT_PLACE_SHOW_RATE);
    assert_string_equal(
        text, "NOPM:                345 (server: sum of d_next_o_id), 350 (clients)\n"
              "TPM:                 600 (all five transactions), 7 New-Orders rolled back\n"
              "TPC-C:               12 warehouses, procedures, no keying or thinking times: not "
              "TPC-C compliant\n"
              "CH-benCHmark:        analytic clients 2, 1234 queries per hour, no geometric mean "
              "(a query did not complete)\n"
              "                     tps, latency and TPM are the terminals' (-c) only\n");
    free(text);
    text = show_text(&r, RESULT_PLACE_SHOW_SUMMARY);
    assert_string_equal(text, "");
    free(text);
    struct buf b;
    buf_init(&b);
    assert_int_equal(report_parts_html(&r, RESULT_PLACE_HTML_SUMMARY, &b), 2);
    assert_non_null(strstr(b.data, " TPC-C, 12 warehouses, procedures: NOPM 345.3 (server)"));
    assert_non_null(strstr(b.data, " CH-benCHmark, 2 analytic clients:"));
    assert_non_null(strstr(b.data, "latencies unknown (the figures above are the terminals'"));
    buf_free(&b);
    /* No streams: CH's line without a geometric mean, no report sentence. */
    result_part_set(&r, &ch_result_part, ch_figures(0, NAN));
    buf_init(&b);
    assert_int_equal(report_parts_html(&r, RESULT_PLACE_HTML_SUMMARY, &b), 1);
    assert_null(strstr(b.data, "CH-benCHmark"));
    buf_free(&b);
    result_free(&r);
}

/* compare: each side's NOPM, the mean of its trials, and the change against A; a side with a
 * trial without TPC-C's figures is left out, and nothing is printed when A has none. */
static void test_compare_lines(void **state)
{
    (void)state;
    struct result runs[5] = {{0}};
    result_part_set(&runs[0], &tpcc_result_part, tpcc_figures(1, 100, 0));
    result_part_set(&runs[1], &tpcc_result_part, tpcc_figures(1, 200, 0));
    result_part_set(&runs[2], &tpcc_result_part, tpcc_figures(1, 165, 0));
    result_part_set(&runs[3], &tpcc_result_part, tpcc_figures(1, 165, 0)); /* runs[4]: none */
    const struct result *a[] = {&runs[0], &runs[1]}, *b[] = {&runs[2]}, *c[] = {&runs[3], &runs[4]};
    struct result_part_side sides[] = {{"base", a, 2}, {"tuned", b, 1}, {"half", c, 2}};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    report_parts_compare(sides, 3, f);
    fclose(f);
    assert_string_equal(text, "\nNOPM (TPC-C, server-side, mean of the trials):\n"
                              "  base                        150\n"
                              "  tuned                       165  +10.0%\n");
    free(text);
    struct result_part_side swapped[] = {sides[2], sides[0]};
    text = NULL;
    f = open_memstream(&text, &len);
    report_parts_compare(swapped, 2, f);
    fclose(f);
    assert_string_equal(text, "");
    free(text);
    for (size_t i = 0; i < 5; i++)
        result_free(&runs[i]);
}

int main(void)
{
    workload_parts_register();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_and_key_order),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_show_lines),
        cmocka_unit_test(test_compare_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
