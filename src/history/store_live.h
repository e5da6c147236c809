#ifndef PGARENA_HISTORY_STORE_LIVE_H
#define PGARENA_HISTORY_STORE_LIVE_H

/*
 * A run's intervals into the results store as they close (run, replay run --store). A thread
 * of its own, on a connection of its own to the store (an auxiliary connection: connecting
 * and each statement bounded), writes the run's row at the start (complete false) and then
 * each interval given to it, within about a second of its close. The run never waits for it:
 * store_live_push only queues (a bounded queue; what does not fit is dropped and counted), a
 * store that is down or fails is one warning, after which the thread tries again every few
 * seconds and drops what comes meanwhile. The result stored at the end (store_put) brings
 * every interval and completes the row. Ownership: store_live_finish frees it.
 */

#include <stddef.h>

#include "result/result.h"

struct store_live;

/* What the thread has to say, one line without "pgarena: " or a newline; from its thread. */
typedef void (*store_live_warn_fn)(const char *line, void *arg);

/* Start storing the run whose result as known before it runs is header (its run_id, and its
 * row's figures); the thread connects at once. NULL when the thread cannot start (warned). */
struct store_live *store_live_start(const char *conninfo, const struct result *header,
                                    store_live_warn_fn warn, void *arg);

/* Queue interval it of the run (serialized here: it stays the caller's). Never waits for the
 * store. */
void store_live_push(struct store_live *l, const struct result_interval *it);

/* Store what is queued (for a few seconds at most), then stop and free l. discard: the run
 * never ran, its row and intervals are removed. A warning says how many intervals did not
 * reach the store as they closed. NULL: nothing. */
void store_live_finish(struct store_live *l, int discard);

#endif
