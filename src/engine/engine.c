#include "engine/engine_int.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "os/os.h"
#include "result/result.h"

atomic_int engine_stop_flag;
struct evwake engine_stop_wake = {{-1, -1}};
/* The cause given by engine_request_stop_because, "" when none: under stop_mu. */
static pthread_mutex_t stop_mu = PTHREAD_MUTEX_INITIALIZER;
static char stop_why[1024];

/* From a signal handler too: no lock (the wake-up may be closing; a raise then is lost). */
void engine_request_stop(void)
{
    atomic_store(&engine_stop_flag, 1);
    evwake_raise(&engine_stop_wake);
}

/* From a thread: under stop_mu, which engine_run holds while it opens and closes the
 * wake-up. */
void engine_request_stop_because(const char *why)
{
    pthread_mutex_lock(&stop_mu);
    if (!atomic_load(&engine_stop_flag) && !stop_why[0])
        snprintf(stop_why, sizeof stop_why, "%s", why);
    atomic_store(&engine_stop_flag, 1);
    evwake_raise(&engine_stop_wake);
    pthread_mutex_unlock(&stop_mu);
}

static void close_stop_wake(void)
{
    pthread_mutex_lock(&stop_mu);
    evwake_close(&engine_stop_wake);
    pthread_mutex_unlock(&stop_mu);
}

static int max_params(const struct script_set *s)
{
    int m = 0;
    for (int i = 0; i < s->n_scripts; i++)
        for (int j = 0; j < s->scripts[i].n_cmds; j++)
            if (s->scripts[i].cmds[j].n_params > m)
                m = s->scripts[i].cmds[j].n_params;
    return m;
}

/* Commands are numbered across scripts, so per-statement statistics are one flat array. */
static void number_commands(struct engine_state *run)
{
    const struct script_set *set = run->cfg->scripts;
    run->cmd_base = xcalloc((size_t)set->n_scripts, sizeof *run->cmd_base);
    for (int i = 0; i < set->n_scripts; i++) {
        run->cmd_base[i] = run->n_cmds;
        run->n_cmds += set->scripts[i].n_cmds;
    }
}

static void init_worker_stats(struct worker *w)
{
    const struct script_set *set = w->run->cfg->scripts;
    w->latency = hist_new();
    w->lag = hist_new();
    series_init(&w->series, w->run->cfg->interval_us);
    pthread_mutex_init(&w->series_mu, NULL);
    series_recorder_init(&w->recorder, &w->series);
    w->recorder.lock = &w->series_mu;
    w->stmts = xcalloc((size_t)w->run->n_cmds, sizeof *w->stmts);
    for (int i = 0; i < set->n_scripts; i++)
        for (int j = 0; j < set->scripts[i].n_cmds; j++)
            if (set->scripts[i].cmds[j].kind == CMD_SQL)
                w->stmts[w->run->cmd_base[i] + j].latency = hist_new();
    /* A histogram per script too: calloc'd pages stay untouched (and cost nothing) until a
     * latency falls in them, so even one script per sysbench table is cheap. */
    w->scripts = xcalloc((size_t)set->n_scripts, sizeof *w->scripts);
    for (int i = 0; i < set->n_scripts; i++)
        w->scripts[i].latency = hist_new();
}

/* Clients are dealt to threads in contiguous blocks, as pgbench does. */
static void init_workers(struct engine_state *run)
{
    const struct engine_config *cfg = run->cfg;
    run->workers = xcalloc((size_t)run->n_workers, sizeof *run->workers);
    int next_client = 0;
    for (int t = 0; t < run->n_workers; t++) {
        struct worker *w = &run->workers[t];
        w->id = t;
        w->run = run;
        w->n_clients = cfg->clients / run->n_workers + (t < cfg->clients % run->n_workers);
        w->clients = xcalloc((size_t)w->n_clients, sizeof *w->clients);
        w->n_live = w->n_clients;
        w->counters_for = SIZE_MAX;
        w->pub.lo = 1; /* none yet */
        /* A feed's clients connect when their sessions start, not at setup. */
        w->n_setup_pending = cfg->feed ? 0 : w->n_clients;
        w->ev = evwait_new(&engine_stop_wake);
        w->feed_wake = (struct evwake){{-1, -1}};
        w->feed_wake_watch = (struct ev_watch){-1, 0, -1};
        if (cfg->feed && run->n_workers > 1 && evwake_open(&w->feed_wake) == 0 &&
            evwait_watch(w->ev, &w->feed_wake_watch, (int)w->feed_wake.h[0], EV_READ, &w->feed_wake,
                         0) < 0)
            evwake_close(&w->feed_wake); /* held clients then ask again on their timer */
        timers_init(&w->timers);
        init_worker_stats(w);
        for (int i = 0; i < w->n_clients; i++)
            client_init(&w->clients[i], w, next_client++);
    }
}

