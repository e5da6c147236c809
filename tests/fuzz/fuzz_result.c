/* libFuzzer target: the result-file reader must never crash, leak or misbehave on any input;
 * a file is either read or refused with "NAME: why". What show, compare and report do with a file
 * that was read (print it, merge its histograms, take percentiles, compare it with itself
 * under another label, write the HTML report) must be safe too. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "compare/compare.h"
#include "report/compare_out.h"
#include "report/html.h"
#include "report/text.h"
#include "result/result.h"
#include "stats/hist.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    return devnull ? 0 : -1;
}

/* Merge every histogram of the file into one, as compare does, and read percentiles. */
static void use_histograms(const struct result *r)
{
    struct hist *all = hist_new();
    struct hist_sparse merged = {0};
    hist_add_sparse(all, &r->histogram);
    for (size_t i = 0; i < r->n_intervals; i++) {
        (void)result_interval_add(all, &r->intervals[i]);
        /* Checked when read: decoding what was kept compact must not fail. */
        if (result_interval_merge(&merged, &r->intervals[i]) < 0)
            abort();
    }
    hist_add_sparse(all, &merged);
    static const double ps[] = {0, 50, 99, 99.9, 100};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        (void)hist_percentile(all, ps[i]);
    (void)hist_mean(all);
    (void)hist_stddev(all);
    (void)hist_fraction_below(all, 100000);
    hist_sparse_free(&merged);
    hist_free(all);
}

/* The HTML report of runs[0..n), into memory. */
static void use_report(const struct result *runs, size_t n, const struct cmp_report *cmp,
                       const char *no_cmp_reason)
{
    static const char *const paths[2] = {"a.json", "b.json"};
    struct report_input in = {n, runs, paths, cmp, no_cmp_reason, NULL};
    struct buf out;
    buf_init(&out);
    report_html(&out, &in);
    buf_free(&out);
}

/* compare A (the file) with B (the same file labelled B), with few bootstrap resamples, and
 * report both. */
static void use_compare(const uint8_t *data, size_t size, const struct result *a)
{
    struct result runs[2];
    struct err e = {0};
    runs[0] = *a;
    if (result_read_text((const char *)data, size, "b.json", &runs[1], &e) < 0)
        abort(); /* the same text read twice */
    free(runs[1].label);
    runs[1].label = xstrdup(a->label && strcmp(a->label, "B") == 0 ? "C" : "B");
    const char *paths[2] = {"a.json", "b.json"};
    struct cmp_config cfg = {.seed = 1, .margin = CMP_DEFAULT_MARGIN, .resamples = 20};
    struct cmp_report rep;
    if (cmp_compare(runs, paths, 2, &cfg, &rep, &e) == 0) {
        report_compare_text(devnull, &rep);
        if (report_compare_json(devnull, &rep, &e) < 0 && e.code == ERR_NONE)
            abort();
        use_report(runs, 2, &rep, NULL);
        cmp_report_free(&rep);
    } else if (e.code != ERR_INPUT || !e.msg[0]) {
        abort();
    } else {
        use_report(runs, 2, NULL, e.msg);
    }
    result_free(&runs[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct result r;
    struct err e = {0};
    if (result_read_text((const char *)data, size, "fuzz.json", &r, &e) == 0) {
        report_text_summary(devnull, &r);
        report_text_environment(devnull, &r);
        report_text_statements(devnull, &r);
        report_text_intervals(devnull, &r);
        use_histograms(&r);
        use_report(&r, 1, NULL, NULL);
        use_compare(data, size, &r);
        result_free(&r);
    } else if (e.code != ERR_INPUT || strncmp(e.msg, "fuzz.json:", 10) != 0) {
        abort(); /* every refusal names the file */
    }
    return 0;
}
