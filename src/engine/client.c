#include "engine/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "base/mem.h"

void client_init(struct client *c, struct worker *w, int id)
{
    const struct engine_config *cfg = w->run->cfg;
    memset(c, 0, sizeof *c);
    c->id = id;
    c->w = w;
    c->fd = -1;
    c->state = CS_CONNECTING;
    /* Each client draws from its own stream, so a seeded run repeats its values. */
    rng_seed(&c->rng, cfg->seed * 1000003ULL + (uint64_t)id);
    script_vars_init(&c->vars, cfg->scripts);
    script_vars_set(&c->vars, SCRIPT_VAR_SCALE, cfg->scale);
    script_vars_set(&c->vars, SCRIPT_VAR_CLIENT_ID, id);
    buf_init(&c->sql);
    int n = w->run->max_params > 0 ? w->run->max_params : 1;
    c->param_values = xcalloc((size_t)n, sizeof *c->param_values);
    c->param_text = xcalloc((size_t)n, sizeof *c->param_text);
}

void client_free(struct client *c)
{
    if (c->conn)
        PQfinish(c->conn);
    c->conn = NULL;
    script_vars_free(&c->vars);
    buf_free(&c->sql);
    free(c->param_values);
    free(c->param_text);
}

void client_watch(struct client *c, uint32_t events)
{
    int fd = c->conn ? PQsocket(c->conn) : -1;
    if (fd != c->fd && c->fd >= 0) {
        /* libpq may have closed the old socket already; ignore the error then. */
        epoll_ctl(c->w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        c->fd = -1;
    }
    if (fd < 0)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (c->fd < 0) {
        epoll_ctl(c->w->epfd, EPOLL_CTL_ADD, fd, &ev);
        c->fd = fd;
        c->events = events;
    } else if (events != c->events) {
        epoll_ctl(c->w->epfd, EPOLL_CTL_MOD, fd, &ev);
        c->events = events;
    }
}

static void setup_failed(struct client *c, const char *what)
{
    struct worker *w = c->w;
    if (!w->setup_failed) {
        char line[200];
        pg_error_line(c->conn, NULL, line, sizeof line);
        snprintf(w->error, sizeof w->error, "%s: %s", what, line);
    }
    w->setup_failed = 1;
    w->n_setup_pending--;
    w->n_live--;
    client_watch(c, 0);
    c->state = CS_FINISHED;
}

int client_connect(struct client *c)
{
    const char *kw[8], *val[8];
    pg_connopts_params(c->w->run->cfg->conn, kw, val);
    c->conn = PQconnectStartParams(kw, val, 1);
    if (!c->conn || PQstatus(c->conn) == CONNECTION_BAD) {
        setup_failed(c, "could not connect to server");
        return -1;
    }
    client_watch(c, EPOLLOUT);
    return 0;
}

static void setup_done(struct client *c)
{
    c->state = CS_IDLE;
    c->w->n_setup_pending--;
    client_watch(c, EPOLLIN);
}

/* Returns 1 to go on in the state machine, 0 to wait. */
static int step_connecting(struct client *c)
{
    switch (PQconnectPoll(c->conn)) {
    case PGRES_POLLING_READING:
        client_watch(c, EPOLLIN);
        return 0;
    case PGRES_POLLING_WRITING:
        client_watch(c, EPOLLOUT);
        return 0;
    case PGRES_POLLING_OK:
        if (PQsetnonblocking(c->conn, 1) != 0) {
            setup_failed(c, "could not set the connection non-blocking");
            return 0;
        }
        client_watch(c, EPOLLIN);
        if (c->w->run->cfg->protocol == PROTO_PREPARED)
            c->state = CS_PREPARING;
        else
            setup_done(c);
        return 1;
    default:
        setup_failed(c, "could not connect to server");
        return 0;
    }
}

/* After a send: keep write interest while libpq still holds unsent data. */
static int flush_or_fail(struct client *c)
{
    int r = PQflush(c->conn);
    if (r < 0)
        return -1;
    client_watch(c, r == 1 ? EPOLLIN | EPOLLOUT : EPOLLIN);
    return 0;
}

static int step_preparing(struct client *c)
{
    const struct script_set *set = c->w->run->cfg->scripts;
    while (c->prep_script < set->n_scripts) {
        const struct script *s = &set->scripts[c->prep_script];
        if (c->prep_cmd >= s->n_cmds) {
            c->prep_script++;
            c->prep_cmd = 0;
            continue;
        }
        const struct command *cmd = &s->cmds[c->prep_cmd];
        if (cmd->kind != CMD_SQL) {
            c->prep_cmd++;
            continue;
        }
        if (!PQsendPrepare(c->conn, cmd->stmt_name, cmd->sql_params, cmd->n_params, NULL) ||
            flush_or_fail(c) < 0) {
            setup_failed(c, "could not prepare statement");
            return 0;
        }
        c->state = CS_WAIT_PREPARE;
        return 0;
    }
    setup_done(c);
    return 0;
}

/* Read what has arrived. Returns 1 when every result of the command is in (ok tells whether
 * they all succeeded, failure why not), 0 to wait for more, -1 when the connection broke. */
static int drain_results(struct client *c, int *ok)
{
    if (c->events & EPOLLOUT) {
        int r = PQflush(c->conn);
        if (r < 0)
            return -1;
        if (r == 1)
            return 0;
        client_watch(c, EPOLLIN);
    }
    if (!PQconsumeInput(c->conn))
        return -1;
    while (!PQisBusy(c->conn)) {
        PGresult *res = PQgetResult(c->conn);
        if (!res)
            return 1;
        ExecStatusType st = PQresultStatus(res);
        if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_EMPTY_QUERY) {
            if (*ok) {
                c->failure = pg_classify(c->conn, res);
                if (!c->w->error[0])
                    pg_error_line(c->conn, res, c->w->error, sizeof c->w->error);
            }
            *ok = 0;
        }
        PQclear(res);
    }
    return 0;
}

