#include "engine/engine_int.h"
#include "engine/client_int.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* -l: one transaction into the thread's log (off the hot path unless -l is given). */
static void log_tx(struct client *c, time_ns end, int64_t us, enum txlog_status status)
{
    struct txlog_tx t = {.client = c->id,
                         .number = ++c->n_logged,
                         .script = c->script_idx,
                         .end_epoch_us = end / NS_PER_US + c->w->run->epoch_shift_us,
                         .latency_us = us,
                         .lag_us = c->lag_us,
                         .tries = c->tries,
                         .status = status};
    txlog_record(c->w->txlog, &t);
}

static enum txlog_status log_status(enum pg_failure why)
{
    return why == PGF_SERIALIZATION ? TXLOG_SERIALIZATION
           : why == PGF_DEADLOCK    ? TXLOG_DEADLOCK
                                    : TXLOG_FAILED;
}

void worker_record_skipped(struct client *c, time_ns sched_at, time_ns now)
{
    worker_counters_check(c->w, now);
    if (sched_at < c->w->run->start_ns)
        return; /* warmup */
    c->w->n_skipped++;
    c->w->scripts[c->script_idx].n_skipped++;
    if (c->w->txlog)
        log_tx(c, now, 0, TXLOG_SKIPPED);
}

/* A transaction counted (worker_record without the counters' check). */
static inline int count_tx(struct client *c, time_ns start, time_ns end, int failed,
                           enum pg_failure why)
{
    struct worker *w = c->w;
    const struct engine_state *run = w->run;
    if (end < run->start_ns)
        return 0; /* warmup */
    struct engine_script_figures *ss = &w->scripts[c->script_idx];
    if (c->counts_apart) { /* a stream: its script's figures only */
        if (run->cfg->stream_clients == run->cfg->clients)
            w->last_completion = end; /* streams alone: they make the duration */
        if (failed) {
            ss->n_failed++;
        } else {
            hist_record(ss->latency, (end - start) / NS_PER_US);
            ss->n_tx++;
        }
        if (w->txlog)
            log_tx(c, end, failed ? 0 : (end - start) / NS_PER_US,
                   failed ? log_status(why) : TXLOG_OK);
        return 1;
    }
    w->last_completion = end;
    if (failed) {
        series_recorder_add(&w->recorder, end, 1, 0);
        ss->n_failed++;
        w->n_failed++;
        if (w->txlog)
            log_tx(c, end, 0, log_status(why));
        w->errors[why]++;
        atomic_store_explicit(&w->prog_failed, w->n_failed, memory_order_relaxed);
        return 1;
    }
    int64_t us = (end - start) / NS_PER_US;
    hist_record(w->latency, us);
    hist_record(ss->latency, us);
    ss->n_tx++;
    if (w->txlog)
        log_tx(c, end, us, TXLOG_OK);
    series_recorder_add(&w->recorder, end, 0, us);
    w->n_tx++;
    if (run->cfg->latency_limit_us > 0 && us > run->cfg->latency_limit_us)
        w->n_late++;
    /* Only this thread writes these; the main thread reads them for the progress line. */
    double sum = atomic_load_explicit(&w->prog_sum_us, memory_order_relaxed);
    double sumsq = atomic_load_explicit(&w->prog_sumsq_us, memory_order_relaxed);
    atomic_store_explicit(&w->prog_sum_us, sum + (double)us, memory_order_relaxed);
    atomic_store_explicit(&w->prog_sumsq_us, sumsq + (double)us * (double)us, memory_order_relaxed);
    atomic_store_explicit(&w->prog_tx, w->n_tx, memory_order_release);
    return 1;
}

/* The counters' check at the worker's first event in an interval, then the transaction
 * counted: out of line, so that the common path keeps no registers across a call. */
__attribute__((noinline, cold)) static int
count_tx_at_boundary(struct client *c, time_ns start, time_ns end, int failed, enum pg_failure why)
{
    worker_counters_at_boundary(c->w, end);
    return count_tx(c, start, end, failed, why);
}

int worker_record(struct client *c, time_ns start, time_ns end, int failed, enum pg_failure why)
{
    if (end >= c->w->counters_gate)
        return count_tx_at_boundary(c, start, end, failed, why);
    return count_tx(c, start, end, failed, why);
}

static inline void count_statement(struct worker *w, int script, int command, time_ns start,
                                   time_ns end)
{
    if (end < w->run->start_ns)
        return; /* warmup */
    struct stmt_stats *st = &w->stmts[w->run->cmd_base[script] + command];
    int64_t us = (end - start) / NS_PER_US;
    st->count++;
    st->sum_us += (double)us;
    hist_record(st->latency, us);
}

