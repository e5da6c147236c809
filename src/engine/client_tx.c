#include "engine/client_int.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "script/funcs.h"

/* The script client's driver: running a transaction: its start (on schedule with -R), its
 * commands one by one, its results, and what a failure leads to: a rollback, a retry with the
 * same random draws, or the end of the transaction; and, with -M prepared, the PREPAREs of its
 * statements on each new connection. */

int client_run_over(const struct client *c, time_ns now)
{
    const struct engine_state *run = c->w->run;
    int64_t target = run->cfg->tx_per_client;
    return c->aborted || atomic_load_explicit(&engine_stop_flag, memory_order_relaxed) ||
           (target > 0 && (int64_t)c->n_done >= target) || (run->end_ns > 0 && now >= run->end_ns);
}

/* An analytic stream's next script: the next of its pass, a new pass (a fresh permutation,
 * or the set's order) once one is done. */
static const struct script *next_in_stream(struct client *c)
{
    const struct engine_config *cfg = c->w->run->cfg;
    int n = cfg->stream_scripts;
    if (c->sc.stream_pos >= n) {
        for (int i = 0; i < n; i++)
            c->sc.stream_order[i] = i;
        for (int i = n - 1; i > 0 && !cfg->stream_in_order; i--) {
            int j = (int)rng_range(&c->sc.rng, 0, i);
            int t = c->sc.stream_order[i];
            c->sc.stream_order[i] = c->sc.stream_order[j];
            c->sc.stream_order[j] = t;
        }
        c->sc.stream_pos = 0;
    }
    int first = cfg->scripts->n_scripts - n;
    return &cfg->scripts->scripts[first + c->sc.stream_order[c->sc.stream_pos++]];
}

static void choose_script(struct client *c)
{
    const struct engine_config *cfg = c->w->run->cfg;
    c->script = c->sc.stream_order ? next_in_stream(c) : script_choose(cfg->scripts, &c->sc.rng);
    c->script_idx = (int)(c->script - cfg->scripts->scripts);
}

/* -R: take the next scheduled start; with --latency-limit, skip the starts that are already
 * too late to make it, as pgbench does. Returns 0 to wait for the start, 1 to go on. The script
 * is chosen with the schedule, and the starts skipped count as its own (pgbench's per-script
 * skipped). */
static int take_schedule(struct client *c, time_ns now)
{
    const struct engine_config *cfg = c->w->run->cfg;
    if (!c->sc.scheduled) {
        c->sc.sched_at = sched_next(&c->w->sched);
        c->sc.scheduled = 1;
        choose_script(c);
    }
    while (cfg->latency_limit_us > 0 && c->sc.sched_at < now - cfg->latency_limit_us * NS_PER_US) {
        worker_record_skipped(c, now);
        c->n_done++;
        if (client_run_over(c, now))
            return 1;
        c->sc.sched_at = sched_next(&c->w->sched);
    }
    if (c->sc.sched_at > now) {
        client_set_timer(c, c->sc.sched_at);
        return 0;
    }
    return 1;
}

int client_step_start_tx(struct client *c, time_ns now)
{
    const struct engine_config *cfg = c->w->run->cfg;
    int paced = cfg->rate > 0 && !c->sc.stream_order; /* analytic streams run closed loop */
    if (paced && !client_run_over(c, now) && !take_schedule(c, now))
        return rest(CS_THROTTLE);
    if (client_run_over(c, now) ||
        (paced && c->w->run->end_ns > 0 && c->sc.sched_at >= c->w->run->end_ns))
        return client_finish(c);
    c->tx_start = now;
    if (paced) {
        c->tx_start = c->sc.sched_at; /* latency counts from the intended start */
        c->sc.scheduled = 0;
        c->lag_us = (now - c->sc.sched_at) / NS_PER_US;
        worker_counters_check(c->w, now);
        if (now >= c->w->run->start_ns)
            hist_record(c->w->lag, c->lag_us);
    }
    if (!paced)
        choose_script(c);
    if (cfg->debug)
        fprintf(stderr, "client %d executing script \"%s\"\n", c->id, c->script->name);
    c->sc.tx_rng = c->sc.rng;
    c->tries = 1;
    c->sc.cmd = 0;
    c->failure = PGF_NONE;
    c->cancelled = 0;
    c->tx_deadline = cfg->timeout_us > 0 ? now + cfg->timeout_us * NS_PER_US : 0;
    if (c->tx_deadline)
        client_set_timer(c, c->tx_deadline);
    if (!c->conn) { /* -C, or a connection not yet back */
        c->resume = CS_START_CMD;
        return client_reconnect(c, now);
    }
    return CS_START_CMD;
}

