#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "bench/bench_int.h"

/* The statements of the scripts, none counted: the header lists them, so that counters lines
 * give their counts alone, in this order (the engine's). */
static void list_statements(const struct script_set *scripts, struct engine_result *er)
{
    int n = 0;
    for (int i = 0; i < scripts->n_scripts; i++)
        n += scripts->scripts[i].n_cmds;
    er->statements = xcalloc((size_t)n + 1, sizeof *er->statements);
    for (int i = 0; i < scripts->n_scripts; i++)
        for (int j = 0; j < scripts->scripts[i].n_cmds; j++)
            if (scripts->scripts[i].cmds[j].kind == CMD_SQL)
                er->statements[er->n_statements++] = (struct statement_result){i, j, 0, 0, 0};
}

/* The header: everything the result will say that is known before the run. */
static void build_header(struct bench *b, const struct script_set *scripts, struct result *h)
{
    struct engine_result none = {.latency = hist_new(), .lag = hist_new()};
    list_statements(scripts, &none);
    series_init(&none.series, 1000000);
    bench_build_result(b, scripts, &none, h);
    engine_result_free(&none);
    h->complete = 0;
    free(h->end_reason);
    h->end_reason = xstrdup("running");
    free(h->finished_at);
    h->finished_at = NULL;
    bench_env_header(b, h);
    bench_agents_result(b, NULL, h); /* a recovered agent's file still says whose it is */
    bench_workload_snapshot(b, h);   /* the workload's own section, as it stands */
    /* A sampled run says so (no events yet): recover rebuilds its waits from the intervals. */
    if (!b->p.sampling.off) {
        h->waits.present = 1;
        h->waits.sample_ms = (int)b->p.sampling.sample_ms;
    }
}

void bench_sink_open(struct bench_sink *s, struct bench *b, const struct script_set *scripts)
{
    memset(s, 0, sizeof *s);
    s->b = b;
    bench_health_open(s);
    struct result h;
    struct err e = {0};
    build_header(b, scripts, &h);
    s->journal = journal_create(b->p.output, &h, &e);
    /* An agent's share is not followed: agent 0 has the merged result at the end. */
    const struct bench_live *live = b->hooks ? &b->hooks->live : NULL;
    if (live && live->begun && b->p.agents.count == 0)
        s->live = live->begun(&h, live->arg);
    result_free(&h);
    if (s->journal)
        s->journal_path = xstrdup(journal_file(s->journal));
    else
        bench_warn(b, "warning: %s; intervals are kept in memory instead", e.msg);
}

/* The workload's own figures (its section and statement classes), as they stand, as a line of
 * the journal: recover takes the last one. Written after an interval line at most every
 * snap_every_s, a gap that grows with the line (about 4 KB a second of run at most, between
 * 1 and 30 s), so a run of many classes does not make the journal many times the result. */
static void sink_snapshot(struct bench_sink *s, double t_s)
{
    if (t_s < s->snap_t_s + s->snap_every_s)
        return;
    struct result r;
    memset(&r, 0, sizeof r);
    r.summary.duration_s = t_s;
    struct err e = {0};
    if (bench_workload_snapshot(s->b, &r)) {
        long n = journal_append_snapshot(s->journal, &r, t_s, &e);
        double every = n > 0 ? (double)n / 4096 : 1;
        s->snap_every_s = every < 1 ? 1 : every > 30 ? 30 : every;
    } else {
        s->snap_every_s = 1e300; /* none: never again */
    }
    s->snap_t_s = t_s;
    result_free(&r);
}

/* The run's cumulative counts through the interval, as a line of the journal right after its
 * interval line: recover takes the last one's, as of its time. Written when the engine has them
 * (about every second interval) and at most every counters_every_s, a gap that grows with the line
 * as the snapshot's does (a thousand clients make a line of about 12 KB). */
