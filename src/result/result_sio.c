#include "result/server_io.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

const char *const result_sio_paths[SIO_N_FIELDS] = {
    "wal_bytes",
    "wal_records",
    "wal_fpi",
    "ckpt_timed",
    "ckpt_req",
    "ckpt_write_ms",
    "ckpt_sync_ms",
    "buf_written.checkpointer",
    "buf_written.bgwriter",
    "buf_written.backend",
    "blks_hit",
    "blks_read",
    "temp_files",
    "temp_bytes",
    "deadlocks",
    "tup.ins",
    "tup.upd",
    "tup.hot",
    "tup.del",
    "dead_tup",
    "autovacuum",
    "autoanalyze",
    "io",
    "repl_lag",
};

const char *const result_event_kinds[RESULT_N_EVENT_KINDS] = {"checkpoint", "autovacuum",
                                                              "autoanalyze", "standby-lag"};

int result_sio_field_of(const char *path)
{
    for (int f = 0; f < SIO_N_FIELDS; f++)
        if (strcmp(result_sio_paths[f], path) == 0)
            return f;
    return -1;
}

int result_event_kind_of(const char *name)
{
    for (int k = 0; k < RESULT_N_EVENT_KINDS; k++)
        if (strcmp(result_event_kinds[k], name) == 0)
            return k;
    return -1;
}

uint32_t result_sio_fields_for_version(int version_num)
{
    if (version_num < 100000) /* pg_current_wal_lsn and backend_type came with 10 */
        return 0;
    uint32_t all = (1u << SIO_N_FIELDS) - 1, f = all;
    if (version_num < 140000) /* pg_stat_wal: before it, only the LSN's growth */
        f &= ~((1u << SIO_WAL_RECORDS) | (1u << SIO_WAL_FPI));
    if (version_num < 160000) /* pg_stat_io */
        f &= ~(1u << SIO_IO);
    return f;
}

void result_sio_clear(struct result_sio *s)
{
    for (size_t i = 0; i < s->n_io; i++)
        free(s->io[i].backend_type);
    free(s->io);
    for (size_t i = 0; i < s->n_lag; i++)
        free(s->lag[i].name);
    free(s->lag);
    memset(s, 0, sizeof *s);
}

static struct result_sio_io *io_of(struct result_sio *acc, const char *type)
{
    for (size_t i = 0; i < acc->n_io; i++)
        if (strcmp(acc->io[i].backend_type, type) == 0)
            return &acc->io[i];
    acc->io = xrealloc(acc->io, (acc->n_io + 1) * sizeof *acc->io);
    acc->io[acc->n_io] = (struct result_sio_io){.backend_type = xstrdup(type)};
    return &acc->io[acc->n_io++];
}

static struct result_sio_lag *lag_of(struct result_sio *acc, const char *name)
{
    for (size_t i = 0; i < acc->n_lag; i++)
        if (strcmp(acc->lag[i].name, name) == 0)
            return &acc->lag[i];
    acc->lag = xrealloc(acc->lag, (acc->n_lag + 1) * sizeof *acc->lag);
    acc->lag[acc->n_lag] = (struct result_sio_lag){.name = xstrdup(name)};
    return &acc->lag[acc->n_lag++];
}

void result_sio_add(struct result_sio *acc, const struct result_sio *x)
{
    if (!x->have)
        return;
    if (!acc->have)
        acc->have = x->have;
    acc->have &= x->have;
    for (int f = 0; f < SIO_N_SCALARS; f++)
        acc->v[f] = f == SIO_DEAD_TUP ? x->v[f] : acc->v[f] + x->v[f];
    for (size_t i = 0; i < x->n_io; i++) {
        struct result_sio_io *a = io_of(acc, x->io[i].backend_type);
        a->reads += x->io[i].reads;
        a->writes += x->io[i].writes;
        a->extends += x->io[i].extends;
        a->fsyncs += x->io[i].fsyncs;
        a->read_bytes += x->io[i].read_bytes;
        a->write_bytes += x->io[i].write_bytes;
        a->extend_bytes += x->io[i].extend_bytes;
    }
    for (size_t i = 0; i < x->n_lag; i++) {
        struct result_sio_lag *a = lag_of(acc, x->lag[i].name);
        if (x->lag[i].bytes > a->bytes)
            a->bytes = x->lag[i].bytes;
        if (x->lag[i].s > a->s)
            a->s = x->lag[i].s;
    }
}

static int has(const struct result_sio *s, int f)
{
    return (s->have >> f) & 1;
}

void result_sio_per_tx(const struct result_sio *t, uint64_t n_tx, struct result_sio_per_tx *out)
{
    memset(out, 0, sizeof *out);
    if (!t->have || n_tx == 0)
        return;
    double n = (double)n_tx;
    out->present = 1;
    out->wal_bytes = has(t, SIO_WAL_BYTES) ? (double)t->v[SIO_WAL_BYTES] / n : -1;
    out->fpi_share = has(t, SIO_WAL_FPI) && has(t, SIO_WAL_RECORDS) && t->v[SIO_WAL_RECORDS] > 0
                         ? (double)t->v[SIO_WAL_FPI] / (double)t->v[SIO_WAL_RECORDS]
                         : -1;
    out->buffers_written = -1;
    if (has(t, SIO_BUF_CHECKPOINTER) || has(t, SIO_BUF_BGWRITER) || has(t, SIO_BUF_BACKEND))
        out->buffers_written =
            (double)(t->v[SIO_BUF_CHECKPOINTER] + t->v[SIO_BUF_BGWRITER] + t->v[SIO_BUF_BACKEND]) /
            n;
    out->temp_bytes = has(t, SIO_TEMP_BYTES) ? (double)t->v[SIO_TEMP_BYTES] / n : -1;
}

void result_events_order(struct result_event *ev, size_t n, uint64_t counts[RESULT_N_EVENT_KINDS])
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && ev[j].t_s < ev[j - 1].t_s; j--) {
            struct result_event tmp = ev[j];
            ev[j] = ev[j - 1];
            ev[j - 1] = tmp;
        }
    for (size_t i = 0; i < n; i++)
        if (ev[i].start)
            counts[ev[i].kind]++;
}