/* Text values of a command's parameters. An unset variable is bound as NULL, as pgbench 15
 * does: the server decides. */
static void bind_params(struct client *c, const struct script_command *cmd)
{
    for (int i = 0; i < cmd->n_params; i++)
        c->sc.param_values[i] = script_var_sql(&c->sc.vars, cmd->param_vars[i], c->sc.param_text[i],
                                               sizeof c->sc.param_text[i]);
}

/* An unset variable stays as the text :name, as pgbench 15 leaves it: the server decides. */
static void build_simple_sql(struct client *c, const struct script_command *cmd)
{
    buf_reset(&c->sc.sql);
    for (int i = 0; i < cmd->n_parts; i++) {
        buf_puts(&c->sc.sql, cmd->parts[i].text);
        if (cmd->parts[i].var >= 0) {
            char v[32];
            const char *text = script_var_sql(&c->sc.vars, cmd->parts[i].var, v, sizeof v);
            if (!text)
                buf_puts(&c->sc.sql, ":");
            buf_puts(&c->sc.sql,
                     text ? text : c->w->run->cfg->scripts->var_names[cmd->parts[i].var]);
        }
    }
}

/* A command failed: the try ends (CS_ERROR). */
static int fail_command(struct client *c, enum pg_failure why, const char *msg)
{
    c->failure = why;
    client_note_error(c, msg);
    return CS_ERROR;
}

/* The connection failed under a command: its error message, on one line. */
static int fail_connection(struct client *c)
{
    char line[256];
    pg_conn_error(c->conn, line, sizeof line);
    return fail_command(c, PGF_CONNECTION, line);
}

/* 0 sent, -1 connection failure. */
static int send_sql(struct client *c, const struct script_command *cmd)
{
    int sent;
    switch (c->w->run->cfg->protocol) {
    case PROTO_SIMPLE:
        build_simple_sql(c, cmd);
        sent = pg_send_simple(c->conn, c->sc.sql.data);
        break;
    case PROTO_EXTENDED:
        bind_params(c, cmd);
        sent = pg_send_params(c->conn, cmd->sql_params, cmd->n_params, c->sc.param_values);
        break;
    default:
        bind_params(c, cmd);
        sent = pg_send_prepared(c->conn, cmd->stmt_name, cmd->n_params, c->sc.param_values);
        break;
    }
    if (c->w->run->cfg->debug)
        fprintf(stderr, "client %d sending %s\n", c->id,
                c->w->run->cfg->protocol == PROTO_SIMPLE     ? c->sc.sql.data
                : c->w->run->cfg->protocol == PROTO_EXTENDED ? cmd->sql_params
                                                             : cmd->stmt_name);
    if (sent < 0 || client_flush(c) < 0)
        return -1;
    return 0;
}

/* The commands' helpers return the next state: CS_START_CMD to run the next command. */
static int exec_set(struct client *c, const struct script_command *cmd)
{
    char msg[200];
    struct value v;
    if (script_eval(c->w->run->cfg->scripts, cmd, &c->sc.vars, &c->sc.rng, &v, msg, sizeof msg) < 0)
        return fail_command(c, PGF_OTHER, msg);
    script_vars_set_value(&c->sc.vars, cmd->var, v);
    c->sc.cmd++;
    return CS_START_CMD;
}

