#ifndef PGARENA_WORKLOAD_REPLAY_GIVEWAY_H
#define PGARENA_WORKLOAD_REPLAY_GIVEWAY_H

/*
 * The order's give-way question, asked of the server without waiting for it (source.c): does
 * the session of a backend block some others (pg_blocking_pids)? A worker asks on one
 * connection of pgarena's own, kept for the run and opened at the first question; one question
 * is in flight at a time, and its answer is kept, by the pid it was about and when it was
 * asked, until the next one. A blocking question would hold up every client of the worker for
 * a round trip; this one costs a send and, later, a read of what the socket has.
 *
 * Ownership: the struct owns its connection (giveway_free).
 */

#include <stdint.h>

#include "pg/pg.h"

struct giveway {
    const struct pg_connopts *own; /* the run's own connection (not owned) */
    struct pg_conn *conn;
    int pending;      /* a question is in flight */
    int asked_pid;    /* what the question in flight, or the last answer, is about */
    int64_t asked_ns; /* when it was asked */
    int answered;     /* the last question's answer is in count */
    long count;       /* how many it blocks; -1 when it could not be asked */
};

void giveway_init(struct giveway *g, const struct pg_connopts *own);

/* Ask whether the session of backend pid blocks one of the sessions of victims ("p1,p2",
 * directly or through a chain), or, victims NULL, any other session at all. 1 asked, 0 another
 * question is in flight (ask again later), -1 the question could not be sent (the connection
 * is dropped: the next question makes another). */
int giveway_ask(struct giveway *g, int pid, const char *victims, int64_t now_ns);

/* The answer to the question about pid asked at asked_ns: 1 with *blocks set (1 when it
 * blocks, or when the answer could not be had: the order then gives way rather than risk a
 * deadlock), 0 not there yet, -1 the question is not the one kept (another was asked since:
 * ask again). */
int giveway_answer(struct giveway *g, int pid, int64_t asked_ns, int *blocks);

void giveway_free(struct giveway *g);

#endif
