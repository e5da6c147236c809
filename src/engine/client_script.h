#ifndef PGARENA_ENGINE_CLIENT_SCRIPT_H
#define PGARENA_ENGINE_CLIENT_SCRIPT_H

/*
 * The script client's driver (client_tx.c; client_stream.c builds on it): its states and its
 * part of a client. It leaves CS_IDLE (worker_begin) for SC_START_TX. For each state: what it
 * waits for, and where it goes.
 *
 * SC_PREPARING      (-M prepared, once connected) waits for nothing: sends the next PREPARE
 *                   -> SC_WAIT_PREPARE; all sent -> c->resume (client_connected).
 * SC_WAIT_PREPARE   waits for the PREPARE's results, up to their end (the error, if any, is
 *                   kept in c->failure meanwhile) -> SC_PREPARING; refused by the server at
 *                   setup: the run is refused (-> CS_FINISHED); else failed: as a failed
 *                   connection (client_connect_failed).
 * SC_START_TX       waits for nothing. Run over -> CS_FINISHED. -R: a start not yet due
 *                   -> SC_THROTTLE (starts already later than --latency-limit are skipped).
 *                   Chooses a script and -> SC_START_CMD, or, without a connection (-C, or
 *                   not yet back), -> CS_CONNECTING with resume SC_START_CMD.
 * SC_THROTTLE       waits (timer) for the scheduled start -> SC_START_TX.
 * SC_START_CMD      runs commands until one must wait: \set and \if inline; SQL sent
 *                   -> SC_WAIT_RESULT (in a pipeline: queued, and on to the next command);
 *                   \sleep -> SC_SLEEP; \endpipeline -> SC_WAIT_PIPELINE; a failure
 *                   -> SC_ERROR; past the last command -> SC_END_TX.
 * SC_WAIT_RESULT    waits for the results of the SQL command sent -> SC_START_CMD (next
 *                   command), or SC_ERROR when one failed or the connection broke. --timeout
 *                   (timer): sends a cancel and waits one more timeout; then the transaction
 *                   fails as a timeout and the connection is dropped -> CS_RECONNECT_WAIT.
 * SC_SLEEP          \sleep: waits (timer) until sleep_until -> SC_START_CMD (next command);
 *                   --timeout first -> SC_ERROR.
 * SC_WAIT_PIPELINE  \endpipeline (or an error in a pipeline): waits for every result up to
 *                   the pipeline's sync -> SC_START_CMD past \endpipeline, or SC_ERROR.
 *                   --timeout (timer): fails as a timeout -> CS_RECONNECT_WAIT.
 * SC_ERROR          a command failed; waits for nothing. Connection broken: the transaction
 *                   fails -> CS_RECONNECT_WAIT. A pipeline open: sync -> SC_WAIT_PIPELINE
 *                   (discarding). A transaction block open: ROLLBACK sent
 *                   -> SC_WAIT_ROLLBACK. Else as after the rollback.
 * SC_WAIT_ROLLBACK  waits for the ROLLBACK's result. A serialization or deadlock failure with
 *                   tries left -> SC_START_CMD from the first command with the same random
 *                   draws; else -> SC_END_TX. --timeout (timer): as in SC_WAIT_PIPELINE.
 * SC_END_TX         waits for nothing: records the transaction (-C: closes the connection)
 *                   -> SC_START_TX.
 * CS_RECONNECT_WAIT (the core's) its timer: the run over -> CS_FINISHED, else -> CS_CONNECTING
 *                   with resume SC_START_TX.
 */

#include "engine/engine_int.h"

enum script_state {
    SC_PREPARING = CS_DRIVER,
    SC_WAIT_PREPARE,
    SC_START_TX,
    SC_THROTTLE,
    SC_START_CMD,
    SC_WAIT_RESULT,
    SC_SLEEP,
    SC_WAIT_PIPELINE,
    SC_ERROR,
    SC_WAIT_ROLLBACK,
    SC_END_TX,
};

/* A script client's part (c->kind): where it is in its script, and what its commands hold
 * between events. */
struct client_script {
    struct rng rng;          /* the client's own stream: a seeded run repeats its values */
    struct script_vars vars; /* the scripts' variables */
    int cmd;                 /* index of the current command in script */
    struct rng tx_rng;       /* state at the transaction's first try: retries repeat its draws */
    int prep_script;         /* prepared mode setup cursor */
    int prep_cmd;
    int scheduled; /* -R: sched_at holds a start not yet used */
    time_ns sched_at;
    time_ns sleep_until;
    time_ns sleep_start;    /* when the current \sleep began */
    struct pg_result *held; /* \gset: the last result with rows, applied when the command ends */
    int *pipe_cmds;         /* pipeline: commands sent whose results are still to come */
    time_ns *pipe_start;    /* and when each was sent */
    int pipe_head, pipe_tail;
    int pipe_discard; /* an error in a pipeline: read up to the sync, then fail */
    int pipe_syncs;   /* \syncpipeline syncs whose PIPELINE_SYNC result is still to come */
    struct buf sql;   /* simple mode: the command with values substituted */
    const char **param_values;
    char (*param_text)[32];
    /* The next script to run (NULL: drawn by the scripts' weights) and whether -R paces the
     * client: another kind built on this one (client_stream.c) sets them. */
    const struct script *(*next_script)(struct client *c);
    int unpaced;
};

static inline struct client_script *script_of(const struct client *c)
{
    return (struct client_script *)c->kind;
}

/* For a kind built on the script client (client_stream.c: its part begins with a struct
 * client_script): set up the script client's part (c->kind = part), free it (not c->kind
 * itself), and the script client's driver's other members. */
void client_script_init(struct client *c, struct client_script *part);
void client_script_free(struct client *c);
int client_script_start(struct client *c, time_ns now);
int client_script_step(struct client *c, int state, time_ns now);
int client_script_timer(struct client *c, time_ns now);
int client_script_connection_up(struct client *c, time_ns now);
int client_script_connect_failed(struct client *c, const char *what, time_ns now);
int client_script_run_ended(struct client *c, time_ns now);
/* Those members, in a struct client_driver's initializer. */
#define CLIENT_SCRIPT_OPS                                                                          \
    .start = client_script_start, .step = client_script_step, .timer = client_script_timer,        \
    .connected = client_script_connection_up, .connect_failed = client_script_connect_failed,      \
    .run_ended = client_script_run_ended

#endif
