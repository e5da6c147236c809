#include "engine/client_int.h"

#include "script/funcs.h"

/* Running a transaction: its start (on schedule with -R), its commands one by one, its
 * results, and what a failure leads to: a rollback, a retry with the same random draws, or
 * the end of the transaction. */

int client_run_over(const struct client *c, time_ns now)
{
    const struct engine_state *run = c->w->run;
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
        if (client_run_over(c, now))
            return 1;
        c->sched_at = sched_next(&c->w->sched);
    }
    if (c->sched_at > now) {
        c->state = CS_THROTTLE;
        client_set_timer(c, c->sched_at);
        return 0;
    }
    return 1;
}

/* An analytic stream's next script: the next of its pass, a new pass (a fresh permutation,
 * or the set's order) once one is done. */
static const struct script *next_in_stream(struct client *c)
{
    const struct engine_config *cfg = c->w->run->cfg;
    int n = cfg->stream_scripts;
    if (c->stream_pos >= n) {
        for (int i = 0; i < n; i++)
            c->stream_order[i] = i;
        for (int i = n - 1; i > 0 && !cfg->stream_in_order; i--) {
            int j = (int)rng_range(&c->rng, 0, i);
            int t = c->stream_order[i];
            c->stream_order[i] = c->stream_order[j];
            c->stream_order[j] = t;
        }
        c->stream_pos = 0;
    }
    int first = cfg->scripts->n_scripts - n;
    return &cfg->scripts->scripts[first + c->stream_order[c->stream_pos++]];
}

int client_step_start_tx(struct client *c, time_ns now)
{
    const struct engine_config *cfg = c->w->run->cfg;
    int paced = cfg->rate > 0 && !c->stream_order; /* analytic streams run closed loop */
    if (paced && !client_run_over(c, now) && !take_schedule(c, now))
        return 0;
    if (client_run_over(c, now) ||
        (paced && c->w->run->end_ns > 0 && c->sched_at >= c->w->run->end_ns)) {
        client_finish(c);
        return 0;
    }
    c->tx_start = now;
    if (paced) {
        c->tx_start = c->sched_at; /* latency counts from the intended start */
        c->scheduled = 0;
        c->lag_us = (now - c->sched_at) / NS_PER_US;
        if (now >= c->w->run->start_ns)
            hist_record(c->w->lag, c->lag_us);
    }
    c->script = c->stream_order ? next_in_stream(c) : script_choose(cfg->scripts, &c->rng);
    c->script_idx = (int)(c->script - cfg->scripts->scripts);
    c->tx_rng = c->rng;
    c->tries = 1;
    c->cmd = 0;
    c->failure = PGF_NONE;
    c->cancelled = 0;
    c->tx_deadline = cfg->timeout_us > 0 ? now + cfg->timeout_us * NS_PER_US : 0;
    if (c->tx_deadline)
        client_set_timer(c, c->tx_deadline);
    if (!c->conn) { /* -C, or a connection not yet back */
        c->resume = CS_START_CMD;
        return client_reconnect(c, now) == 0;
    }
    c->state = CS_START_CMD;
    return 1;
}

/* Text values of a command's parameters. An unset variable is bound as NULL, as pgbench 15
 * does: the server decides. */
static void bind_params(struct client *c, const struct script_command *cmd)
{
    for (int i = 0; i < cmd->n_params; i++)
        c->param_values[i] =
            script_var_sql(&c->vars, cmd->param_vars[i], c->param_text[i], sizeof c->param_text[i]);
}

/* An unset variable stays as the text :name, as pgbench 15 leaves it: the server decides. */
static void build_simple_sql(struct client *c, const struct script_command *cmd)
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
    client_note_error(c, msg);
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
static int send_sql(struct client *c, const struct script_command *cmd)
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
    if (sent < 0 || client_flush(c) < 0)
        return -1;
    return 0;
}

static int exec_set(struct client *c, const struct script_command *cmd)
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
static int condition(struct client *c, const struct script_command *cmd)
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
static int exec_branch(struct client *c, const struct script_command *cmd)
{
    const struct script_command *cmds = c->script->cmds;
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

static int start_sleep(struct client *c, const struct script_command *cmd, time_ns now)
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
    c->sleep_start = now;
    c->sleep_until = now + (n > 0 ? n : 0) * cmd->sleep_unit_us * NS_PER_US;
    client_set_timer(c, c->tx_deadline && c->tx_deadline < c->sleep_until ? c->tx_deadline
                                                                          : c->sleep_until);
    c->state = CS_SLEEP;
    return 0;
}

static int exec_pipeline(struct client *c, const struct script_command *cmd)
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
    if (pg_pipeline_sync(c->conn) < 0 || client_flush(c) < 0) {
        fail_connection(c);
        return 1;
    }
    c->state = CS_WAIT_PIPELINE;
    return 0;
}

static int exec_sql(struct client *c, const struct script_command *cmd, time_ns now)
{
    c->cmd_start = now;
    if (send_sql(c, cmd) < 0) {
        fail_connection(c);
        return 1;
    }
    if (pg_in_pipeline(c->conn)) { /* results come at \endpipeline */
        c->pipe_start[c->pipe_tail] = now;
        c->pipe_cmds[c->pipe_tail++] = c->cmd++;
        return 1;
    }
    c->state = CS_WAIT_RESULT;
    return 0;
}

