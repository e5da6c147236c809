/* The order's give-way question, asked without waiting (giveway.h). */
#include "workload/replay/giveway.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

void giveway_init(struct giveway *g, const struct pg_connopts *own)
{
    memset(g, 0, sizeof *g);
    g->own = own;
}

static void drop(struct giveway *g)
{
    if (g->conn)
        pg_finish(g->conn);
    g->conn = NULL;
}

/* The question in flight answered (count, -1 when it failed). */
static void settle(struct giveway *g, long count)
{
    g->pending = 0;
    g->answered = 1;
    g->count = count;
    if (count < 0)
        drop(g);
}

/* Read what the connection has: the question in flight settled once its answer is whole. */
static void poll_answer(struct giveway *g)
{
    if (!g->pending)
        return;
    if (pg_flush(g->conn) < 0 || pg_consume(g->conn) < 0) {
        settle(g, -1);
        return;
    }
    long count = -1;
    while (!pg_is_busy(g->conn)) {
        struct pg_result *r = pg_next_result(g->conn);
        if (!r) {
            settle(g, count);
            return;
        }
        if (pg_result_status(r) == PG_RES_ROWS && pg_result_rows(r) == 1)
            count = atol(pg_result_value(r, 0, 0));
        pg_result_free(r);
    }
}

int giveway_ask(struct giveway *g, int pid, const char *victims, int64_t now_ns)
{
    poll_answer(g);
    if (g->pending)
        return 0;
    if (!g->conn) {
        struct err e = {0};
        g->conn = pg_connect_aux(g->own, PG_AUX_TIMEOUT_MS, &e);
        if (!g->conn || pg_set_nonblocking(g->conn) < 0) {
            drop(g);
            return -1;
        }
    }
    struct buf sql;
    buf_init(&sql);
    if (victims)
        buf_printf(&sql,
                   "WITH RECURSIVE b(pid) AS (SELECT unnest(pg_blocking_pids(v)) FROM "
                   "unnest('{%s}'::int[]) v UNION SELECT x FROM b, "
                   "unnest(pg_blocking_pids(b.pid)) x) SELECT count(*) FROM b WHERE pid = %d",
                   victims, pid);
    else
        buf_printf(&sql,
                   "WITH RECURSIVE b(pid) AS (SELECT pid FROM pg_stat_activity WHERE %d = ANY "
                   "(pg_blocking_pids(pid)) UNION SELECT a.pid FROM pg_stat_activity a JOIN b "
                   "ON b.pid = ANY (pg_blocking_pids(a.pid))) SELECT count(*) FROM b",
                   pid);
    int rc = pg_send_simple(g->conn, sql.data);
    buf_free(&sql);
    if (rc < 0 || pg_flush(g->conn) < 0) {
        drop(g);
        return -1;
    }
    g->pending = 1;
    g->answered = 0;
    g->asked_pid = pid;
    g->asked_ns = now_ns;
    return 1;
}

int giveway_answer(struct giveway *g, int pid, int64_t asked_ns, int *blocks)
{
    poll_answer(g);
    if (g->asked_pid != pid || g->asked_ns != asked_ns)
        return -1;
    if (g->pending)
        return 0;
    *blocks = g->count != 0;
    return 1;
}

void giveway_free(struct giveway *g)
{
    drop(g);
    memset(g, 0, sizeof *g);
}
