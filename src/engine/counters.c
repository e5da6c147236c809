/* The run's cumulative counts while it runs, for the journal: each worker publishes its own
 * when the main thread asks, at the first event past the interval asked for and before that
 * event counts, so that they hold exactly the transactions of that interval and those before
 * it, the same ones as the intervals handed over up to it. */
#include "engine/engine_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "result/result.h"

void worker_counters_publish(struct worker *w, size_t hi)
{
    struct worker_counters *p = &w->pub;
    const struct engine_state *run = w->run;
    int n_scripts = run->cfg->scripts->n_scripts;
    pthread_mutex_lock(&w->series_mu);
    if (!p->clients) {
        p->clients = xcalloc((size_t)w->n_clients + 1, sizeof *p->clients);
        p->stmts = xcalloc((size_t)run->n_cmds + 1, sizeof *p->stmts);
        p->scripts = xcalloc((size_t)n_scripts, sizeof *p->scripts);
        p->lag = hist_new();
        for (int k = 0; k < run->n_cmds; k++)
            if (w->stmts[k].latency)
                p->stmts[k].latency = hist_new();
        for (int i = 0; i < n_scripts; i++)
            p->scripts[i].latency = hist_new();
    }
    p->lo = w->recorder.cur_idx;
    p->hi = hi;
    p->n_retried = w->n_retried;
    p->n_retries = w->n_retries;
    p->n_skipped = w->n_skipped;
    p->n_late = w->n_late;
    memcpy(p->errors, w->errors, sizeof p->errors);
    hist_assign(p->lag, w->lag);
    for (int i = 0; i < w->n_clients; i++)
        p->clients[i] = (struct client_result){w->clients[i].n_tx, w->clients[i].n_failed};
    for (int k = 0; k < run->n_cmds; k++) {
        p->stmts[k].count = w->stmts[k].count;
        p->stmts[k].sum_us = w->stmts[k].sum_us;
        if (p->stmts[k].latency)
            hist_assign(p->stmts[k].latency, w->stmts[k].latency);
    }
    for (int i = 0; i < n_scripts; i++) {
        p->scripts[i].n_tx = w->scripts[i].n_tx;
        p->scripts[i].n_failed = w->scripts[i].n_failed;
        p->scripts[i].n_retried = w->scripts[i].n_retried;
        p->scripts[i].n_skipped = w->scripts[i].n_skipped;
        hist_assign(p->scripts[i].latency, w->scripts[i].latency);
    }
    pthread_mutex_unlock(&w->series_mu);
}

void worker_counters_at_boundary(struct worker *w, time_ns t)
{
    const struct engine_state *run = w->run;
    time_ns len = (time_ns)run->cfg->interval_us * NS_PER_US;
    if (!run->cfg->counters || len <= 0) {
        w->counters_gate = INT64_MAX; /* never asked */
        return;
    }
    size_t want = atomic_load_explicit(&run->counters_want, memory_order_acquire);
    if (want != w->counters_for) {
        w->counters_for = want;
        w->counters_at = want == SIZE_MAX ? 0 : run->start_ns + (time_ns)(want + 1) * len;
    }
    if (w->counters_at && t >= w->counters_at) {
        w->counters_at = 0;
        worker_counters_publish(w, want);
    }
    /* The end of t's interval (the warmup: of interval 0's), where a request still to come
     * may first be due. */
    time_ns since = t > run->start_ns ? t - run->start_ns : 0;
    w->counters_gate = run->start_ns + (since / len + 1) * len;
}

void worker_counters_free(struct worker *w)
{
    struct worker_counters *p = &w->pub;
    hist_free(p->lag);
    for (int k = 0; p->stmts && k < w->run->n_cmds; k++)
        hist_free(p->stmts[k].latency);
    for (int i = 0; p->scripts && i < w->run->cfg->scripts->n_scripts; i++)
        hist_free(p->scripts[i].latency);
    free(p->clients);
    free(p->stmts);
    free(p->scripts);
    memset(p, 0, sizeof *p);
}

