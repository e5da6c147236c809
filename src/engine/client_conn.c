#include "engine/client_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"

/* Connecting, preparing and reconnecting: how a client gets a usable connection, at setup,
 * after a lost one, and for each transaction with -C. */

/* A connection attempt (with its PREPAREs) that takes longer than this fails: a server that
 * accepts and then never answers must not hold a client forever. */
#define CONNECT_TIMEOUT_NS (10 * NS_PER_S)

/* Reconnection backoff after a lost connection: doubles from the first to the last. */
#define BACKOFF_FIRST_NS (100 * NS_PER_MS)
#define BACKOFF_MAX_NS   (1000 * NS_PER_MS)

void client_publish_pid(struct client *c)
{
    atomic_int *pids = c->w->run->cfg->backend_pids;
    if (pids)
        atomic_store_explicit(&pids[c->id], pg_backend_pid(c->conn), memory_order_relaxed);
}

void client_close(struct client *c)
{
    client_watch(c, 0);
    pg_finish(c->conn);
    c->conn = NULL;
    client_publish_pid(c);
}

/* A client that failed its setup is done; the run will not start. */
static void setup_done_failed(struct client *c)
{
    struct worker *w = c->w;
    w->setup_failed = 1;
    w->n_setup_pending--;
    client_close(c);
    c->state = CS_FINISHED;
    w->n_live--;
    atomic_fetch_add(&w->n_clients_finished, 1);
}

/* Setup failures (before the run) abort the whole run: a benchmark whose clients cannot all
 * connect would measure something else. */
static void setup_failed(struct client *c, const char *what)
{
    struct worker *w = c->w;
    if (!w->setup_failed) {
        char line[200];
        pg_conn_error(c->conn, line, sizeof line);
        snprintf(w->error, sizeof w->error, "%s: %s", what, line);
    }
    setup_done_failed(c);
}

void client_lost(struct client *c, time_ns now)
{
    client_close(c);
    c->tx_deadline = 0;
    if (!c->lost) {
        c->lost = 1;
        atomic_fetch_add(&c->w->n_lost, 1);
        c->backoff_ns = BACKOFF_FIRST_NS;
    } else if ((c->backoff_ns *= 2) > BACKOFF_MAX_NS) {
        c->backoff_ns = BACKOFF_MAX_NS;
    }
    c->state = CS_RECONNECT_WAIT;
    client_set_timer(c, now + c->backoff_ns);
}

/* A failure to connect or prepare: fatal during setup, else counted and retried later. */
static void connect_failed(struct client *c, const char *what, time_ns now)
{
    if (c->feed) {
        client_feed_connect_failed(c, what, now);
        return;
    }
    if (c->resume == CS_IDLE) {
        setup_failed(c, what);
        return;
    }
    char line[200];
    pg_conn_error(c->conn, line, sizeof line);
    client_note_error(c, line);
    if (c->resume == CS_START_CMD) { /* -C: this transaction fails */
        c->failure = PGF_CONNECTION;
        client_record_failure(c, now, PGF_CONNECTION);
    }
    /* A failed reconnect is not a transaction: only the transaction it lost was counted. */
    client_lost(c, now);
}

static int start_connect(struct client *c, time_ns now)
{
    c->connect_start = now;
    c->conn = pg_conn_start(c->feed && c->feed->conn ? c->feed->conn : c->w->run->cfg->conn);
    if (!c->conn || pg_socket(c->conn) < 0) /* failed at once (a bad conninfo) */
        return -1;
    c->connect_deadline = c->connect_start + CONNECT_TIMEOUT_NS;
    client_set_timer(c, c->tx_deadline && c->tx_deadline < c->connect_deadline
                            ? c->tx_deadline
                            : c->connect_deadline);
    c->state = CS_CONNECTING;
    return client_watch_connecting(c, EV_WRITE);
}

int client_connect(struct client *c, time_ns now)
{
    c->resume = CS_IDLE;
    return client_reconnect(c, now);
}

int client_reconnect(struct client *c, time_ns now)
{
    if (start_connect(c, now) < 0) {
        connect_failed(c, "could not connect to server", now);
        return -1;
    }
    return 0;
}

