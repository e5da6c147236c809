#include "workload/load/load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "workload/load/load_int.h"
#include "os/net.h"
#include "os/os.h"

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

static int conn_failed(const struct pg_conn *c, const char *what, struct err *e)
{
    char line[512];
    pg_conn_error(c, line, sizeof line);
    return err_set(e, ERR_RUNTIME, "%s: %s", what, line);
}

static void cancel(struct pg_conn *c)
{
    struct pg_cancel *k = pg_cancel_new(c);
    if (k) {
        pg_cancel_send(k);
        pg_cancel_free(k);
    }
}

/* Wait for the statement in flight without blocking inside libpq, so that a stop request
 * can cancel a long CREATE INDEX or VACUUM. Returns 1 when it cancelled the statement. */
static int wait_result(struct load_ctx *x, struct pg_conn *c, const char *what, struct err *e)
{
    int cancelled = 0;
    while (pg_is_busy(c)) {
        if (!cancelled && load_stopped(x)) {
            cancel(c);
            cancelled = 1;
        }
        struct pollfd p = {.fd = pg_socket(c), .events = POLLIN};
        int n = os_poll(&p, 1, POLL_MS);
        if (n < 0 && errno != EINTR)
            return err_set(e, ERR_RUNTIME, "%s: poll: %s", what, strerror(errno));
        if (n > 0 && pg_consume(c) < 0)
            return conn_failed(c, what, e);
    }
    return cancelled;
}

int load_exec(struct load_ctx *x, struct pg_conn *c, const char *what, const char *sql,
              struct err *e)
{
    if (load_stopped(x))
        return err_set(e, ERR_RUNTIME, "interrupted");
    if (pg_send_simple(c, sql) < 0)
        return conn_failed(c, what, e);
    int w = wait_result(x, c, what, e);
    if (w < 0)
        return -1;
    int rc = pg_drain(c, what, e);
    if (w == 1 || (rc < 0 && load_stopped(x)))
        return err_set(e, ERR_RUNTIME, "interrupted");
    return rc;
}

int load_copy(struct load_ctx *x, struct pg_conn *c, const struct load_copy *cp, struct err *e)
{
    if (pg_copy_start(c, cp->sql, cp->sql, e) < 0)
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
        if (len > 0 && pg_copy_data(c, buf, len) < 0)
            rc = conn_failed(c, "COPY", e);
        else
            atomic_fetch_add(&x->rows_done, sent);
    }
    free(buf);
    if (rc == 1)
        return pg_copy_end(c, "interrupted", "COPY", e);
    return rc < 0 ? -1 : pg_copy_end(c, NULL, "COPY", e);
}

int load_default_jobs(void)
{
    long n = os_cpus();
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}
