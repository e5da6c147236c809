#include "engine/client_int.h"
#include "engine/client_script.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "script/funcs.h"

/* The script client's driver: running a transaction: its start (on schedule with -R), its
 * commands one by one, its results, and what a failure leads to: a rollback, a retry with the
 * same random draws, or the end of the transaction; and, with -M prepared, the PREPAREs of its
 * statements on each new connection. Its states: client_script.h. */

/* Whether the client is to start no more transactions. */
static int run_over(const struct client *c, time_ns now)
{
    const struct engine_state *run = c->w->run;
    int64_t target = run->cfg->tx_per_client;
    return c->aborted || atomic_load_explicit(&engine_stop_flag, memory_order_relaxed) ||
           (target > 0 && (int64_t)c->n_done >= target) || (run->end_ns > 0 && now >= run->end_ns);
}

static void choose_script(struct client *c)
{
    struct client_script *sc = script_of(c);
    const struct engine_config *cfg = c->w->run->cfg;
    c->script = sc->next_script ? sc->next_script(c) : script_choose(cfg->scripts, &sc->rng);
    c->script_idx = (int)(c->script - cfg->scripts->scripts);
}

/* -R: take the next scheduled start; with --latency-limit, skip the starts that are already
 * too late to make it, as pgbench does. Returns 0 to wait for the start, 1 to go on. The script
 * is chosen with the schedule, and the starts skipped count as its own (pgbench's per-script
 * skipped). */
static int take_schedule(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    const struct engine_config *cfg = c->w->run->cfg;
    if (!sc->scheduled) {
        sc->sched_at = sched_next(&c->w->sched);
        sc->scheduled = 1;
        choose_script(c);
    }
    while (cfg->latency_limit_us > 0 && sc->sched_at < now - cfg->latency_limit_us * NS_PER_US) {
        worker_record_skipped(c, sc->sched_at, now);
        c->n_done++;
        if (run_over(c, now))
            return 1;
        sc->sched_at = sched_next(&c->w->sched);
    }
    if (sc->sched_at > now) {
        client_set_timer(c, sc->sched_at);
        return 0;
    }
    return 1;
}

static int step_start_tx(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    const struct engine_config *cfg = c->w->run->cfg;
    int paced = cfg->rate > 0 && !sc->unpaced;
    if (paced && !run_over(c, now) && !take_schedule(c, now))
        return rest(SC_THROTTLE);
    if (run_over(c, now) || (paced && c->w->run->end_ns > 0 && sc->sched_at >= c->w->run->end_ns))
        return client_finish(c);
    c->tx_start = now;
    if (paced) {
        c->tx_start = sc->sched_at; /* latency counts from the intended start */
        sc->scheduled = 0;
        c->lag_us = (now - sc->sched_at) / NS_PER_US;
        worker_counters_check(c->w, now);
        if (now >= c->w->run->start_ns)
            hist_record(c->w->lag, c->lag_us);
    }
    if (!paced)
        choose_script(c);
    if (cfg->debug)
        fprintf(stderr, "client %d executing script \"%s\"\n", c->id, c->script->name);
    sc->tx_rng = sc->rng;
    c->tries = 1;
    sc->cmd = 0;
    c->failure = PGF_NONE;
    c->cancelled = 0;
    c->tx_deadline = cfg->timeout_us > 0 ? now + cfg->timeout_us * NS_PER_US : 0;
    if (c->tx_deadline)
        client_set_timer(c, c->tx_deadline);
    if (!c->conn) { /* -C, or a connection not yet back */
        c->resume = SC_START_CMD;
        return client_reconnect(c, now);
    }
    return SC_START_CMD;
}

/* Text values of a command's parameters. An unset variable is bound as NULL, as pgbench 15
 * does: the server decides. */
static void bind_params(struct client *c, const struct script_command *cmd)
{
    struct client_script *sc = script_of(c);
    for (int i = 0; i < cmd->n_params; i++)
        sc->param_values[i] = script_var_sql(&sc->vars, cmd->param_vars[i], sc->param_text[i],
                                             sizeof sc->param_text[i]);
}

