#ifndef PGARENA_RESULT_SERVER_IO_H
#define PGARENA_RESULT_SERVER_IO_H

/*
 * What the server did underneath, per interval: the deltas of
 * its own statistics views over the interval, read once per interval on the sampler's
 * connection, and the events seen (checkpoints, autovacuum and autoanalyze of the run's
 * tables, a standby falling behind).
 *
 * Absent and zero stay distinct: `have` says which fields the server reported (a version
 * lacking a view has none of its fields), and a field that is had holds its figure, zero
 * included. Version 3 files write only the nonzero figures of an interval; the document's
 * server_io_fields lists the fields the server reported, so that a field missing from an
 * interval reads as 0 when listed and as absent when not.
 *
 * Ownership: a struct result_sio owns its io and lag arrays and their names
 * (result_sio_clear); a struct result_event owns its detail.
 */

#include <stddef.h>
#include <stdint.h>

/* The scalar fields, in the order files list them. dead_tup is a level (the dead tuples at
 * the end of the interval), every other one the growth over the interval. */
enum result_sio_field {
    SIO_WAL_BYTES,
    SIO_WAL_RECORDS,
    SIO_WAL_FPI,
    SIO_CKPT_TIMED,
    SIO_CKPT_REQ,
    SIO_CKPT_WRITE_MS,
    SIO_CKPT_SYNC_MS,
    SIO_BUF_CHECKPOINTER,
    SIO_BUF_BGWRITER,
    SIO_BUF_BACKEND,
    SIO_BLKS_HIT,
    SIO_BLKS_READ,
    SIO_TEMP_FILES,
    SIO_TEMP_BYTES,
    SIO_DEADLOCKS,
    SIO_TUP_INS,
    SIO_TUP_UPD,
    SIO_TUP_HOT,
    SIO_TUP_DEL,
    SIO_DEAD_TUP,
    SIO_AUTOVACUUM,  /* autovacuum runs of the run's tables that ended in the interval */
    SIO_AUTOANALYZE, /* the same for autoanalyze */
    SIO_N_SCALARS,
    /* Not scalars: the io object by backend type (pg_stat_io, 16+) and repl_lag by standby. */
    SIO_IO = SIO_N_SCALARS,
    SIO_REPL_LAG,
    SIO_N_FIELDS
};

/* Each field's path inside server_io ("wal_bytes", "buf_written.checkpointer", "io"...). */
extern const char *const result_sio_paths[SIO_N_FIELDS];

/* The field of a path, or -1. */
int result_sio_field_of(const char *path);

/* The fields a server of version_num (PG_VERSION_NUM: 150004) reports; 0 when unknown. */
uint32_t result_sio_fields_for_version(int version_num);

/* server_io.io.BACKEND_TYPE */
struct result_sio_io {
    char *backend_type;
    int64_t reads, writes, extends, fsyncs;
    /* 18+: a read of several blocks combined is one of reads; the bytes count them all */
    int64_t read_bytes, write_bytes, extend_bytes;
};

/* server_io.repl_lag.NAME: how far a standby's applied WAL is behind, at the interval's end. */
struct result_sio_lag {
    char *name;
    int64_t bytes;
    double s;
};

/* In have: the interval has server_io (even with no field known yet). */
#define SIO_HAVE_ANY (1u << 31)

struct result_sio {
    uint32_t have; /* bit f: field f is reported; 0: no server_io in this interval */
    int64_t v[SIO_N_SCALARS];
    size_t n_io;
    struct result_sio_io *io;
    size_t n_lag;
    struct result_sio_lag *lag;
};

void result_sio_clear(struct result_sio *s);

/* Add x's deltas to acc (the fields both have; dead_tup and lags: the latest, lags the
 * highest). An empty acc takes x's fields. */
void result_sio_add(struct result_sio *acc, const struct result_sio *x);

/* events[] */
enum result_event_kind {
    RESULT_EV_CHECKPOINT,
    RESULT_EV_AUTOVACUUM,
    RESULT_EV_AUTOANALYZE,
    RESULT_EV_STANDBY_LAG,
    RESULT_N_EVENT_KINDS
};

extern const char *const result_event_kinds[RESULT_N_EVENT_KINDS]; /* "checkpoint"... */

struct result_event {
    double t_s;   /* seconds since the measured start */
    int kind;     /* enum result_event_kind */
    int start;    /* 1: the start, 0: the end */
    char *detail; /* checkpoint: "timed"/"requested"; autovacuum: the table; lag: the standby */
};

/* The kind of a name, or -1. */
int result_event_kind_of(const char *name);

/* Put events in time order (a short checkpoint is found after the end of a longer one) and
 * count the starts of each kind into counts (summary.events). */
void result_events_order(struct result_event *ev, size_t n, uint64_t counts[RESULT_N_EVENT_KINDS]);

/* summary.server_io_per_tx: each figure < 0 when the fields it needs are absent. */
struct result_sio_per_tx {
    int present;
    double wal_bytes;       /* WAL bytes per transaction */
    double fpi_share;       /* full-page images per WAL record */
    double buffers_written; /* by the checkpointer, the bgwriter and backends, per transaction */
    double temp_bytes;      /* temporary file bytes per transaction */
};

/* The figures of a run's totals over n_tx transactions. */
void result_sio_per_tx(const struct result_sio *total, uint64_t n_tx,
                       struct result_sio_per_tx *out);

#endif
