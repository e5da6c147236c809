#include "pg/pg_libpq.h"
#include "os/net.h"

#include <assert.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>

/* Blocking helpers for setup work, COPY for the loaders, and what a connection reports.
 * Setup work always runs on libpq's connections (pg_connect), never on a test's fake. */

static PGconn *real(const struct pg_conn *c)
{
    assert(c->drv == &pg_libpq_driver);
    return PG_LIBPQ(c);
}

/* Connect with keywords kw and values val (NULL-terminated). */
static struct pg_conn *connect_params(const char *const *kw, const char *const *val, struct err *e)
{
    PGconn *pc = PQconnectdbParams(kw, val, 1);
    if (!pc) {
        err_set(e, ERR_RUNTIME, "could not connect: out of memory");
        return NULL;
    }
    struct pg_conn *c = pg_libpq_wrap(pc);
    if (PQstatus(pc) != CONNECTION_OK) {
        char line[512];
        pg_conn_error(c, line, sizeof line);
        err_set(e, ERR_RUNTIME, "could not connect to server: %s", line);
        pg_finish(c);
        return NULL;
    }
    return c;
}

struct pg_conn *pg_connect(const struct pg_connopts *o, struct err *e)
{
    const char *kw[PG_CONN_PARAMS], *val[PG_CONN_PARAMS];
    pg_connopts_params(o, kw, val);
    return connect_params(kw, val, e);
}

struct pg_conn *pg_connect_within(const struct pg_connopts *o, int timeout_s, struct err *e)
{
    /* connect_timeout first: a conninfo that sets its own overrides it. */
    const char *kw[PG_CONN_PARAMS + 1], *val[PG_CONN_PARAMS + 1];
    char seconds[16];
    snprintf(seconds, sizeof seconds, "%d", timeout_s);
    kw[0] = "connect_timeout";
    val[0] = seconds;
    pg_connopts_params(o, kw + 1, val + 1);
    return connect_params(kw, val, e);
}

/* The error of a failed result as "what: message (detail)", or the message alone without
 * what. */
static int result_failed(const struct pg_conn *c, const struct pg_result *r, const char *what,
                         struct err *e)
{
    char line[512];
    pg_error_line(c, r, line, sizeof line);
    const char *detail = r ? pg_result_detail(r) : NULL;
    int n = detail ? (int)strcspn(detail, "\n") : 0;
    if (!what)
        return err_set(e, ERR_RUNTIME, "%s", line);
    if (!detail)
        return err_set(e, ERR_RUNTIME, "%s: %s", what, line);
    return err_set(e, ERR_RUNTIME, "%s: %s (%.*s)", what, line, n, detail);
}

/* Free r: 0 when it is a command's or a query's success, else -1 with e set. */
static int done_ok(struct pg_conn *c, struct pg_result *r, struct err *e)
{
    int ok = r && (pg_result_status(r) == PG_RES_COMMAND || pg_result_status(r) == PG_RES_ROWS);
    if (!ok) {
        char line[512];
        pg_error_line(c, r, line, sizeof line);
        err_set(e, ERR_RUNTIME, "%s", line);
    }
    pg_result_free(r);
    return ok ? 0 : -1;
}

int pg_exec(struct pg_conn *c, const char *sql, struct err *e)
{
    return done_ok(c, pg_libpq_result(pg_libpq_exec(c, sql, 0, NULL)), e);
}

/* r when it holds rows; else NULL with e set (r freed). */
static struct pg_result *rows_or_null(struct pg_conn *c, struct pg_result *r, struct err *e)
{
    if (r && pg_result_status(r) == PG_RES_ROWS)
        return r;
    char line[512];
    pg_error_line(c, r, line, sizeof line);
    err_set(e, ERR_RUNTIME, "%s", line);
    pg_result_free(r);
    return NULL;
}

struct pg_result *pg_query(struct pg_conn *c, const char *sql, int n, const char *const *values,
                           struct err *e)
{
    return rows_or_null(c, pg_libpq_result(pg_libpq_exec(c, sql, n, values)), e);
}

int pg_prepare(struct pg_conn *c, const char *name, const char *sql, int n, struct err *e)
{
    return done_ok(c, pg_libpq_result(pg_libpq_prepare(c, name, sql, n)), e);
}

struct pg_result *pg_query_prepared(struct pg_conn *c, const char *name, int n,
                                    const char *const *values, struct err *e)
{
    return rows_or_null(c, pg_libpq_result(pg_libpq_exec_prepared(c, name, n, values)), e);
}