/* As count_tx_at_boundary, for a statement. */
__attribute__((noinline, cold)) static void
count_statement_at_boundary(struct worker *w, int script, int command, time_ns start, time_ns end)
{
    worker_counters_at_boundary(w, end);
    count_statement(w, script, command, start, end);
}

void worker_record_statement(struct worker *w, int script, int command, time_ns start, time_ns end)
{
    if (end >= w->counters_gate)
        count_statement_at_boundary(w, script, command, start, end);
    else
        count_statement(w, script, command, start, end);
}

/* When the worker must wake next: the earliest client deadline, the end of a -T run, the
 * end of the interval being filled (to close it on time); -1: none. */
static time_ns next_deadline(const struct worker *w)
{
    time_ns next = timers_next(&w->timers);
    if (w->run->end_ns > 0 && !w->swept && (next < 0 || w->run->end_ns < next))
        next = w->run->end_ns;
    if (w->measuring && (next < 0 || w->tick_ns < next))
        next = w->tick_ns;
    if (w->measuring && w->recorder.cur_idx < w->recorder.max_idx) {
        time_ns end = w->run->start_ns +
                      (time_ns)(w->recorder.cur_idx + 1) * w->run->cfg->interval_us * NS_PER_US;
        if (next < 0 || end < next)
            next = end;
    }
    return next;
}

void worker_flush_late(struct worker *w)
{
    pthread_mutex_lock(&w->series_mu);
    series_add_late(&w->series, w->late_idx, w->late_sum_ns, w->late_max_ns);
    pthread_mutex_unlock(&w->series_mu);
    w->late_sum_ns = w->late_max_ns = 0;
}

/* Add a piece of lateness to interval late_idx's. */
static void add_late(struct worker *w, time_ns d)
{
    w->late_sum_ns += d;
    if (d > w->late_max_ns)
        w->late_max_ns = d;
}

void worker_note_late(struct worker *w, time_ns deadline, time_ns now)
{
    time_ns from = deadline > w->late_mark ? deadline : w->late_mark;
    if (now <= from)
        return;
    w->late_mark = now;
    if (from >= w->late_from_ns && now <= w->late_until_ns) { /* inside interval late_idx */
        add_late(w, now - from);
        return;
    }
    const struct engine_state *run = w->run;
    if (from < run->start_ns)
        from = run->start_ns;
    time_ns interval_ns = run->cfg->interval_us * NS_PER_US;
    while (from < now) {
        size_t idx = (size_t)((from - run->start_ns) / interval_ns);
        time_ns begin = run->start_ns + (time_ns)idx * interval_ns, end = begin + interval_ns;
        if (idx >= run->max_interval) { /* the last interval takes the late tail */
            idx = run->max_interval;
            end = INT64_MAX;
        }
        if (idx != w->late_idx && w->late_sum_ns > 0)
            worker_flush_late(w);
        w->late_idx = idx;
        w->late_from_ns = begin;
        w->late_until_ns = end;
        add_late(w, (end < now ? end : now) - from);
        from = end < now ? end : now;
    }
}

static void run_timers(struct worker *w, time_ns deadline)
{
    time_ns now = clock_now_ns();
    if (w->measuring) {
        worker_note_late(w, deadline, now);
        if (now >= w->tick_ns)
            w->tick_ns = now + ENGINE_TICK_NS;
    }
    struct client *c;
    while ((c = timers_pop_due(&w->timers, now)) != NULL)
        client_on_timer(c, now);
    if (w->measuring) {
        worker_counters_check(w, now);
        series_recorder_tick(&w->recorder, now);
    }
    if (w->run->end_ns > 0 && now >= w->run->end_ns && !w->swept) {
        /* The end of a -T run: clients waiting only for time stop now. */
        w->swept = 1;
        for (int i = 0; i < w->n_clients; i++)
            client_finish_if_idle(&w->clients[i]);
    }
}

/* One wait: advance every client with an event, then run the timers that are due. The wait
 * ends at the next deadline (within a second when there is none). Returns -1 on a stop
 * request. */
static int poll_once(struct worker *w)
{
    void *const *fired;
    time_ns next = next_deadline(w);
    int n = evwait_wait(w->ev, next, &fired);
    if (n < 0)
        return 0;
    int stop = 0;
    for (int i = 0; i < n; i++) {
        void *p = fired[i];
        if (p == NULL)
            stop = 1;
        else if (p == &w->feed_wake)
            client_feed_woken(w, clock_now_ns());
        else
            client_advance(p, clock_now_ns());
    }
    if (evwait_due(w->ev, next))
        run_timers(w, next);
    return stop || atomic_load_explicit(&engine_stop_flag, memory_order_relaxed) ? -1 : 0;
}