/* Evaluate an \if or \elif condition: 1 true, 0 false, -1 failed (the try fails). */
static int condition(struct client *c, const struct script_command *cmd)
{
    char msg[200];
    struct value v;
    int t;
    if (script_eval(c->w->run->cfg->scripts, cmd, &c->sc.vars, &c->sc.rng, &v, msg, sizeof msg) <
            0 ||
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
        c->sc.cmd = cmd->endif + 1;
        return CS_START_CMD;
    }
    if (cmd->kind == CMD_ENDIF) {
        c->sc.cmd++;
        return CS_START_CMD;
    }
    int k = c->sc.cmd;
    for (;;) {
        int t = cmds[k].kind == CMD_IF || cmds[k].kind == CMD_ELIF ? condition(c, &cmds[k]) : 1;
        if (t < 0)
            return CS_ERROR;
        if (t) {
            c->sc.cmd = k + 1;
            return CS_START_CMD;
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
        if (script_var_value(&c->sc.vars, c->w->run->cfg->scripts, cmd->sleep_var, &v, msg,
                             sizeof msg) < 0 ||
            value_to_int(&v, &n, msg, sizeof msg) < 0)
            return fail_command(c, PGF_OTHER, msg);
    }
    c->sc.sleep_start = now;
    c->sc.sleep_until = now + (n > 0 ? n : 0) * cmd->sleep_unit_us * NS_PER_US;
    client_set_timer(c, c->tx_deadline && c->tx_deadline < c->sc.sleep_until ? c->tx_deadline
                                                                             : c->sc.sleep_until);
    return rest(CS_SLEEP);
}

static int exec_pipeline(struct client *c, const struct script_command *cmd)
{
    if (cmd->kind == CMD_PIPELINE_START) {
        if (pg_pipeline_enter(c->conn) < 0)
            return fail_command(c, PGF_OTHER, "could not enter pipeline mode");
        c->sc.pipe_head = c->sc.pipe_tail = 0;
        c->sc.pipe_syncs = 0;
        c->sc.cmd++;
        return CS_START_CMD;
    }
    if (cmd->kind == CMD_PIPELINE_SYNC) { /* the results are read at \endpipeline, as pgbench */
        if (pg_pipeline_send_sync(c->conn) < 0)
            return fail_connection(c);
        c->sc.pipe_syncs++;
        c->sc.cmd++;
        return CS_START_CMD;
    }
    if (pg_pipeline_sync(c->conn) < 0 || client_flush(c) < 0)
        return fail_connection(c);
    return rest(CS_WAIT_PIPELINE);
}

static int exec_sql(struct client *c, const struct script_command *cmd, time_ns now)
{
    c->cmd_start = now;
    if (send_sql(c, cmd) < 0)
        return fail_connection(c);
    if (pg_in_pipeline(c->conn)) { /* results come at \endpipeline */
        c->sc.pipe_start[c->sc.pipe_tail] = now;
        c->sc.pipe_cmds[c->sc.pipe_tail++] = c->sc.cmd++;
        return CS_START_CMD;
    }
    return rest(CS_WAIT_RESULT);
}

/* Runs commands until one must wait, fails, or the script ends. */
int client_step_start_cmd(struct client *c, time_ns now)
{
    int next = CS_START_CMD;
    while (c->sc.cmd < c->script->n_cmds && next == CS_START_CMD) {
        const struct script_command *cmd = &c->script->cmds[c->sc.cmd];
        switch (cmd->kind) {
        case CMD_SET:
            next = exec_set(c, cmd);
            break;
        case CMD_IF:
        case CMD_ELIF:
        case CMD_ELSE:
        case CMD_ENDIF:
            next = exec_branch(c, cmd);
            break;
        case CMD_SLEEP:
            return start_sleep(c, cmd, now);
        case CMD_PIPELINE_START:
        case CMD_PIPELINE_END:
        case CMD_PIPELINE_SYNC:
            next = exec_pipeline(c, cmd);
            break;
        case CMD_SQL:
            next = exec_sql(c, cmd, now);
            break;
        }
    }
    if (next != CS_START_CMD)
        return next;
    /* A script must end the transactions it begins; pgbench aborts such a client. */
    if (c->conn &&
        (pg_txn_status(c->conn) == PG_TXN_INTRANS || pg_txn_status(c->conn) == PG_TXN_INERROR))
        return fail_command(c, PGF_OTHER,
                            "end of script reached without completing the last transaction");
    return CS_END_TX;
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
            return rest(CS_WAIT_PIPELINE);
    }
    if (pg_consume(c->conn) < 0)
        goto lost;
    for (;;) {
        if (c->sc.copy_out) { /* a refused COPY TO STDOUT (client_take_result) */
            int r = client_copy_skip(c);
            if (r < 0)
                goto lost;
            if (r == 0)
                break;
            c->sc.copy_out = 0;
        }
        if (pg_is_busy(c->conn) || atomic_load_explicit(&engine_stop_flag, memory_order_relaxed))
            break;
        struct pg_result *res = pg_next_result(c->conn);
        const struct script_command *cmd = c->sc.pipe_head < c->sc.pipe_tail
                                               ? &c->script->cmds[c->sc.pipe_cmds[c->sc.pipe_head]]
                                               : NULL;
        if (!res) {
            client_end_results(c, cmd, &ok);
            if (c->sc.pipe_head < c->sc.pipe_tail) {
                if (ok && !c->sc.pipe_discard)
                    worker_record_statement(c->w, c->script_idx, c->sc.pipe_cmds[c->sc.pipe_head],
                                            c->sc.pipe_start[c->sc.pipe_head], now);
                c->sc.pipe_head++;
            }
            continue;
        }
        if (pg_result_status(res) != PG_RES_PIPELINE_SYNC) {
            if (client_take_result(c, cmd, res, &ok) < 0)
                goto lost;
            continue;
        }
        pg_result_free(res);
        if (c->sc.pipe_syncs > 0) { /* a \syncpipeline's: the pipeline goes on */
            c->sc.pipe_syncs--;
            continue;
        }
        pg_pipeline_exit(c->conn);
        if (!ok || c->sc.pipe_discard) {
            c->sc.pipe_discard = 0;
            if (c->failure == PGF_NONE)
                c->failure = PGF_OTHER;
            return CS_ERROR;
        }
        c->sc.cmd++; /* past \endpipeline */
        return CS_START_CMD;
    }
    return rest(CS_WAIT_PIPELINE);
lost:
    return fail_connection(c);
}

