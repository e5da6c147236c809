#include "workload/load.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "workload/load_int.h"

/* Bytes of COPY data handed to libpq at a time: big enough that the per-call and per-write
 * costs vanish, small enough that a stop request is noticed within milliseconds. */
#define LOAD_CHUNK (64 * 1024)

#define POLL_MS 50

int load_stopped(struct load_ctx *x)
{
    if (x->opt->stop_requested && *x->opt->stop_requested)
        atomic_store(&x->stopped, 1);
    return atomic_load(&x->stopped);
}

char *load_put_int(char *p, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *p++ = '-';
    while (n)
        *p++ = tmp[--n];
    return p;
}

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

PGconn *load_connect(const struct pg_connopts *conn, struct err *e)
{
    PGconn *c = pg_connect(conn, e);
    if (c)
        PQsetNoticeProcessor(c, ignore_notice, NULL);
    return c;
}

/* The server's message, with its DETAIL when there is one: "cannot drop desired object(s)"
 * alone does not say that a view depends on pgbench_accounts. */
static int result_failed(PGconn *c, const PGresult *r, const char *what, struct err *e)
{
    char line[512];
    pg_error_line(c, r, line, sizeof line);
    const char *detail = PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL);
    if (!detail)
        return err_set(e, ERR_RUNTIME, "%s: %s", what, line);
    int n = (int)strcspn(detail, "\n");
    return err_set(e, ERR_RUNTIME, "%s: %s (%.*s)", what, line, n, detail);
}

static int conn_failed(PGconn *c, const char *what, struct err *e)
{
    char line[512];
    pg_error_line(c, NULL, line, sizeof line);
    return err_set(e, ERR_RUNTIME, "%s: %s", what, line);
}

/* Collect the results of the statements in flight; the first failure goes into e. */
static int drain_results(PGconn *c, const char *what, struct err *e)
{
    int rc = 0;
    PGresult *r;
    while ((r = PQgetResult(c)) != NULL) {
        ExecStatusType st = PQresultStatus(r);
        if (rc == 0 && st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
            rc = result_failed(c, r, what, e);
        PQclear(r);
    }
    return rc;
}

static void cancel(PGconn *c)
{
    PGcancel *k = PQgetCancel(c);
    char buf[256];
    if (k) {
        PQcancel(k, buf, sizeof buf);
        PQfreeCancel(k);
    }
}

/* Wait for the statement in flight without blocking inside libpq, so that a stop request
 * can cancel a long CREATE INDEX or VACUUM. Returns 1 when it cancelled the statement. */
static int wait_result(struct load_ctx *x, PGconn *c, const char *what, struct err *e)
{
    int cancelled = 0;
    while (PQisBusy(c)) {
        if (!cancelled && load_stopped(x)) {
            cancel(c);
            cancelled = 1;
        }
        struct pollfd p = {.fd = PQsocket(c), .events = POLLIN};
        int n = poll(&p, 1, POLL_MS);
        if (n < 0 && errno != EINTR)
            return err_set(e, ERR_RUNTIME, "%s: poll: %s", what, strerror(errno));
        if (n > 0 && !PQconsumeInput(c))
            return conn_failed(c, what, e);
    }
    return cancelled;
}

int load_exec(struct load_ctx *x, PGconn *c, const char *what, const char *sql, struct err *e)
{
    if (load_stopped(x))
        return err_set(e, ERR_RUNTIME, "interrupted");
    if (!PQsendQuery(c, sql))
        return conn_failed(c, what, e);
    int w = wait_result(x, c, what, e);
    if (w < 0)
        return -1;
    int rc = drain_results(c, what, e);
    if (w == 1 || (rc < 0 && load_stopped(x)))
        return err_set(e, ERR_RUNTIME, "interrupted");
    return rc;
}

static int copy_start(PGconn *c, const char *sql, struct err *e)
{
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == PGRES_COPY_IN;
    if (!ok)
        result_failed(c, r, sql, e);
    PQclear(r);
    return ok ? 0 : -1;
}

/* End the COPY in progress: normally, or with abort_msg, making the server fail it (and so
 * the transaction) rather than leaving it to notice a vanished client. */
static int copy_end(PGconn *c, const char *abort_msg, struct err *e)
{
    if (PQputCopyEnd(c, abort_msg) != 1)
        return conn_failed(c, "COPY", e);
    if (abort_msg) {
        drain_results(c, "COPY", NULL);
        return err_set(e, ERR_RUNTIME, "%s", abort_msg);
    }
    return drain_results(c, "COPY", e);
}

int load_copy(struct load_ctx *x, PGconn *c, const struct load_copy *cp, struct err *e)
{
    if (copy_start(c, cp->sql, e) < 0)
        return -1;
    char *buf = xmalloc(LOAD_CHUNK + LOAD_ROW_MAX);
    int rc = 0;
    for (int64_t row = cp->first; row < cp->end && rc == 0;) {
        if (load_stopped(x)) {
            rc = 1;
            break;
        }
        int64_t sent = 0;
        size_t len = 0;
        while (row < cp->end && len < LOAD_CHUNK) {
            size_t n = cp->row(cp->arg, buf + len, row++);
            len += n;
            sent += n > 0;
        }
        if (len > 0 && PQputCopyData(c, buf, (int)len) != 1)
            rc = conn_failed(c, "COPY", e);
        else
            atomic_fetch_add(&x->rows_done, sent);
    }
    free(buf);
    if (rc == 1)
        return copy_end(c, "interrupted", e);
    return rc < 0 ? -1 : copy_end(c, NULL, e);
}
