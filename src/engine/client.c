#include "engine/client_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The client's life outside any one state: creation (its driver chosen), the socket it
 * watches, its timer, and the dispatcher that runs the state machine (the core's states are
 * documented at enum client_state, each driver's in its own header). */

/* The client's kind: a feed's when the run has a feed, else a script client, the last
 * stream_clients of them analytic streams. */
static const struct client_driver *driver_for(const struct engine_config *cfg, int id)
{
    if (cfg->feed)
        return &client_feed_driver;
    if (cfg->stream_clients > 0 && cfg->stream_scripts > 0 &&
        id >= cfg->clients - cfg->stream_clients)
        return &client_stream_driver;
    return &client_script_driver;
}

void client_init(struct client *c, struct worker *w, int id)
{
    memset(c, 0, sizeof *c);
    c->id = id;
    c->w = w;
    c->watch.fd = -1;
    c->watch.slot = -1;
    c->timer_slot = -1;
    c->tx_connect_ns = -1;
    c->state = CS_CONNECTING;
    c->resume = CS_IDLE;
    c->drv = driver_for(w->run->cfg, id);
    c->drv->init(c);
}

void client_free(struct client *c)
{
    pg_finish(c->conn);
    c->conn = NULL;
    if (c->kind)
        c->drv->free(c);
    c->kind = NULL;
}

/* Stop watching: fd is the connection's socket now (-1 when none). Its number may be another
 * client's by now if libpq closed it, so it is only taken for still open while it is still
 * the connection's socket. */
static void unwatch(struct client *c, int fd)
{
    if (c->watch.fd >= 0 || c->watch.slot >= 0)
        evwait_unwatch(c->w->ev, &c->watch, fd == c->watch.fd);
}

static int watch(struct client *c, int fd, unsigned events, int renew)
{
    if (evwait_watch(c->w->ev, &c->watch, fd, events, c, renew) == 0)
        return 0;
    char msg[200];
    snprintf(msg, sizeof msg, "could not watch the connection's socket: %s",
             evwait_error(c->w->ev));
    client_note_error(c, msg);
    return -1;
}

int client_watch(struct client *c, unsigned events)
{
    int fd = c->conn ? pg_socket(c->conn) : -1;
    if (fd < 0 || events == 0) {
        unwatch(c, fd);
        return 0;
    }
    if (fd == c->watch.fd && events == c->watch.events)
        return 0;
    return watch(c, fd, events, 0);
}

int client_watch_connecting(struct client *c, unsigned events)
{
    int fd = pg_socket(c->conn);
    if (fd < 0)
        return -1;
    return watch(c, fd, events, 1);
}

void client_set_timer(struct client *c, time_ns when)
{
    timers_set(&c->w->timers, c, &c->timer_slot, when);
}

int client_finish(struct client *c)
{
    timers_cancel(&c->w->timers, &c->timer_slot);
    client_watch(c, 0);
    if (c->lost) {
        c->lost = 0;
        atomic_fetch_sub(&c->w->n_lost, 1);
    }
    c->w->n_live--;
    atomic_fetch_add(&c->w->n_clients_finished, 1);
    return rest(CS_FINISHED);
}

void client_record_failure(struct client *c, time_ns now, enum pg_failure why)
{
    if (worker_record(c, c->tx_start, now, 1, why)) {
        c->n_failed++;
        client_count_connect(c);
    }
    c->tx_connect_ns = -1;
    c->n_done++;
    client_exit_on_abort(c, why);
}

/* --exit-on-abort: pgbench aborts its client on any failure but a serialization failure or a
 * deadlock (retried, and counted when the tries run out), and the option ends the run there. */
void client_exit_on_abort(struct client *c, enum pg_failure why)
{
    struct engine_state *run = c->w->run;
    if (!run->cfg->exit_on_abort || why == PGF_NONE || why == PGF_SERIALIZATION ||
        why == PGF_DEADLOCK)
        return;
    if (!c->aborted) {
        c->aborted = 1;
        c->w->n_aborted++;
    }
    atomic_store(&run->exit_aborted, 1);
    engine_request_stop_because("a client aborted and --exit-on-abort ended the run");
}

void client_count_connect(struct client *c)
{
    if (c->tx_connect_ns >= 0) {
        c->w->n_connects++;
        c->w->connect_time_ns += c->tx_connect_ns;
    }
}

void client_note_error(struct client *c, const char *msg)
{
    if (!c->w->error[0])
        snprintf(c->w->error, sizeof c->w->error, "%s", msg);
}

/* The one place that moves a client: into next, and on through the states that wait for
 * nothing (each step helper returns the next state) until one it must wait in. The core's
 * states are stepped here, its driver's by the driver. */
static void run_from(struct client *c, int next, time_ns now)
{
    for (;;) {
        if (next < 0) { /* rest(state) */
            c->state = ~next;
            return;
        }
        c->state = next;
        if (next >= CS_DRIVER) {
            next = c->drv->step(c, next, now);
            continue;
        }
        switch ((enum client_state)next) {
        case CS_CONNECTING:
            next = client_step_connecting(c, now);
            break;
        case CS_IDLE:
            /* Swallow anything the server sends before the start (a level-triggered wait would
             * otherwise wake us again and again); a loss shows at the first send. */
            if (c->conn)
                pg_consume(c->conn);
            return;
        case CS_RECONNECT_WAIT:
        case CS_FINISHED:
        case CS_DRIVER:
            return;
        }
    }
}

void client_start(struct client *c, time_ns now)
{
    run_from(c, c->drv->start(c, now), now);
}

void client_advance(struct client *c, time_ns now)
{
    run_from(c, c->state, now); /* the step of the state it is in, first */
}

void client_on_timer(struct client *c, time_ns now)
{
    int next;
    if (c->state == CS_CONNECTING && client_connect_timer(c, now))
        next = client_connect_failed(c, "timed out connecting to server", now);
    else /* a driver's timer, the backoff's end, or the transaction's deadline (-C) */
        next = c->drv->timer(c, now);
    run_from(c, next, now);
}

void client_finish_if_idle(struct client *c)
{
    time_ns now = clock_now_ns();
    if (c->state == CS_IDLE || c->state == CS_RECONNECT_WAIT)
        run_from(c, client_finish(c), now);
    else if (c->state != CS_FINISHED)
        run_from(c, c->drv->run_ended(c, now), now);
}