static void progress_tick(struct engine_state *run, time_ns now, time_ns *last_ns, uint64_t last[4])
{
    uint64_t tx = 0, failed = 0;
    double sum = 0, sumsq = 0;
    for (int t = 0; t < run->n_workers; t++) {
        struct worker *w = &run->workers[t];
        tx += atomic_load_explicit(&w->prog_tx, memory_order_acquire);
        failed += atomic_load_explicit(&w->prog_failed, memory_order_relaxed);
        sum += atomic_load_explicit(&w->prog_sum_us, memory_order_relaxed);
        sumsq += atomic_load_explicit(&w->prog_sumsq_us, memory_order_relaxed);
    }
    double prev_sum, prev_sumsq;
    memcpy(&prev_sum, &last[2], sizeof prev_sum);
    memcpy(&prev_sumsq, &last[3], sizeof prev_sumsq);
    struct engine_progress p = {
        .elapsed_s = (double)(now - run->start_ns) / NS_PER_S,
        .period_s = (double)(now - *last_ns) / NS_PER_S,
        .n_tx = tx - last[0],
        .n_failed = failed - last[1],
    };
    if (p.n_tx > 0) {
        double n = (double)p.n_tx, s = sum - prev_sum, s2 = sumsq - prev_sumsq;
        p.latency_mean_us = s / n;
        double var = s2 / n - p.latency_mean_us * p.latency_mean_us;
        p.latency_stddev_us = var > 0 ? sqrt(var) : 0;
    }
    run->cfg->progress(&p, run->cfg->progress_arg);
    last[0] = tx;
    last[1] = failed;
    memcpy(&last[2], &sum, sizeof sum);
    memcpy(&last[3], &sumsq, sizeof sumsq);
    *last_ns = now;
}

/* Every client lost for this long ends the run: the server is not coming back. */
#define SERVER_LOST_NS (10 * NS_PER_S)

void engine_state_check_server_lost(struct engine_state *run, time_ns now, time_ns *lost_since)
{
    int lost = 0, running = run->cfg->clients;
    for (int t = 0; t < run->n_workers; t++) {
        lost += atomic_load(&run->workers[t].n_lost);
        running -= atomic_load(&run->workers[t].n_clients_finished);
    }
    /* Clients that finished (a -t run) wait for nothing: the run waits for the others. */
    if (lost == 0 || lost < running) {
        *lost_since = 0;
        return;
    }
    if (*lost_since == 0)
        *lost_since = now;
    else if (now - *lost_since >= SERVER_LOST_NS && !atomic_load(&run->server_lost)) {
        atomic_store(&run->server_lost, 1);
        engine_request_stop();
    }
}

/* Merge interval idx of every worker (and anything late before it) and hand it over. With
 * last set, everything the workers still hold goes into it. */
static void emit_interval(struct engine_state *run, size_t idx, double t_s, double duration_s,
                          int last)
{
    struct engine_result so_far;
    int want = !last && atomic_load(&run->counters_want) == idx;
    struct interval acc = {0};
    for (int t = 0; t < run->n_workers; t++) {
        struct worker *w = &run->workers[t];
        pthread_mutex_lock(&w->series_mu);
        series_take_into(&w->series, idx, last, &acc);
        pthread_mutex_unlock(&w->series_mu);
    }
    int have = want && engine_counters_collect(run, idx, &so_far);
    struct engine_interval iv = {.idx = idx,
                                 .t_s = t_s,
                                 .duration_s = duration_s,
                                 .n_tx = acc.n_tx,
                                 .n_failed = acc.n_failed,
                                 .tenths = acc.tenths,
                                 .latency = &acc.latency,
                                 .late_sum_ns = acc.late_sum_ns,
                                 .late_max_ns = acc.late_max_ns,
                                 .so_far = have ? &so_far : NULL};
    run->cfg->interval_done(&iv, run->cfg->interval_arg);
    hist_sparse_free(&acc.latency);
    if (have)
        engine_result_free(&so_far);
    if (want)
        atomic_store(&run->counters_want, SIZE_MAX);
    run->n_emitted = idx + 1;
}

