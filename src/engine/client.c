#include "engine/client_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* The client's life outside any one state: creation, the socket it watches, its timer, and
 * the dispatcher that runs the state machine (the states and their arrows are documented
 * at enum client_state). */

void client_init(struct client *c, struct worker *w, int id)
{
    const struct engine_config *cfg = w->run->cfg;
    memset(c, 0, sizeof *c);
    c->id = id;
    c->w = w;
    c->watch.fd = -1;
    c->watch.slot = -1;
    c->timer_slot = -1;
    c->tx_connect_ns = -1;
    c->state = CS_CONNECTING;
    c->resume = CS_IDLE;
    /* Each client draws from its own stream, so a seeded run repeats its values. */
    rng_seed(&c->sc.rng, cfg->seed * 1000003ULL + (uint64_t)id);
    script_vars_init(&c->sc.vars, cfg->scripts);
    script_vars_set(&c->sc.vars, SCRIPT_VAR_SCALE, cfg->scale);
    script_vars_set(&c->sc.vars, SCRIPT_VAR_CLIENT_ID, id);
    /* As pgbench: the same default seed (for hash and permute) in every client. */
    uint64_t seed_state = cfg->seed;
    script_vars_set(&c->sc.vars, SCRIPT_VAR_DEFAULT_SEED,
                    (int64_t)(seed_state * 0x9e3779b97f4a7c15ULL));
    script_vars_set(&c->sc.vars, SCRIPT_VAR_RANDOM_SEED, (int64_t)cfg->seed);
    size_t n_cmds = (size_t)(w->run->n_cmds > 0 ? w->run->n_cmds : 1);
    c->sc.pipe_cmds = xcalloc(n_cmds, sizeof *c->sc.pipe_cmds);
    c->sc.pipe_start = xcalloc(n_cmds, sizeof *c->sc.pipe_start);
    buf_init(&c->sc.sql);
    int n = w->run->max_params > 0 ? w->run->max_params : 1;
    c->sc.param_values = xcalloc((size_t)n, sizeof *c->sc.param_values);
    c->sc.param_text = xcalloc((size_t)n, sizeof *c->sc.param_text);
    if (cfg->stream_clients > 0 && cfg->stream_scripts > 0 &&
        id >= cfg->clients - cfg->stream_clients) {
        c->sc.stream_order = xcalloc((size_t)cfg->stream_scripts, sizeof *c->sc.stream_order);
        c->sc.stream_pos = cfg->stream_scripts; /* a new pass at the first transaction */
    }
    client_feed_init(c);
}