/* Connections being opened at once per worker: a unix socket's listen backlog (pgbouncer's
 * is 128) refuses a non-blocking connect beyond it instead of queueing it. */
#define MAX_CONNECTING 32

/* Connect the clients asynchronously, a batch at a time, until all are ready or one failed. */
static void setup_clients(struct worker *w)
{
    int started = 0;
    while (w->n_setup_pending > 0 && !w->setup_failed) {
        int done = w->n_clients - w->n_setup_pending;
        while (started < w->n_clients && started - done < MAX_CONNECTING)
            if (client_connect(&w->clients[started++], clock_now_ns()) < 0)
                return;
        /* A client that failed in this very pass keeps its own cause. */
        if (poll_once(w) < 0 && !w->setup_failed) {
            snprintf(w->error, sizeof w->error, "interrupted while connecting");
            w->setup_failed = 1;
            w->setup_interrupted = 1;
        }
    }
}

static void wait_for_start(struct worker *w)
{
    struct engine_state *run = w->run;
    pthread_mutex_lock(&run->mu);
    run->n_setup_done++;
    pthread_cond_broadcast(&run->cv);
    while (run->go == 0)
        pthread_cond_wait(&run->cv, &run->mu);
    pthread_mutex_unlock(&run->mu);
    /* A barrier may set the start ahead (run --agents): sleep until then, by the monotonic
     * clock, waking to see a stop. */
    for (time_ns now = clock_now_ns(); run->go > 0 && now < run->go_ns; now = clock_now_ns()) {
        if (atomic_load_explicit(&engine_stop_flag, memory_order_relaxed))
            break;
        time_ns d = run->go_ns - now < 50 * NS_PER_MS ? run->go_ns - now : 50 * NS_PER_MS;
        struct timespec ts = {(time_t)(d / NS_PER_S), (long)(d % NS_PER_S)};
        nanosleep(&ts, NULL);
    }
}

void worker_begin(struct worker *w, time_ns now)
{
    const struct engine_state *run = w->run;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    w->begin_wall_us = (int64_t)wall.tv_sec * 1000000 + wall.tv_nsec / 1000;
    series_recorder_start(&w->recorder, run->start_ns, run->max_interval);
    if (run->cfg->rate > 0)
        sched_init(&w->sched, run->cfg->rate / run->n_workers, run->go_ns,
                   run->cfg->seed * 7919ULL + (uint64_t)w->id);
    const struct engine_feed *feed = run->cfg->feed;
    if (feed && w->n_clients > 0)
        w->feed_ws = feed->open(feed->arg, w->id, w->clients[0].id, w->n_clients);
    for (int i = 0; i < w->n_clients; i++)
        client_start(&w->clients[i], now);
    w->tick_ns = now + ENGINE_TICK_NS;
    w->measuring = 1;
}

static void measure(struct worker *w)
{
    worker_begin(w, clock_now_ns());
    while (w->n_live > 0) {
        if (poll_once(w) < 0)
            break;
        /* Intervals before the one being filled are in the series: the main thread may take
         * them. */
        if (w->late_sum_ns > 0 && w->late_idx < w->recorder.cur_idx)
            worker_flush_late(w);
        atomic_store_explicit(&w->open_idx, w->recorder.cur_idx, memory_order_release);
    }
    series_recorder_flush(&w->recorder);
    if (w->late_sum_ns > 0)
        worker_flush_late(w);
    if (w->run->cfg->counters)
        worker_counters_publish(w, SIZE_MAX); /* good for any interval still to come */
    atomic_store_explicit(&w->open_idx, SIZE_MAX, memory_order_release);
    if (w->feed_ws) {
        for (int i = 0; i < w->n_clients; i++) /* an interrupted run: no socket left */
            client_close(&w->clients[i]);
        w->run->cfg->feed->close(w->feed_ws);
        w->feed_ws = NULL;
    }
}

void *worker_main(void *arg)
{
    struct worker *w = arg;
    /* Timeouts end when asked, not up to 50 µs later (the default slack): a feed's
     * statements are due to the microsecond. */
    evwait_thread_precise();
    setup_clients(w);
    wait_for_start(w);
    if (w->run->go > 0 && !w->setup_failed)
        measure(w);
    if (w->run->cfg->thread_end)
        w->run->cfg->thread_end(w->run->cfg->thread_end_arg);
    pthread_mutex_lock(&w->run->mu);
    w->run->n_finished++;
    pthread_cond_broadcast(&w->run->cv);
    pthread_mutex_unlock(&w->run->mu);
    return NULL;
}