int client_step_start_cmd(struct client *c, time_ns now)
{
    while (c->cmd < c->script->n_cmds && c->state == CS_START_CMD) {
        const struct script_command *cmd = &c->script->cmds[c->cmd];
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
            return start_sleep(c, cmd, now);
        case CMD_PIPELINE_START:
        case CMD_PIPELINE_END:
            if (!exec_pipeline(c, cmd))
                return 0;
            break;
        case CMD_SQL:
            if (!exec_sql(c, cmd, now))
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
int client_step_wait_pipeline(struct client *c, time_ns now)
{
    int ok = c->failure == PGF_NONE;
    if (c->watch.events & EV_WRITE) {
        int r = pg_flush(c->conn);
        if (r < 0 || (r == 0 && (client_watch(c, EV_READ), 0)))
            goto lost;
        if (r == 1)
            return 0;
    }
    if (pg_consume(c->conn) < 0)
        goto lost;
    while (!pg_is_busy(c->conn)) {
        struct pg_result *res = pg_next_result(c->conn);
        const struct script_command *cmd =
            c->pipe_head < c->pipe_tail ? &c->script->cmds[c->pipe_cmds[c->pipe_head]] : NULL;
        if (!res) {
            client_end_results(c, cmd, &ok);
            if (c->pipe_head < c->pipe_tail) {
                if (ok && !c->pipe_discard)
                    worker_record_statement(c->w, c->script_idx, c->pipe_cmds[c->pipe_head],
                                            c->pipe_start[c->pipe_head], now);
                c->pipe_head++;
            }
            continue;
        }
        if (pg_result_status(res) != PG_RES_PIPELINE_SYNC) {
            client_take_result(c, cmd, res, &ok);
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

int client_step_wait_result(struct client *c, time_ns now)
{
    int ok = c->failure == PGF_NONE;
    int r = client_drain(c, &c->script->cmds[c->cmd], &ok);
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
    worker_record_statement(c->w, c->script_idx, c->cmd, c->cmd_start, now);
    c->cmd++;
    c->state = CS_START_CMD;
    return 1;
}

static int retryable(const struct client *c, time_ns now)
{
    return (c->failure == PGF_SERIALIZATION || c->failure == PGF_DEADLOCK) &&
           c->tries < c->w->run->cfg->max_tries && !client_run_over(c, now);
}

/* After a failed try (rolled back): retry with the same random draws, or give up. */
static int after_failed_try(struct client *c, time_ns now)
{
    if (!retryable(c, now)) {
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
int client_step_error(struct client *c, time_ns now)
{
    if (c->failure == PGF_CONNECTION || !c->conn || !pg_conn_ok(c->conn)) {
        client_record_failure(c, now, PGF_CONNECTION);
        client_lost(c, now);
        return 0;
    }
    pg_result_free(c->held);
    c->held = NULL;
    if (pg_in_pipeline(c->conn)) {
        /* Read what the pipeline still owes, up to a sync, before rolling back. */
        if (pg_pipeline_sync(c->conn) < 0 || client_flush(c) < 0) {
            c->failure = PGF_CONNECTION;
            return 1;
        }
        c->pipe_discard = 1;
        c->state = CS_WAIT_PIPELINE;
        return 0;
    }
    enum pg_txn ts = pg_txn_status(c->conn);
    if (ts == PG_TXN_INERROR || ts == PG_TXN_INTRANS) {
        if (pg_send_simple(c->conn, "ROLLBACK") < 0 || client_flush(c) < 0) {
            c->failure = PGF_CONNECTION;
            return 1;
        }
        c->state = CS_WAIT_ROLLBACK;
        return 0;
    }
    return after_failed_try(c, now);
}

int client_step_wait_rollback(struct client *c, time_ns now)
{
    int ok = 0; /* the try has failed already; the rollback's own result does not matter */
    int r = client_drain(c, NULL, &ok);
    if (r < 0) {
        c->failure = PGF_CONNECTION;
        c->state = CS_ERROR;
        return 1;
    }
    if (r == 0)
        return 0;
    return after_failed_try(c, now);
}

int client_step_end_tx(struct client *c, time_ns now)
{
    struct worker *w = c->w;
    int failed = c->failure != PGF_NONE;
    if (c->tx_deadline)
        timers_cancel(&w->timers, &c->timer_slot);
    c->tx_deadline = 0;
    if (worker_record(c, c->tx_start, now, failed, c->failure)) {
        if (failed)
            c->n_failed++;
        else
            c->n_tx++;
        client_count_connect(c);
    }
    c->tx_connect_ns = -1;
    c->n_done++;
    if (w->run->cfg->connect_per_tx)
        client_close(c);
    c->state = CS_START_TX;
    return 1;
}

int client_tx_timer(struct client *c, time_ns now)
{
    if (c->state == CS_SLEEP) {
        if (now >= c->sleep_until) {
            if (c->w->run->cfg->sleep_is_terminal_time)
                c->tx_start += now - c->sleep_start;
            c->cmd++;
            c->state = CS_START_CMD;
            if (c->tx_deadline)
                client_set_timer(c, c->tx_deadline);
            return 1;
        }
        /* --timeout during a \sleep: the transaction fails, and is rolled back. */
        client_note_error(c, "transaction timed out");
        c->failure = PGF_TIMEOUT;
        c->tx_deadline = 0;
        c->state = CS_ERROR;
        return 1;
    }
    if (!c->tx_deadline || now < c->tx_deadline)
        return 0;
    if (!c->cancelled && c->state == CS_WAIT_RESULT) {
        /* --timeout: ask the server to cancel; the error that comes back counts as a
         * timeout. If nothing comes back within another timeout, give up on the
         * connection. */
        c->cancelled = 1;
        cancel_request(c->conn);
        c->tx_deadline = now + c->w->run->cfg->timeout_us * NS_PER_US;
        client_set_timer(c, c->tx_deadline);
        return 0;
    }
    client_note_error(c, "transaction timed out");
    client_record_failure(c, now, PGF_TIMEOUT);
    c->tx_deadline = 0;
    client_lost(c, now);
    return 0;
}
