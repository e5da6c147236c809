/* The order's give-way question, from snapshots of the server's lock waits (giveway.h). */
#include "workload/replay/giveway.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* Every backend waiting for a lock, with the backends it waits for (one per row). */
#define LOCK_WAITS_SQL                                                                             \
    "SELECT unnest(pg_blocking_pids(pid)) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"

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
    g->pending = 0;
}

/* The question in flight answered (its rows are the snapshot now), or failed. */
static void settle(struct giveway *g, int ok)
{
    g->snap_ns = g->pending_ns;
    g->failed = !ok;
    if (ok) {
        g->n_blockers = g->n_parsed - g->parsed_from;
        if (g->n_blockers && g->parsed_from)
            memmove(g->blockers, g->blockers + g->parsed_from, g->n_blockers * sizeof *g->blockers);
    } else {
        drop(g);
    }
    g->pending = 0;
}

static void keep_rows(struct giveway *g, const struct pg_result *r)
{
    int rows = pg_result_rows(r);
    for (int i = 0; i < rows; i++) {
        if (g->n_parsed == g->cap_blockers) {
            g->cap_blockers = g->cap_blockers ? 2 * g->cap_blockers : 16;
            g->blockers = xrealloc(g->blockers, g->cap_blockers * sizeof *g->blockers);
        }
        g->blockers[g->n_parsed++] = atoi(pg_result_value(r, i, 0));
    }
}

/* Read what the connection has: the question in flight settled once its answer is whole. */
static void poll_answer(struct giveway *g)
{
    if (!g->pending)
        return;
    if (pg_flush(g->conn) < 0 || pg_consume(g->conn) < 0) {
        settle(g, 0);
        return;
    }
    while (!pg_is_busy(g->conn)) {
        struct pg_result *r = pg_next_result(g->conn);
        if (!r) {
            settle(g, !g->failed);
            return;
        }
        if (pg_result_status(r) == PG_RES_ROWS)
            keep_rows(g, r);
        else
            g->failed = 1; /* (settled when the results end) */
        pg_result_free(r);
    }
}

/* Ask for a new snapshot: 0 asked, -1 it cannot be asked (no connection). */
static int ask(struct giveway *g, int64_t now_ns)
{
    if (!g->conn) {
        struct err e = {0};
        g->conn = pg_connect_aux(g->own, PG_AUX_TIMEOUT_MS, &e);
        if (!g->conn || pg_set_nonblocking(g->conn) < 0) {
            drop(g);
            return -1;
        }
    }
    if (pg_send_simple(g->conn, LOCK_WAITS_SQL) < 0 || pg_flush(g->conn) < 0) {
        drop(g);
        return -1;
    }
    g->pending = 1;
    g->pending_ns = now_ns;
    g->failed = 0;
    g->parsed_from = g->n_parsed = g->n_blockers; /* the snapshot stays readable meanwhile */
    return 0;
}

int giveway_blocks(struct giveway *g, int pid, int64_t since_ns, int64_t now_ns)
{
    poll_answer(g);
    if (g->snap_ns && g->snap_ns >= since_ns) {
        if (g->failed)
            return 1;
        for (size_t i = 0; i < g->n_blockers; i++)
            if (g->blockers[i] == pid)
                return 1;
        return 0;
    }
    if (!g->pending && ask(g, now_ns) < 0) {
        g->snap_ns = now_ns; /* a snapshot that failed: the askers give way */
        g->failed = 1;
        return 1;
    }
    return -1;
}

void giveway_free(struct giveway *g)
{
    drop(g);
    free(g->blockers);
    memset(g, 0, sizeof *g);
}
