#include "stats/summary.h"

void summary_latency(const struct hist *h, struct latency_summary *out)
{
    out->min = (double)hist_min(h);
    out->mean = hist_mean(h);
    out->stddev = hist_stddev(h);
    out->p50 = (double)hist_percentile(h, 50);
    out->p90 = (double)hist_percentile(h, 90);
    out->p95 = (double)hist_percentile(h, 95);
    out->p99 = (double)hist_percentile(h, 99);
    out->p999 = (double)hist_percentile(h, 99.9);
    out->max = (double)hist_max(h);
}
