#ifndef PGARENA_STATS_HIST_H
#define PGARENA_STATS_HIST_H

#include <stddef.h>
#include <stdint.h>

/*
 * A log-linear (HDR-style) latency histogram of integer microseconds.
 *
 * Range: 0 .. HIST_MAX_US (at least one hour); every value is kept with at most 0.1 % relative
 * error (1024 linear sub-buckets per power of two). Recording is constant time and allocation
 * free. Two histograms merge exactly (hist_add), and a sparse form of (value, count) bins
 * round-trips exactly, so interval snapshots can be stored small and merged later.
 *
 * Ownership: a struct hist belongs to whoever called hist_new and is freed with hist_free;
 * it is not thread safe (one per worker, merged after). struct hist_sparse owns its bins.
 */

#define HIST_MAX_US (1LL << 42) /* about 50 days */
/* Linear sub-buckets per power of two: the precision a result file states beside its bins. */
#define HIST_SUB_BUCKETS 1024

struct hist;

/* One nonempty bin of the sparse form: value is the lowest value that maps to the bin. */
struct hist_bin {
    int64_t value_us;
    uint64_t count;
};

/* Sparse snapshot: plain data, bins sorted by value, no zero counts. */
struct hist_sparse {
    size_t n_bins;
    struct hist_bin *bins;
    uint64_t count;  /* total recorded (sum of bin counts) */
    int64_t min_us;  /* exact smallest recorded, 0 when empty */
    int64_t max_us;  /* exact largest recorded, 0 when empty */
    double sum_us;   /* exact sum of recorded values, for the mean */
    double sumsq_us; /* sum of squares, for the standard deviation */
};

struct hist *hist_new(void);
void hist_free(struct hist *h);
void hist_reset(struct hist *h);

/* Record one value. Negative values count as 0; values above HIST_MAX_US are not recorded,
 * counted in hist_overflow() instead (reported, never clamped). */
void hist_record(struct hist *h, int64_t value_us);
/* Record n copies of value_us. */
void hist_record_n(struct hist *h, int64_t value_us, uint64_t n);

uint64_t hist_count(const struct hist *h);
uint64_t hist_overflow(const struct hist *h);
int64_t hist_min(const struct hist *h); /* 0 when empty */
int64_t hist_max(const struct hist *h); /* 0 when empty */
double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h); /* population standard deviation */

/* The value at percentile p (0..100): the value below or at which p % of recorded values lie,
 * as the highest value equivalent to the bin holding rank ceil(p/100 * count), but never above
 * the exact max nor below the exact min. 0 when empty. */
int64_t hist_percentile(const struct hist *h, double p);

/* Fraction (0..1) of recorded values strictly below limit_us (bin resolution). 0 when empty. */
double hist_fraction_below(const struct hist *h, int64_t limit_us);

/* Add every count of src into dst (exact). */
void hist_add(struct hist *dst, const struct hist *src);
/* Make dst a copy of src, writing only the counters that differ: a copy refreshed again and
 * again touches no more memory than the two ranges' nonzero counters. */
void hist_assign(struct hist *dst, const struct hist *src);

/* Sparse form: fill out (caller frees with hist_sparse_free). */
void hist_to_sparse(const struct hist *h, struct hist_sparse *out);
/* Add a sparse snapshot into h. Returns 0, or -1 if a bin value is out of range or not a bin
 * boundary (a corrupt file); h is then unchanged. */
int hist_add_sparse(struct hist *h, const struct hist_sparse *s);
/* Merge src into dst (both sparse; dst grows). */
void hist_sparse_merge(struct hist_sparse *dst, const struct hist_sparse *src);
void hist_sparse_free(struct hist_sparse *s);

#endif