static int step_wait_prepare(struct client *c)
{
    int ok = 1;
    int r = drain_results(c, &ok);
    if (r < 0 || (r == 1 && !ok)) {
        setup_failed(c, "could not prepare statement");
        return 0;
    }
    if (r == 0)
        return 0;
    c->prep_cmd++;
    c->state = CS_PREPARING;
    return 1;
}

static int step_start_tx(struct client *c)
{
    struct run *run = c->w->run;
    time_ns now = clock_now_ns();
    int64_t target = run->cfg->tx_per_client;
    if (atomic_load_explicit(&engine_stop_flag, memory_order_relaxed) ||
        (target > 0 && (int64_t)(c->n_tx + c->n_failed) >= target) ||
        (run->end_ns > 0 && now >= run->end_ns)) {
        c->state = CS_FINISHED;
        c->w->n_live--;
        client_watch(c, 0);
        return 0;
    }
    c->script = script_choose(run->cfg->scripts, &c->rng);
    c->cmd = 0;
    c->tx_start = now;
    c->failure = PGF_NONE;
    c->state = CS_START_CMD;
    return 1;
}

/* Text values of a command's parameters; -1 if one is unset. */
static int bind_params(struct client *c, const struct command *cmd)
{
    for (int i = 0; i < cmd->n_params; i++) {
        if (script_var_text(&c->vars, cmd->param_vars[i], c->param_text[i],
                            sizeof c->param_text[i]) < 0)
            return -1;
        c->param_values[i] = c->param_text[i];
    }
    return 0;
}

static int build_simple_sql(struct client *c, const struct command *cmd)
{
    buf_reset(&c->sql);
    for (int i = 0; i < cmd->n_parts; i++) {
        buf_puts(&c->sql, cmd->parts[i].text);
        if (cmd->parts[i].var >= 0) {
            char v[32];
            if (script_var_text(&c->vars, cmd->parts[i].var, v, sizeof v) < 0)
                return -1;
            buf_puts(&c->sql, v);
        }
    }
    return 0;
}

static void fail_command(struct client *c, enum pg_failure why, const char *msg)
{
    c->failure = why;
    if (!c->w->error[0])
        snprintf(c->w->error, sizeof c->w->error, "%s", msg);
    c->state = CS_ERROR;
}

static int send_sql(struct client *c, const struct command *cmd)
{
    const struct run *run = c->w->run;
    int sent;
    switch (run->cfg->protocol) {
    case PROTO_SIMPLE:
        if (build_simple_sql(c, cmd) < 0)
            return -2;
        sent = PQsendQuery(c->conn, c->sql.data);
        break;
    case PROTO_EXTENDED:
        if (bind_params(c, cmd) < 0)
            return -2;
        sent = PQsendQueryParams(c->conn, cmd->sql_params, cmd->n_params, NULL, c->param_values,
                                 NULL, NULL, 0);
        break;
    default:
        if (bind_params(c, cmd) < 0)
            return -2;
        sent = PQsendQueryPrepared(c->conn, cmd->stmt_name, cmd->n_params, c->param_values, NULL,
                                   NULL, 0);
        break;
    }
    if (!sent || flush_or_fail(c) < 0)
        return -1;
    return 0;
}

