/* run's server_io: the sampler's per-interval deltas of the server's statistics into the
 * intervals, their sum and the events kept for the result's summary and events[]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "bench/bench_int.h"

void bench_server_io_interval(struct bench *b, struct sample_interval *si,
                              struct result_interval *it)
{
    it->sio = si->sio;
    memset(&si->sio, 0, sizeof si->sio);
    result_sio_add(&b->sampling.sio_total, &it->sio);
    if (si->n_events == 0)
        return;
    b->sampling.events = xrealloc(b->sampling.events, (b->sampling.n_events + si->n_events) *
                                                          sizeof *b->sampling.events);
    memcpy(b->sampling.events + b->sampling.n_events, si->events,
           si->n_events * sizeof *si->events);
    b->sampling.n_events += si->n_events;
    free(si->events);
    si->events = NULL;
    si->n_events = 0;
}

void bench_server_io_started(struct bench *b, time_ns measured_start_ns)
{
    int64_t wall_ns;
    if (b->p.duet && b->p.duet->wall_offset_ns) { /* both halves from one reading */
        wall_ns = (int64_t)measured_start_ns + b->p.duet->wall_offset_ns;
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        wall_ns = (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec -
                  (int64_t)(clock_now_ns() - measured_start_ns);
    }
    time_t sec = (time_t)(wall_ns / NS_PER_S);
    struct tm tm;
    gmtime_r(&sec, &tm);
    snprintf(b->sampling.measured_start_at, sizeof b->sampling.measured_start_at,
             "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
             tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(wall_ns % NS_PER_S / 1000000));
}

void bench_server_io_finish(struct bench *b, const struct sample_totals *t, struct result *r)
{
    if (b->sampling.measured_start_at[0])
        r->measured_start_at = xstrdup(b->sampling.measured_start_at);
    /* Nothing read (the statement failed every time): no fields, no events[] that would say
     * nothing happened. */
    r->sio_fields = b->sampling.sio_total.have ? t->sio_fields : 0;
    r->events = b->sampling.events;
    r->n_events = b->sampling.n_events;
    b->sampling.events = NULL;
    b->sampling.n_events = 0;
    result_events_order(r->events, r->n_events, r->event_counts);
    result_sio_per_tx(&b->sampling.sio_total, r->summary.transactions, &r->sio_per_tx);
    result_sio_clear(&b->sampling.sio_total);
}

void bench_server_io_free(struct bench *b)
{
    for (size_t i = 0; i < b->sampling.n_events; i++)
        free(b->sampling.events[i].detail);
    free(b->sampling.events);
    b->sampling.events = NULL;
    b->sampling.n_events = 0;
    result_sio_clear(&b->sampling.sio_total);
}
