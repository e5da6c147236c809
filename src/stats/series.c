#include "stats/series.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void series_init(struct series *s, int64_t interval_us)
{
    memset(s, 0, sizeof *s);
    s->interval_us = interval_us;
}

void series_free(struct series *s)
{
    for (size_t i = 0; i < s->n; i++)
        hist_sparse_free(&s->items[i].latency);
    free(s->items);
    s->items = NULL;
    s->n = 0;
}

void series_ensure(struct series *s, size_t n)
{
    if (n <= s->first + s->n)
        return;
    size_t want = n - s->first;
    s->items = xrealloc(s->items, sizeof *s->items * want);
    memset(s->items + s->n, 0, sizeof *s->items * (want - s->n));
    s->n = want;
}

void series_add(struct series *s, size_t idx, uint64_t n_tx, uint64_t n_failed,
                const struct hist *lat)
{
    if (idx < s->first)
        idx = s->first;
    series_ensure(s, idx + 1);
    struct interval *it = &s->items[idx - s->first];
    it->n_tx += n_tx;
    it->n_failed += n_failed;
    if (lat && hist_count(lat) > 0) {
        struct hist_sparse snap;
        hist_to_sparse(lat, &snap);
        hist_sparse_merge(&it->latency, &snap);
        hist_sparse_free(&snap);
    }
}

static void add_late(struct interval *to, const struct interval *from)
{
    to->late_sum_ns += from->late_sum_ns;
    if (from->late_max_ns > to->late_max_ns)
        to->late_max_ns = from->late_max_ns;
}

void series_add_late(struct series *s, size_t idx, int64_t sum_ns, int64_t max_ns)
{
    if (idx < s->first)
        idx = s->first;
    series_ensure(s, idx + 1);
    struct interval late = {.late_sum_ns = sum_ns, .late_max_ns = max_ns};
    add_late(&s->items[idx - s->first], &late);
}

void series_merge(struct series *dst, const struct series *src)
{
    series_ensure(dst, src->n);
    for (size_t i = 0; i < src->n; i++) {
        dst->items[i].n_tx += src->items[i].n_tx;
        dst->items[i].n_failed += src->items[i].n_failed;
        hist_sparse_merge(&dst->items[i].latency, &src->items[i].latency);
        add_late(&dst->items[i], &src->items[i]);
    }
}

void series_take_into(struct series *s, size_t idx, struct interval *acc)
{
    if (idx < s->first)
        return;
    size_t k = idx - s->first + 1; /* items to take */
    if (k > s->n)
        k = s->n;
    for (size_t i = 0; i < k; i++) {
        acc->n_tx += s->items[i].n_tx;
        acc->n_failed += s->items[i].n_failed;
        hist_sparse_merge(&acc->latency, &s->items[i].latency);
        add_late(acc, &s->items[i]);
        hist_sparse_free(&s->items[i].latency);
    }
    if (k < s->n) /* items is NULL while nothing was recorded yet */
        memmove(s->items, s->items + k, sizeof *s->items * (s->n - k));
    s->n -= k;
    s->first = idx + 1;
}

void series_recorder_init(struct series_recorder *r, struct series *s)
{
    memset(r, 0, sizeof *r);
    r->series = s;
    r->current = hist_new();
    r->max_idx = SIZE_MAX;
}

void series_recorder_start(struct series_recorder *r, time_ns start_ns, size_t max_idx)
{
    r->start_ns = start_ns;
    r->max_idx = max_idx;
    r->cur_idx = 0;
}

void series_recorder_flush(struct series_recorder *r)
{
    if (r->cur_tx || r->cur_failed) {
        if (r->lock)
            pthread_mutex_lock(r->lock);
        series_add(r->series, r->cur_idx, r->cur_tx, r->cur_failed, r->current);
        if (r->lock)
            pthread_mutex_unlock(r->lock);
    }
    hist_reset(r->current);
    r->cur_tx = r->cur_failed = 0;
}

void series_recorder_add(struct series_recorder *r, time_ns end_ns, int failed, int64_t latency_us)
{
    time_ns since = end_ns - r->start_ns;
    size_t idx = since > 0 ? (size_t)(since / (r->series->interval_us * NS_PER_US)) : 0;
    if (idx > r->max_idx)
        idx = r->max_idx;
    if (idx != r->cur_idx) {
        series_recorder_flush(r);
        r->cur_idx = idx;
    }
    if (failed) {
        r->cur_failed++;
        return;
    }
    hist_record(r->current, latency_us);
    r->cur_tx++;
}

void series_recorder_tick(struct series_recorder *r, time_ns now)
{
    time_ns since = now - r->start_ns;
    size_t idx = since > 0 ? (size_t)(since / (r->series->interval_us * NS_PER_US)) : 0;
    if (idx > r->max_idx)
        idx = r->max_idx;
    if (idx > r->cur_idx) {
        series_recorder_flush(r);
        r->cur_idx = idx;
    }
}

void series_recorder_free(struct series_recorder *r)
{
    hist_free(r->current);
    r->current = NULL;
}