/* Hand over the intervals every worker has moved past, and whose end has come. The last
 * interval of a -T run takes late completions, so it waits for the end of the run. */
static void emit_closed(struct engine_state *run, time_ns now)
{
    if (!run->cfg->interval_done || now < run->start_ns)
        return;
    int64_t interval_ns = run->cfg->interval_us * NS_PER_US;
    size_t limit = (size_t)((now - run->start_ns) / interval_ns);
    for (int t = 0; t < run->n_workers; t++) {
        size_t open = atomic_load_explicit(&run->workers[t].open_idx, memory_order_acquire);
        if (open < limit)
            limit = open;
    }
    if (limit > run->max_interval)
        limit = run->max_interval;
    double interval_s = (double)run->cfg->interval_us / 1e6;
    while (run->n_emitted < limit) {
        size_t i = run->n_emitted;
        emit_interval(run, i, (double)(i + 1) * interval_s, interval_s, 0);
    }
    engine_counters_request(run, now);
}

/* The main thread waits for the workers, waking for each progress line and to watch for a
 * server that is gone. */
static void supervise(struct engine_state *run)
{
    const struct engine_config *cfg = run->cfg;
    time_ns period =
        cfg->progress && cfg->progress_s > 0 ? (time_ns)(cfg->progress_s * NS_PER_S) : 0;
    time_ns last_ns = run->start_ns, next = run->start_ns + period, lost_since = 0, probe_at = 0;
    uint64_t last[4] = {0};
    int start_due = cfg->measure_start && cfg->warmup_s > 0;
    pthread_mutex_lock(&run->mu);
    while (run->n_finished < run->n_workers) {
        time_ns now = clock_now_ns();
        pthread_mutex_unlock(&run->mu);
        if (start_due && now >= run->start_ns) {
            start_due = 0;
            cfg->measure_start(cfg->measure_start_arg);
        }
        if (period && now >= next) {
            progress_tick(run, now, &last_ns, last);
            while (next <= now)
                next += period;
        }
        engine_state_check_server_lost(run, now, &lost_since);
        engine_state_check_overdue(run, now, &probe_at);
        engine_state_edges(run, now); /* before the intervals they close are handed over */
        emit_closed(run, now);
        pthread_mutex_lock(&run->mu);
        time_ns wait = 500 * NS_PER_MS;
        if (period && next - clock_now_ns() < wait)
            wait = next - clock_now_ns();
        if (start_due && run->start_ns - clock_now_ns() < wait)
            wait = run->start_ns - clock_now_ns();
        time_ns edge = engine_state_next_edge(run);
        if (edge >= 0 && edge - clock_now_ns() < wait)
            wait = edge - clock_now_ns();
        os_cond_wait_until(&run->cv, &run->mu, clock_now_ns() + (wait > 0 ? wait : 0));
    }
    pthread_mutex_unlock(&run->mu);
    /* The workers may all have ended between the last wake-up and a -T run's end. */
    engine_state_edges(run, clock_now_ns());
}

/* -l: a log file per thread, named as pgbench names them, opened before anything runs so
 * that a path that cannot work is refused at once. */
static int open_logs(struct engine_state *run, struct err *e)
{
    const struct engine_config *cfg = run->cfg;
    if (!cfg->log_prefix)
        return 0;
    for (int t = 0; t < run->n_workers; t++) {
        char *path = t == 0 ? xasprintf("%s.%d", cfg->log_prefix, (int)getpid())
                            : xasprintf("%s.%d.%d", cfg->log_prefix, (int)getpid(), t);
        run->workers[t].txlog = txlog_open(path, &cfg->log, cfg->seed * 31 + (uint64_t)t, e);
        free(path);
        if (!run->workers[t].txlog)
            return -1;
    }
    return 0;
}

/* Close the logs at the end; the first write error goes into out (when given). */
static void close_logs(struct engine_state *run, struct engine_result *out)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    for (int t = 0; t < run->n_workers; t++) {
        struct err e = {0};
        if (run->workers[t].txlog && txlog_close(run->workers[t].txlog, now_us, &e) < 0 && out &&
            !out->log_error[0]) {
            size_t n = strnlen(e.msg, sizeof out->log_error - 1);
            memcpy(out->log_error, e.msg, n);
            out->log_error[n] = '\0';
        }
        run->workers[t].txlog = NULL;
    }
}

