#include "engine/client_int.h"

#include <stdio.h>

/* Connecting and reconnecting: how a client of any kind gets a usable connection, at setup,
 * after a lost one, for each transaction with -C, and for each session of a feed. What the
 * client does once connected, or when connecting failed after setup, is its driver's
 * (engine/client_driver.h). */

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
    c->copy_out = 0; /* a new connection is in no COPY */
    client_publish_pid(c);
}

int client_setup_done_failed(struct client *c)
{
    struct worker *w = c->w;
    w->setup_failed = 1;
    w->n_setup_pending--;
    client_close(c);
    w->n_live--;
    atomic_fetch_add(&w->n_clients_finished, 1);
    return rest(CS_FINISHED);
}

/* Setup failures (before the run) abort the whole run: a benchmark whose clients cannot all
 * connect would measure something else. */
static int setup_failed(struct client *c, const char *what)
{
    struct worker *w = c->w;
    if (!w->setup_failed) {
        char line[200];
        pg_conn_error(c->conn, line, sizeof line);
        snprintf(w->error, sizeof w->error, "%s: %s", what, line);
    }
    return client_setup_done_failed(c);
}

int client_lost(struct client *c, time_ns now)
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
    client_set_timer(c, now + c->backoff_ns);
    return rest(CS_RECONNECT_WAIT);
}

int client_connect_failed(struct client *c, const char *what, time_ns now)
{
    if (c->resume == CS_IDLE)
        return setup_failed(c, what);
    return c->drv->connect_failed(c, what, now);
}

static int start_connect(struct client *c, time_ns now)
{
    c->connect_start = now;
    c->conn = pg_conn_start(c->conn_opts ? c->conn_opts : c->w->run->cfg->conn);
    if (!c->conn || pg_socket(c->conn) < 0) /* failed at once (a bad conninfo) */
        return -1;
    c->connect_deadline = c->connect_start + CONNECT_TIMEOUT_NS;
    client_set_timer(c, c->tx_deadline && c->tx_deadline < c->connect_deadline
                            ? c->tx_deadline
                            : c->connect_deadline);
    return client_watch_connecting(c, EV_WRITE);
}

int client_connect(struct client *c, time_ns now)
{
    c->resume = CS_IDLE;
    int next = client_reconnect(c, now);
    /* Nothing to do before the socket is writable: the client waits in its state. */
    c->state = state_of(next);
    return next == CS_CONNECTING ? 0 : -1;
}

int client_reconnect(struct client *c, time_ns now)
{
    if (start_connect(c, now) < 0)
        return client_connect_failed(c, "could not connect to server", now);
    return CS_CONNECTING;
}

int client_connected(struct client *c)
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
    client_watch_connecting(c, EV_READ);
    return c->resume;
}

int client_step_connecting(struct client *c, time_ns now)
{
    switch (pg_conn_poll(c->conn)) {
    case PG_POLL_READ:
        if (client_watch_connecting(c, EV_READ) < 0)
            return client_connect_failed(c, "could not connect to server", now);
        return rest(CS_CONNECTING);
    case PG_POLL_WRITE:
        if (client_watch_connecting(c, EV_WRITE) < 0)
            return client_connect_failed(c, "could not connect to server", now);
        return rest(CS_CONNECTING);
    case PG_POLL_OK:
        client_publish_pid(c);
        if (pg_set_nonblocking(c->conn) != 0)
            return client_connect_failed(c, "could not set the connection non-blocking", now);
        return c->drv->connected(c, now);
    default:
        return client_connect_failed(c, "could not connect to server", now);
    }
}

int client_connect_timer(struct client *c, time_ns now)
{
    if (c->connect_deadline && now >= c->connect_deadline) {
        c->connect_deadline = 0;
        return 1;
    }
    if (c->connect_deadline) /* woken for the transaction's deadline, not ours */
        client_set_timer(c, c->connect_deadline);
    return 0;
}
