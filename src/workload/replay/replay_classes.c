#include "workload/replay/replay_classes.h"

#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"
#include "stats/hist.h"

struct class_entry {
    char *text;
    size_t len;
    uint64_t hash;
    uint64_t count, failed;
    double total_us;
    struct hist *latency;
};

/* Open addressing over 2 * cap slots, so a lookup ends at an empty slot soon. */
struct class_table {
    size_t cap, n, n_slots;
    struct class_entry *entries; /* n used, cap + 1 allocated: the last is "other" */
    size_t *slots;               /* entry index + 1; 0: empty */
};

static void entry_init(struct class_entry *e, const char *text, size_t len, uint64_t hash)
{
    e->text = xstrndup(text, len);
    e->len = len;
    e->hash = hash;
    e->latency = hist_new();
}

struct class_table *class_table_new(size_t cap)
{
    struct class_table *t = xcalloc(1, sizeof *t);
    t->cap = cap;
    t->n_slots = 2 * cap + 1;
    t->entries = xcalloc(cap + 1, sizeof *t->entries);
    t->slots = xcalloc(t->n_slots, sizeof *t->slots);
    entry_init(&t->entries[cap], CLASS_OTHER, strlen(CLASS_OTHER), 0);
    return t;
}

void class_table_free(struct class_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        free(t->entries[i].text);
        hist_free(t->entries[i].latency);
    }
    free(t->entries[t->cap].text);
    hist_free(t->entries[t->cap].latency);
    free(t->entries);
    free(t->slots);
    free(t);
}

/* The entry of class text, made when there is room, else "other". */
static struct class_entry *lookup(struct class_table *t, const char *text, size_t len)
{
    uint64_t h = hash_bytes(text, len);
    size_t s = (size_t)(h % t->n_slots);
    for (;;) {
        size_t k = t->slots[s];
        if (k == 0)
            break;
        struct class_entry *e = &t->entries[k - 1];
        if (e->hash == h && e->len == len && memcmp(e->text, text, len) == 0)
            return e;
        s = (s + 1) % t->n_slots;
    }
    if (t->n == t->cap)
        return &t->entries[t->cap];
    struct class_entry *e = &t->entries[t->n++];
    entry_init(e, text, len, h);
    t->slots[s] = t->n;
    return e;
}

void class_table_record(struct class_table *t, const char *text, size_t len, int ok,
                        int64_t latency_us)
{
    struct class_entry *e = lookup(t, text, len);
    e->count++;
    if (!ok) {
        e->failed++;
        return;
    }
    e->total_us += (double)latency_us;
    hist_record(e->latency, latency_us);
}

static void add_entry(struct class_entry *dst, const struct class_entry *src)
{
    dst->count += src->count;
    dst->failed += src->failed;
    dst->total_us += src->total_us;
    hist_add(dst->latency, src->latency);
}

void class_table_merge(struct class_table *dst, const struct class_table *src)
{
    for (size_t i = 0; i < src->n; i++)
        add_entry(lookup(dst, src->entries[i].text, src->entries[i].len), &src->entries[i]);
    add_entry(&dst->entries[dst->cap], &src->entries[src->cap]);
}

static void entry_reset(struct class_entry *e)
{
    e->count = e->failed = 0;
    e->total_us = 0;
    hist_reset(e->latency);
}

void class_table_reset(struct class_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        entry_reset(&t->entries[i]);
    entry_reset(&t->entries[t->cap]);
}

static int by_total_desc(const void *a, const void *b)
{
    const struct class_entry *x = *(const struct class_entry *const *)a;
    const struct class_entry *y = *(const struct class_entry *const *)b;
    if (x->total_us != y->total_us)
        return x->total_us < y->total_us ? 1 : -1;
    return strcmp(x->text, y->text);
}

static void fill(struct result_script_figures *f, const char *text, uint64_t count, uint64_t failed,
                 const struct hist *h, double duration_s)
{
    f->name = xstrdup(text);
    result_derive_class(f, count, failed, duration_s, h);
}

size_t class_table_top(const struct class_table *t, size_t n, double duration_s,
                       struct result_script_figures **out)
{
    const struct class_entry **order = xcalloc(t->n + 1, sizeof *order);
    size_t used = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->entries[i].count > 0) /* emptied by a reset: no class */
            order[used++] = &t->entries[i];
    qsort(order, used, sizeof *order, by_total_desc);
    size_t keep = used < n ? used : n;
    const struct class_entry *other = &t->entries[t->cap];
    struct hist *rest = hist_new();
    hist_add(rest, other->latency);
    uint64_t rest_count = other->count, rest_failed = other->failed;
    for (size_t i = keep; i < used; i++) {
        hist_add(rest, order[i]->latency);
        rest_count += order[i]->count;
        rest_failed += order[i]->failed;
    }
    *out = xcalloc(keep + 1, sizeof **out);
    for (size_t i = 0; i < keep; i++)
        fill(&(*out)[i], order[i]->text, order[i]->count, order[i]->failed, order[i]->latency,
             duration_s);
    size_t m = keep;
    if (rest_count > 0)
        fill(&(*out)[m++], CLASS_OTHER, rest_count, rest_failed, rest, duration_s);
    hist_free(rest);
    free(order);
    return m;
}
