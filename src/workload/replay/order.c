/* The capture's real-time order across sessions (order.h). */
#include "workload/replay/order.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void replay_order_build_init(struct replay_order_build *b, size_t n_sessions, int64_t resolution_us)
{
    memset(b, 0, sizeof *b);
    b->n_sessions = n_sessions;
    b->resolution_us = resolution_us > 0 ? resolution_us : 0;
    b->pending = xmalloc((n_sessions + 1) * sizeof *b->pending);
    for (size_t i = 0; i < n_sessions; i++)
        b->pending[i] = -1;
}

/* Session's last statement ends by t (its next event) at the latest: one without an end so
 * far ends there, and one whose start plus duration says later is cut to it (the start is
 * only as precise as the resolution; its session's next statement cannot have begun before
 * it ended), so a session's statements rank in its own order. */
static void close_pending(struct replay_order_build *b, uint32_t session, int64_t t)
{
    int64_t p = b->pending[session];
    if (p < 0)
        return;
    if (b->end[p] > t)
        b->end[p] = t > b->start[p] ? t : b->start[p];
    b->pending[session] = -1;
}

void replay_order_build_statement(struct replay_order_build *b, uint32_t session, int64_t start_us,
                                  int64_t duration_us, enum replay_order_part part)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 1024;
        b->start = xrealloc(b->start, b->cap * sizeof *b->start);
        b->end = xrealloc(b->end, b->cap * sizeof *b->end);
        b->in = xrealloc(b->in, b->cap);
    }
    size_t i = b->n++;
    b->start[i] = start_us;
    b->in[i] = session < b->n_sessions ? (unsigned char)part : REPLAY_ORDER_OUT;
    b->end[i] = INT64_MAX;
    if (session >= b->n_sessions)
        return;
    close_pending(b, session, start_us);
    if (duration_us >= 0)
        b->end[i] = start_us + duration_us;
    b->pending[session] = (int64_t)i;
}

void replay_order_build_session_end(struct replay_order_build *b, uint32_t session,
                                    int64_t offset_us)
{
    if (session < b->n_sessions)
        close_pending(b, session, offset_us);
}

struct by_end {
    int64_t end;
    uint32_t i;
};

static int end_then_number(const void *x, const void *y)
{
    const struct by_end *a = x, *b = y;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

void replay_order_build_finish(struct replay_order_build *b, struct replay_order *o)
{
    memset(o, 0, sizeof *o);
    o->n_all = b->n;
    o->rank = xmalloc((b->n + 1) * sizeof *o->rank);
    o->need = xmalloc((b->n + 1) * sizeof *o->need);
    struct by_end *sorted = xmalloc((b->n + 1) * sizeof *sorted);
    uint32_t n = 0;
    /* The latest the statement may have ended, given the times' resolution. */
    for (size_t i = 0; i < b->n; i++)
        if (b->in[i] == REPLAY_ORDER_IN)
            sorted[n++] = (struct by_end){
                b->end[i] > INT64_MAX - b->resolution_us ? INT64_MAX : b->end[i] + b->resolution_us,
                (uint32_t)i};
    qsort(sorted, n, sizeof *sorted, end_then_number);
    for (size_t i = 0; i < b->n; i++)
        o->rank[i] = REPLAY_ORDER_NONE;
    for (uint32_t r = 0; r < n; r++)
        o->rank[sorted[r].i] = r;
    /* need(S): how many certainly end before S starts (ties: before S in the capture; with a
     * resolution, end + R == start is certain too: A's true end < end + R <= S's). The starts
     * never go back in the capture's order, so one pointer walks the ranking once. */
    uint32_t p = 0;
    for (size_t i = 0; i < b->n; i++) {
        o->need[i] = 0;
        if (b->in[i] == REPLAY_ORDER_OUT)
            continue;
        while (p < n &&
               (sorted[p].end < b->start[i] || (sorted[p].end == b->start[i] && sorted[p].i < i)))
            p++;
        o->need[i] = p;
    }
    o->n = n;
    o->done = xcalloc((size_t)n + 1, 1);
    atomic_init(&o->mark, 0);
    free(sorted);
    free(b->start);
    free(b->end);
    free(b->in);
    free(b->pending);
    memset(b, 0, sizeof *b);
}

int replay_order_ready(const struct replay_order *o, uint64_t i)
{
    if (i >= o->n_all || o->need[i] == 0)
        return 1;
    return atomic_load_explicit(&o->mark, memory_order_acquire) >= o->need[i];
}

int replay_order_finished(struct replay_order *o, uint64_t i)
{
    if (i >= o->n_all || o->rank[i] == REPLAY_ORDER_NONE)
        return 0;
    o->done[o->rank[i]] = 1;
    uint32_t m = atomic_load_explicit(&o->mark, memory_order_relaxed), m0 = m;
    while (m < o->n && o->done[m])
        m++;
    if (m == m0)
        return 0;
    atomic_store_explicit(&o->mark, m, memory_order_release);
    return 1;
}

void replay_order_free(struct replay_order *o)
{
    free(o->rank);
    free(o->need);
    free(o->done);
    memset(o, 0, sizeof *o);
}
