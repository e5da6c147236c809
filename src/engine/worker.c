#include "engine/engine_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#define MAX_EVENTS 128

/* Transactions are put into intervals by completion time; when one completes in a later
 * interval, the interval that was filling is snapshotted (sparse) into the worker's series. */
static void flush_interval(struct worker *w)
{
    if (w->cur_tx || w->cur_failed || hist_count(w->interval_latency))
        series_add(&w->series, w->cur_interval, w->cur_tx, w->cur_failed, w->interval_latency);
    hist_reset(w->interval_latency);
    w->cur_tx = w->cur_failed = 0;
}

void worker_record(struct worker *w, time_ns start, time_ns end, int failed, enum pg_failure why)
{
    const struct run *run = w->run;
    time_ns since = end - run->start_ns;
    size_t idx = since > 0 ? (size_t)(since / (run->cfg->interval_us * NS_PER_US)) : 0;
    if (idx > run->max_interval)
        idx = run->max_interval;
    if (idx != w->cur_interval) {
        flush_interval(w);
        w->cur_interval = idx;
    }
    w->last_completion = end;
    if (failed) {
        w->cur_failed++;
        w->n_failed++;
        w->errors[why]++;
        atomic_store_explicit(&w->prog_failed, w->n_failed, memory_order_relaxed);
        return;
    }
    int64_t us = (end - start) / NS_PER_US;
    hist_record(w->latency, us);
    hist_record(w->interval_latency, us);
    w->cur_tx++;
    w->n_tx++;
    /* Only this thread writes these; the main thread reads them for the progress line. */
    double sum = atomic_load_explicit(&w->prog_sum_us, memory_order_relaxed);
    double sumsq = atomic_load_explicit(&w->prog_sumsq_us, memory_order_relaxed);
    atomic_store_explicit(&w->prog_sum_us, sum + (double)us, memory_order_relaxed);
    atomic_store_explicit(&w->prog_sumsq_us, sumsq + (double)us * (double)us, memory_order_relaxed);
    atomic_store_explicit(&w->prog_tx, w->n_tx, memory_order_release);
}

/* One pass of epoll: advance every client with an event. Returns -1 on a stop request. */
static int poll_once(struct worker *w, int timeout_ms)
{
    struct epoll_event ev[MAX_EVENTS];
    int n = epoll_wait(w->epfd, ev, MAX_EVENTS, timeout_ms);
    if (n < 0 && errno != EINTR)
        return 0;
    int stop = 0;
    for (int i = 0; i < n; i++) {
        if (ev[i].data.ptr == NULL) {
            stop = 1;
            continue;
        }
        client_advance(ev[i].data.ptr);
    }
    return stop || atomic_load_explicit(&engine_stop_flag, memory_order_relaxed) ? -1 : 0;
}

/* Connect every client at once (asynchronously) and wait until all are ready or failed. */
static void setup_clients(struct worker *w)
{
    for (int i = 0; i < w->n_clients; i++)
        if (client_connect(&w->clients[i]) < 0)
            return;
    while (w->n_setup_pending > 0 && !w->setup_failed) {
        if (poll_once(w, 100) < 0) {
            snprintf(w->error, sizeof w->error, "interrupted while connecting");
            w->setup_failed = 1;
        }
    }
}

static void wait_for_start(struct worker *w)
{
    struct run *run = w->run;
    pthread_mutex_lock(&run->mu);
    run->n_setup_done++;
    pthread_cond_broadcast(&run->cv);
    while (run->go == 0)
        pthread_cond_wait(&run->cv, &run->mu);
    pthread_mutex_unlock(&run->mu);
}

static void measure(struct worker *w)
{
    w->cur_interval = 0;
    for (int i = 0; i < w->n_clients; i++) {
        w->clients[i].state = CS_START_TX;
        client_advance(&w->clients[i]);
    }
    while (w->n_live > 0) {
        /* No timer is needed in a closed loop: every live client waits on its socket. The
         * bounded wait only guards against a missed wake-up. */
        if (poll_once(w, 1000) < 0)
            break;
    }
    flush_interval(w);
}

void *worker_main(void *arg)
{
    struct worker *w = arg;
    setup_clients(w);
    wait_for_start(w);
    if (w->run->go > 0 && !w->setup_failed)
        measure(w);
    pthread_mutex_lock(&w->run->mu);
    w->run->n_finished++;
    pthread_cond_broadcast(&w->run->cv);
    pthread_mutex_unlock(&w->run->mu);
    return NULL;
}
