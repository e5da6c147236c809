#include "pg/pg_libpq.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "os/net.h"

/* Auxiliary connections (pg_connect_aux) and the blocking calls of pg_exec.c, bounded by the
 * connection's deadline when it has one. A frozen server (SIGSTOP, a hung host) answers
 * nothing, not even statement_timeout, so the client keeps a clock of its own. */

/* libpq's smallest useful connect_timeout is 2 s; a little more keeps a slow but live server
 * reachable on a loaded machine. */
#define AUX_CONNECT_TIMEOUT_S 3

static PGresult *exec_unbounded(PGconn *pc, const char *sql, int n, const char *const *values)
{
    return n > 0 ? PQexecParams(pc, sql, n, NULL, values, NULL, NULL, 0) : PQexec(pc, sql);
}

/* PQcancel blocks until the server answers, which a frozen one never does: it runs on a
 * thread of its own that nobody waits for, and ends with the process if it must. */
static void *cancel_main(void *arg)
{
    char why[256];
    PQcancel(arg, why, sizeof why);
    PQfreeCancel(arg);
    return NULL;
}

static void cancel_detached(PGconn *pc)
{
    PGcancel *k = PQgetCancel(pc);
    pthread_t t;
    pthread_attr_t attr;
    if (!k)
        return;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, cancel_main, k) != 0)
        PQfreeCancel(k);
    pthread_attr_destroy(&attr);
}

/* Wait until PQgetResult would not block, or the deadline: 0, or -1 when it passed. */
static int wait_ready(PGconn *pc, time_ns deadline)
{
    while (PQisBusy(pc)) {
        time_ns left = deadline - clock_now_ns();
        if (left <= 0)
            return -1;
        struct pollfd p = {PQsocket(pc), POLLIN, 0};
        int r = os_poll(&p, 1, (int)((left + NS_PER_MS - 1) / NS_PER_MS));
        if (r < 0 && errno != EINTR)
            return 0; /* PQgetResult reports the broken connection */
        if (r > 0 && !PQconsumeInput(pc))
            return 0;
    }
    return 0;
}

/* The results of a statement just sent, as PQexec gives them: the last one, or the first
 * failure. NULL when the deadline passed: the statement is cancelled and the connection
 * marked unusable. */
static PGresult *collect(struct pg_libpq_conn *w, int sent)
{
    if (!sent)
        return NULL;
    time_ns deadline = clock_now_ns() + (time_ns)w->aux_timeout_ms * NS_PER_MS;
    PGresult *keep = NULL, *r;
    for (;;) {
        if (wait_ready(w->c, deadline) < 0) {
            PQclear(keep);
            cancel_detached(w->c);
            w->timed_out = 1;
            snprintf(w->missed, sizeof w->missed, "no answer from the server within %d ms",
                     w->aux_timeout_ms);
            return NULL;
        }
        if ((r = PQgetResult(w->c)) == NULL)
            break;
        ExecStatusType st = PQresultStatus(r);
        if (keep && PQresultStatus(keep) == PGRES_FATAL_ERROR) {
            PQclear(r);
        } else {
            PQclear(keep);
            keep = r;
        }
        if (st == PGRES_COPY_IN || st == PGRES_COPY_OUT || st == PGRES_COPY_BOTH)
            break;
    }
    return keep;
}

static struct pg_libpq_conn *bounded(struct pg_conn *c)
{
    struct pg_libpq_conn *w = (struct pg_libpq_conn *)c;
    return w->aux_timeout_ms > 0 ? w : NULL;
}

PGresult *pg_libpq_exec(struct pg_conn *c, const char *sql, int n, const char *const *values)
{
    struct pg_libpq_conn *w = bounded(c);
    if (!w)
        return exec_unbounded(PG_LIBPQ(c), sql, n, values);
    if (w->timed_out)
        return NULL;
    int sent = n > 0 ? PQsendQueryParams(w->c, sql, n, NULL, values, NULL, NULL, 0)
                     : PQsendQuery(w->c, sql);
    return collect(w, sent);
}

PGresult *pg_libpq_exec_prepared(struct pg_conn *c, const char *name, int n,
                                 const char *const *values)
{
    struct pg_libpq_conn *w = bounded(c);
    if (!w)
        return PQexecPrepared(PG_LIBPQ(c), name, n, values, NULL, NULL, 0);
    if (w->timed_out)
        return NULL;
    return collect(w, PQsendQueryPrepared(w->c, name, n, values, NULL, NULL, 0));
}

PGresult *pg_libpq_prepare(struct pg_conn *c, const char *name, const char *sql, int n)
{
    struct pg_libpq_conn *w = bounded(c);
    if (!w)
        return PQprepare(PG_LIBPQ(c), name, sql, n, NULL);
    if (w->timed_out)
        return NULL;
    return collect(w, PQsendPrepare(w->c, name, sql, n, NULL));
}

struct pg_conn *pg_connect_aux(const struct pg_connopts *o, int timeout_ms, struct err *e)
{
    struct pg_conn *c = pg_connect_within(o, AUX_CONNECT_TIMEOUT_S, e);
    if (!c)
        return NULL;
    char line[512];
    struct pg_libpq_conn *w = (struct pg_libpq_conn *)c;
    w->aux_timeout_ms = timeout_ms;
    /* A SET rather than the startup packet's options: a pooler (pgbouncer) refuses those. */
    char set[64];
    snprintf(set, sizeof set, "SET statement_timeout = %d", timeout_ms);
    if (pg_exec(c, set, e) < 0) {
        snprintf(line, sizeof line, "%.400s", e->msg);
        err_set(e, ERR_RUNTIME, "could not connect to server: %s", line);
        pg_finish(c);
        return NULL;
    }
    return c;
}
