#ifndef PGARENA_WORKLOAD_CH_RESULT_H
#define PGARENA_WORKLOAD_CH_RESULT_H

#include "result/part.h"

/*
 * summary.ch, the analytic figures of run -w ch (a part of the result file, result/part.h;
 * the queries' own figures are the scripts q1..q22). A merged file has none: streams do not
 * run with --agents.
 */

struct ch_figures {
    int analytic_clients;
    double queries_per_hour; /* the streams' completed queries per hour */
    double power_geomean_ms; /* geometric mean of each query's mean latency; NaN when one of
                              * the queries run has no success */
};

extern const struct result_part_ops ch_result_part;

#endif