static int step_start_cmd(struct client *c)
{
    const struct script_set *set = c->w->run->cfg->scripts;
    while (c->cmd < c->script->n_cmds) {
        const struct command *cmd = &c->script->cmds[c->cmd];
        if (cmd->kind == CMD_SET) {
            char msg[200];
            if (script_exec_set(set, cmd, &c->vars, &c->rng, msg, sizeof msg) < 0) {
                fail_command(c, PGF_OTHER, msg);
                return 1;
            }
            c->cmd++;
            continue;
        }
        int r = send_sql(c, cmd);
        if (r == -2) {
            fail_command(c, PGF_OTHER, "undefined variable in SQL command");
            return 1;
        }
        if (r < 0) {
            fail_command(c, PGF_CONNECTION, PQerrorMessage(c->conn));
            return 1;
        }
        c->state = CS_WAIT_RESULT;
        return 0;
    }
    c->state = CS_END_TX;
    return 1;
}

static int step_wait_result(struct client *c, enum client_state next_ok)
{
    int ok = c->failure == PGF_NONE;
    int r = drain_results(c, &ok);
    if (r < 0) {
        fail_command(c, PGF_CONNECTION, PQerrorMessage(c->conn));
        return 1;
    }
    if (r == 0)
        return 0;
    if (!ok && c->state == CS_WAIT_RESULT) {
        c->state = CS_ERROR;
        return 1;
    }
    if (c->state == CS_WAIT_RESULT)
        c->cmd++;
    c->state = next_ok;
    return 1;
}

/* A failed command ends the transaction; roll back what the script had begun. */
static int step_error(struct client *c)
{
    if (PQstatus(c->conn) != CONNECTION_OK) {
        /* Reconnecting comes with the failure-handling work; the client stops here. */
        worker_record(c->w, c->tx_start, clock_now_ns(), 1, PGF_CONNECTION);
        c->n_failed++;
        c->state = CS_FINISHED;
        c->w->n_live--;
        client_watch(c, 0);
        return 0;
    }
    PGTransactionStatusType ts = PQtransactionStatus(c->conn);
    if (ts == PQTRANS_INERROR || ts == PQTRANS_INTRANS) {
        if (!PQsendQuery(c->conn, "ROLLBACK") || flush_or_fail(c) < 0) {
            c->failure = PGF_CONNECTION;
            return 1; /* the connection check above ends the client */
        }
        c->state = CS_WAIT_ROLLBACK;
        return 0;
    }
    c->state = CS_END_TX;
    return 1;
}

static int step_end_tx(struct client *c)
{
    int failed = c->failure != PGF_NONE;
    worker_record(c->w, c->tx_start, clock_now_ns(), failed, c->failure);
    if (failed)
        c->n_failed++;
    else
        c->n_tx++;
    c->state = CS_START_TX;
    return 1;
}

/* Each step returns 1 to continue in the state machine and 0 to return to the event loop,
 * giving the worker the chance to advance another client. */
void client_advance(struct client *c)
{
    int more = 1;
    while (more) {
        switch (c->state) {
        case CS_CONNECTING:
            more = step_connecting(c);
            break;
        case CS_PREPARING:
            more = step_preparing(c);
            break;
        case CS_WAIT_PREPARE:
            more = step_wait_prepare(c);
            break;
        case CS_START_TX:
            more = step_start_tx(c);
            break;
        case CS_START_CMD:
            more = step_start_cmd(c);
            break;
        case CS_WAIT_RESULT:
            more = step_wait_result(c, CS_START_CMD);
            break;
        case CS_ERROR:
            more = step_error(c);
            break;
        case CS_WAIT_ROLLBACK:
            more = step_wait_result(c, CS_END_TX);
            break;
        case CS_END_TX:
            more = step_end_tx(c);
            break;
        case CS_IDLE:
            /* Swallow anything the server sends before the start (level-triggered epoll
             * would otherwise wake us again and again); a loss shows at the first send. */
            if (c->conn)
                PQconsumeInput(c->conn);
            more = 0;
            break;
        case CS_FINISHED:
            more = 0;
            break;
        }
    }
}
