#ifndef PGARENA_ENGINE_CLIENT_DRIVER_H
#define PGARENA_ENGINE_CLIENT_DRIVER_H

/*
 * A client kind's driver: what a client does between connections is its kind's, in states of
 * its kind's own (numbered from CS_DRIVER up, in the kind's own enum and file); the core
 * (client.c, client_conn.c) connects it, keeps its timer and counts, and calls these. Each
 * returns a state as the steps do (client_int.h): plain to go on at once, rest(state) to wait
 * there. Three kinds: a script client (client_tx.c), an analytic stream (client_stream.c, a
 * script client choosing its scripts in passes) and a feed's client (client_feed.c).
 */

#include "base/clock.h"

struct client;

struct client_driver {
    /* Set up the kind's own part of c (c->kind), at client_init. */
    void (*init)(struct client *c);
    /* The run has begun at now: the client's first state. */
    int (*start)(struct client *c, time_ns now);
    /* The step of state, one of the kind's: the next state. It may run on through the kind's
     * states that wait for nothing itself (c->state stays state meanwhile), to save the
     * dispatcher's round trips on the hot path. */
    int (*step)(struct client *c, int state, time_ns now);
    /* c's timer fired in c->state (the kind's, CS_RECONNECT_WAIT, or CS_CONNECTING when the
     * connect deadline was not what fired): the next state. */
    int (*timer)(struct client *c, time_ns now);
    /* The connection is up (non-blocking): the next state; client_connected when the kind has
     * nothing to do on it first. */
    int (*connected)(struct client *c, time_ns now);
    /* Connecting failed after setup (what says how): the state to wait in. */
    int (*connect_failed)(struct client *c, const char *what, time_ns now);
    /* The end of a -T run: the next state of a client that waits in one of the kind's states
     * only for time (finished), else rest(c->state). */
    int (*run_ended)(struct client *c, time_ns now);
    /* Free the kind's part of c. */
    void (*free)(struct client *c);
};

extern const struct client_driver client_script_driver;
extern const struct client_driver client_stream_driver;
extern const struct client_driver client_feed_driver;

#endif