/* Wall clock minus monotonic clock: -l writes Unix-epoch timestamps, as pgbench. */
static int64_t epoch_shift_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - clock_now_ns() / NS_PER_US;
}

/* Why the clients did not all connect, NULL when they did: a worker's own failure before a
 * stop request's interruption, and for that the cause the stop was given, when it was. */
static const char *setup_failure(const struct engine_state *run, int *refused, char *buf,
                                 size_t size)
{
    const struct worker *interrupted = NULL;
    for (int t = 0; t < run->n_workers; t++) {
        const struct worker *w = &run->workers[t];
        if (w->setup_failed && !w->setup_interrupted) {
            *refused = w->setup_refused;
            return w->error;
        }
        if (w->setup_interrupted && !interrupted)
            interrupted = w;
    }
    if (!interrupted)
        return NULL;
    pthread_mutex_lock(&stop_mu);
    snprintf(buf, size, "%s", stop_why[0] ? stop_why : interrupted->error);
    pthread_mutex_unlock(&stop_mu);
    return buf;
}

static int start_or_abort(struct engine_state *run, struct err *e)
{
    pthread_mutex_lock(&run->mu);
    while (run->n_setup_done < run->n_workers)
        pthread_cond_wait(&run->cv, &run->mu);
    char stopped[sizeof stop_why];
    int refused = 0;
    const char *why = setup_failure(run, &refused, stopped, sizeof stopped);
    run->go_ns = clock_now_ns();
    struct err be = {0};
    if (!why && run->cfg->barrier) {
        /* The workers wait on run->go meanwhile; the barrier may take long. */
        pthread_mutex_unlock(&run->mu);
        int rc = run->cfg->barrier(run->cfg->barrier_arg, &run->go_ns, &be);
        pthread_mutex_lock(&run->mu);
        if (rc < 0) {
            why = be.msg;
            refused = be.code == ERR_INPUT;
        }
    }
    run->start_ns = run->go_ns + run->cfg->warmup_s * NS_PER_S;
    if (run->cfg->duration_s > 0)
        run->end_ns = run->start_ns + run->cfg->duration_s * NS_PER_S;
    run->epoch_shift_us = epoch_shift_us();
    for (int t = 0; t < run->n_workers; t++)
        if (run->workers[t].txlog)
            txlog_start(run->workers[t].txlog, run->start_ns / NS_PER_US + run->epoch_shift_us);
    run->go = why ? -1 : 1;
    pthread_cond_broadcast(&run->cv);
    pthread_mutex_unlock(&run->mu);
    if (why) /* a statement the server refuses is the script's fault: bad input */
        return err_set(e, refused ? ERR_INPUT : ERR_RUNTIME, "%s", why);
    if (run->cfg->started)
        run->cfg->started(run->start_ns, run->cfg->started_arg);
    return 0;
}

static void collect_statements(struct engine_state *run, struct engine_result *out)
{
    const struct script_set *set = run->cfg->scripts;
    struct hist *h = hist_new();
    out->statements = xcalloc((size_t)run->n_cmds, sizeof *out->statements);
    for (int i = 0; i < set->n_scripts; i++) {
        for (int j = 0; j < set->scripts[i].n_cmds; j++) {
            int k = run->cmd_base[i] + j;
            if (set->scripts[i].cmds[j].kind != CMD_SQL)
                continue;
            struct statement_result *st = &out->statements[out->n_statements++];
            double sum = 0;
            hist_reset(h);
            st->script = i;
            st->command = j;
            for (int t = 0; t < run->n_workers; t++) {
                st->count += run->workers[t].stmts[k].count;
                sum += run->workers[t].stmts[k].sum_us;
                hist_add(h, run->workers[t].stmts[k].latency);
            }
            result_derive_statement(st->count, sum, h, &st->mean_us, &st->p99_us);
        }
    }
    hist_free(h);
}

static void collect_scripts(struct engine_state *run, struct engine_result *out)
{
    out->n_scripts = run->cfg->scripts->n_scripts;
    out->scripts = xcalloc((size_t)out->n_scripts, sizeof *out->scripts);
    for (int i = 0; i < out->n_scripts; i++) {
        struct engine_script_figures *sr = &out->scripts[i];
        sr->latency = hist_new();
        for (int t = 0; t < run->n_workers; t++) {
            const struct engine_script_figures *ss = &run->workers[t].scripts[i];
            sr->n_tx += ss->n_tx;
            sr->n_failed += ss->n_failed;
            sr->n_retried += ss->n_retried;
            sr->n_skipped += ss->n_skipped;
            hist_add(sr->latency, ss->latency);
        }
    }
}

