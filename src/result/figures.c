#include "result/result.h"

#include "stats/summary.h"

void result_summary_latency(struct result *r, const struct hist *h)
{
    summary_latency(h, &r->summary.latency_us);
    r->summary.under_100ms = hist_fraction_below(h, 100 * 1000);
    r->summary.under_1000ms = hist_fraction_below(h, 1000 * 1000);
    r->summary.under_5000ms = hist_fraction_below(h, 5000 * 1000);
    hist_sparse_free(&r->histogram);
    hist_to_sparse(h, &r->histogram);
}

void result_script_latency(struct result_script_figures *s, const struct hist *h)
{
    summary_latency(h, &s->latency_us);
    hist_sparse_free(&s->histogram);
    hist_to_sparse(h, &s->histogram);
}

void result_interval_latency(struct result_interval *it, const struct hist *h)
{
    it->p50_us = (double)hist_percentile(h, 50);
    it->p99_us = (double)hist_percentile(h, 99);
    it->max_us = (double)hist_max(h);
    hist_sparse_free(&it->histogram);
    hist_to_sparse(h, &it->histogram);
}
