#ifndef PGARENA_STATS_SERIES_H
#define PGARENA_STATS_SERIES_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "stats/hist.h"

/*
 * Per-interval series: for each interval of the measured run (index 0 = the first
 * interval_us after the start), transactions and failures counted by completion time, the
 * transactions again by the tenth of the interval they completed in, and a sparse latency
 * histogram. Workers each keep one and they are merged after the run, or
 * handed over interval by interval while it runs (series_take_into), so that a long run
 * keeps only the intervals not yet handed over: items[i] is interval first + i.
 * Ownership: the series owns its intervals and their sparse histograms (series_free).
 */

/* Tenths of an interval: a duet's comparison pairs its halves' half-seconds. */
#define SERIES_TENTHS 10

struct interval {
    uint64_t n_tx;
    uint64_t n_failed;
    /* n_tx by the tenth of the interval (interval_us / SERIES_TENTHS) they completed in; their
     * sum is n_tx. A completion folded in from before the interval counts in its first tenth,
     * one from after it in its last. */
    uint64_t tenths[SERIES_TENTHS];
    struct hist_sparse latency;
    /* The workers' wake-up lateness inside the interval (series_add_late): summed, and the
     * largest one worker's share of it. */
    int64_t late_sum_ns, late_max_ns;
};

struct series {
    int64_t interval_us;
    size_t first; /* index of items[0]: intervals before it were handed over */
    size_t n;     /* items held */
    struct interval *items;
};

void series_init(struct series *s, int64_t interval_us);
void series_free(struct series *s);

/* Make intervals first..n-1 exist (empty ones are zero). */
void series_ensure(struct series *s, size_t n);

/* Add counts and a latency histogram into interval idx (created if needed). tenths: n_tx by
 * tenth (SERIES_TENTHS entries summing to n_tx), or NULL to count them all in the first; lat
 * may be NULL. An interval already handed over (idx < first) is added into interval first
 * instead, in its first tenth: a late completion is counted late rather than lost. */
void series_add(struct series *s, size_t idx, uint64_t n_tx, uint64_t n_failed,
                const uint64_t *tenths, const struct hist *lat);

/* Add one worker's lateness inside interval idx (created if needed; idx < first folds into
 * first as series_add does): sum_ns adds up, max_ns keeps the largest. */
void series_add_late(struct series *s, size_t idx, int64_t sum_ns, int64_t max_ns);

/* Add every interval of src into dst (both with first == 0). */
void series_merge(struct series *dst, const struct series *src);

/* Hand over interval idx: add every held interval up to idx (inclusive), and with rest set
 * every held one after it too (the end of the run), into acc and drop them; first becomes the
 * index after the last one taken, at least idx + 1 (or stays, when it is beyond). acc stands
 * for interval idx: what it takes from an earlier interval counts in its first tenth, from a
 * later one in its last. */
void series_take_into(struct series *s, size_t idx, int rest, struct interval *acc);

/*
 * Fills a series as completions arrive, in the order one worker sees them: each completion
 * belongs to the interval of its completion time; the interval being filled is kept dense
 * and snapshotted (sparse) into the series when a completion falls into a later one.
 * Completions past max_idx (the late tail of a -T run) fold into the last interval (its last
 * tenth), those before the start into interval 0 (its first tenth).
 * Ownership: the recorder owns its dense histogram; the series is borrowed.
 */
struct series_recorder {
    struct series *series;
    pthread_mutex_t *lock; /* held around each write into series; NULL: none */
    struct hist *current;
    size_t cur_idx;
    uint64_t cur_tx, cur_failed;
    uint64_t cur_tenths[SERIES_TENTHS];
    time_ns start_ns;
    size_t max_idx;
    /* The tenth of interval cur_idx that the last completion fell in, and its span
     * [tenth_from_ns, tenth_until_ns): a completion inside it is placed without a division.
     * An empty span (from > until) makes the next completion look its place up. */
    int tenth;
    time_ns tenth_from_ns, tenth_until_ns;
};

void series_recorder_init(struct series_recorder *r, struct series *s);
/* Set where interval 0 begins and the last interval index (SIZE_MAX: unbounded). */
void series_recorder_start(struct series_recorder *r, time_ns start_ns, size_t max_idx);
/* A completion at end_ns; latency_us is ignored for a failure. end_ns >= start_ns. */
void series_recorder_add(struct series_recorder *r, time_ns end_ns, int failed, int64_t latency_us);
/* The clock reached now: when it lies past the interval being filled, snapshot that one, so
 * that an interval is closed on time even when no completion follows it. */
void series_recorder_tick(struct series_recorder *r, time_ns now);
/* Snapshot the interval being filled into the series. */
void series_recorder_flush(struct series_recorder *r);
void series_recorder_free(struct series_recorder *r);

#endif
