/* The client's health on every interval: the workers' lateness the engine counted, and the
 * process's run-queue delay, the CPU pressure and the host's steal read at the interval's
 * close (result/health.h classifies them). */
#include "bench/bench_int.h"

static void started(time_ns measured_start_ns, void *arg)
{
    struct bench_sink *s = arg;
    self_health_free(&s->health);
    self_health_start(&s->health);
    if (s->chained_started)
        s->chained_started(measured_start_ns, s->chained_started_arg);
}

static void measure_start(void *arg)
{
    struct bench_sink *s = arg;
    self_health_free(&s->health);
    self_health_start(&s->health);
    if (s->chained_measure_start)
        s->chained_measure_start(s->chained_measure_start_arg);
}

void bench_health_configure(struct bench_sink *s, struct engine_config *cfg)
{
    s->chained_started = cfg->started;
    s->chained_started_arg = cfg->started_arg;
    s->chained_measure_start = cfg->measure_start;
    s->chained_measure_start_arg = cfg->measure_start_arg;
    cfg->started = started;
    cfg->started_arg = s;
    cfg->measure_start = measure_start;
    cfg->measure_start_arg = s;
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
