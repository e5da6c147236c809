#include "engine/engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "base/mem.h"
#include "workload/funcs.h"

/* A connection attempt (with its PREPAREs) that takes longer than this fails: a server that
 * accepts and then never answers must not hold a client forever. */
#define CONNECT_TIMEOUT_NS (10 * NS_PER_S)

/* Reconnection backoff after a lost connection: doubles from the first to the last. */
#define BACKOFF_FIRST_NS (100 * NS_PER_MS)
#define BACKOFF_MAX_NS   (1000 * NS_PER_MS)

void client_init(struct client *c, struct worker *w, int id)
{
    const struct engine_config *cfg = w->run->cfg;
    memset(c, 0, sizeof *c);
    c->id = id;
    c->w = w;
    c->fd = -1;
    c->timer_slot = -1;
    c->state = CS_CONNECTING;
    c->resume = CS_IDLE;
    /* Each client draws from its own stream, so a seeded run repeats its values. */
    rng_seed(&c->rng, cfg->seed * 1000003ULL + (uint64_t)id);
    script_vars_init(&c->vars, cfg->scripts);
    script_vars_set(&c->vars, SCRIPT_VAR_SCALE, cfg->scale);
    script_vars_set(&c->vars, SCRIPT_VAR_CLIENT_ID, id);
    /* As pgbench: the same default seed (for hash and permute) in every client. */
    uint64_t seed_state = cfg->seed;
    script_vars_set(&c->vars, SCRIPT_VAR_DEFAULT_SEED,
                    (int64_t)(seed_state * 0x9e3779b97f4a7c15ULL));
    script_vars_set(&c->vars, SCRIPT_VAR_RANDOM_SEED, (int64_t)cfg->seed);
    c->pipe_cmds = xcalloc((size_t)(w->run->n_cmds > 0 ? w->run->n_cmds : 1), sizeof(int));
    buf_init(&c->sql);
    int n = w->run->max_params > 0 ? w->run->max_params : 1;
    c->param_values = xcalloc((size_t)n, sizeof *c->param_values);
    c->param_text = xcalloc((size_t)n, sizeof *c->param_text);
}

void client_free(struct client *c)
{
    if (c->conn)
        pg_finish(c->conn);
    c->conn = NULL;
    script_vars_free(&c->vars);
    if (c->held)
        pg_result_free(c->held);
    c->held = NULL;
    free(c->pipe_cmds);
    buf_free(&c->sql);
    free(c->param_values);
    free(c->param_text);
}

