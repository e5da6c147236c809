#include "workload/load.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "workload/load_int.h"

/* Bytes of COPY data handed to libpq at a time: big enough that the per-call and per-write
 * costs vanish, small enough that interruption is noticed quickly. */
#define LOAD_CHUNK (64 * 1024)

#define REPORT_EVERY_NS (100 * NS_PER_MS)
#define POLL_MS         50

void load_ctx_init(struct load_ctx *x, const struct load_options *opt)
{
    x->opt = opt;
    x->phase = "load";
    x->rows_total = 0;
    atomic_init(&x->rows_done, 0);
    atomic_init(&x->abort, 0);
    x->last_report_ns = 0;
    x->last_rows = -1;
    x->last_phase = NULL;
}

static void report(struct load_ctx *x, int force)
{
    if (!x->opt->progress)
        return;
    time_ns now = clock_now_ns();
    struct load_progress p = {atomic_load(&x->rows_done), x->rows_total, x->phase};
    if (force && p.rows_done == x->last_rows && p.phase == x->last_phase)
        return;
    if (!force && x->last_report_ns && now - x->last_report_ns < REPORT_EVERY_NS)
        return;
    x->last_report_ns = now;
    x->last_rows = p.rows_done;
    x->last_phase = p.phase;
    x->opt->progress(&p, x->opt->progress_arg);
}

void load_phase(struct load_ctx *x, const char *phase, int64_t rows_total)
{
    x->phase = phase;
    x->rows_total = rows_total;
    atomic_store(&x->rows_done, 0);
    report(x, 0);
}

void load_advance(struct load_ctx *x, int64_t rows)
{
    atomic_fetch_add(&x->rows_done, rows);
    report(x, 0);
}

void load_phase_end(struct load_ctx *x)
{
    report(x, 1);
}

int load_stopped(struct load_ctx *x)
{
    /* The signal handler's flag is read only here, on the calling thread; workers see its
     * copy in the atomic abort. */
    if (x->opt->stop_requested && *x->opt->stop_requested)
        atomic_store(&x->abort, 1);
    return atomic_load(&x->abort);
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

/* ---- statements ---- */

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

/* Collect the results of the statement in flight; the first failure goes into e. */
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

static int conn_failed(PGconn *c, const char *what, struct err *e)
{
    char line[512];
    pg_error_line(c, NULL, line, sizeof line);
    return err_set(e, ERR_RUNTIME, "%s: %s", what, line);
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

/* Wait for the statement in flight without blocking in libpq, so that progress keeps coming
 * and Ctrl-C can cancel a long CREATE INDEX or VACUUM. Returns 1 when cancelled. */
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
        report(x, 0);
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

/* ---- COPY ---- */

/* End the COPY in progress: normally, or (abort_msg) making the server fail it. */
static int copy_end(PGconn *c, const char *abort_msg, struct err *e)
{
    if (PQputCopyEnd(c, abort_msg) != 1)
        return conn_failed(c, "COPY", e);
    if (abort_msg) {
        drain_results(c, "COPY", NULL);
        return -1;
    }
    return drain_results(c, "COPY", e);
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

/* Stream rows [first, end) of cp. on_main: the calling thread, which reports progress and
 * reads the stop flag itself; a worker only follows x->abort. Returns 1 when interrupted. */
static int copy_rows(struct load_ctx *x, PGconn *c, const struct load_copy *cp, int64_t first,
                     int64_t end, int on_main, struct err *e)
{
    if (copy_start(c, cp->sql, e) < 0)
        return -1;
    char *buf = xmalloc(LOAD_CHUNK + LOAD_ROW_MAX);
    int rc = 0;
    for (int64_t row = first; row < end && rc == 0;) {
        if (on_main ? load_stopped(x) : atomic_load(&x->abort)) {
            rc = 1;
            break;
        }
        int64_t from = row;
        size_t len = 0;
        while (row < end && len < LOAD_CHUNK)
            len += cp->row(buf + len, row++);
        if (PQputCopyData(c, buf, (int)len) != 1)
            rc = conn_failed(c, "COPY", e);
        else if (on_main)
            load_advance(x, row - from);
        else
            atomic_fetch_add(&x->rows_done, row - from);
    }
    free(buf);
    if (rc == 1) {
        copy_end(c, "interrupted", NULL);
        return 1;
    }
    return rc < 0 ? -1 : copy_end(c, NULL, e);
}

int load_copy(struct load_ctx *x, PGconn *c, const struct load_copy *cp, struct err *e)
{
    int rc = copy_rows(x, c, cp, cp->first, cp->end, 1, e);
    if (rc == 1)
        return err_set(e, ERR_RUNTIME, "interrupted");
    return rc;
}

/* ---- parallel COPY ---- */

struct copy_worker {
    pthread_t thread;
    struct load_ctx *x;
    const struct pg_connopts *conn;
    const struct load_copy *cp;
    int64_t first, end;
    atomic_int *n_finished;
    int rc; /* 0 done, 1 stopped by x->abort, -1 failed (err) */
    struct err err;
};

static void *copy_worker_main(void *arg)
{
    struct copy_worker *w = arg;
    PGconn *c = load_connect(w->conn, &w->err);
    if (!c) {
        w->rc = -1;
    } else {
        w->rc = copy_rows(w->x, c, w->cp, w->first, w->end, 0, &w->err);
        PQfinish(c);
    }
    if (w->rc < 0)
        atomic_store(&w->x->abort, 1); /* the others stop: the load has failed anyway */
    atomic_fetch_add(w->n_finished, 1);
    return NULL;
}

/* Report progress and pass on Ctrl-C until all n started workers are done. */
static void watch_workers(struct load_ctx *x, atomic_int *n_finished, int n)
{
    const struct timespec nap = {0, POLL_MS * NS_PER_MS / 5};
    while (atomic_load(n_finished) < n) {
        load_stopped(x);
        report(x, 0);
        nanosleep(&nap, NULL);
    }
}

/* The first real failure among the workers, else "interrupted" if any was stopped. */
static int workers_result(struct copy_worker *w, int n, struct err *e)
{
    int stopped = 0;
    for (int i = 0; i < n; i++) {
        if (w[i].rc < 0) {
            *e = w[i].err;
            return -1;
        }
        stopped |= w[i].rc == 1;
    }
    return stopped ? err_set(e, ERR_RUNTIME, "interrupted") : 0;
}

int load_copy_parallel(struct load_ctx *x, const struct pg_connopts *conn, int jobs,
                       const struct load_copy *cp, struct err *e)
{
    int64_t rows = cp->end - cp->first;
    if (jobs > rows)
        jobs = rows > 0 ? (int)rows : 1;
    struct copy_worker *w = xcalloc((size_t)jobs, sizeof *w);
    atomic_int n_finished;
    atomic_init(&n_finished, 0);
    int started = 0, rc = 0;
    for (; started < jobs; started++) {
        struct copy_worker *k = &w[started];
        *k = (struct copy_worker){.x = x, .conn = conn, .cp = cp, .n_finished = &n_finished};
        k->first = cp->first + rows * started / jobs;
        k->end = cp->first + rows * (started + 1) / jobs;
        int err = pthread_create(&k->thread, NULL, copy_worker_main, k);
        if (err) {
            atomic_store(&x->abort, 1);
            rc = err_set(e, ERR_RUNTIME, "could not start a loader thread: %s", strerror(err));
            break;
        }
    }
    watch_workers(x, &n_finished, started);
    for (int i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    if (rc == 0)
        rc = workers_result(w, started, e);
    free(w);
    return rc;
}