static void sink_counters(struct bench_sink *s, const struct engine_interval *iv)
{
    const struct engine_result *er = iv->so_far;
    if (!er || iv->t_s < s->counters_t_s + s->counters_every_s)
        return;
    struct journal_counters c = {.t_s = iv->t_s,
                                 .retried = er->n_retried,
                                 .retries = er->n_retries,
                                 .skipped = er->n_skipped,
                                 .late = er->n_late};
    bench_error_counts(er, c.errors);
    hist_to_sparse(er->lag, &c.lag);
    c.n_scripts = (size_t)er->n_scripts;
    c.scripts = xcalloc(c.n_scripts + 1, sizeof *c.scripts);
    for (size_t i = 0; i < c.n_scripts; i++) {
        c.scripts[i].transactions = er->scripts[i].n_tx;
        c.scripts[i].failed = er->scripts[i].n_failed;
        c.scripts[i].retried = er->scripts[i].n_retried;
        c.scripts[i].skipped = er->scripts[i].n_skipped;
        hist_to_sparse(er->scripts[i].latency, &c.scripts[i].latency);
    }
    /* The terminals only, as the result's clients[]. */
    c.n_clients = (size_t)(s->b->p.clients < er->n_clients ? s->b->p.clients : er->n_clients);
    c.clients = xcalloc(c.n_clients + 1, sizeof *c.clients);
    for (size_t i = 0; i < c.n_clients; i++)
        c.clients[i] = (struct result_client){er->clients[i].n_tx, er->clients[i].n_failed};
    c.n_statements = (size_t)er->n_statements;
    c.statements = xcalloc(c.n_statements + 1, sizeof *c.statements);
    for (size_t i = 0; i < c.n_statements; i++)
        c.statements[i] = (struct result_statement){.count = er->statements[i].count,
                                                    .mean_us = er->statements[i].mean_us,
                                                    .p99_us = (double)er->statements[i].p99_us};
    struct err e = {0};
    long n = journal_append_counters(s->journal, &c, &e);
    journal_counters_free(&c);
    double every = n > 0 ? (double)n / 2048 : 1;
    s->counters_every_s = every < 1 ? 1 : every > 30 ? 30 : every;
    s->counters_t_s = iv->t_s;
}

/* The server events that came with the interval, as a line of the journal: recover keeps
 * them (and the first line says the run writes them, with the measured start). */
static void sink_events(struct bench_sink *s, double t_s)
{
    const struct bench *b = s->b;
    size_t n = b->sampling.n_events - s->n_events_journaled;
    if (!b->sampling.sampler || (s->events_line && n == 0))
        return;
    struct err e = {0};
    if (journal_append_events(s->journal, b->sampling.measured_start_at,
                              b->sampling.events + s->n_events_journaled, n, t_s, &e) == 0) {
        s->n_events_journaled += n;
        s->events_line = 1;
    }
}

/* What the sampler knows of the run so far, as a line of the journal when it changed:
 * recover derives client_cpu and waits.visibility from it. */
static void sink_sampler(struct bench_sink *s, double t_s)
{
    const struct journal_sampler *now = &s->b->sampling.so_far, *was = &s->sampler_journaled;
    if (!now->present || (was->present && was->max_thread_core == now->max_thread_core &&
                          was->sees_all == now->sees_all))
        return;
    struct err e = {0};
    if (journal_append_sampler(s->journal, now, t_s, &e) == 0)
        s->sampler_journaled = *now;
}

static void keep_in_memory(struct bench_sink *s, struct result_interval *it)
{
    if (s->n_mem == s->cap_mem) {
        s->cap_mem = s->cap_mem ? 2 * s->cap_mem : 64;
        s->mem = xrealloc(s->mem, s->cap_mem * sizeof *s->mem);
    }
    s->mem[s->n_mem++] = *it;
}

/* A duet half's tx_100ms (its comparison pairs half-seconds): the tenths the interval covers,
 * each 100 ms as the intervals are 1 s; whatever a short last interval has past its end (a
 * late tail) counts in the last one it covers, so that they sum to its transactions. */