static void collect_worker(struct worker *w, struct engine_result *out, time_ns *last)
{
    hist_add(out->latency, w->latency);
    hist_add(out->lag, w->lag);
    if (w->begin_wall_us > 0 && (out->start_wall_us == 0 || w->begin_wall_us < out->start_wall_us))
        out->start_wall_us = w->begin_wall_us;
    if (!w->run->cfg->interval_done)
        series_merge(&out->series, &w->series);
    out->n_tx += w->n_tx;
    out->n_failed += w->n_failed;
    out->n_retried += w->n_retried;
    out->n_retries += w->n_retries;
    out->n_skipped += w->n_skipped;
    out->n_late += w->n_late;
    out->n_connects += w->n_connects;
    out->n_aborted += w->n_aborted;
    out->connect_time_ns += w->connect_time_ns;
    for (int k = 0; k < PGF__COUNT; k++)
        out->errors[k] += w->errors[k];
    if (w->last_completion > *last)
        *last = w->last_completion;
    if (!out->first_error[0] && w->error[0])
        snprintf(out->first_error, sizeof out->first_error, "%s", w->error);
    for (int i = 0; i < w->n_clients; i++) {
        struct client *c = &w->clients[i];
        out->clients[c->id] = (struct client_result){c->n_tx, c->n_failed};
    }
}

/* The intervals not handed over yet, up to n (the last one cut at the run's end). */
static void emit_rest(struct engine_state *run, size_t n, time_ns duration_ns)
{
    double interval_s = (double)run->cfg->interval_us / 1e6;
    double total_s = (double)duration_ns / NS_PER_S;
    if (n <= run->n_emitted) {
        /* Everything was handed over during the run, unless a late completion still needs a
         * home: then it goes into one more interval. */
        size_t held = 0;
        for (int t = 0; t < run->n_workers; t++)
            held += run->workers[t].series.n;
        n = held ? run->n_emitted + 1 : run->n_emitted;
    }
    for (size_t i = run->n_emitted; i < n; i++) {
        double t_s = (double)(i + 1) * interval_s, duration_s = interval_s;
        if (i + 1 == n && total_s < t_s && total_s > (double)i * interval_s) {
            t_s = total_s;
            duration_s = total_s - (double)i * interval_s;
        }
        emit_interval(run, i, t_s, duration_s, i + 1 == n);
    }
}

void engine_state_collect(struct engine_state *run, struct engine_result *out)
{
    const struct engine_config *cfg = run->cfg;
    memset(out, 0, sizeof *out);
    out->latency = hist_new();
    out->lag = hist_new();
    series_init(&out->series, cfg->interval_us);
    out->n_clients = cfg->clients;
    out->clients = xcalloc((size_t)cfg->clients, sizeof *out->clients);
    time_ns last = run->start_ns;
    for (int t = 0; t < run->n_workers; t++)
        collect_worker(&run->workers[t], out, &last);
    collect_statements(run, out);
    collect_scripts(run, out);
    out->n_latency_out_of_range = hist_overflow(out->latency);
    /* A -T run lasts its duration, even when the last transaction ended a bit before; a run
     * that was stopped lasts until the stop. */
    time_ns end = run->end_ns > last ? run->end_ns : last;
    int stopped = atomic_load(&engine_stop_flag);
    if (stopped)
        end = clock_now_ns();
    else if (out->n_aborted == cfg->clients && last < end) /* all aborted: none ran to -T */
        end = last;
    out->duration_ns = end > run->start_ns ? end - run->start_ns : 0;
    int64_t interval_ns = cfg->interval_us * NS_PER_US;
    size_t n_intervals = (size_t)((out->duration_ns + interval_ns - 1) / interval_ns);
    if (run->max_interval != SIZE_MAX && n_intervals > run->max_interval + 1)
        n_intervals = run->max_interval + 1;
    if (cfg->interval_done)
        emit_rest(run, n_intervals, out->duration_ns);
    else
        series_ensure(&out->series, n_intervals);
    out->end_reason = END_FINISHED;
    if (atomic_load(&run->server_lost))
        out->end_reason = END_SERVER_LOST;
    else if (atomic_load(&run->exit_aborted)) /* pgbench: "Run was aborted" too */
        out->end_reason = END_ERROR;
    else if (stopped)
        out->end_reason = END_INTERRUPTED;
    else if (out->n_aborted > 0) /* as pgbench: "Run was aborted" */
        out->end_reason = END_ERROR;
    snprintf(out->end_note, sizeof out->end_note, "%s", run->overdue_note);
    if (!out->end_note[0] && atomic_load(&run->exit_aborted))
        snprintf(out->end_note, sizeof out->end_note,
                 "a client aborted and --exit-on-abort ended the run (see the first failure)");
    if (!out->end_note[0] && out->n_aborted > 0)
        snprintf(out->end_note, sizeof out->end_note,
                 "%d of %d clients aborted: their script cannot go on (see the first failure)",
                 out->n_aborted, cfg->clients);
}

