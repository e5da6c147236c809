/* The interval edges: the main thread calls cfg->interval_edge at the measured start and at
 * each interval's end as their times come, so that what a hook reads there (the client's
 * health, bench/bench_health.c) belongs to one interval and not to when it was handed over. */
#include "engine/engine_int.h"

time_ns engine_state_edge_ns(const struct engine_state *run, size_t k)
{
    int64_t interval_ns = run->cfg->interval_us * NS_PER_US;
    time_ns t = run->start_ns + (time_ns)k * interval_ns;
    if (run->end_ns <= 0)
        return t;
    /* A -T run's edges end at its end: the edge past the last interval's start is the end. */
    if (k > 0 && run->start_ns + (time_ns)(k - 1) * interval_ns >= run->end_ns)
        return -1;
    return t < run->end_ns ? t : run->end_ns;
}

void engine_state_edges(struct engine_state *run, time_ns now)
{
    const struct engine_config *cfg = run->cfg;
    if (!cfg->interval_edge)
        return;
    for (;;) {
        time_ns t = engine_state_edge_ns(run, run->n_edges);
        if (t < 0 || now < t)
            return;
        cfg->interval_edge(run->n_edges, t, cfg->interval_edge_arg);
        run->n_edges++;
    }
}

time_ns engine_state_next_edge(const struct engine_state *run)
{
    return run->cfg->interval_edge ? engine_state_edge_ns(run, run->n_edges) : -1;
}
