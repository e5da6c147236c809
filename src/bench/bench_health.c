/* The client's health on every interval: the workers' lateness the engine counted, and the
 * process's run-queue delay, the CPU pressure and the host's steal read at the interval's edges
 * (the engine's interval_edge; result/health.h classifies them). */
#include "bench/bench_int.h"

/* Before the measured start: what interval 0 starts from until edge 0 (the measured start)
 * is read. */
static void read_first(struct bench_sink *s)
{
    struct self_health first;
    self_health_read(&first);
    self_edges_start(&s->health, &first);
}

static void started(time_ns measured_start_ns, void *arg)
{
    struct bench_sink *s = arg;
    read_first(s);
    bench_chain_started(&s->chain, measured_start_ns);
}

static void measure_start(void *arg)
{
    struct bench_sink *s = arg;
    read_first(s);
    bench_chain_measure_start(&s->chain);
}

/* The time actually read is the reading's own (read_ns): nothing is scaled to the edge's. */
static void edge(size_t k, time_ns edge_ns, void *arg)
{
    struct bench_sink *s = arg;
    struct self_health r;
    (void)edge_ns;
    self_health_read(&r);
    self_edges_put(&s->health, k, &r);
}

/* The workers' run delay outlives them: the last interval is handed over once they have
 * ended, and a -T run's last edge is often read after some have. Each worker records its own
 * delay as it ends (rather than being held until the main thread has read the last edge: a -t
 * run or a stop has no such edge, and holding the workers would change how the run ends), and
 * every later reading counts it. */
static void thread_end(void *arg)
{
    (void)arg;
    self_health_thread_ended();
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

void bench_health_open(struct bench_sink *s)
{
    self_health_forget_ended(); /* threads of an earlier run in this process */
    read_first(s);
}

void bench_health_configure(struct bench_sink *s, struct engine_config *cfg)
{
    bench_chain_wrap(&s->chain, cfg, started, measure_start, s);
    cfg->interval_edge = edge;
    cfg->interval_edge_arg = s;
    cfg->thread_end = thread_end;
    cfg->thread_end_arg = s;
}

void bench_health_interval(struct bench_sink *s, const struct engine_interval *iv,
                           struct result_interval *it)
{
    struct self_health_delta d;
    self_edges_take(&s->health, iv->idx, self_health_read, &d);
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