void engine_state_free(struct engine_state *run)
{
    close_logs(run, NULL); /* any still open (a failed start) */
    for (int t = 0; t < run->n_workers; t++) {
        struct worker *w = &run->workers[t];
        for (int i = 0; i < w->n_clients; i++)
            client_free(&w->clients[i]);
        free(w->clients);
        hist_free(w->latency);
        hist_free(w->lag);
        series_recorder_free(&w->recorder);
        series_free(&w->series);
        pthread_mutex_destroy(&w->series_mu);
        for (int k = 0; k < run->n_cmds; k++)
            hist_free(w->stmts[k].latency);
        free(w->stmts);
        for (int k = 0; k < run->cfg->scripts->n_scripts; k++)
            hist_free(w->scripts[k].latency);
        free(w->scripts);
        free(w->feed_waiting);
        worker_counters_free(w);
        timers_free(&w->timers);
        if (w->feed_wake_watch.fd >= 0)
            evwait_unwatch(w->ev, &w->feed_wake_watch, 1);
        evwake_close(&w->feed_wake);
        evwait_free(w->ev);
    }
    free(run->workers);
    free(run->cmd_base);
}

void engine_state_init(struct engine_state *run, const struct engine_config *cfg)
{
    memset(run, 0, sizeof *run);
    run->cfg = cfg;
    run->n_workers = cfg->threads < cfg->clients ? cfg->threads : cfg->clients;
    if (run->n_workers < 1)
        run->n_workers = 1;
    run->max_params = max_params(cfg->scripts);
    number_commands(run);
    run->max_interval = SIZE_MAX;
    run->counters_want = SIZE_MAX;
    if (cfg->duration_s > 0) /* late completions fold into the last interval */
        run->max_interval =
            (size_t)((cfg->duration_s * 1000000 + cfg->interval_us - 1) / cfg->interval_us) - 1;
    init_workers(run);
}

int engine_run(const struct engine_config *cfg, struct engine_result *out, struct err *e)
{
    struct engine_state run;
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&stop_mu);
    atomic_store(&engine_stop_flag, 0);
    stop_why[0] = '\0';
    evwake_open(&engine_stop_wake);
    pthread_mutex_unlock(&stop_mu);
    engine_state_init(&run, cfg);
    pthread_mutex_init(&run.mu, NULL);
    /* Deadlines are monotonic; a default (realtime) condition variable would read them as
     * 1970 and return at once, spinning the main thread for the whole run. */
    os_cond_init(&run.cv);
    if (open_logs(&run, e) < 0) {
        engine_state_free(&run);
        pthread_mutex_destroy(&run.mu);
        pthread_cond_destroy(&run.cv);
        close_stop_wake();
        return -1;
    }
    cancel_start();
    for (int t = 0; t < run.n_workers; t++)
        pthread_create(&run.workers[t].thread, NULL, worker_main, &run.workers[t]);
    int rc = start_or_abort(&run, e);
    if (rc == 0)
        supervise(&run);
    for (int t = 0; t < run.n_workers; t++)
        pthread_join(run.workers[t].thread, NULL);
    cancel_stop();
    if (rc == 0)
        engine_state_collect(&run, out);
    close_logs(&run, rc == 0 ? out : NULL);
    engine_state_free(&run);
    pthread_mutex_destroy(&run.mu);
    pthread_cond_destroy(&run.cv);
    close_stop_wake();
    return rc;
}

void engine_result_free(struct engine_result *r)
{
    hist_free(r->latency);
    hist_free(r->lag);
    free(r->statements);
    for (int i = 0; i < r->n_scripts; i++)
        hist_free(r->scripts[i].latency);
    free(r->scripts);
    series_free(&r->series);
    free(r->clients);
    memset(r, 0, sizeof *r);
}
