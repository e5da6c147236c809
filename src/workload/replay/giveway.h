#ifndef PGARENA_WORKLOAD_REPLAY_GIVEWAY_H
#define PGARENA_WORKLOAD_REPLAY_GIVEWAY_H

/*
 * The order's give-way question (source.c): does the session of a backend block another? The
 * server's lock waits are read as a snapshot, every backend waiting for a lock with the
 * backends it waits for (pg_blocking_pids), asked without waiting for the answer on one
 * connection of pgarena's own per worker, kept for the run and opened at the first question.
 * One snapshot answers every held session of the worker, so with many sessions held at once
 * the server is asked about as often as with one: at most one question in flight, a new one
 * only when a session needs a snapshot newer than the last.
 *
 * A chain (A waits for B, which waits for C) is seen link by link: B waits for a lock too, so
 * it is in the snapshot; C blocks B, and B blocks A.
 *
 * Ownership: the struct owns its connection and snapshot (giveway_free).
 */

#include <stddef.h>
#include <stdint.h>

#include "pg/pg.h"

struct giveway {
    const struct pg_connopts *own; /* the run's own connection (not owned) */
    struct pg_conn *conn;
    int pending; /* a question is in flight, sent at pending_ns */
    int64_t pending_ns;
    int64_t snap_ns; /* when the snapshot's question was sent; 0: none yet */
    int failed;      /* the last question could not be asked or answered */
    size_t n_blockers, cap_blockers;
    int *blockers; /* the backends some backend waits for, as the snapshot has them */
    size_t parsed_from, n_parsed; /* the answer being read, after the snapshot's rows */
};

void giveway_init(struct giveway *g, const struct pg_connopts *own);

/* Whether the session of backend pid blocks another, as a snapshot taken (asked) at since_ns
 * or later says: 1 yes, or no snapshot could be had (the order then gives way rather than
 * risk a deadlock), 0 no, -1 no such snapshot yet: one is asked for (now_ns), ask again
 * soon. */
int giveway_blocks(struct giveway *g, int pid, int64_t since_ns, int64_t now_ns);

void giveway_free(struct giveway *g);

#endif