static void sink_tenths(struct result_interval *it, const struct engine_interval *iv)
{
    _Static_assert(BENCH_INTERVAL_MS == 1000 && SERIES_TENTHS == RESULT_INTERVAL_TENTHS,
                   "tx_100ms: a tenth of an interval is 100 ms");
    double n = ceil(iv->duration_s * SERIES_TENTHS - 1e-6); /* 0.30000000000000004 s: 3 */
    it->n_tenths = n < 1 ? 1 : n > SERIES_TENTHS ? SERIES_TENTHS : (size_t)n;
    for (size_t k = 0; k < SERIES_TENTHS; k++)
        it->tenths[k < it->n_tenths ? k : it->n_tenths - 1] += iv->tenths[k];
}

void bench_sink_interval(const struct engine_interval *iv, void *arg)
{
    struct bench_sink *s = arg;
    struct result_interval it = {.t_s = iv->t_s};
    /* One dense histogram for every interval: a new one each second would be 270 KB to map,
     * clear and unmap. */
    if (!s->latency)
        s->latency = hist_new();
    hist_reset(s->latency);
    hist_add_sparse(s->latency, iv->latency);
    result_derive_interval(&it, iv->n_tx, iv->n_failed, iv->duration_s, s->latency);
    if (s->b->p.duet)
        sink_tenths(&it, iv);
    bench_sampling_interval(s->b, iv->idx, iv->t_s, &it);
    bench_health_interval(s, iv, &it);
    bench_metrics_interval(s->b, iv, &it);
    struct err e = {0};
    /* Once a write failed, the journal stops there and the rest stays in memory, in order. */
    int journaled = s->journal && s->n_mem == 0 && journal_append(s->journal, &it, &e) == 0;
    /* After the journal: what follows a killed run (a store) has no interval its recovered
     * file lacks. */
    if (s->live)
        s->b->hooks->live.interval(s->live, &it);
    if (journaled) {
        s->n_journal++;
        result_interval_clear(&it);
        sink_events(s, iv->t_s);
        sink_sampler(s, iv->t_s);
        sink_snapshot(s, iv->t_s);
        sink_counters(s, iv);
        return;
    }
    if (s->journal && s->n_mem == 0)
        bench_warn(s->b, "warning: %s; later intervals are kept in memory", e.msg);
    keep_in_memory(s, &it);
    s->n_unjournaled++;
}

void bench_sink_attach(struct bench_sink *s, struct result *r)
{
    for (size_t i = 0; i < r->n_intervals; i++) /* none: the engine kept no series */
        result_interval_clear(&r->intervals[i]);
    free(r->intervals);
    r->intervals = s->mem;
    r->n_intervals = s->n_mem;
    s->mem = NULL;
    s->n_mem = s->cap_mem = 0;
    r->client_health = s->health_summary;
    result_health_finish(&r->client_health);
    if (s->journal_path && s->n_journal > 0) {
        r->journal = xstrdup(s->journal_path);
        r->n_journal = s->n_journal;
    }
}

void bench_sink_close(struct bench_sink *s, int result_written, int ran)
{
    if (s->live)
        s->b->hooks->live.ended(s->live, ran);
    journal_close(s->journal, result_written);
    /* Only what the journal holds is named: intervals kept in memory are lost with the run. */
    if (!result_written && s->journal_path && s->n_unjournaled == 0)
        bench_warn(s->b, "the intervals measured are in %s", s->journal_path);
    else if (!result_written && s->journal_path && s->n_journal > 0)
        bench_warn(s->b, "the first %zu intervals measured are in %s; the last %zu are lost",
                   s->n_journal, s->journal_path, s->n_unjournaled);
    for (size_t i = 0; i < s->n_mem; i++)
        result_interval_clear(&s->mem[i]);
    free(s->mem);
    free(s->journal_path);
    self_edges_free(&s->health);
    hist_free(s->latency);
    memset(s, 0, sizeof *s);
}
