#include <stdio.h>

#include "engine/engine_int.h"

/* A -T run whose transactions are still in flight well after its end: is the server there?
 * A measured statement is the user's and may take as long as it takes (--timeout is theirs),
 * so the run waits for it as long as the server answers a probe on a connection of its own;
 * a server that answers nothing (frozen, its host hung) ends the run as server-lost. */

/* The wait after the end before the first probe, beyond --timeout, and between probes. */
#define OVERDUE_GRACE_NS (5 * NS_PER_S)

/* 1 when the server answers a trivial query within the auxiliary connection's bounds. */
static int server_answers(const struct engine_config *cfg, struct err *e)
{
    struct pg_conn *c = pg_connect_aux(cfg->conn, PG_AUX_TIMEOUT_MS, e);
    char v[8];
    int ok = c && pg_query_value(c, "SELECT 1", v, sizeof v, e) == 0;
    pg_finish(c);
    return ok;
}

void engine_state_check_overdue(struct engine_state *run, time_ns now, time_ns *probe_at)
{
    if (run->end_ns == 0 || atomic_load(&run->server_lost))
        return;
    if (*probe_at == 0)
        *probe_at = run->end_ns + run->cfg->timeout_us * NS_PER_US + OVERDUE_GRACE_NS;
    if (now < *probe_at)
        return;
    struct err e = {0};
    if (server_answers(run->cfg, &e)) {
        *probe_at = clock_now_ns() + OVERDUE_GRACE_NS;
        return;
    }
    snprintf(run->overdue_note, sizeof run->overdue_note,
             "transactions still in flight %.0f s after the run's end, and the server does not "
             "answer (%.150s): the run stops",
             (double)(now - run->end_ns) / NS_PER_S, e.msg);
    atomic_store(&run->server_lost, 1);
    engine_request_stop();
}