/* One worker's published counts into out, statement latencies into lat (out's order). */
static void add_worker(const struct worker *w, struct engine_result *out, struct hist **lat)
{
    const struct worker_counters *p = &w->pub;
    out->n_retried += p->n_retried;
    out->n_retries += p->n_retries;
    out->n_skipped += p->n_skipped;
    out->n_late += p->n_late;
    for (int k = 0; k < PGF__COUNT; k++)
        out->errors[k] += p->errors[k];
    hist_add(out->lag, p->lag);
    for (int i = 0; i < w->n_clients; i++)
        out->clients[w->clients[i].id] = p->clients[i];
    for (int i = 0; i < out->n_scripts; i++) {
        out->scripts[i].n_tx += p->scripts[i].n_tx;
        out->scripts[i].n_failed += p->scripts[i].n_failed;
        out->scripts[i].n_retried += p->scripts[i].n_retried;
        out->scripts[i].n_skipped += p->scripts[i].n_skipped;
        hist_add(out->scripts[i].latency, p->scripts[i].latency);
    }
    for (int s = 0; s < out->n_statements; s++) {
        struct statement_result *st = &out->statements[s];
        int k = w->run->cmd_base[st->script] + st->command;
        st->count += p->stmts[k].count;
        st->mean_us += p->stmts[k].sum_us; /* a sum until the end */
        if (p->stmts[k].latency)
            hist_add(lat[s], p->stmts[k].latency);
    }
}

/* The statements as engine_state_collect lists them, nothing counted. */
static void list_statements(const struct engine_state *run, struct engine_result *out)
{
    const struct script_set *set = run->cfg->scripts;
    out->statements = xcalloc((size_t)run->n_cmds + 1, sizeof *out->statements);
    for (int i = 0; i < set->n_scripts; i++)
        for (int j = 0; j < set->scripts[i].n_cmds; j++)
            if (set->scripts[i].cmds[j].kind == CMD_SQL)
                out->statements[out->n_statements++] = (struct statement_result){i, j, 0, 0, 0};
}

int engine_counters_collect(struct engine_state *run, size_t idx, struct engine_result *so_far)
{
    memset(so_far, 0, sizeof *so_far);
    so_far->lag = hist_new();
    so_far->n_clients = run->cfg->clients;
    so_far->clients = xcalloc((size_t)run->cfg->clients + 1, sizeof *so_far->clients);
    so_far->n_scripts = run->cfg->scripts->n_scripts;
    so_far->scripts = xcalloc((size_t)so_far->n_scripts + 1, sizeof *so_far->scripts);
    for (int i = 0; i < so_far->n_scripts; i++)
        so_far->scripts[i].latency = hist_new();
    list_statements(run, so_far);
    struct hist **lat = xcalloc((size_t)so_far->n_statements + 1, sizeof *lat);
    for (int s = 0; s < so_far->n_statements; s++)
        lat[s] = hist_new();
    int ok = 1;
    for (int t = 0; t < run->n_workers && ok; t++) {
        struct worker *w = &run->workers[t];
        pthread_mutex_lock(&w->series_mu);
        const struct worker_counters *p = &w->pub;
        ok = p->clients && p->lo <= idx && (p->hi == idx || p->hi == SIZE_MAX);
        if (ok)
            add_worker(w, so_far, lat);
        pthread_mutex_unlock(&w->series_mu);
    }
    for (int s = 0; s < so_far->n_statements; s++) {
        struct statement_result *st = &so_far->statements[s];
        result_derive_statement(st->count, st->mean_us, lat[s], &st->mean_us, &st->p99_us);
        hist_free(lat[s]);
    }
    free(lat);
    if (!ok)
        engine_result_free(so_far);
    return ok;
}

void engine_counters_request(struct engine_state *run, time_ns now)
{
    if (!run->cfg->counters || now < run->start_ns ||
        atomic_load_explicit(&run->counters_want, memory_order_relaxed) != SIZE_MAX)
        return;
    size_t idx = (size_t)((now - run->start_ns) / (run->cfg->interval_us * NS_PER_US)) + 1;
    /* The last interval takes a -T run's late completions: never asked for. */
    if (idx < run->max_interval)
        atomic_store_explicit(&run->counters_want, idx, memory_order_release);
}
