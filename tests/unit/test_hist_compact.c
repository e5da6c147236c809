#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/rng.h"
#include "stats/hist.h"
#include "stats/hist_compact.h"

/* Encode h's sparse form, decode it with the exact figures, and return the decoded sparse. */
static void round_trip(const struct hist *h, struct hist_sparse *exact, struct hist_sparse *back,
                       struct buf *text)
{
    hist_to_sparse(h, exact);
    buf_init(text);
    hist_compact_encode(exact, text);
    *back = *exact;
    back->bins = NULL;
    back->n_bins = 0;
    assert_int_equal(hist_compact_decode(text->data, text->len, back), 0);
}

/* The decoded histogram keeps count, min, max and sums exactly, is a valid snapshot, and every
 * percentile lies within 1/32 of the exact one (the header's bound). */
static void check_bounds(const struct hist *h)
{
    struct hist_sparse exact, back;
    struct buf text;
    round_trip(h, &exact, &back, &text);
    assert_int_equal(back.count, exact.count);
    assert_int_equal(back.min_us, exact.min_us);
    assert_int_equal(back.max_us, exact.max_us);
    assert_true(back.sum_us == exact.sum_us);
    struct hist *d = hist_new();
    assert_int_equal(hist_add_sparse(d, &back), 0);
    assert_int_equal(hist_count(d), hist_count(h));
    assert_int_equal(hist_min(d), hist_min(h));
    assert_int_equal(hist_max(d), hist_max(h));
    for (double p = 0.5; p <= 100.0; p += 0.5) {
        double want = (double)hist_percentile(h, p), got = (double)hist_percentile(d, p);
        if (fabs(got - want) > want / HIST_COMPACT_SUB + 1)
            fail_msg("p%.1f: %.0f decoded, %.0f exact: beyond 1/%d", p, got, want,
                     HIST_COMPACT_SUB);
    }
    /* Each value stays within its compact bin: the mean moves by less than 1/32 too. */
    double mean = 0;
    for (size_t i = 0; i < back.n_bins; i++)
        mean += (double)back.bins[i].value_us * (double)back.bins[i].count;
    mean /= (double)back.count;
    assert_true(fabs(mean - hist_mean(h)) <= hist_mean(h) / HIST_COMPACT_SUB + 1);
    hist_free(d);
    hist_sparse_free(&exact);
    hist_sparse_free(&back);
    buf_free(&text);
}

static void test_bounds_lognormal(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 42);
    for (int round = 0; round < 20; round++) {
        struct hist *h = hist_new();
        double mu = 3 + round * 0.4, sigma = 0.2 + 0.1 * (round % 8);
        for (int i = 0; i < 20000; i++) {
            double u1 = rng_double(&r), u2 = rng_double(&r);
            double z = sqrt(-2 * log(u1 > 0 ? u1 : 1e-300)) * cos(2 * M_PI * u2);
            hist_record(h, (int64_t)exp(mu + sigma * z));
        }
        check_bounds(h);
        hist_free(h);
    }
}

static void test_bounds_edges(void **state)
{
    (void)state;
    static const int64_t cases[][3] = {
        {0, 0, 1},                    /* one zero */
        {5, 5, 3},                    /* one value thrice */
        {70000, 70001, 2},            /* two fine bins inside one compact bin */
        {63, 64, 1000},               /* across the exact range's end */
        {1, HIST_MAX_US, 5},          /* the whole range */
        {2048, 2048 + 63, 500},       /* one compact bin, many fine bins */
        {HIST_MAX_US, HIST_MAX_US, 1} /* the last bin */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct hist *h = hist_new();
        for (int64_t i = 0; i < cases[c][2]; i++)
            hist_record(h, cases[c][0] + (cases[c][1] - cases[c][0]) * i /
                                             (cases[c][2] > 1 ? cases[c][2] - 1 : 1));
        check_bounds(h);
        hist_free(h);
    }
}

static void test_empty(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    struct hist_sparse exact, back;
    struct buf text;
    round_trip(h, &exact, &back, &text);
    assert_int_equal(text.len, 0);
    assert_int_equal(back.n_bins, 0);
    hist_sparse_free(&exact);
    hist_sparse_free(&back);
    buf_free(&text);
    hist_free(h);
}

/* The format is pinned: bins 0 (1), 1 (2) and 64 (3) are ZigZag varints 2, 4, then a run of
 * 62 empty bins (-62: 123), then 6; base64 of 02 04 7b 06. */
static void test_format(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    hist_record(h, 0);
    hist_record_n(h, 1, 2);
    hist_record_n(h, 64, 3);
    struct hist_sparse exact, back;
    struct buf text;
    round_trip(h, &exact, &back, &text);
    assert_string_equal(text.data, "AgR7Bg==");
    assert_int_equal(back.n_bins, 3);
    assert_int_equal(back.bins[2].value_us, 64);
    assert_int_equal(back.bins[2].count, 3);
    hist_sparse_free(&exact);
    hist_sparse_free(&back);
    buf_free(&text);
    hist_free(h);
}

/* A busy second at its widest (86,000 transactions spread evenly over three decades, 40 us ..
 * 40 ms: 320 compact bins of ~270 each) stays under 1 KB. */
static void test_size(void **state)
{
    (void)state;
    struct rng r;
    rng_seed(&r, 7);
    struct hist *h = hist_new();
    for (int i = 0; i < 86000; i++)
        hist_record(h, (int64_t)(40 * exp(rng_double(&r) * log(1000.0))));
    struct hist_sparse exact, back;
    struct buf text;
    round_trip(h, &exact, &back, &text);
    assert_true(exact.n_bins > 3000);
    if (text.len > 1000)
        fail_msg("compact text of %zu bytes for %zu full-precision bins", text.len, exact.n_bins);
    hist_sparse_free(&exact);
    hist_sparse_free(&back);
    buf_free(&text);
    hist_free(h);
}

static int rejects(const char *text, uint64_t count, int64_t min, int64_t max)
{
    struct hist_sparse s = {.count = count, .min_us = min, .max_us = max};
    int rc = hist_compact_decode(text, strlen(text), &s);
    int clean = s.bins == NULL && s.n_bins == 0;
    hist_sparse_free(&s);
    return rc == -1 && clean;
}

static void test_corrupt(void **state)
{
    (void)state;
    assert_true(rejects("AgR7Bg=", 6, 0, 64));     /* length not a multiple of 4 */
    assert_true(rejects("AgR7B!==", 6, 0, 64));    /* not the alphabet */
    assert_true(rejects("AgR7Bg==", 7, 0, 64));    /* counts disagree with count */
    assert_true(rejects("AgR7Bg==", 6, 1, 64));    /* min outside the first bin */
    assert_true(rejects("AgR7Bg==", 6, 0, 100));   /* max outside the last bin */
    assert_true(rejects("AA==", 0, 0, 0));         /* a zero count */
    assert_true(rejects("gA==", 0, 0, 0));         /* a varint cut short */
    assert_true(rejects("////////////", 1, 0, 0)); /* a varint too long */
    assert_true(rejects("/w8C", 1, 0, 0));         /* a run past the last bin */
    assert_true(rejects("Ag=A", 1, 0, 0));         /* padding inside */
    struct hist_sparse ok = {.count = 6, .min_us = 0, .max_us = 64};
    assert_int_equal(hist_compact_decode("AgR7Bg==", 8, &ok), 0);
    hist_sparse_free(&ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds_lognormal),
        cmocka_unit_test(test_bounds_edges),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_corrupt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
