/* The client's health on every interval: the workers' lateness the engine counted, and the
 * process's run-queue delay, the CPU pressure and the host's steal read at the interval's
 * close (result/health.h classifies them). */
#include "bench/bench_int.h"

static void started(time_ns measured_start_ns, void *arg)
{
    struct bench_sink *s = arg;
    self_health_free(&s->health);
    self_health_start(&s->health);
    bench_chain_started(&s->chain, measured_start_ns);
}

static void measure_start(void *arg)
{
    struct bench_sink *s = arg;
    self_health_free(&s->health);
    self_health_start(&s->health);
    bench_chain_measure_start(&s->chain);
}

void bench_chain_wrap(struct bench_chain *c, struct engine_config *cfg,
                      void (*started_fn)(time_ns measured_start_ns, void *arg),
                      void (*measure_start_fn)(void *arg), void *arg)
{
    *c = (struct bench_chain){cfg->started, cfg->started_arg, cfg->measure_start,
                              cfg->measure_start_arg};
    cfg->started = started_fn;
    cfg->started_arg = arg;
    cfg->measure_start = measure_start_fn;
    cfg->measure_start_arg = arg;
}

void bench_chain_started(const struct bench_chain *c, time_ns measured_start_ns)
{
    if (c->started)
        c->started(measured_start_ns, c->started_arg);
}

void bench_chain_measure_start(const struct bench_chain *c)
{
    if (c->measure_start)
        c->measure_start(c->measure_start_arg);
}

void bench_health_configure(struct bench_sink *s, struct engine_config *cfg)
{
    bench_chain_wrap(&s->chain, cfg, started, measure_start, s);
}

void bench_health_interval(struct bench_sink *s, const struct engine_interval *iv,
                           struct result_interval *it)
{
    struct self_health_delta d;
    self_health_take(&s->health, &d);
    double duration_ms = iv->duration_s * 1000.0;
    struct result_interval_health *h = &it->health;
    *h = (struct result_interval_health){
        .present = 1,
        .late_ms = (double)iv->late_sum_ns / 1e6,
        .late_max_ms = (double)iv->late_max_ns / 1e6,
        .run_delay_ms = d.run_delay_ms,
        .psi_ms = d.psi_ms,
        .steal_ms = d.steal_share >= 0 ? d.steal_share * duration_ms : -1,
    };
    struct result_health_in in = {duration_ms, h->late_max_ms, d.run_delay_max_ms, h->steal_ms};
    h->cause = result_stall_classify(&in, &h->stalled_ms);
    result_health_add(&s->health_summary, iv->t_s, iv->duration_s, h);
}