int client_step_wait_result(struct client *c, time_ns now)
{
    int ok = c->failure == PGF_NONE;
    int r = client_drain(c, &c->script->cmds[c->sc.cmd], &ok);
    if (r < 0)
        return fail_connection(c);
    if (r == 0)
        return rest(CS_WAIT_RESULT);
    if (!ok)
        return CS_ERROR;
    worker_record_statement(c->w, c->script_idx, c->sc.cmd, c->cmd_start, now);
    c->sc.cmd++;
    return CS_START_CMD;
}

static int retryable(const struct client *c, time_ns now)
{
    return (c->failure == PGF_SERIALIZATION || c->failure == PGF_DEADLOCK) &&
           c->tries < c->w->run->cfg->max_tries && !client_run_over(c, now);
}

/* After a failed try (rolled back): retry with the same random draws, or give up. */
static int after_failed_try(struct client *c, time_ns now)
{
    if (!retryable(c, now))
        return CS_END_TX;
    worker_counters_check(c->w, now);
    if (c->tries == 1) {
        c->w->n_retried++;
        c->w->scripts[c->script_idx].n_retried++;
    }
    c->w->n_retries++;
    c->tries++;
    c->sc.rng = c->sc.tx_rng;
    c->sc.cmd = 0;
    c->failure = PGF_NONE;
    return CS_START_CMD;
}

/* A failed command ends the try; roll back what the script had begun. */
int client_step_error(struct client *c, time_ns now)
{
    if (c->failure == PGF_CONNECTION || !c->conn || !pg_conn_ok(c->conn)) {
        client_record_failure(c, now, PGF_CONNECTION);
        return client_lost(c, now);
    }
    pg_result_free(c->sc.held);
    c->sc.held = NULL;
    c->sc.copy_out = 0; /* what ended the try ended the COPY too */
    if (pg_in_pipeline(c->conn)) {
        /* Read what the pipeline still owes, up to a sync, before rolling back. */
        if (pg_pipeline_sync(c->conn) < 0 || client_flush(c) < 0) {
            c->failure = PGF_CONNECTION;
            return CS_ERROR;
        }
        c->sc.pipe_discard = 1;
        return rest(CS_WAIT_PIPELINE);
    }
    enum pg_txn ts = pg_txn_status(c->conn);
    if (ts == PG_TXN_INERROR || ts == PG_TXN_INTRANS) {
        if (pg_send_simple(c->conn, "ROLLBACK") < 0 || client_flush(c) < 0) {
            c->failure = PGF_CONNECTION;
            return CS_ERROR;
        }
        return rest(CS_WAIT_ROLLBACK);
    }
    return after_failed_try(c, now);
}

int client_step_wait_rollback(struct client *c, time_ns now)
{
    int ok = 0; /* the try has failed already; the rollback's own result does not matter */
    int r = client_drain(c, NULL, &ok);
    if (r < 0) {
        c->failure = PGF_CONNECTION;
        return CS_ERROR;
    }
    if (r == 0)
        return rest(CS_WAIT_ROLLBACK);
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
    client_exit_on_abort(c, c->failure);
    if (w->run->cfg->connect_per_tx)
        client_close(c);
    return CS_START_TX;
}