void client_watch(struct client *c, uint32_t events)
{
    int fd = c->conn ? pg_socket(c->conn) : -1;
    if (fd != c->fd && c->fd >= 0) {
        /* libpq may have closed the old socket already; ignore the error then. */
        epoll_ctl(c->w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        c->fd = -1;
    }
    if (fd < 0 || events == 0) {
        if (c->fd >= 0)
            epoll_ctl(c->w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
        c->fd = -1;
        return;
    }
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

static void set_timer(struct client *c, time_ns when)
{
    timers_set(&c->w->timers, c, &c->timer_slot, when);
}

static void finish(struct client *c)
{
    timers_cancel(&c->w->timers, &c->timer_slot);
    client_watch(c, 0);
    if (c->lost) {
        c->lost = 0;
        atomic_fetch_sub(&c->w->n_lost, 1);
    }
    c->state = CS_FINISHED;
    c->w->n_live--;
}

static void note_error(struct client *c, const char *msg)
{
    if (!c->w->error[0])
        snprintf(c->w->error, sizeof c->w->error, "%s", msg);
}

static void close_connection(struct client *c)
{
    client_watch(c, 0);
    if (c->conn)
        pg_finish(c->conn);
    c->conn = NULL;
}

/* Setup failures (before the run) abort the whole run: a benchmark whose clients cannot all
 * connect would measure something else. */
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
    close_connection(c);
    c->state = CS_FINISHED;
    w->n_live--;
}

/* A connection lost during the run: wait a little, then connect again. */
static void lost_connection(struct client *c)
{
    close_connection(c);
    c->tx_deadline = 0;
    if (!c->lost) {
        c->lost = 1;
        atomic_fetch_add(&c->w->n_lost, 1);
        c->backoff_ns = BACKOFF_FIRST_NS;
    } else if ((c->backoff_ns *= 2) > BACKOFF_MAX_NS) {
        c->backoff_ns = BACKOFF_MAX_NS;
    }
    c->state = CS_RECONNECT_WAIT;
    set_timer(c, clock_now_ns() + c->backoff_ns);
}

static int start_connect(struct client *c)
{
    c->connect_start = clock_now_ns();
    c->conn = pg_conn_start(c->w->run->cfg->conn);
    if (!c->conn || pg_socket(c->conn) < 0) /* failed at once (a bad conninfo) */
        return -1;
    c->connect_deadline = c->connect_start + CONNECT_TIMEOUT_NS;
    set_timer(c, c->tx_deadline && c->tx_deadline < c->connect_deadline ? c->tx_deadline
                                                                        : c->connect_deadline);
    c->state = CS_CONNECTING;
    client_watch(c, EPOLLOUT);
    return 0;
}

int client_connect(struct client *c)
{
    c->resume = CS_IDLE;
    if (start_connect(c) < 0) {
        setup_failed(c, "could not connect to server");
        return -1;
    }
    return 0;
}

static void connected(struct client *c)
{
    c->connect_deadline = 0;
    if (c->tx_deadline)
        set_timer(c, c->tx_deadline);
    else
        timers_cancel(&c->w->timers, &c->timer_slot);
    if (c->resume == CS_IDLE) {
        c->w->n_setup_pending--;
    } else if (c->lost) {
        c->lost = 0;
        atomic_fetch_sub(&c->w->n_lost, 1);
    }
    if (c->resume == CS_START_CMD) { /* -C: the connection is part of the transaction */
        c->w->n_connects++;
        c->w->connect_time_ns += clock_now_ns() - c->connect_start;
    }
    c->state = c->resume;
    client_watch(c, EPOLLIN);
}

/* A failure to connect or prepare: fatal during setup, else counted and retried later. */
static void connect_failed(struct client *c, const char *what)
{
    if (c->resume == CS_IDLE) {
        setup_failed(c, what);
        return;
    }
    char line[200];
    pg_error_line(c->conn, NULL, line, sizeof line);
    note_error(c, line);
    if (c->resume == CS_START_CMD) { /* -C: this transaction fails */
        c->failure = PGF_CONNECTION;
        worker_record(c, c->tx_start, clock_now_ns(), 1, PGF_CONNECTION);
        c->n_done++;
    }
    /* A failed reconnect is not a transaction: only the transaction it lost was counted. */
    lost_connection(c);
}

/* Returns 1 to go on in the state machine, 0 to wait. */
static int step_connecting(struct client *c)
{
    switch (pg_conn_poll(c->conn)) {
    case PG_POLL_READ:
        client_watch(c, EPOLLIN);
        return 0;
    case PG_POLL_WRITE:
        client_watch(c, EPOLLOUT);
        return 0;
    case PG_POLL_OK:
        if (pg_set_nonblocking(c->conn) != 0) {
            connect_failed(c, "could not set the connection non-blocking");
            return 0;
        }
        if (c->w->run->cfg->protocol == PROTO_PREPARED) {
            c->prep_script = c->prep_cmd = 0;
            c->state = CS_PREPARING;
            return 1;
        }
        connected(c);
        return 1;
    default:
        connect_failed(c, "could not connect to server");
        return 0;
    }
}

/* After a send: keep write interest while libpq still holds unsent data. */
static int flush_or_fail(struct client *c)
{
    int r = pg_flush(c->conn);
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
        if (pg_send_prepare(c->conn, cmd->stmt_name, cmd->sql_params, cmd->n_params) < 0 ||
            flush_or_fail(c) < 0) {
            connect_failed(c, "could not prepare statement");
            return 0;
        }
        c->state = CS_WAIT_PREPARE;
        return 0;
    }
    connected(c);
    return 1;
}

/* \gset, \aset: the columns of the result's last row become variables (prefix + column
 * name). Only variables some command reads exist; other columns are skipped. A column whose
 * name is no variable name fails the command, as in pgbench. Returns 0, or -1 (failed). */
static int store_row(struct client *c, const struct command *cmd, const struct pg_result *res)
{
    const struct script_set *set = c->w->run->cfg->scripts;
    int row = pg_result_rows(res) - 1;
    size_t plen = strlen(cmd->gset_prefix);
    for (int f = 0; f < pg_result_cols(res); f++) {
        const char *col = pg_result_colname(res, f);
        if (!script_var_name_valid(cmd->gset_prefix, col)) {
            char msg[200];
            snprintf(msg, sizeof msg, "error storing into variable %s%s: invalid variable name",
                     cmd->gset_prefix, col);
            note_error(c, msg);
            c->failure = PGF_OTHER;
            return -1;
        }
        for (int v = 0; v < set->n_vars; v++) {
            const char *name = set->var_names[v];
            if (strncmp(name, cmd->gset_prefix, plen) != 0 || strcmp(name + plen, col) != 0)
                continue;
            if (pg_result_isnull(res, row, f))
                script_vars_set_value(&c->vars, v, value_null());
            else
                script_vars_set_text(&c->vars, v, pg_result_value(res, row, f));
            break;
        }
    }
    return 0;
}

/* One result of cmd (NULL: a PREPARE or ROLLBACK). Takes ownership of res. */
static void take_result(struct client *c, const struct command *cmd, struct pg_result *res, int *ok)
{
    enum pg_status st = pg_result_status(res);
    if (st != PG_RES_COMMAND && st != PG_RES_ROWS && st != PG_RES_EMPTY) {
        if (*ok) {
            c->failure = c->cancelled ? PGF_TIMEOUT : pg_classify(c->conn, res);
            char line[256];
            pg_error_line(c->conn, res, line, sizeof line);
            note_error(c, line);
        }
        *ok = 0;
    } else if (st == PG_RES_ROWS && cmd && cmd->gset != GSET_NONE && *ok) {
        if (cmd->gset == GSET_ALL) {
            if (pg_result_rows(res) > 0 && store_row(c, cmd, res) < 0)
                *ok = 0;
        } else {
            if (c->held)
                pg_result_free(c->held);
            c->held = res; /* applied once the command's last result is known */
            return;
        }
    }
    pg_result_free(res);
}

/* All of cmd's results are in: apply a held \gset result. */
static void end_results(struct client *c, const struct command *cmd, int *ok)
{
    if (!cmd || cmd->gset != GSET_LAST || !*ok) {
        if (c->held)
            pg_result_free(c->held);
        c->held = NULL;
        return;
    }
    int rows = c->held ? pg_result_rows(c->held) : -1;
    if (rows == 1) {
        if (store_row(c, cmd, c->held) < 0)
            *ok = 0;
    } else {
        char msg[100];
        snprintf(msg, sizeof msg, "\\gset expects one row, got %d", rows < 0 ? 0 : rows);
        note_error(c, msg);
        c->failure = PGF_OTHER;
        *ok = 0;
    }
    if (c->held)
        pg_result_free(c->held);
    c->held = NULL;
}

/* Read what has arrived. Returns 1 when every result of the command is in (ok tells whether
 * they all succeeded, c->failure why not), 0 to wait for more, -1 when the connection
 * broke. */
static int drain_results(struct client *c, const struct command *cmd, int *ok)
{
    if (c->events & EPOLLOUT) {
        int r = pg_flush(c->conn);
        if (r < 0)
            return -1;
        if (r == 1)
            return 0;
        client_watch(c, EPOLLIN);
    }
    if (pg_consume(c->conn) < 0)
        return -1;
    while (!pg_is_busy(c->conn)) {
        struct pg_result *res = pg_next_result(c->conn);
        if (!res) {
            end_results(c, cmd, ok);
            return 1;
        }
        take_result(c, cmd, res, ok);
    }
    return 0;
}

/* The server refused a statement of the scripts at setup: the same every time, so the run is
 * refused before it starts, naming the statement (as pgbench aborts). */
static void prepare_refused(struct client *c)
{
    struct worker *w = c->w;
    const struct script *s = &w->run->cfg->scripts->scripts[c->prep_script];
    const struct command *cmd = &s->cmds[c->prep_cmd];
    if (!w->setup_failed) {
        /* w->error holds the server's message, noted as the result came in */
        char *msg = xasprintf("%s:%d: the server cannot prepare this statement: %s: %s", s->name,
                              cmd->line, w->error, cmd->text);
        snprintf(w->error, sizeof w->error, "%s", msg);
        free(msg);
        w->setup_refused = 1;
        w->setup_failed = 1;
    }
    w->n_setup_pending--;
    close_connection(c);
    c->state = CS_FINISHED;
    w->n_live--;
}

static int step_wait_prepare(struct client *c)
{
    int ok = 1;
    int r = drain_results(c, NULL, &ok);
    if (r == 1 && !ok && c->resume == CS_IDLE) {
        prepare_refused(c);
        return 0;
    }
    if (r < 0 || (r == 1 && !ok)) {
        connect_failed(c, "could not prepare statement");
        return 0;
    }
    if (r == 0)
        return 0;
    c->prep_cmd++;
    c->state = CS_PREPARING;
    return 1;
}

static int run_over(const struct client *c, time_ns now)
{
    const struct run *run = c->w->run;
    int64_t target = run->cfg->tx_per_client;
    return atomic_load_explicit(&engine_stop_flag, memory_order_relaxed) ||
           (target > 0 && (int64_t)c->n_done >= target) || (run->end_ns > 0 && now >= run->end_ns);
}

/* -R: take the next scheduled start; with --latency-limit, skip the starts that are already
 * too late to make it, as pgbench does. Returns 0 to wait for the start, 1 to go on. */
static int take_schedule(struct client *c, time_ns now)
{
    const struct engine_config *cfg = c->w->run->cfg;
    if (!c->scheduled) {
        c->sched_at = sched_next(&c->w->sched);
        c->scheduled = 1;
    }
    while (cfg->latency_limit_us > 0 && c->sched_at < now - cfg->latency_limit_us * NS_PER_US) {
        worker_record_skipped(c, now);
        c->n_done++;
        if (run_over(c, now))
            return 1;
        c->sched_at = sched_next(&c->w->sched);
    }
    if (c->sched_at > now) {
        c->state = CS_THROTTLE;
        set_timer(c, c->sched_at);
        return 0;
    }
    return 1;
}

static int step_start_tx(struct client *c)
{
    const struct engine_config *cfg = c->w->run->cfg;
    time_ns now = clock_now_ns();
    if (cfg->rate > 0 && !run_over(c, now) && !take_schedule(c, now))
        return 0;
    if (run_over(c, now) ||
        (cfg->rate > 0 && c->w->run->end_ns > 0 && c->sched_at >= c->w->run->end_ns)) {
        finish(c);
        return 0;
    }
    c->tx_start = now;
    if (cfg->rate > 0) {
        c->tx_start = c->sched_at; /* latency counts from the intended start */
        c->scheduled = 0;
        c->lag_us = (now - c->sched_at) / NS_PER_US;
        if (now >= c->w->run->start_ns)
            hist_record(c->w->lag, c->lag_us);
    }
    c->script = script_choose(cfg->scripts, &c->rng);
    c->script_idx = (int)(c->script - cfg->scripts->scripts);
    c->tx_rng = c->rng;
    c->tries = 1;
    c->cmd = 0;
    c->failure = PGF_NONE;
    c->cancelled = 0;
    c->tx_deadline = cfg->timeout_us > 0 ? now + cfg->timeout_us * NS_PER_US : 0;
    if (c->tx_deadline)
        set_timer(c, c->tx_deadline);
    if (!c->conn) { /* -C, or a connection not yet back */
        c->resume = CS_START_CMD;
        if (start_connect(c) < 0) {
            connect_failed(c, "could not connect to server");
            return 0;
        }
        return 1;
    }
    c->state = CS_START_CMD;
    return 1;
}

/* Text values of a command's parameters; -1 if one is unset. */
/* An unset variable is bound as NULL, as pgbench 15 does: the server decides. */
static void bind_params(struct client *c, const struct command *cmd)
{
    for (int i = 0; i < cmd->n_params; i++)
        c->param_values[i] =
            script_var_sql(&c->vars, cmd->param_vars[i], c->param_text[i], sizeof c->param_text[i]);
}

/* An unset variable stays as the text :name, as pgbench 15 leaves it: the server decides. */
static void build_simple_sql(struct client *c, const struct command *cmd)
{
    buf_reset(&c->sql);
    for (int i = 0; i < cmd->n_parts; i++) {
        buf_puts(&c->sql, cmd->parts[i].text);
        if (cmd->parts[i].var >= 0) {
            char v[32];
            const char *text = script_var_sql(&c->vars, cmd->parts[i].var, v, sizeof v);
            if (!text)
                buf_puts(&c->sql, ":");
            buf_puts(&c->sql, text ? text : c->w->run->cfg->scripts->var_names[cmd->parts[i].var]);
        }
    }
}

static void fail_command(struct client *c, enum pg_failure why, const char *msg)
{
    c->failure = why;
    note_error(c, msg);
    c->state = CS_ERROR;
}

/* The connection failed under a command: its error message, on one line. */
static void fail_connection(struct client *c)
{
    char line[256];
    pg_conn_error(c->conn, line, sizeof line);
    fail_command(c, PGF_CONNECTION, line);
}

/* 0 sent, -1 connection failure. */
static int send_sql(struct client *c, const struct command *cmd)
{
    int sent;
    switch (c->w->run->cfg->protocol) {
    case PROTO_SIMPLE:
        build_simple_sql(c, cmd);
        sent = pg_send_simple(c->conn, c->sql.data);
        break;
    case PROTO_EXTENDED:
        bind_params(c, cmd);
        sent = pg_send_params(c->conn, cmd->sql_params, cmd->n_params, c->param_values);
        break;
    default:
        bind_params(c, cmd);
        sent = pg_send_prepared(c->conn, cmd->stmt_name, cmd->n_params, c->param_values);
        break;
    }
    if (sent < 0 || flush_or_fail(c) < 0)
        return -1;
    return 0;
}

static int exec_set(struct client *c, const struct command *cmd)
{
    char msg[200];
    struct value v;
    if (script_eval(c->w->run->cfg->scripts, cmd, &c->vars, &c->rng, &v, msg, sizeof msg) < 0) {
        fail_command(c, PGF_OTHER, msg);
        return -1;
    }
    script_vars_set_value(&c->vars, cmd->var, v);
    return 0;
}

/* Evaluate an \if or \elif condition: 1 true, 0 false, -1 failed. */
static int condition(struct client *c, const struct command *cmd)
{
    char msg[200];
    struct value v;
    int t;
    if (script_eval(c->w->run->cfg->scripts, cmd, &c->vars, &c->rng, &v, msg, sizeof msg) < 0 ||
        script_truth(&v, &t, msg, sizeof msg) < 0) {
        fail_command(c, PGF_OTHER, msg);
        return -1;
    }
    return t;
}

/* \if chains: a false condition jumps to the next \elif (evaluated there), \else or
 * \endif; reaching \elif or \else from a branch that ran jumps past the \endif. */
static int exec_branch(struct client *c, const struct command *cmd)
{
    const struct command *cmds = c->script->cmds;
    if (cmd->kind == CMD_ELIF || cmd->kind == CMD_ELSE) {
        c->cmd = cmd->endif + 1;
        return 0;
    }
    if (cmd->kind == CMD_ENDIF) {
        c->cmd++;
        return 0;
    }
    int k = c->cmd;
    for (;;) {
        int t = cmds[k].kind == CMD_IF || cmds[k].kind == CMD_ELIF ? condition(c, &cmds[k]) : 1;
        if (t < 0)
            return -1;
        if (t) {
            c->cmd = k + 1;
            return 0;
        }
        k = cmds[k].next_branch;
    }
}

static int start_sleep(struct client *c, const struct command *cmd)
{
    int64_t n = cmd->sleep_value;
    if (cmd->sleep_var >= 0) {
        char msg[200];
        struct value v;
        if (script_var_value(&c->vars, c->w->run->cfg->scripts, cmd->sleep_var, &v, msg,
                             sizeof msg) < 0 ||
            value_to_int(&v, &n, msg, sizeof msg) < 0) {
            fail_command(c, PGF_OTHER, msg);
            return 1;
        }
    }
    c->sleep_until = clock_now_ns() + (n > 0 ? n : 0) * cmd->sleep_unit_us * NS_PER_US;
    set_timer(c,
              c->tx_deadline && c->tx_deadline < c->sleep_until ? c->tx_deadline : c->sleep_until);
    c->state = CS_SLEEP;
    return 0;
}

static int exec_pipeline(struct client *c, const struct command *cmd)
{
    if (cmd->kind == CMD_PIPELINE_START) {
        if (pg_pipeline_enter(c->conn) < 0) {
            fail_command(c, PGF_OTHER, "could not enter pipeline mode");
            return 1;
        }
        c->pipe_head = c->pipe_tail = 0;
        c->cmd++;
        return 1;
    }
    if (pg_pipeline_sync(c->conn) < 0 || flush_or_fail(c) < 0) {
        fail_connection(c);
        return 1;
    }
    c->state = CS_WAIT_PIPELINE;
    return 0;
}

static int exec_sql(struct client *c, const struct command *cmd)
{
    c->cmd_start = clock_now_ns();
    if (send_sql(c, cmd) < 0) {
        fail_connection(c);
        return 1;
    }
    if (pg_in_pipeline(c->conn)) { /* results come at \endpipeline */
        c->pipe_cmds[c->pipe_tail++] = c->cmd++;
        return 1;
    }
    c->state = CS_WAIT_RESULT;
    return 0;
}

static int step_start_cmd(struct client *c)
{
    while (c->cmd < c->script->n_cmds && c->state == CS_START_CMD) {
        const struct command *cmd = &c->script->cmds[c->cmd];
        switch (cmd->kind) {
        case CMD_SET:
            if (exec_set(c, cmd) == 0)
                c->cmd++;
            break;
        case CMD_IF:
        case CMD_ELIF:
        case CMD_ELSE:
        case CMD_ENDIF:
            exec_branch(c, cmd);
            break;
        case CMD_SLEEP:
            return start_sleep(c, cmd);
        case CMD_PIPELINE_START:
        case CMD_PIPELINE_END:
            if (!exec_pipeline(c, cmd))
                return 0;
            break;
        case CMD_SQL:
            if (!exec_sql(c, cmd))
                return 0;
            break;
        }
    }
    if (c->state == CS_START_CMD) {
        /* A script must end the transactions it begins; pgbench aborts such a client. */
        if (c->conn && (pg_txn_status(c->conn) == PG_TXN_INTRANS ||
                        pg_txn_status(c->conn) == PG_TXN_INERROR)) {
            fail_command(c, PGF_OTHER,
                         "end of script reached without completing the last transaction");
            return 1;
        }
        c->state = CS_END_TX;
    }
    return 1;
}

/* Results of a pipeline, command by command (NULL between them), up to its sync. */
static int step_wait_pipeline(struct client *c)
{
    int ok = c->failure == PGF_NONE;
    if (c->events & EPOLLOUT) {
        int r = pg_flush(c->conn);
        if (r < 0 || (r == 0 && (client_watch(c, EPOLLIN), 0)))
            goto lost;
        if (r == 1)
            return 0;
    }
    if (pg_consume(c->conn) < 0)
        goto lost;
    while (!pg_is_busy(c->conn)) {
        struct pg_result *res = pg_next_result(c->conn);
        const struct command *cmd =
            c->pipe_head < c->pipe_tail ? &c->script->cmds[c->pipe_cmds[c->pipe_head]] : NULL;
        if (!res) {
            end_results(c, cmd, &ok);
            if (c->pipe_head < c->pipe_tail)
                c->pipe_head++;
            continue;
        }
        if (pg_result_status(res) != PG_RES_PIPELINE_SYNC) {
            take_result(c, cmd, res, &ok);
            continue;
        }
        pg_result_free(res);
        pg_pipeline_exit(c->conn);
        if (!ok || c->pipe_discard) {
            c->pipe_discard = 0;
            if (c->failure == PGF_NONE)
                c->failure = PGF_OTHER;
            c->state = CS_ERROR;
            return 1;
        }
        c->cmd++; /* past \endpipeline */
        c->state = CS_START_CMD;
        return 1;
    }
    return 0;
lost:
    fail_connection(c);
    return 1;
}

static int step_wait_result(struct client *c)
{
    int ok = c->failure == PGF_NONE;
    int r = drain_results(c, &c->script->cmds[c->cmd], &ok);
    if (r < 0) {
        fail_connection(c);
        return 1;
    }
    if (r == 0)
        return 0;
    if (!ok) {
        c->state = CS_ERROR;
        return 1;
    }
    worker_record_statement(c->w, c->script_idx, c->cmd, c->cmd_start, clock_now_ns());
    c->cmd++;
    c->state = CS_START_CMD;
    return 1;
}

static int retryable(const struct client *c)
{
    return (c->failure == PGF_SERIALIZATION || c->failure == PGF_DEADLOCK) &&
           c->tries < c->w->run->cfg->max_tries && !run_over(c, clock_now_ns());
}

/* After a failed try (rolled back): retry with the same random draws, or give up. */
static int after_failed_try(struct client *c)
{
    if (!retryable(c)) {
        c->state = CS_END_TX;
        return 1;
    }
    if (c->tries == 1)
        c->w->n_retried++;
    c->w->n_retries++;
    c->tries++;
    c->rng = c->tx_rng;
    c->cmd = 0;
    c->failure = PGF_NONE;
    c->state = CS_START_CMD;
    return 1;
}

/* A failed command ends the try; roll back what the script had begun. */
static int step_error(struct client *c)
{
    if (c->failure == PGF_CONNECTION || !c->conn || !pg_conn_ok(c->conn)) {
        worker_record(c, c->tx_start, clock_now_ns(), 1, PGF_CONNECTION);
        c->n_done++;
        lost_connection(c);
        return 0;
    }
    if (c->held) {
        pg_result_free(c->held);
        c->held = NULL;
    }
    if (pg_in_pipeline(c->conn)) {
        /* Read what the pipeline still owes, up to a sync, before rolling back. */
        if (pg_pipeline_sync(c->conn) < 0 || flush_or_fail(c) < 0) {
            c->failure = PGF_CONNECTION;
            return 1;
        }
        c->pipe_discard = 1;
        c->state = CS_WAIT_PIPELINE;
        return 0;
    }
    enum pg_txn ts = pg_txn_status(c->conn);
    if (ts == PG_TXN_INERROR || ts == PG_TXN_INTRANS) {
        if (pg_send_simple(c->conn, "ROLLBACK") < 0 || flush_or_fail(c) < 0) {
            c->failure = PGF_CONNECTION;
            return 1;
        }
        c->state = CS_WAIT_ROLLBACK;
        return 0;
    }
    return after_failed_try(c);
}

static int step_wait_rollback(struct client *c)
{
    int ok = 0; /* the try has failed already; the rollback's own result does not matter */
    int r = drain_results(c, NULL, &ok);
    if (r < 0) {
        c->failure = PGF_CONNECTION;
        c->state = CS_ERROR;
        return 1;
    }
    if (r == 0)
        return 0;
    return after_failed_try(c);
}

static int step_end_tx(struct client *c)
{
    struct worker *w = c->w;
    int failed = c->failure != PGF_NONE;
    if (c->tx_deadline)
        timers_cancel(&w->timers, &c->timer_slot);
    c->tx_deadline = 0;
    if (worker_record(c, c->tx_start, clock_now_ns(), failed, c->failure)) {
        if (failed)
            c->n_failed++;
        else
            c->n_tx++;
    }
    c->n_done++;
    if (w->run->cfg->connect_per_tx)
        close_connection(c);
    c->state = CS_START_TX;
    return 1;
}

void client_on_timer(struct client *c, time_ns now)
{
    switch (c->state) {
    case CS_THROTTLE:
        c->state = CS_START_TX;
        break;
    case CS_RECONNECT_WAIT:
        if (run_over(c, now)) {
            finish(c);
            return;
        }
        c->resume = CS_START_TX;
        if (start_connect(c) < 0) {
            connect_failed(c, "could not connect to server");
            return;
        }
        break;
    case CS_SLEEP:
        if (now >= c->sleep_until) {
            c->cmd++;
            c->state = CS_START_CMD;
            if (c->tx_deadline)
                set_timer(c, c->tx_deadline);
            break;
        }
        /* --timeout during a \sleep: the transaction fails, and is rolled back. */
        note_error(c, "transaction timed out");
        c->failure = PGF_TIMEOUT;
        c->tx_deadline = 0;
        c->state = CS_ERROR;
        break;
    case CS_CONNECTING:
    case CS_PREPARING:
    case CS_WAIT_PREPARE:
        if (c->connect_deadline && now >= c->connect_deadline) {
            c->connect_deadline = 0;
            connect_failed(c, "timed out connecting to server");
            return;
        }
        if (c->connect_deadline) /* woken for the transaction's deadline, not ours */
            set_timer(c, c->connect_deadline);
        /* fall through */
    case CS_WAIT_RESULT:
    case CS_WAIT_PIPELINE:
    case CS_WAIT_ROLLBACK:
        if (!c->tx_deadline || now < c->tx_deadline)
            return;
        if (!c->cancelled && c->state == CS_WAIT_RESULT) {
            /* --timeout: ask the server to cancel; the error that comes back counts as a
             * timeout. If nothing comes back within another timeout, give up on the
             * connection. */
            c->cancelled = 1;
            cancel_request(c->conn);
            c->tx_deadline = now + c->w->run->cfg->timeout_us * NS_PER_US;
            set_timer(c, c->tx_deadline);
            return;
        }
        note_error(c, "transaction timed out");
        worker_record(c, c->tx_start, now, 1, PGF_TIMEOUT);
        c->n_done++;
        c->tx_deadline = 0;
        lost_connection(c);
        return;
    default:
        return;
    }
    client_advance(c);
}

void client_finish_if_idle(struct client *c)
{
    if (c->state == CS_THROTTLE || c->state == CS_RECONNECT_WAIT || c->state == CS_IDLE)
        finish(c);
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
            more = step_wait_result(c);
            break;
        case CS_ERROR:
            more = step_error(c);
            break;
        case CS_WAIT_ROLLBACK:
            more = step_wait_rollback(c);
            break;
        case CS_WAIT_PIPELINE:
            more = step_wait_pipeline(c);
            break;
        case CS_END_TX:
            more = step_end_tx(c);
            break;
        case CS_IDLE:
            /* Swallow anything the server sends before the start (level-triggered epoll
             * would otherwise wake us again and again); a loss shows at the first send. */
            if (c->conn)
                pg_consume(c->conn);
            more = 0;
            break;
        case CS_THROTTLE:
        case CS_SLEEP:
        case CS_RECONNECT_WAIT:
        case CS_FINISHED:
            more = 0;
            break;
        }
    }
}
