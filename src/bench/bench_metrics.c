/* --metrics-listen: the run's figures published to the metrics server (metrics/metrics.h) as
 * the engine's intervals close, out of what the interval callback has anyway; nothing on the
 * engine's hot path. */
#include "bench/bench_int.h"

static void publish(struct bench *b)
{
    metrics_run_publish(b->metrics.run, &b->metrics.f);
}

static void started(time_ns measured_start_ns, void *arg)
{
    struct bench *b = arg;
    struct bench_metrics *bm = &b->metrics;
    bench_chain_started(&bm->chain, measured_start_ns);
    bm->f.phase = b->p.warmup_s > 0 ? METRICS_WARMUP : METRICS_MEASURING;
    /* Every client is connected here (a replay's connect as their sessions start). */
    bm->f.clients_connected = b->sampling.pids ? 0 : bm->n_clients;
    for (int i = 0; b->sampling.pids && i < b->sampling.n_pids; i++)
        bm->f.clients_connected += atomic_load(&b->sampling.pids[i]) != 0;
    publish(b);
}

static void measure_start(void *arg)
{
    struct bench *b = arg;
    struct bench_metrics *bm = &b->metrics;
    bench_chain_measure_start(&bm->chain);
    bm->f.phase = METRICS_MEASURING;
    publish(b);
}

void bench_metrics_register(struct bench *b, const struct script_set *scripts)
{
    if (!b->p.metrics)
        return;
    const char *names[METRICS_MAX_SCRIPTS];
    int n = 0;
    for (; n < scripts->n_scripts && n < METRICS_MAX_SCRIPTS; n++)
        names[n] = scripts->scripts[n].name;
    b->metrics.run = metrics_run_add(b->p.metrics, b->run_id, b->p.label, b->workload_name,
                                     result_error_names, RESULT_N_ERRORS, names, n);
    publish(b);
}

void bench_metrics_configure(struct bench *b, struct engine_config *cfg)
{
    struct bench_metrics *bm = &b->metrics;
    if (!bm->run)
        return;
    bm->n_clients = cfg->clients;
    bm->feed = cfg->feed != NULL;
    bench_chain_wrap(&bm->chain, cfg, started, measure_start, b);
    cfg->counters = 1; /* the failures by kind, retries, statements and lag so far */
}

void bench_metrics_waits(struct bench *b, const struct sample_interval *si)
{
    if (!b->metrics.run)
        return;
    for (size_t i = 0; i < si->n_waits; i++) {
        int c = metrics_wait_class(si->waits[i].name);
        if (c >= 0)
            b->metrics.f.waits[c] += si->waits[i].count;
    }
}

/* The counts the engine gives every so often: as they stood after an interval. A replay's
 * statements are its transactions (feed). */
static void so_far(struct metrics_figures *f, const struct engine_result *r, int feed)
{
    uint64_t errors[RESULT_N_ERRORS];
    bench_error_counts(r, errors);
    for (int k = 0; k < RESULT_N_ERRORS && k < METRICS_MAX_KINDS; k++)
        f->failures[k] = errors[k];
    f->retries = r->n_retries;
    for (int i = 0; i < r->n_scripts && i < METRICS_MAX_SCRIPTS; i++)
        f->script_tx[i] = r->scripts[i].n_tx;
    f->statements = feed ? r->n_tx : 0;
    for (int i = 0; !feed && i < r->n_statements; i++)
        f->statements += r->statements[i].count;
    if (r->lag && hist_count(r->lag) > 0) /* -R and replays: a whole histogram's scan */
        metrics_hist_set(&f->lag, r->lag);
}

void bench_metrics_interval(struct bench *b, const struct engine_interval *iv,
                            const struct result_interval *it)
{
    struct bench_metrics *bm = &b->metrics;
    if (!bm->run)
        return;
    struct metrics_figures *f = &bm->f;
    f->transactions += iv->n_tx;
    metrics_hist_add_sparse(&f->latency, iv->latency);
    if (iv->so_far)
        so_far(f, iv->so_far, bm->feed);
    if (b->sampling.pids) {
        f->clients_connected = 0;
        for (int i = 0; i < b->sampling.n_pids; i++)
            f->clients_connected += atomic_load(&b->sampling.pids[i]) != 0;
    }
    if (it->health.present && it->health.stalled_ms > 0)
        f->stalled_s += it->health.stalled_ms / 1000.0;
    if (it->has_client_cpu) {
        f->cpu_user_s += it->cpu_user * iv->duration_s;
        f->cpu_system_s += it->cpu_system * iv->duration_s;
    }
    const struct result_sio *s = &it->sio;
    if (s->have & (1u << SIO_WAL_BYTES))
        f->wal_bytes += s->v[SIO_WAL_BYTES] > 0 ? (uint64_t)s->v[SIO_WAL_BYTES] : 0;
    if (s->have & (1u << SIO_CKPT_TIMED))
        f->checkpoints += (uint64_t)s->v[SIO_CKPT_TIMED];
    if (s->have & (1u << SIO_CKPT_REQ))
        f->checkpoints += (uint64_t)s->v[SIO_CKPT_REQ];
    publish(b);
}

void bench_metrics_end(struct bench *b, const struct engine_result *er)
{
    struct bench_metrics *bm = &b->metrics;
    if (!bm->run || bm->f.phase == METRICS_DONE)
        return;
    struct metrics_figures *f = &bm->f;
    f->phase = METRICS_DONE;
    f->clients_connected = 0;
    if (!er) { /* it never ran */
        publish(b);
        return;
    }
    /* The run's own totals: what the result file counts, whatever the intervals missed. */
    f->transactions = er->n_tx;
    so_far(f, er, bm->feed);
    if (er->latency)
        metrics_hist_set(&f->latency, er->latency);
    publish(b);
}