static void connected(struct client *c, time_ns now)
{
    c->connect_deadline = 0;
    if (c->tx_deadline)
        client_set_timer(c, c->tx_deadline);
    else
        timers_cancel(&c->w->timers, &c->timer_slot);
    if (c->resume == CS_IDLE) {
        c->w->n_setup_pending--;
    } else if (c->lost) {
        c->lost = 0;
        atomic_fetch_sub(&c->w->n_lost, 1);
    }
    if (c->resume == CS_START_CMD) /* -C: counted with the transaction, if it counts */
        c->tx_connect_ns = now - c->connect_start;
    if (c->feed)
        c->feed->ready_at = now;
    c->state = c->resume;
    client_watch_connecting(c, EV_READ);
}

int client_step_connecting(struct client *c, time_ns now)
{
    switch (pg_conn_poll(c->conn)) {
    case PG_POLL_READ:
        if (client_watch_connecting(c, EV_READ) < 0)
            connect_failed(c, "could not connect to server", now);
        return 0;
    case PG_POLL_WRITE:
        if (client_watch_connecting(c, EV_WRITE) < 0)
            connect_failed(c, "could not connect to server", now);
        return 0;
    case PG_POLL_OK:
        client_publish_pid(c);
        if (pg_set_nonblocking(c->conn) != 0) {
            connect_failed(c, "could not set the connection non-blocking", now);
            return 0;
        }
        if (c->w->run->cfg->protocol == PROTO_PREPARED) {
            c->prep_script = c->prep_cmd = 0;
            c->state = CS_PREPARING;
            return 1;
        }
        connected(c, now);
        return 1;
    default:
        connect_failed(c, "could not connect to server", now);
        return 0;
    }
}

int client_step_preparing(struct client *c, time_ns now)
{
    const struct script_set *set = c->w->run->cfg->scripts;
    while (c->prep_script < set->n_scripts) {
        const struct script *s = &set->scripts[c->prep_script];
        if (c->prep_cmd >= s->n_cmds) {
            c->prep_script++;
            c->prep_cmd = 0;
            continue;
        }
        const struct script_command *cmd = &s->cmds[c->prep_cmd];
        if (cmd->kind != CMD_SQL) {
            c->prep_cmd++;
            continue;
        }
        c->failure = PGF_NONE; /* the PREPARE's outcome, kept across reads */
        if (pg_send_prepare(c->conn, cmd->stmt_name, cmd->sql_params, cmd->n_params) < 0 ||
            client_flush(c) < 0) {
            connect_failed(c, "could not prepare statement", now);
            return 0;
        }
        c->state = CS_WAIT_PREPARE;
        return 0;
    }
    connected(c, now);
    return 1;
}

/* The server refused a statement of the scripts at setup: the same every time, so the run is
 * refused before it starts, naming the statement (as pgbench aborts). */
static void prepare_refused(struct client *c)
{
    struct worker *w = c->w;
    const struct script *s = &w->run->cfg->scripts->scripts[c->prep_script];
    const struct script_command *cmd = &s->cmds[c->prep_cmd];
    if (!w->setup_failed) {
        /* w->error holds the server's message, noted as the result came in */
        char *msg = xasprintf("%s:%d: the server cannot prepare this statement: %s: %s", s->name,
                              cmd->line, w->error, cmd->text);
        snprintf(w->error, sizeof w->error, "%s", msg);
        free(msg);
        w->setup_refused = 1;
    }
    setup_done_failed(c);
}

int client_step_wait_prepare(struct client *c, time_ns now)
{
    /* The error and the end of the PREPARE's results (ReadyForQuery) may come in different
     * reads: whether it failed is kept in the client, as a command's is, not in this call
     * (else an error read in one call would be forgotten when the end comes in the next, and
     * the run would start with the statement unprepared). */
    int ok = c->failure == PGF_NONE;
    int r = client_drain(c, NULL, &ok);
    if (r == 1 && !ok && c->resume == CS_IDLE) {
        prepare_refused(c);
        return 0;
    }
    if (r < 0 || (r == 1 && !ok)) {
        connect_failed(c, "could not prepare statement", now);
        return 0;
    }
    if (r == 0)
        return 0;
    c->prep_cmd++;
    c->state = CS_PREPARING;
    return 1;
}

int client_connect_timer(struct client *c, time_ns now)
{
    if (c->connect_deadline && now >= c->connect_deadline) {
        c->connect_deadline = 0;
        connect_failed(c, "timed out connecting to server", now);
        return 1;
    }
    if (c->connect_deadline) /* woken for the transaction's deadline, not ours */
        client_set_timer(c, c->connect_deadline);
    return 0;
}
