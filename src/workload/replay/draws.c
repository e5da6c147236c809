/* The capture's order of draws from each sequence (draws.h). */
#include "workload/replay/draws.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void replay_draws_build_init(struct replay_draws_build *b, int64_t resolution_us)
{
    memset(b, 0, sizeof *b);
    b->resolution_us = resolution_us > 0 ? resolution_us : 0;
}

void replay_draws_build_statement(struct replay_draws_build *b, uint64_t seq, int64_t start_us,
                                  uint32_t key)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->seq = xrealloc(b->seq, b->cap * sizeof *b->seq);
        b->start = xrealloc(b->start, b->cap * sizeof *b->start);
        b->key = xrealloc(b->key, b->cap * sizeof *b->key);
    }
    b->seq[b->n] = seq;
    b->start[b->n] = start_us;
    b->key[b->n++] = key;
}

void replay_draws_build_link(struct replay_draws_build *b, uint32_t key, uint32_t sequence)
{
    if (b->n_links == b->cap_links) {
        b->cap_links = b->cap_links ? 2 * b->cap_links : 64;
        b->links = xrealloc(b->links, b->cap_links * sizeof *b->links);
    }
    b->links[b->n_links++] = (struct replay_draws_link){key, sequence};
}

void replay_draws_build_free(struct replay_draws_build *b)
{
    free(b->seq);
    free(b->start);
    free(b->key);
    free(b->links);
    memset(b, 0, sizeof *b);
}

static uint32_t find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

struct ranked {
    uint32_t group, entry;
    int64_t start;
};

static int by_group_start(const void *x, const void *y)
{
    const struct ranked *a = x, *b = y;
    if (a->group != b->group)
        return a->group < b->group ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return a->entry < b->entry ? -1 : a->entry > b->entry;
}

/* Which group each key's statements belong to (REPLAY_DRAWS_NONE: no sequence): keys that
 * share a sequence, directly or through other keys, are one group. by_key has n_keys
 * entries. */
static size_t group_keys(const struct replay_draws_build *b, uint32_t *by_key, uint32_t n_keys)
{
    uint32_t n_seqs = 0;
    for (size_t i = 0; i < b->n_links; i++)
        if (b->links[i].sequence >= n_seqs)
            n_seqs = b->links[i].sequence + 1;
    uint32_t *parent = xmalloc(((size_t)n_keys + n_seqs + 1) * sizeof *parent);
    for (uint32_t i = 0; i < n_keys + n_seqs; i++)
        parent[i] = i;
    unsigned char *linked = xcalloc((size_t)n_keys + 1, 1);
    for (size_t i = 0; i < b->n_links; i++) {
        uint32_t k = find(parent, b->links[i].key), s = find(parent, n_keys + b->links[i].sequence);
        parent[k] = s;
        linked[b->links[i].key] = 1;
    }
    uint32_t *gid = xmalloc(((size_t)n_keys + n_seqs + 1) * sizeof *gid);
    for (uint32_t i = 0; i < n_keys + n_seqs; i++)
        gid[i] = REPLAY_DRAWS_NONE;
    size_t n_groups = 0;
    for (uint32_t k = 0; k < n_keys; k++) {
        by_key[k] = REPLAY_DRAWS_NONE;
        if (!linked[k])
            continue;
        uint32_t r = find(parent, k);
        if (gid[r] == REPLAY_DRAWS_NONE)
            gid[r] = (uint32_t)n_groups++;
        by_key[k] = gid[r];
    }
    free(gid);
    free(linked);
    free(parent);
    return n_groups;
}