int client_tx_timer(struct client *c, time_ns now)
{
    if (c->state == CS_SLEEP) {
        if (now >= c->sc.sleep_until) {
            if (c->w->run->cfg->sleep_is_terminal_time)
                c->tx_start += now - c->sc.sleep_start;
            c->sc.cmd++;
            if (c->tx_deadline)
                client_set_timer(c, c->tx_deadline);
            return CS_START_CMD;
        }
        /* --timeout during a \sleep: the transaction fails, and is rolled back. */
        client_note_error(c, "transaction timed out");
        c->failure = PGF_TIMEOUT;
        c->tx_deadline = 0;
        return CS_ERROR;
    }
    if (!c->tx_deadline || now < c->tx_deadline)
        return rest(c->state);
    if (!c->cancelled && c->state == CS_WAIT_RESULT) {
        /* --timeout: ask the server to cancel; the error that comes back counts as a
         * timeout. If nothing comes back within another timeout, give up on the
         * connection. */
        c->cancelled = 1;
        cancel_request(c->conn);
        c->tx_deadline = now + c->w->run->cfg->timeout_us * NS_PER_US;
        client_set_timer(c, c->tx_deadline);
        return rest(c->state);
    }
    client_note_error(c, "transaction timed out");
    client_record_failure(c, now, PGF_TIMEOUT);
    c->tx_deadline = 0;
    return client_lost(c, now);
}

/* -M prepared: the PREPAREs of every script's statements, one after the other, once
 * connected (at setup, and after each new connection). */
int client_step_preparing(struct client *c, time_ns now)
{
    const struct script_set *set = c->w->run->cfg->scripts;
    while (c->sc.prep_script < set->n_scripts) {
        const struct script *s = &set->scripts[c->sc.prep_script];
        if (c->sc.prep_cmd >= s->n_cmds) {
            c->sc.prep_script++;
            c->sc.prep_cmd = 0;
            continue;
        }
        const struct script_command *cmd = &s->cmds[c->sc.prep_cmd];
        if (cmd->kind != CMD_SQL) {
            c->sc.prep_cmd++;
            continue;
        }
        c->failure = PGF_NONE; /* the PREPARE's outcome, kept across reads */
        if (pg_send_prepare(c->conn, cmd->stmt_name, cmd->sql_params, cmd->n_params) < 0 ||
            client_flush(c) < 0)
            return client_connect_failed(c, "could not prepare statement", now);
        return rest(CS_WAIT_PREPARE);
    }
    return client_connected(c, now);
}

/* The server refused a statement of the scripts at setup: the same every time, so the run is
 * refused before it starts, naming the statement (as pgbench aborts). */
static int prepare_refused(struct client *c)
{
    struct worker *w = c->w;
    const struct script *s = &w->run->cfg->scripts->scripts[c->sc.prep_script];
    const struct script_command *cmd = &s->cmds[c->sc.prep_cmd];
    if (!w->setup_failed) {
        /* w->error holds the server's message, noted as the result came in */
        char *msg = xasprintf("%s:%d: the server cannot prepare this statement: %s: %s", s->name,
                              cmd->line, w->error, cmd->text);
        snprintf(w->error, sizeof w->error, "%s", msg);
        free(msg);
        w->setup_refused = 1;
    }
    return client_setup_done_failed(c);
}

int client_step_wait_prepare(struct client *c, time_ns now)
{
    /* The error and the end of the PREPARE's results (ReadyForQuery) may come in different
     * reads: whether it failed is kept in the client, as a command's is, not in this call
     * (else an error read in one call would be forgotten when the end comes in the next, and
     * the run would start with the statement unprepared). */
    int ok = c->failure == PGF_NONE;
    int r = client_drain(c, NULL, &ok);
    if (r == 1 && !ok && c->resume == CS_IDLE)
        return prepare_refused(c);
    if (r < 0 || (r == 1 && !ok))
        return client_connect_failed(c, "could not prepare statement", now);
    if (r == 0)
        return rest(CS_WAIT_PREPARE);
    c->sc.prep_cmd++;
    return CS_PREPARING;
}
