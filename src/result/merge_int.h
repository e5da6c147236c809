#ifndef PGARENA_RESULT_MERGE_INT_H
#define PGARENA_RESULT_MERGE_INT_H

/* Shared by merge.c and merge_sample.c: the sampler's figures of the agents, merged.
 * Ownership: what is added into out or d is out's or d's (copies), except
 * statements_server, which moves from in[0]. */

#include "result/merge.h"

/* Add one agent's interval's waits and client CPU into the merged interval d; then, once
 * every agent's is in, keep d's top wait events. */
void merge_interval_sampling(struct result_interval *d, const struct result_interval *it);
void merge_interval_sampling_end(struct result_interval *d);

/* waits, client_cpu and statements_server of the agents in[0..n) (in agent order). */
void merge_sampling(struct result *const *in, size_t n, struct result *out);

/* summary.classes[] when the first agent's has them (merge_classes.c): classes merged by
 * their text through their histograms, the top RESULT_MAX_CLASSES by total time kept and the
 * rest "other". */
void merge_classes(struct result *const *in, size_t n, struct result *out);

#endif
