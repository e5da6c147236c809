/* run's pgbench habits: -S, -N, -b list, --show-script, -l and its companions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_int.h"

void bench_log_config(const struct bench *b, struct engine_config *cfg)
{
    if (!b->p.log.on)
        return;
    cfg->log_prefix = b->p.log.prefix ? b->p.log.prefix : "pgbench_log";
    cfg->log = (struct txlog_opts){.sampling_rate = b->p.log.sampling_rate,
                                   .aggregate_s = b->p.log.aggregate_s,
                                   .rate = b->p.rate > 0,
                                   .latency_limit = b->p.latency_limit_ms > 0,
                                   .max_tries = (int)b->p.max_tries,
                                   .failures_detailed = b->p.log.failures_detailed};
}
