#ifndef PGARENA_STATS_SERIES_H
#define PGARENA_STATS_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "stats/hist.h"

/*
 * Per-interval series: for each interval of the measured run (index 0 = the first
 * interval_us after the start), transactions and failures counted by completion time, and a
 * sparse latency histogram. Workers each keep one and they are merged after the run.
 * Ownership: the series owns its intervals and their sparse histograms (series_free).
 */

struct interval {
    uint64_t n_tx;
    uint64_t n_failed;
    struct hist_sparse latency;
};

struct series {
    int64_t interval_us;
    size_t n;
    struct interval *items;
};

void series_init(struct series *s, int64_t interval_us);
void series_free(struct series *s);

/* Make intervals 0..n-1 exist (empty ones are zero). */
void series_ensure(struct series *s, size_t n);

/* Add counts and a latency histogram into interval idx (created if needed). lat may be NULL. */
void series_add(struct series *s, size_t idx, uint64_t n_tx, uint64_t n_failed,
                const struct hist *lat);

/* Add every interval of src into dst. */
void series_merge(struct series *dst, const struct series *src);

#endif