void client_free(struct client *c)
{
    pg_finish(c->conn);
    c->conn = NULL;
    script_vars_free(&c->sc.vars);
    pg_result_free(c->sc.held);
    c->sc.held = NULL;
    free(c->sc.pipe_cmds);
    free(c->sc.pipe_start);
    buf_free(&c->sc.sql);
    free(c->sc.param_values);
    free(c->sc.param_text);
    free(c->sc.stream_order);
    client_feed_free(c);
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
 * nothing (each step helper returns the next state) until one it must wait in. */
static void run_from(struct client *c, int next, time_ns now)
{
    for (;;) {
        if (next < 0) { /* rest(state) */
            c->state = (enum client_state) ~next;
            return;
        }
        c->state = (enum client_state)next;
        /* The step of the state: its next state. */
        switch ((enum client_state)next) {
        case CS_CONNECTING:
            next = client_step_connecting(c, now);
            break;
        case CS_PREPARING:
            next = client_step_preparing(c, now);
            break;
        case CS_WAIT_PREPARE:
            next = client_step_wait_prepare(c, now);
            break;
        case CS_START_TX:
            next = client_step_start_tx(c, now);
            break;
        case CS_START_CMD:
            next = client_step_start_cmd(c, now);
            break;
        case CS_WAIT_RESULT:
            next = client_step_wait_result(c, now);
            break;
        case CS_ERROR:
            next = client_step_error(c, now);
            break;
        case CS_WAIT_ROLLBACK:
            next = client_step_wait_rollback(c, now);
            break;
        case CS_WAIT_PIPELINE:
            next = client_step_wait_pipeline(c, now);
            break;
        case CS_END_TX:
            next = client_step_end_tx(c, now);
            break;
        case CS_FEED_NEXT:
            next = client_step_feed_next(c, now);
            break;
        case CS_FEED_PREPARE:
            next = client_step_feed_prepare(c, now);
            break;
        case CS_FEED_RESULT:
            next = client_step_feed_result(c, now);
            break;
        case CS_IDLE:
            /* Swallow anything the server sends before the start (a level-triggered wait would
             * otherwise wake us again and again); a loss shows at the first send. */
            if (c->conn)
                pg_consume(c->conn);
            next = rest(CS_IDLE);
            break;
        case CS_THROTTLE:
        case CS_SLEEP:
        case CS_RECONNECT_WAIT:
        case CS_FINISHED:
        case CS_FEED_WAIT:
            return;
        }
    }
}

void client_start(struct client *c, enum client_state state, time_ns now)
{
    run_from(c, state, now);
}

void client_advance(struct client *c, time_ns now)
{
    run_from(c, c->state, now); /* the step of the state it is in, first */
}

/* What the client's timer means in its state: the next state. */
static int timer_step(struct client *c, time_ns now)
{
    switch (c->state) {
    case CS_THROTTLE:
        return CS_START_TX;
    case CS_RECONNECT_WAIT:
        if (client_run_over(c, now))
            return client_finish(c);
        c->resume = CS_START_TX;
        return client_reconnect(c, now);
    case CS_CONNECTING:
    case CS_PREPARING:
    case CS_WAIT_PREPARE:
        if (client_connect_timer(c, now))
            return client_connect_failed(c, "timed out connecting to server", now);
        /* Else the transaction's deadline (-C) is due. */
        /* fall through */
    case CS_SLEEP:
    case CS_WAIT_RESULT:
    case CS_WAIT_PIPELINE:
    case CS_WAIT_ROLLBACK:
        return client_tx_timer(c, now);
    case CS_FEED_WAIT:
    case CS_FEED_PREPARE:
    case CS_FEED_RESULT:
        return client_feed_timer(c, now);
    default:
        return rest(c->state);
    }
}

void client_on_timer(struct client *c, time_ns now)
{
    run_from(c, timer_step(c, now), now);
}

/* Whether the transaction in progress has sent SQL already (its commands before this one). */
static int sent_sql(const struct client *c)
{
    for (int k = 0; k < c->sc.cmd; k++)
        if (c->script->cmds[k].kind == CMD_SQL)
            return 1;
    return 0;
}

void client_finish_if_idle(struct client *c)
{
    /* A client reconnecting between transactions has nothing to finish either: without this,
     * a server that does not answer (a partition) would hold the run past its end for as
     * long as the connection attempt may take. */
    int reconnecting =
        (c->state == CS_CONNECTING || c->state == CS_PREPARING || c->state == CS_WAIT_PREPARE) &&
        c->resume == CS_START_TX;
    if (reconnecting)
        client_close(c);
    if (reconnecting || c->state == CS_THROTTLE || c->state == CS_RECONNECT_WAIT ||
        c->state == CS_IDLE) {
        run_from(c, client_finish(c), 0);
    } else if (c->state == CS_SLEEP && c->w->run->cfg->sleep_is_terminal_time) {
        /* A terminal keying (nothing sent yet) stops; one thinking after its SQL is done. */
        if (!sent_sql(c)) {
            run_from(c, client_finish(c), 0);
            return;
        }
        c->sc.sleep_until = clock_now_ns();
        client_on_timer(c, c->sc.sleep_until);
    }
}
