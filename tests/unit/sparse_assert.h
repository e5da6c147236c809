/* Shared by the unit tests: equality of two sparse histograms. Include after <cmocka.h>. */
#ifndef PGARENA_TESTS_SPARSE_ASSERT_H
#define PGARENA_TESTS_SPARSE_ASSERT_H

#include <math.h>

#include "stats/hist.h"

/* Bins, count, min and max exactly; sums of integers below 2^53 are exact in a double, the
 * sum of squares may round by sumsq_rel_tol (0 for exact). */
static inline void assert_sparse_equal_tol(const struct hist_sparse *a, const struct hist_sparse *b,
                                           double sumsq_rel_tol)
{
    assert_int_equal(a->n_bins, b->n_bins);
    for (size_t i = 0; i < a->n_bins; i++) {
        assert_int_equal(a->bins[i].value_us, b->bins[i].value_us);
        assert_int_equal(a->bins[i].count, b->bins[i].count);
    }
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->min_us, b->min_us);
    assert_int_equal(a->max_us, b->max_us);
    assert_true(a->sum_us == b->sum_us);
    assert_true(fabs(a->sumsq_us - b->sumsq_us) <= sumsq_rel_tol * fabs(a->sumsq_us));
}

#endif
