#ifndef PGARENA_ENGINE_TIMERS_H
#define PGARENA_ENGINE_TIMERS_H

#include <stddef.h>

#include "base/clock.h"

/*
 * A binary min-heap of deadlines, one entry at most per owner (a client). Each owner keeps
 * its slot index (-1 when not queued) so that re-arming and cancelling are O(log n).
 * Ownership: the heap owns its array; owners are borrowed.
 */
struct timer_entry {
    time_ns when;
    void *owner;
    int *slot; /* the owner's index field, kept current by the heap */
};

struct timers {
    size_t n, cap;
    struct timer_entry *heap;
};

void timers_init(struct timers *t);
void timers_free(struct timers *t);

/* Queue owner at when, or move it there if already queued. *slot must start as -1. */
void timers_set(struct timers *t, void *owner, int *slot, time_ns when);
/* Remove owner if queued. */
void timers_cancel(struct timers *t, int *slot);
/* The earliest deadline, or -1 when empty. */
time_ns timers_next(const struct timers *t);
/* Pop the earliest entry if it is due at now; returns its owner or NULL. */
void *timers_pop_due(struct timers *t, time_ns now);

#endif
