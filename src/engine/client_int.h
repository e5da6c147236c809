#ifndef PGARENA_ENGINE_CLIENT_INT_H
#define PGARENA_ENGINE_CLIENT_INT_H

/*
 * Shared by the client's files: the core, client.c (the dispatcher and timers), client_conn.c
 * (connecting, reconnecting) and client_io.c (sending and reading results); and the drivers
 * (engine/client_driver.h), one per client kind: client_tx.c (a script client: its
 * transactions, and the PREPAREs of its statements), client_stream.c (an analytic stream)
 * and client_feed.c (a feed's client). Each step helper takes the time of the event that woke
 * the client (one clock reading per event) and returns the next state: plain to go on in the
 * state machine at once, rest(state) to wait there for the next event. The dispatcher
 * (client.c's run_from) moves the client into it; only a client's first state is set
 * elsewhere (client_init, client_connect at setup).
 */

#include "engine/client_driver.h"
#include "engine/engine_int.h"

/* A step's answer for a state the client waits in: negative, ~state (the states are >= 0). */
static inline int rest(int state)
{
    return ~state;
}

/* The state a step's answer names. */
static inline int state_of(int next)
{
    return next < 0 ? ~next : next;
}

/* Arm the client's one timer at when (replacing any). */
void client_set_timer(struct client *c, time_ns when);
/* Keep the first failure message of the worker (for the run's summary). */
void client_note_error(struct client *c, const char *msg);
/* Done: no timer, no socket. Returns rest(CS_FINISHED). */
int client_finish(struct client *c);
/* The transaction ends failed at now, for why, outside SC_END_TX (connection lost, timed
 * out): counted for the worker and the client. */
void client_record_failure(struct client *c, time_ns now, enum pg_failure why);
void client_exit_on_abort(struct client *c, enum pg_failure why);
/* -C: the transaction counted, and so does the connection it made (its time included). */
void client_count_connect(struct client *c);

/* client_conn.c */
int client_step_connecting(struct client *c, time_ns now);
/* Connected, and ready for what the client resumes (its driver done with the connection
 * first: a script client's PREPAREs): the next state is c->resume. */
int client_connected(struct client *c);
/* A failure to connect or prepare, what says which: fatal during setup, else counted and
 * tried again later; returns the state to wait in. */
int client_connect_failed(struct client *c, const char *what, time_ns now);
/* A client that failed its setup is done; the run will not start. Returns rest(CS_FINISHED). */
int client_setup_done_failed(struct client *c);
/* Start a connection that goes on to c->resume once made: CS_CONNECTING, or the state to
 * wait in when it failed at once (the failure is handled: counted, or the setup aborted). */
int client_reconnect(struct client *c, time_ns now);
/* Keep the backend PID of c's connection (0 without one) where a sampler reads it. */
void client_publish_pid(struct client *c);
/* Close the connection (no socket watched any more). */
void client_close(struct client *c);
/* The connection is gone: count it lost and wait out a backoff before connecting again.
 * Returns rest(CS_RECONNECT_WAIT). */
int client_lost(struct client *c, time_ns now);
/* Timer of a client connecting or preparing: 1 when the connection deadline has come (the
 * attempt fails), 0 when the transaction deadline is to be checked. */
int client_connect_timer(struct client *c, time_ns now);

/* client_io.c */
/* After a send: keep write interest while the connection still holds unsent data. 0, or -1
 * when the connection broke. */
int client_flush(struct client *c);
/* Send what is still buffered, then read what has arrived: 1 read, 0 wait for the socket, -1
 * the connection broke (client_drain's first step, and a feed client's). */
int client_flush_consume(struct client *c);
/* Read what has arrived. Returns 1 when every result of the command is in (ok tells whether
 * they all succeeded, c->failure why not), 0 to wait for more, -1 when the connection
 * broke. cmd is NULL for a PREPARE or ROLLBACK. */
int client_drain(struct client *c, const struct script_command *cmd, int *ok);
/* One result of cmd; takes ownership of res. A COPY's (one the parser could not see: its
 * words in variables) aborts the client, as pgbench does: the COPY FROM STDIN is failed, a
 * COPY TO STDOUT's rows are dropped as they come (c->copy_out). 0, or -1 when the
 * connection broke. */
int client_take_result(struct client *c, const struct script_command *cmd, struct pg_result *res,
                       int *ok);
/* A COPY TO STDOUT's rows, read and dropped: 1 they have ended (the COPY's result follows), 0
 * wait for more, -1 the connection broke. */
int client_copy_skip(struct client *c);
/* All of cmd's results are in: apply a held \gset result. */
void client_end_results(struct client *c, const struct script_command *cmd, int *ok);

#endif
