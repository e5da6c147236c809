#ifndef PGARENA_WORKLOAD_REPLAY_REPLAY_CLASSES_H
#define PGARENA_WORKLOAD_REPLAY_REPLAY_CLASSES_H

#include <stddef.h>
#include <stdint.h>

#include "result/result.h"

/*
 * Statement classes of a replay (summary.classes[]): per normalised statement, its count,
 * failures and latency histogram. A table holds at most `cap` classes; statements of any
 * further class go into the class "other", so memory stays bounded whatever the capture.
 * Ownership: a table owns its texts and histograms; class_table_top's array is the
 * caller's (result_free frees it with the result).
 */

#define CLASS_OTHER "other"

struct class_table;

struct class_table *class_table_new(size_t cap);
void class_table_free(struct class_table *t);

/* One statement of class `text` (len bytes): ok with its latency, or failed. */
void class_table_record(struct class_table *t, const char *text, size_t len, int ok,
                        int64_t latency_us);

/* Add every class of src into dst (by text; beyond dst's cap, into "other"). */
void class_table_merge(struct class_table *dst, const struct class_table *src);

/* Every class's figures back to zero, its entry kept (a worker's table after it handed its
 * figures over; an emptied class adds nothing to a merge, and class_table_top leaves it out). */
void class_table_reset(struct class_table *t);

/* The top n classes by total time (the sum of their latencies), then "other" holding the
 * rest when there is any: *out has the entries (name: the class, transactions: its count,
 * weight 0, tps over duration_s); returns how many. */
size_t class_table_top(const struct class_table *t, size_t n, double duration_s,
                       struct result_script_figures **out);

#endif