struct pg_result *pg_query_state(struct pg_conn *c, const char *sql, int n,
                                 const char *const *values, char *sqlstate, struct err *e)
{
    struct pg_result *r = pg_libpq_result(pg_libpq_exec(c, sql, n, values));
    sqlstate[0] = '\0';
    if (r && (pg_result_status(r) == PG_RES_ROWS || pg_result_status(r) == PG_RES_COMMAND))
        return r;
    const char *state = r ? pg_result_sqlstate(r) : NULL;
    if (state) {
        memcpy(sqlstate, state, strnlen(state, 5));
        sqlstate[strnlen(state, 5)] = '\0';
    }
    char line[512];
    pg_error_line(c, r, line, sizeof line);
    err_set(e, ERR_RUNTIME, "%s", line);
    pg_result_free(r);
    return NULL;
}

/* Drain the notifications libpq has read: 1 when there was one. */
static int drain_notifies(PGconn *pc)
{
    int got = 0;
    PGnotify *n;
    while ((n = PQnotifies(pc)) != NULL) {
        got = 1;
        PQfreemem(n);
    }
    return got;
}

int pg_wait_notify(struct pg_conn *c, int timeout_ms)
{
    PGconn *pc = real(c);
    if (!PQconsumeInput(pc))
        return -1;
    if (drain_notifies(pc))
        return 1;
    struct pollfd p = {PQsocket(pc), POLLIN, 0};
    int r = os_poll(&p, 1, timeout_ms);
    if (r < 0)
        return errno == EINTR ? 0 : -1;
    if (r == 0)
        return 0;
    if (!PQconsumeInput(pc))
        return -1;
    return drain_notifies(pc);
}

int pg_query_value(struct pg_conn *c, const char *sql, char *out, size_t out_size, struct err *e)
{
    struct pg_result *r = pg_query(c, sql, 0, NULL, e);
    if (!r)
        return -1;
    if (pg_result_rows(r) < 1 || pg_result_cols(r) < 1) {
        err_set(e, ERR_RUNTIME, "query returned no rows: %s", sql);
        pg_result_free(r);
        return -1;
    }
    const char *v = pg_result_value(r, 0, 0);
    size_t n = strlen(v);
    if (n >= out_size)
        n = out_size - 1;
    memcpy(out, v, n);
    out[n] = '\0';
    pg_result_free(r);
    return 0;
}

const char *pg_parameter(const struct pg_conn *c, const char *name)
{
    return PQparameterStatus(real(c), name);
}

int pg_server_version(const struct pg_conn *c)
{
    return PQserverVersion(real(c));
}

const char *pg_host(const struct pg_conn *c)
{
    return PQhost(real(c));
}

const char *pg_hostaddr(const struct pg_conn *c)
{
    return PQhostaddr(real(c));
}

int pg_backend_pid(const struct pg_conn *c)
{
    return c && c->drv == &pg_libpq_driver ? PQbackendPID(PG_LIBPQ(c)) : 0;
}

int pg_ssl_in_use(const struct pg_conn *c)
{
    return PQsslInUse(real(c));
}

int pg_drain(struct pg_conn *c, const char *what, struct err *e)
{
    int rc = 0;
    PGresult *pr;
    while ((pr = PQgetResult(real(c))) != NULL) {
        struct pg_result *r = pg_libpq_result(pr);
        enum pg_status st = pg_result_status(r);
        if (rc == 0 && st != PG_RES_COMMAND && st != PG_RES_ROWS) {
            rc = -1;
            if (e)
                result_failed(c, r, what, e);
        }
        pg_result_free(r);
    }
    return rc;
}

int pg_copy_start(struct pg_conn *c, const char *sql, const char *what, struct err *e)
{
    struct pg_result *r = pg_libpq_result(PQexec(real(c), sql));
    int ok = r && pg_result_status(r) == PG_RES_COPY_IN;
    if (!ok)
        result_failed(c, r, what, e);
    pg_result_free(r);
    return ok ? 0 : -1;
}

int pg_copy_data(struct pg_conn *c, const char *data, size_t len)
{
    return PQputCopyData(real(c), data, (int)len) == 1 ? 0 : -1;
}

int pg_copy_end(struct pg_conn *c, const char *abort_msg, const char *what, struct err *e)
{
    if (PQputCopyEnd(real(c), abort_msg) != 1) {
        char line[512];
        pg_conn_error(c, line, sizeof line);
        return err_set(e, ERR_RUNTIME, "%s: %s", what, line);
    }
    if (abort_msg) {
        pg_drain(c, what, NULL);
        return err_set(e, ERR_RUNTIME, "%s", abort_msg);
    }
    return pg_drain(c, what, e);
}
