#include "engine/client_int.h"
#include "engine/client_script.h"

#include <stdio.h>
#include <string.h>

/* Moving bytes for a client: flushing what was sent, reading results as they arrive, and
 * applying \gset and \aset. */

int client_flush(struct client *c)
{
    int r = pg_flush(c->conn);
    if (r < 0)
        return -1;
    client_watch(c, r == 1 ? EV_READ | EV_WRITE : EV_READ);
    return 0;
}

/* \gset, \aset: the columns of the result's last row become variables (prefix + column
 * name). Only variables some command reads exist; other columns are skipped. A column whose
 * name is no variable name fails the command, as in pgbench. Returns 0, or -1 (failed). */
static int store_row(struct client *c, const struct script_command *cmd,
                     const struct pg_result *res)
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
            client_note_error(c, msg);
            c->failure = PGF_OTHER;
            return -1;
        }
        for (int v = 0; v < set->n_vars; v++) {
            const char *name = set->var_names[v];
            if (strncmp(name, cmd->gset_prefix, plen) != 0 || strcmp(name + plen, col) != 0)
                continue;
            if (pg_result_isnull(res, row, f))
                script_vars_set_value(&script_of(c)->vars, v, value_null());
            else
                script_vars_set_text(&script_of(c)->vars, v, pg_result_value(res, row, f));
            break;
        }
    }
    return 0;
}

/* The server asks for COPY rows: a script has none to send and no place for those it would
 * read (the parser refuses the COPY it sees). Left in COPY, the connection hands out the
 * COPY's result again and again: the COPY FROM STDIN is failed at once, a COPY TO STDOUT's
 * rows are dropped as they come, and the client is aborted, as pgbench aborts it. */
static int refuse_copy(struct client *c, const struct script_command *cmd, enum pg_status st,
                       int *ok)
{
    const char *what = st == PG_RES_COPY_IN ? "FROM STDIN" : "TO STDOUT";
    if (*ok) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "client %d aborted at %s:%d: COPY ... %s is not supported in a script", c->id,
                 c->script ? c->script->name : "?", cmd ? cmd->line : 0, what);
        client_note_error(c, msg);
        c->failure = PGF_OTHER;
    }
    *ok = 0;
    if (!c->aborted) {
        c->aborted = 1;
        c->w->n_aborted++;
    }
    if (st == PG_RES_COPY_OUT) {
        c->copy_out = 1;
        return 0;
    }
    if (pg_put_copy_end(c->conn, "COPY FROM STDIN is not supported in a pgarena script") < 0)
        return -1;
    return client_flush(c);
}

int client_copy_skip(struct client *c)
{
    int r;
    while ((r = pg_get_copy_data(c->conn)) > 0)
        ;
    return r == 0 ? 0 : r == -1 ? 1 : -1;
}

int client_take_result(struct client *c, const struct script_command *cmd, struct pg_result *res,
                       int *ok)
{
    enum pg_status st = pg_result_status(res);
    if (c->w->run->cfg->debug)
        fprintf(stderr, "client %d receiving\n", c->id);
    if (st == PG_RES_COPY_IN || st == PG_RES_COPY_OUT) {
        pg_result_free(res);
        return refuse_copy(c, cmd, st, ok);
    }
    if (st != PG_RES_COMMAND && st != PG_RES_ROWS && st != PG_RES_EMPTY) {
        if (*ok) {
            c->failure = c->cancelled ? PGF_TIMEOUT : pg_classify(c->conn, res);
            char line[256];
            pg_error_line(c->conn, res, line, sizeof line);
            client_note_error(c, line);
        }
        *ok = 0;
    } else if (st == PG_RES_ROWS && cmd && cmd->gset != GSET_NONE && *ok) {
        if (cmd->gset == GSET_ALL) {
            if (pg_result_rows(res) > 0 && store_row(c, cmd, res) < 0)
                *ok = 0;
        } else {
            pg_result_free(script_of(c)->held);
            script_of(c)->held = res; /* applied once the command's last result is known */
            return 0;
        }
    }
    pg_result_free(res);
    return 0;
}

void client_end_results(struct client *c, const struct script_command *cmd, int *ok)
{
    if (!cmd || cmd->gset != GSET_LAST || !*ok) {
        pg_result_free(script_of(c)->held);
        script_of(c)->held = NULL;
        return;
    }
    int rows = script_of(c)->held ? pg_result_rows(script_of(c)->held) : -1;
    if (rows == 1) {
        if (store_row(c, cmd, script_of(c)->held) < 0)
            *ok = 0;
    } else {
        char msg[100];
        snprintf(msg, sizeof msg, "\\gset expects one row, got %d", rows < 0 ? 0 : rows);
        client_note_error(c, msg);
        c->failure = PGF_OTHER;
        *ok = 0;
    }
    pg_result_free(script_of(c)->held);
    script_of(c)->held = NULL;
}

int client_flush_consume(struct client *c)
{
    if (c->watch.events & EV_WRITE) {
        int r = pg_flush(c->conn);
        if (r < 0)
            return -1;
        if (r == 1)
            return 0;
        client_watch(c, EV_READ);
    }
    return pg_consume(c->conn) < 0 ? -1 : 1;
}

int client_drain(struct client *c, const struct script_command *cmd, int *ok)
{
    int sent = client_flush_consume(c);
    if (sent <= 0)
        return sent;
    for (;;) {
        if (c->copy_out) {
            int r = client_copy_skip(c);
            if (r <= 0)
                return r;
            c->copy_out = 0;
        }
        /* A stop is seen between results too: results the connection hands out without end
         * must not keep the worker from its event wait, where the stop ends the run. */
        if (pg_is_busy(c->conn) || atomic_load_explicit(&engine_stop_flag, memory_order_relaxed))
            return 0;
        struct pg_result *res = pg_next_result(c->conn);
        if (!res) {
            client_end_results(c, cmd, ok);
            return 1;
        }
        if (client_take_result(c, cmd, res, ok) < 0)
            return -1;
    }
}
