/* The workload's part of a run, through its operations (workload/workload.h). */
#include "bench/bench_int.h"

#include <stdlib.h>

void bench_workload_own_dbname(struct bench *b)
{
    const struct workload *w = b->tables_of;
    char *db = w && w->own_dbname ? w->own_dbname(w, &b->p.conn, b->p.wopts.bytes) : NULL;
    if (db) { /* p.conn's strings are the plan's: the new one is b's */
        free(b->own_dbname);
        b->own_dbname = db;
        b->p.conn.dbname = db;
    }
}

int bench_workload_detect(struct pg_conn *c, struct bench *b, struct err *e)
{
    const struct workload *w = b->tables_of;
    if (!w) { /* custom scripts: :scale is -s, or 1 as in pgbench */
        if (b->p.scale == 0)
            b->p.scale = 1;
        return 0;
    }
    b->wl = (struct workload_params){.conn = &b->p.conn,
                                     .name = b->workload_name,
                                     .scale = b->p.scale,
                                     .seed = b->p.seed,
                                     .warmup_s = b->p.warmup_s,
                                     .opts = b->p.wopts.bytes,
                                     .threads = b->p.threads};
    int rc = w->detect ? w->detect(w, c, &b->wl, e) : 0;
    b->p.scale = b->wl.scale;
    if (b->wl.clients > 0) /* as many as the workload's input needs */
        b->p.clients = b->wl.clients;
    return rc;
}

int bench_workload_scripts(struct bench *b, struct script_set *s, struct err *e)
{
    const struct workload *w = b->tables_of;
    return w && w->scripts ? w->scripts(w, &b->wl, s, e) : 0;
}

void bench_workload_measure_start(struct bench *b)
{
    const struct workload *w = b->tables_of;
    if (w && w->measure_start)
        w->measure_start(w, &b->wl);
}

void bench_workload_result(struct bench *b, struct result *r)
{
    const struct workload *w = b->tables_of;
    if (w && w->result)
        w->result(w, &b->wl, r);
}

const struct engine_feed *bench_workload_feed(struct bench *b)
{
    const struct workload *w = b->tables_of;
    return w && w->feed ? w->feed(w, &b->wl) : NULL;
}

int bench_workload_snapshot(struct bench *b, struct result *r)
{
    const struct workload *w = b->tables_of;
    if (!w || !w->snapshot)
        return 0;
    w->snapshot(w, &b->wl, r);
    return 1;
}

void bench_workload_free(struct bench *b)
{
    const struct workload *w = b->tables_of;
    if (w && w->free_state)
        w->free_state(w, &b->wl);
    free(b->own_dbname);
    b->own_dbname = NULL;
}