void replay_draws_build_finish(struct replay_draws_build *b, struct replay_draws *d)
{
    memset(d, 0, sizeof *d);
    uint32_t n_keys = 0;
    for (size_t i = 0; i < b->n; i++)
        if (b->key[i] >= n_keys)
            n_keys = b->key[i] + 1;
    for (size_t i = 0; i < b->n_links; i++)
        if (b->links[i].key >= n_keys)
            n_keys = b->links[i].key + 1;
    uint32_t *by_key = xmalloc(((size_t)n_keys + 1) * sizeof *by_key);
    d->n_groups = group_keys(b, by_key, n_keys);
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++)
        n += by_key[b->key[i]] != REPLAY_DRAWS_NONE;
    d->n = n;
    d->seq = xmalloc((n + 1) * sizeof *d->seq);
    d->group = xmalloc((n + 1) * sizeof *d->group);
    d->need = xmalloc((n + 1) * sizeof *d->need);
    d->slot = xmalloc((n + 1) * sizeof *d->slot);
    d->done = xcalloc(n + 1, 1);
    d->first = xcalloc(d->n_groups + 1, sizeof *d->first);
    d->count = xcalloc(d->n_groups + 1, sizeof *d->count);
    d->mark = xcalloc(d->n_groups + 1, sizeof *d->mark);
    struct ranked *r = xmalloc((n + 1) * sizeof *r);
    for (size_t i = 0, e = 0; i < b->n; i++) {
        uint32_t g = by_key[b->key[i]];
        if (g == REPLAY_DRAWS_NONE)
            continue;
        d->seq[e] = b->seq[i];
        d->group[e] = g;
        d->count[g]++;
        r[e] = (struct ranked){g, (uint32_t)e, b->start[i]};
        e++;
    }
    for (size_t g = 1; g < d->n_groups; g++)
        d->first[g] = d->first[g - 1] + d->count[g - 1];
    qsort(r, n, sizeof *r, by_group_start);
    /* need(S): of its group, those that certainly started before S (with exact times, a tie
     * is no proof either: one µs at least). One pointer walks each group's ranking. */
    int64_t res = b->resolution_us > 0 ? b->resolution_us : 1;
    for (size_t i = 0, p = 0; i < n; i++) {
        if (i == 0 || r[i].group != r[i - 1].group)
            p = i;
        while (r[p].start <= r[i].start - res)
            p++;
        d->slot[r[i].entry] = (uint32_t)i;
        d->need[r[i].entry] = (uint32_t)(p - d->first[r[i].group]);
    }
    for (size_t g = 0; g < d->n_groups; g++)
        atomic_init(&d->mark[g], 0);
    free(r);
    free(by_key);
    replay_draws_build_free(b);
}

/* The entry of statement number seq, or -1 when it draws from no known sequence. */
static long entry_of(const struct replay_draws *d, uint64_t seq)
{
    size_t lo = 0, hi = d->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->seq[mid] < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->n && d->seq[lo] == seq ? (long)lo : -1;
}

int replay_draws_ready(const struct replay_draws *d, uint64_t seq)
{
    long e = d->n ? entry_of(d, seq) : -1;
    if (e < 0 || d->need[e] == 0)
        return 1;
    return atomic_load_explicit(&d->mark[d->group[e]], memory_order_acquire) >= d->need[e];
}

int replay_draws_finished(struct replay_draws *d, uint64_t seq)
{
    long e = d->n ? entry_of(d, seq) : -1;
    if (e < 0)
        return 0;
    uint32_t g = d->group[e];
    d->done[d->slot[e]] = 1;
    uint32_t m = atomic_load_explicit(&d->mark[g], memory_order_relaxed), m0 = m;
    while (m < d->count[g] && d->done[d->first[g] + m])
        m++;
    if (m == m0)
        return 0;
    atomic_store_explicit(&d->mark[g], m, memory_order_release);
    return 1;
}

uint32_t replay_draws_mark(const struct replay_draws *d, uint64_t seq)
{
    long e = d->n ? entry_of(d, seq) : -1;
    return e < 0 ? REPLAY_DRAWS_NONE
                 : atomic_load_explicit(&d->mark[d->group[e]], memory_order_acquire);
}

void replay_draws_free(struct replay_draws *d)
{
    free(d->seq);
    free(d->group);
    free(d->need);
    free(d->slot);
    free(d->done);
    free(d->first);
    free(d->count);
    free(d->mark);
    memset(d, 0, sizeof *d);
}
