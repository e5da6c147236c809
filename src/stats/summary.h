#ifndef PGARENA_STATS_SUMMARY_H
#define PGARENA_STATS_SUMMARY_H

#include "stats/hist.h"

/* Latency figures of a histogram, in microseconds. Plain data. Ownership: the caller owns
 * both the histogram (only read) and the summary filled. */
struct latency_summary {
    double min, mean, stddev, p50, p90, p95, p99, p999, max;
};

void summary_latency(const struct hist *h, struct latency_summary *out);

#endif
