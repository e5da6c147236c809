#ifndef PGARENA_RESULT_MERGE_H
#define PGARENA_RESULT_MERGE_H

#include <stddef.h>

#include "base/err.h"
#include "result/result.h"

/*
 * One result from the results of a run's agents (run --agents): counts summed, histograms added
 * exactly (the whole run's, each script's, each interval's), intervals aligned by absolute time
 * (each agent's measured start on the server's clock), and every figure recomputed from the merged
 * data: never an average of percentiles. agents[] lists each input's agent object with its host and
 * figures.
 *
 * What cannot be recomputed exactly from the files is said where it is used: a statement's
 * p99 and the schedule lag's p99 are the largest of the agents' (an upper bound of the
 * merged one: no file keeps their histograms).
 *
 * Ownership: the inputs stay the caller's, except that the environment (client, server,
 * workload, statistics) of the first agent moves into out; out is the caller's
 * (result_free).
 */

/* Merge in[0..n) (names[i] names in[i] in messages) into out. Refused (-1 with e set,
 * ERR_INPUT): no input, histograms of other parameters (unit, sub-buckets or
 * bins), two files of one agent index of one run. Unless force: files of different run ids
 * or without an agent object, a run's agents missing, or options that differ between them
 * (the message names the option). The output lists the inputs by agent index. */
int result_merge(struct result *in, const char *const *names, size_t n, int force,
                 struct result *out, struct err *e);

/* The first option (its name, as run spells it) whose value differs between a and b, or
 * NULL when they agree on every option that must be the same across the agents of a run:
 * workload, scale, scripts, duration, transactions per client, protocol, warmup,
 * latency limit, -C, seed. */
const char *result_options_differ(const struct result *a, const struct result *b);

#endif