/* An unset variable stays as the text :name, as pgbench 15 leaves it: the server decides. */
static void build_simple_sql(struct client *c, const struct script_command *cmd)
{
    struct client_script *sc = script_of(c);
    buf_reset(&sc->sql);
    for (int i = 0; i < cmd->n_parts; i++) {
        buf_puts(&sc->sql, cmd->parts[i].text);
        if (cmd->parts[i].var >= 0) {
            char v[32];
            const char *text = script_var_sql(&sc->vars, cmd->parts[i].var, v, sizeof v);
            if (!text)
                buf_puts(&sc->sql, ":");
            buf_puts(&sc->sql, text ? text : c->w->run->cfg->scripts->var_names[cmd->parts[i].var]);
        }
    }
}

/* A command failed: the try ends (SC_ERROR). */
static int fail_command(struct client *c, enum pg_failure why, const char *msg)
{
    c->failure = why;
    client_note_error(c, msg);
    return SC_ERROR;
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
    struct client_script *sc = script_of(c);
    int sent;
    switch (c->w->run->cfg->protocol) {
    case PROTO_SIMPLE:
        build_simple_sql(c, cmd);
        sent = pg_send_simple(c->conn, sc->sql.data);
        break;
    case PROTO_EXTENDED:
        bind_params(c, cmd);
        sent = pg_send_params(c->conn, cmd->sql_params, cmd->n_params, sc->param_values, NULL);
        break;
    default:
        bind_params(c, cmd);
        sent = pg_send_prepared(c->conn, cmd->stmt_name, cmd->n_params, sc->param_values, NULL);
        break;
    }
    if (c->w->run->cfg->debug)
        fprintf(stderr, "client %d sending %s\n", c->id,
                c->w->run->cfg->protocol == PROTO_SIMPLE     ? sc->sql.data
                : c->w->run->cfg->protocol == PROTO_EXTENDED ? cmd->sql_params
                                                             : cmd->stmt_name);
    if (sent < 0 || client_flush(c) < 0)
        return -1;
    return 0;
}

/* The commands' helpers return the next state: SC_START_CMD to run the next command. */
static int exec_set(struct client *c, const struct script_command *cmd)
{
    struct client_script *sc = script_of(c);
    char msg[200];
    struct value v;
    if (script_eval(c->w->run->cfg->scripts, cmd, &sc->vars, &sc->rng, &v, msg, sizeof msg) < 0)
        return fail_command(c, PGF_OTHER, msg);
    script_vars_set_value(&sc->vars, cmd->var, v);
    sc->cmd++;
    return SC_START_CMD;
}

