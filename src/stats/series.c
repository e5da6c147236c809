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
                const uint64_t *tenths, const struct hist *lat)
{
    int late = idx < s->first;
    if (late)
        idx = s->first;
    series_ensure(s, idx + 1);
    struct interval *it = &s->items[idx - s->first];
    it->n_tx += n_tx;
    it->n_failed += n_failed;
    if (tenths && !late)
        for (int k = 0; k < SERIES_TENTHS; k++)
            it->tenths[k] += tenths[k];
    else
        it->tenths[0] += n_tx;
    if (lat && hist_count(lat) > 0 && it->latency.count == 0 && !it->latency.bins) {
        hist_to_sparse(lat, &it->latency); /* the usual case: one allocation, no merge */
    } else if (lat && hist_count(lat) > 0) {
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
        for (int k = 0; k < SERIES_TENTHS; k++)
            dst->items[i].tenths[k] += src->items[i].tenths[k];
        hist_sparse_merge(&dst->items[i].latency, &src->items[i].latency);
        add_late(&dst->items[i], &src->items[i]);
    }
}

void series_take_into(struct series *s, size_t idx, int rest, struct interval *acc)
{
    size_t k = s->n; /* items to take */
    if (!rest)
        k = idx < s->first ? 0 : idx - s->first + 1 < s->n ? idx - s->first + 1 : s->n;
    for (size_t i = 0; i < k; i++) {
        const struct interval *it = &s->items[i];
        size_t at = s->first + i;
        acc->n_tx += it->n_tx;
        acc->n_failed += it->n_failed;
        if (at == idx)
            for (int t = 0; t < SERIES_TENTHS; t++)
                acc->tenths[t] += it->tenths[t];
        else
            acc->tenths[at < idx ? 0 : SERIES_TENTHS - 1] += it->n_tx;
        hist_sparse_merge(&acc->latency, &it->latency);
        add_late(acc, it);
        hist_sparse_free(&s->items[i].latency);
    }
    if (k < s->n) /* items is NULL while nothing was recorded yet */
        memmove(s->items, s->items + k, sizeof *s->items * (s->n - k));
    s->n -= k;
    size_t next = s->first + k;
    s->first = next > idx + 1 ? next : idx + 1;
}

/* No span: the next completion looks its tenth up. */
static void recorder_forget_tenth(struct series_recorder *r)
{
    r->tenth_from_ns = INT64_MAX;
    r->tenth_until_ns = INT64_MIN;
}

void series_recorder_init(struct series_recorder *r, struct series *s)
{
    memset(r, 0, sizeof *r);
    r->series = s;
    r->current = hist_new();
    r->max_idx = SIZE_MAX;
    recorder_forget_tenth(r);
}

void series_recorder_start(struct series_recorder *r, time_ns start_ns, size_t max_idx)
{
    r->start_ns = start_ns;
    r->max_idx = max_idx;
    r->cur_idx = 0;
    recorder_forget_tenth(r);
}

void series_recorder_flush(struct series_recorder *r)
{
    if (r->cur_tx || r->cur_failed) {
        if (r->lock)
            pthread_mutex_lock(r->lock);
        series_add(r->series, r->cur_idx, r->cur_tx, r->cur_failed, r->cur_tenths, r->current);
        if (r->lock)
            pthread_mutex_unlock(r->lock);
    }
    hist_reset(r->current);
    r->cur_tx = r->cur_failed = 0;
    memset(r->cur_tenths, 0, sizeof r->cur_tenths);
}

/* Which interval and tenth a completion at end_ns belongs to: make that interval the one
 * being filled and keep its tenth's span. */
static void recorder_locate(struct series_recorder *r, time_ns end_ns)
{
    time_ns tenth_ns = r->series->interval_us * (NS_PER_US / SERIES_TENTHS);
    time_ns since = end_ns - r->start_ns;
    uint64_t n = since > 0 ? (uint64_t)(since / tenth_ns) : 0; /* whole tenths since start */
    size_t idx = (size_t)(n / SERIES_TENTHS);
    int tenth = (int)(n % SERIES_TENTHS);
    time_ns from = since > 0 ? r->start_ns + (time_ns)n * tenth_ns : INT64_MIN;
    time_ns until = r->start_ns + (time_ns)(n + 1) * tenth_ns;
    if (idx > r->max_idx) { /* the late tail: the last interval's last tenth */
        idx = r->max_idx;
        tenth = SERIES_TENTHS - 1;
        from = r->start_ns + ((time_ns)idx * SERIES_TENTHS + tenth) * tenth_ns;
    }
    if (idx == r->max_idx && tenth == SERIES_TENTHS - 1)
        until = INT64_MAX;
    if (idx != r->cur_idx) {
        series_recorder_flush(r);
        r->cur_idx = idx;
    }
    r->tenth = tenth;
    r->tenth_from_ns = from;
    r->tenth_until_ns = until;
}

void series_recorder_add(struct series_recorder *r, time_ns end_ns, int failed, int64_t latency_us)
{
    if (end_ns < r->tenth_from_ns || end_ns >= r->tenth_until_ns)
        recorder_locate(r, end_ns);
    if (failed) {
        r->cur_failed++;
        return;
    }
    hist_record(r->current, latency_us);
    r->cur_tx++;
    r->cur_tenths[r->tenth]++;
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
        recorder_forget_tenth(r);
    }
}

void series_recorder_free(struct series_recorder *r)
{
    hist_free(r->current);
    r->current = NULL;
}
