/* The one place that derives a result's figures from what was measured: counts and
 * histograms, whether the engine's (a run), a journal's interval lines summed (recover) or the
 * agents' results added up (merge). Adding a figure touches this file, the writer (write.c),
 * the reader (read.c) and the printers. */
#include "result/result.h"

#include <math.h>

#include "stats/summary.h"

static double per_second(uint64_t n, double duration_s)
{
    return duration_s > 0 ? (double)n / duration_s : 0;
}

double result_interval_rate(const struct result_interval *it, double n)
{
    return it->duration_s > 0 ? n / it->duration_s : NAN;
}

double result_interval_tps(const struct result_interval *it)
{
    return it->duration_s > 0 ? (double)it->transactions / it->duration_s : it->tps;
}

size_t result_whole_intervals(const struct result *r)
{
    size_t n = r->n_intervals;
    while (n > 1 && r->intervals[n - 1].duration_s < r->intervals[0].duration_s * 0.999)
        n--;
    return n;
}

void result_derive_statement(uint64_t count, double sum_us, const struct hist *h, double *mean_us,
                             int64_t *p99_us)
{
    *mean_us = count ? sum_us / (double)count : 0;
    *p99_us = hist_percentile(h, 99);
}

/* summary.latency_us, the under_*ms fractions and the run's histogram. */
static void summary_latency_figures(struct result *r, const struct hist *h)
{
    summary_latency(h, &r->summary.latency_us);
    r->summary.under_100ms = hist_fraction_below(h, 100 * 1000);
    r->summary.under_1000ms = hist_fraction_below(h, 1000 * 1000);
    r->summary.under_5000ms = hist_fraction_below(h, 5000 * 1000);
    hist_sparse_free(&r->histogram);
    hist_to_sparse(h, &r->histogram);
}

void result_derive_summary(struct result *r, const struct result_measured *m)
{
    r->summary.duration_s = m->duration_s;
    r->summary.transactions = m->transactions;
    r->summary.failed = m->failed;
    r->summary.retried = m->retried;
    r->summary.tps = per_second(m->transactions, m->duration_s);
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        r->summary.errors[k] = m->errors[k];
    summary_latency_figures(r, m->latency);
    r->summary.skipped = m->skipped;
    r->summary.late = m->late;
    r->summary.latency_out_of_range = m->latency_out_of_range;
    r->summary.retries = m->retries;
    if (m->lag) {
        r->summary.lag_mean_us = hist_mean(m->lag);
        r->summary.lag_p99_us = (double)hist_percentile(m->lag, 99);
        r->summary.lag_max_us = (double)hist_max(m->lag);
    }
    r->summary.connections = m->connections;
    if (m->connections > 0) {
        /* As pgbench: the clients' connection time, shared out, comes off the duration. */
        double net_s = m->duration_s - m->connect_s / (double)(m->clients > 0 ? m->clients : 1);
        r->summary.connect_mean_us = m->connect_s * 1e6 / (double)m->connections;
        r->summary.tps_excluding_connect = net_s > 0 ? (double)m->transactions / net_s : 0;
    }
}

void result_derive_script(struct result_script_figures *s, uint64_t transactions, uint64_t failed,
                          double duration_s, const struct hist *h)
{
    s->transactions = transactions;
    s->failed = failed;
    s->tps = per_second(transactions, duration_s);
    summary_latency(h, &s->latency_us);
    hist_sparse_free(&s->histogram);
    hist_to_sparse(h, &s->histogram);
}

void result_derive_class(struct result_script_figures *c, uint64_t count, uint64_t failed,
                         double duration_s, const struct hist *h)
{
    result_derive_script(c, count, failed, duration_s, h);
    c->tps = per_second(count - failed, duration_s); /* a class's count holds its failures */
}

void result_derive_interval(struct result_interval *it, uint64_t transactions, uint64_t failed,
                            double duration_s, const struct hist *h)
{
    it->transactions = transactions;
    it->failed = failed;
    it->duration_s = duration_s;
    it->tps = per_second(transactions, duration_s);
    it->p50_us = (double)hist_percentile(h, 50);
    it->p99_us = (double)hist_percentile(h, 99);
    it->max_us = (double)hist_max(h);
    hist_sparse_free(&it->histogram);
    hist_to_sparse(h, &it->histogram);
}

void result_derive_lag(struct result_lag *l, const struct hist *h)
{
    l->p50_us = (double)hist_percentile(h, 50);
    l->p99_us = (double)hist_percentile(h, 99);
    l->max_us = (double)hist_max(h);
    hist_sparse_free(&l->hist);
    hist_to_sparse(h, &l->hist);
}

void result_derive_client_cpu(struct result_client_cpu *c, const struct result_cpu_measured *m)
{
    c->present = m->elapsed_s > 0;
    c->user = c->present ? m->user_s / m->elapsed_s : 0;
    c->system = c->present ? m->system_s / m->elapsed_s : 0;
    c->max_thread_core = m->max_thread_core;
}

double result_hit_ratio(int64_t hit, int64_t read)
{
    return hit < 0 || read < 0 || hit + read == 0 ? -1 : (double)hit / (double)(hit + read);
}
