#include "stats/series.h"

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
    if (n <= s->n)
        return;
    s->items = xrealloc(s->items, sizeof *s->items * n);
    memset(s->items + s->n, 0, sizeof *s->items * (n - s->n));
    s->n = n;
}

void series_add(struct series *s, size_t idx, uint64_t n_tx, uint64_t n_failed,
                const struct hist *lat)
{
    series_ensure(s, idx + 1);
    struct interval *it = &s->items[idx];
    it->n_tx += n_tx;
    it->n_failed += n_failed;
    if (lat && hist_count(lat) > 0) {
        struct hist_sparse snap;
        hist_to_sparse(lat, &snap);
        hist_sparse_merge(&it->latency, &snap);
        hist_sparse_free(&snap);
    }
}

void series_merge(struct series *dst, const struct series *src)
{
    series_ensure(dst, src->n);
    for (size_t i = 0; i < src->n; i++) {
        dst->items[i].n_tx += src->items[i].n_tx;
        dst->items[i].n_failed += src->items[i].n_failed;
        hist_sparse_merge(&dst->items[i].latency, &src->items[i].latency);
    }
}
