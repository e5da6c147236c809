#include "engine/timers.h"

#include <stdlib.h>

#include "base/mem.h"

void timers_init(struct timers *t)
{
    t->n = t->cap = 0;
    t->heap = NULL;
}

void timers_free(struct timers *t)
{
    free(t->heap);
    t->heap = NULL;
    t->n = t->cap = 0;
}

static void place(struct timers *t, size_t i, struct timer_entry e)
{
    t->heap[i] = e;
    *e.slot = (int)i;
}

static void sift_up(struct timers *t, size_t i)
{
    struct timer_entry e = t->heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (t->heap[parent].when <= e.when)
            break;
        place(t, i, t->heap[parent]);
        i = parent;
    }
    place(t, i, e);
}

static void sift_down(struct timers *t, size_t i)
{
    struct timer_entry e = t->heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= t->n)
            break;
        if (child + 1 < t->n && t->heap[child + 1].when < t->heap[child].when)
            child++;
        if (t->heap[child].when >= e.when)
            break;
        place(t, i, t->heap[child]);
        i = child;
    }
    place(t, i, e);
}

void timers_set(struct timers *t, void *owner, int *slot, time_ns when)
{
    if (*slot >= 0) {
        size_t i = (size_t)*slot;
        time_ns old = t->heap[i].when;
        t->heap[i].when = when;
        if (when < old)
            sift_up(t, i);
        else
            sift_down(t, i);
        return;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->heap = xrealloc(t->heap, t->cap * sizeof *t->heap);
    }
    t->heap[t->n] = (struct timer_entry){when, owner, slot};
    sift_up(t, t->n++);
}

void timers_cancel(struct timers *t, int *slot)
{
    if (*slot < 0)
        return;
    size_t i = (size_t)*slot;
    *slot = -1;
    t->n--;
    if (i == t->n)
        return;
    t->heap[i] = t->heap[t->n];
    *t->heap[i].slot = (int)i;
    sift_up(t, i);
    sift_down(t, (size_t)*t->heap[i].slot);
}

time_ns timers_next(const struct timers *t)
{
    return t->n ? t->heap[0].when : -1;
}

void *timers_pop_due(struct timers *t, time_ns now)
{
    if (!t->n || t->heap[0].when > now)
        return NULL;
    void *owner = t->heap[0].owner;
    timers_cancel(t, t->heap[0].slot);
    return owner;
}