/* Evaluate an \if or \elif condition: 1 true, 0 false, -1 failed (the try fails). */
static int condition(struct client *c, const struct script_command *cmd)
{
    struct client_script *sc = script_of(c);
    char msg[200];
    struct value v;
    int t;
    if (script_eval(c->w->run->cfg->scripts, cmd, &sc->vars, &sc->rng, &v, msg, sizeof msg) < 0 ||
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
    struct client_script *sc = script_of(c);
    const struct script_command *cmds = c->script->cmds;
    if (cmd->kind == CMD_ELIF || cmd->kind == CMD_ELSE) {
        sc->cmd = cmd->endif + 1;
        return SC_START_CMD;
    }
    if (cmd->kind == CMD_ENDIF) {
        sc->cmd++;
        return SC_START_CMD;
    }
    int k = sc->cmd;
    for (;;) {
        int t = cmds[k].kind == CMD_IF || cmds[k].kind == CMD_ELIF ? condition(c, &cmds[k]) : 1;
        if (t < 0)
            return SC_ERROR;
        if (t) {
            sc->cmd = k + 1;
            return SC_START_CMD;
        }
        k = cmds[k].next_branch;
    }
}

static int start_sleep(struct client *c, const struct script_command *cmd, time_ns now)
{
    struct client_script *sc = script_of(c);
    int64_t n = cmd->sleep_value;
    if (cmd->sleep_var >= 0) {
        char msg[200];
        struct value v;
        if (script_var_value(&sc->vars, c->w->run->cfg->scripts, cmd->sleep_var, &v, msg,
                             sizeof msg) < 0 ||
            value_to_int(&v, &n, msg, sizeof msg) < 0)
            return fail_command(c, PGF_OTHER, msg);
    }
    sc->sleep_start = now;
    sc->sleep_until = now + (n > 0 ? n : 0) * cmd->sleep_unit_us * NS_PER_US;
    client_set_timer(c, c->tx_deadline && c->tx_deadline < sc->sleep_until ? c->tx_deadline
                                                                           : sc->sleep_until);
    return rest(SC_SLEEP);
}

static int exec_pipeline(struct client *c, const struct script_command *cmd)
{
    struct client_script *sc = script_of(c);
    if (cmd->kind == CMD_PIPELINE_START) {
        if (pg_pipeline_enter(c->conn) < 0)
            return fail_command(c, PGF_OTHER, "could not enter pipeline mode");
        sc->pipe_head = sc->pipe_tail = 0;
        sc->pipe_syncs = 0;
        sc->cmd++;
        return SC_START_CMD;
    }
    if (cmd->kind == CMD_PIPELINE_SYNC) { /* the results are read at \endpipeline, as pgbench */
        if (pg_pipeline_send_sync(c->conn) < 0)
            return fail_connection(c);
        sc->pipe_syncs++;
        sc->cmd++;
        return SC_START_CMD;
    }
    if (pg_pipeline_sync(c->conn) < 0 || client_flush(c) < 0)
        return fail_connection(c);
    return rest(SC_WAIT_PIPELINE);
}

static int exec_sql(struct client *c, const struct script_command *cmd, time_ns now)
{
    struct client_script *sc = script_of(c);
    c->cmd_start = now;
    if (send_sql(c, cmd) < 0)
        return fail_connection(c);
    if (pg_in_pipeline(c->conn)) { /* results come at \endpipeline */
        sc->pipe_start[sc->pipe_tail] = now;
        sc->pipe_cmds[sc->pipe_tail++] = sc->cmd++;
        return SC_START_CMD;
    }
    return rest(SC_WAIT_RESULT);
}

/* Runs commands until one must wait, fails, or the script ends. */
static int step_start_cmd(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    int next = SC_START_CMD;
    while (sc->cmd < c->script->n_cmds && next == SC_START_CMD) {
        const struct script_command *cmd = &c->script->cmds[sc->cmd];
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
    if (next != SC_START_CMD)
        return next;
    /* A script must end the transactions it begins; pgbench aborts such a client. */
    if (c->conn &&
        (pg_txn_status(c->conn) == PG_TXN_INTRANS || pg_txn_status(c->conn) == PG_TXN_INERROR))
        return fail_command(c, PGF_OTHER,
                            "end of script reached without completing the last transaction");
    return SC_END_TX;
}

/* Results of a pipeline, command by command (NULL between them), up to its sync. */
static int step_wait_pipeline(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    int ok = c->failure == PGF_NONE;
    if (c->watch.events & EV_WRITE) {
        int r = pg_flush(c->conn);
        if (r < 0 || (r == 0 && (client_watch(c, EV_READ), 0)))
            goto lost;
        if (r == 1)
            return rest(SC_WAIT_PIPELINE);
    }
    if (pg_consume(c->conn) < 0)
        goto lost;
    for (;;) {
        if (c->copy_out) { /* a refused COPY TO STDOUT (client_take_result) */
            int r = client_copy_skip(c);
            if (r < 0)
                goto lost;
            if (r == 0)
                break;
            c->copy_out = 0;
        }
        if (pg_is_busy(c->conn) || atomic_load_explicit(&engine_stop_flag, memory_order_relaxed))
            break;
        struct pg_result *res = pg_next_result(c->conn);
        const struct script_command *cmd =
            sc->pipe_head < sc->pipe_tail ? &c->script->cmds[sc->pipe_cmds[sc->pipe_head]] : NULL;
        if (!res) {
            client_end_results(c, cmd, &ok);
            if (sc->pipe_head < sc->pipe_tail) {
                if (ok && !sc->pipe_discard)
                    worker_record_statement(c->w, c->script_idx, sc->pipe_cmds[sc->pipe_head],
                                            sc->pipe_start[sc->pipe_head], now);
                sc->pipe_head++;
            }
            continue;
        }
        if (pg_result_status(res) != PG_RES_PIPELINE_SYNC) {
            if (client_take_result(c, cmd, res, &ok) < 0)
                goto lost;
            continue;
        }
        pg_result_free(res);
        if (sc->pipe_syncs > 0) { /* a \syncpipeline's: the pipeline goes on */
            sc->pipe_syncs--;
            continue;
        }
        pg_pipeline_exit(c->conn);
        if (!ok || sc->pipe_discard) {
            sc->pipe_discard = 0;
            if (c->failure == PGF_NONE)
                c->failure = PGF_OTHER;
            return SC_ERROR;
        }
        sc->cmd++; /* past \endpipeline */
        return SC_START_CMD;
    }
    return rest(SC_WAIT_PIPELINE);
lost:
    return fail_connection(c);
}

static int step_wait_result(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    int ok = c->failure == PGF_NONE;
    int r = client_drain(c, &c->script->cmds[sc->cmd], &ok);
    if (r < 0)
        return fail_connection(c);
    if (r == 0)
        return rest(SC_WAIT_RESULT);
    if (!ok)
        return SC_ERROR;
    worker_record_statement(c->w, c->script_idx, sc->cmd, c->cmd_start, now);
    sc->cmd++;
    return SC_START_CMD;
}

static int retryable(const struct client *c, time_ns now)
{
    return (c->failure == PGF_SERIALIZATION || c->failure == PGF_DEADLOCK) &&
           c->tries < c->w->run->cfg->max_tries && !run_over(c, now);
}

/* After a failed try (rolled back): retry with the same random draws, or give up. */
static int after_failed_try(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    if (!retryable(c, now))
        return SC_END_TX;
    worker_counters_check(c->w, now);
    if (c->tries == 1) {
        c->w->n_retried++;
        c->w->scripts[c->script_idx].n_retried++;
    }
    c->w->n_retries++;
    c->tries++;
    sc->rng = sc->tx_rng;
    sc->cmd = 0;
    c->failure = PGF_NONE;
    return SC_START_CMD;
}

/* A failed command ends the try; roll back what the script had begun. */
static int step_error(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    if (c->failure == PGF_CONNECTION || !c->conn || !pg_conn_ok(c->conn)) {
        client_record_failure(c, now, PGF_CONNECTION);
        return client_lost(c, now);
    }
    pg_result_free(sc->held);
    sc->held = NULL;
    c->copy_out = 0; /* what ended the try ended the COPY too */
    if (pg_in_pipeline(c->conn)) {
        /* Read what the pipeline still owes, up to a sync, before rolling back. */
        if (pg_pipeline_sync(c->conn) < 0 || client_flush(c) < 0) {
            c->failure = PGF_CONNECTION;
            return SC_ERROR;
        }
        sc->pipe_discard = 1;
        return rest(SC_WAIT_PIPELINE);
    }
    enum pg_txn ts = pg_txn_status(c->conn);
    if (ts == PG_TXN_INERROR || ts == PG_TXN_INTRANS) {
        if (pg_send_simple(c->conn, "ROLLBACK") < 0 || client_flush(c) < 0) {
            c->failure = PGF_CONNECTION;
            return SC_ERROR;
        }
        return rest(SC_WAIT_ROLLBACK);
    }
    return after_failed_try(c, now);
}

static int step_wait_rollback(struct client *c, time_ns now)
{
    int ok = 0; /* the try has failed already; the rollback's own result does not matter */
    int r = client_drain(c, NULL, &ok);
    if (r < 0) {
        c->failure = PGF_CONNECTION;
        return SC_ERROR;
    }
    if (r == 0)
        return rest(SC_WAIT_ROLLBACK);
    return after_failed_try(c, now);
}

static int step_end_tx(struct client *c, time_ns now)
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
    return SC_START_TX;
}

/* Timer of a client waiting for results, a rollback or a \sleep: --timeout, or the sleep's
 * end. Returns the next state. */
static int tx_timer(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    if (c->state == SC_SLEEP) {
        if (now >= sc->sleep_until) {
            if (c->w->run->cfg->sleep_is_terminal_time)
                c->tx_start += now - sc->sleep_start;
            sc->cmd++;
            if (c->tx_deadline)
                client_set_timer(c, c->tx_deadline);
            return SC_START_CMD;
        }
        /* --timeout during a \sleep: the transaction fails, and is rolled back. */
        client_note_error(c, "transaction timed out");
        c->failure = PGF_TIMEOUT;
        c->tx_deadline = 0;
        return SC_ERROR;
    }
    if (!c->tx_deadline || now < c->tx_deadline)
        return rest(c->state);
    if (!c->cancelled && c->state == SC_WAIT_RESULT) {
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

/* Connected, and its statements prepared. */
static int script_connected(struct client *c, time_ns now)
{
    if (c->resume == SC_START_CMD) /* -C: counted with the transaction, if it counts */
        c->tx_connect_ns = now - c->connect_start;
    return client_connected(c);
}

/* -M prepared: the PREPAREs of every script's statements, one after the other, once
 * connected (at setup, and after each new connection). */
static int step_preparing(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
    const struct script_set *set = c->w->run->cfg->scripts;
    while (sc->prep_script < set->n_scripts) {
        const struct script *s = &set->scripts[sc->prep_script];
        if (sc->prep_cmd >= s->n_cmds) {
            sc->prep_script++;
            sc->prep_cmd = 0;
            continue;
        }
        const struct script_command *cmd = &s->cmds[sc->prep_cmd];
        if (cmd->kind != CMD_SQL) {
            sc->prep_cmd++;
            continue;
        }
        c->failure = PGF_NONE; /* the PREPARE's outcome, kept across reads */
        if (pg_send_prepare(c->conn, cmd->stmt_name, cmd->sql_params, cmd->n_params, NULL) < 0 ||
            client_flush(c) < 0)
            return client_connect_failed(c, "could not prepare statement", now);
        return rest(SC_WAIT_PREPARE);
    }
    return client_connected(c);
}

/* The server refused a statement of the scripts at setup: the same every time, so the run is
 * refused before it starts, naming the statement (as pgbench aborts). */
static int prepare_refused(struct client *c)
{
    struct client_script *sc = script_of(c);
    struct worker *w = c->w;
    const struct script *s = &w->run->cfg->scripts->scripts[sc->prep_script];
    const struct script_command *cmd = &s->cmds[sc->prep_cmd];
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

static int step_wait_prepare(struct client *c, time_ns now)
{
    struct client_script *sc = script_of(c);
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
        return rest(SC_WAIT_PREPARE);
    sc->prep_cmd++;
    return SC_PREPARING;
}

/* The driver (engine/client_driver.h). */

void client_script_init(struct client *c, struct client_script *sc)
{
    const struct engine_config *cfg = c->w->run->cfg;
    c->kind = sc;
    /* Each client draws from its own stream, so a seeded run repeats its values. */
    rng_seed(&sc->rng, cfg->seed * 1000003ULL + (uint64_t)c->id);
    script_vars_init(&sc->vars, cfg->scripts);
    script_vars_set(&sc->vars, SCRIPT_VAR_SCALE, cfg->scale);
    script_vars_set(&sc->vars, SCRIPT_VAR_CLIENT_ID, c->id);
    /* As pgbench: the same default seed (for hash and permute) in every client. */
    uint64_t seed_state = cfg->seed;
    script_vars_set(&sc->vars, SCRIPT_VAR_DEFAULT_SEED,
                    (int64_t)(seed_state * 0x9e3779b97f4a7c15ULL));
    script_vars_set(&sc->vars, SCRIPT_VAR_RANDOM_SEED, (int64_t)cfg->seed);
    size_t n_cmds = (size_t)(c->w->run->n_cmds > 0 ? c->w->run->n_cmds : 1);
    sc->pipe_cmds = xcalloc(n_cmds, sizeof *sc->pipe_cmds);
    sc->pipe_start = xcalloc(n_cmds, sizeof *sc->pipe_start);
    buf_init(&sc->sql);
    int n = c->w->run->max_params > 0 ? c->w->run->max_params : 1;
    sc->param_values = xcalloc((size_t)n, sizeof *sc->param_values);
    sc->param_text = xcalloc((size_t)n, sizeof *sc->param_text);
}

void client_script_free(struct client *c)
{
    struct client_script *sc = script_of(c);
    script_vars_free(&sc->vars);
    pg_result_free(sc->held);
    sc->held = NULL;
    free(sc->pipe_cmds);
    free(sc->pipe_start);
    buf_free(&sc->sql);
    free(sc->param_values);
    free(sc->param_text);
}

static void script_init(struct client *c)
{
    client_script_init(c, xcalloc(1, sizeof(struct client_script)));
}

static void script_free(struct client *c)
{
    client_script_free(c);
    free(c->kind);
}

int client_script_start(struct client *c, time_ns now)
{
    (void)now;
    /* -C: the setup connection only proved the server reachable: each transaction connects
     * anew. */
    if (c->w->run->cfg->connect_per_tx)
        client_close(c);
    return SC_START_TX;
}

/* Runs the script client's states from state on, without returning to the dispatcher between
 * them (a transaction passes through five): to the state it waits in, or one of the core's. */
int client_script_step(struct client *c, int state, time_ns now)
{
    int next = state;
    do {
        switch ((enum script_state)next) {
        case SC_START_CMD:
            next = step_start_cmd(c, now);
            break;
        case SC_WAIT_RESULT:
            next = step_wait_result(c, now);
            break;
        case SC_END_TX:
            next = step_end_tx(c, now);
            break;
        case SC_START_TX:
            next = step_start_tx(c, now);
            break;
        case SC_PREPARING:
            next = step_preparing(c, now);
            break;
        case SC_WAIT_PREPARE:
            next = step_wait_prepare(c, now);
            break;
        case SC_ERROR:
            next = step_error(c, now);
            break;
        case SC_WAIT_ROLLBACK:
            next = step_wait_rollback(c, now);
            break;
        case SC_WAIT_PIPELINE:
            next = step_wait_pipeline(c, now);
            break;
        case SC_THROTTLE:
        case SC_SLEEP:
            return rest(next); /* waits for its timer */
        }
    } while (next >= CS_DRIVER);
    return next;
}

int client_script_timer(struct client *c, time_ns now)
{
    switch (c->state) {
    case SC_THROTTLE:
        return SC_START_TX;
    case CS_RECONNECT_WAIT:
        if (run_over(c, now))
            return client_finish(c);
        c->resume = SC_START_TX;
        return client_reconnect(c, now);
    case SC_PREPARING:
    case SC_WAIT_PREPARE:
        if (client_connect_timer(c, now))
            return client_connect_failed(c, "timed out connecting to server", now);
        /* Else the transaction's deadline (-C) is due. */
        return tx_timer(c, now);
    case CS_CONNECTING: /* the transaction's deadline (-C) */
    case SC_SLEEP:
    case SC_WAIT_RESULT:
    case SC_WAIT_PIPELINE:
    case SC_WAIT_ROLLBACK:
        return tx_timer(c, now);
    default:
        return rest(c->state);
    }
}

int client_script_connection_up(struct client *c, time_ns now)
{
    if (c->w->run->cfg->protocol == PROTO_PREPARED) {
        script_of(c)->prep_script = script_of(c)->prep_cmd = 0;
        return SC_PREPARING;
    }
    return script_connected(c, now);
}

int client_script_connect_failed(struct client *c, const char *what, time_ns now)
{
    (void)what;
    char line[200];
    pg_conn_error(c->conn, line, sizeof line);
    client_note_error(c, line);
    if (c->resume == SC_START_CMD) { /* -C: this transaction fails */
        c->failure = PGF_CONNECTION;
        client_record_failure(c, now, PGF_CONNECTION);
    }
    /* A failed reconnect is not a transaction: only the transaction it lost was counted. */
    return client_lost(c, now);
}

/* Whether the transaction in progress has sent SQL already (its commands before this one). */
static int sent_sql(const struct client *c)
{
    for (int k = 0; k < script_of(c)->cmd; k++)
        if (c->script->cmds[k].kind == CMD_SQL)
            return 1;
    return 0;
}

int client_script_run_ended(struct client *c, time_ns now)
{
    /* A client reconnecting between transactions has nothing to finish either: without this,
     * a server that does not answer (a partition) would hold the run past its end for as
     * long as the connection attempt may take. */
    int reconnecting =
        (c->state == CS_CONNECTING || c->state == SC_PREPARING || c->state == SC_WAIT_PREPARE) &&
        c->resume == SC_START_TX;
    if (reconnecting)
        client_close(c);
    if (reconnecting || c->state == SC_THROTTLE)
        return client_finish(c);
    if (c->state == SC_SLEEP && c->w->run->cfg->sleep_is_terminal_time) {
        /* A terminal keying (nothing sent yet) stops; one thinking after its SQL is done. */
        if (!sent_sql(c))
            return client_finish(c);
        script_of(c)->sleep_until = now;
        return tx_timer(c, now);
    }
    return rest(c->state);
}

const struct client_driver client_script_driver = {
    .init = script_init,
    CLIENT_SCRIPT_OPS,
    .free = script_free,
};
