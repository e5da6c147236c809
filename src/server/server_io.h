#ifndef PGARENA_SERVER_SERVER_IO_H
#define PGARENA_SERVER_SERVER_IO_H

/*
 * What the server does underneath a run: its statistics views
 * read once per interval on the sampler's connection, one statement whose text depends on the
 * server's version (pg_stat_wal from 14, pg_stat_io from 16, pg_stat_checkpointer from 17),
 * answering (key, value) rows. Two snapshots give an interval's deltas (result/server_io.h);
 * the sequence of snapshots gives the events: checkpoints (the checkpointer busy, or its
 * counters grown), autovacuum and autoanalyze of the database's tables (their workers at
 * work in pg_stat_activity, or the tables' counts grown, so that a run shorter than an
 * interval is not missed), a standby applying WAL more than 1 s behind.
 * Ownership: a struct srvio is the caller's (srvio_free); deltas and events handed out are
 * the caller's (result_sio_clear, free(detail)).
 */

#include <stddef.h>
#include <stdint.h>

#include "pg/pg.h"
#include "result/server_io.h"

struct srvio;

/* One snapshot in the making: fed the rows of the statement (srvio_sql) one at a time. */
struct srvio_snap;

/* The statement for a server of version_num (PG_VERSION_NUM), NULL below 10 (caller frees). */
char *srvio_sql(int version_num);

struct srvio_snap *srvio_snap_new(void);
void srvio_snap_free(struct srvio_snap *s);
/* One (key, value) row; unknown keys are ignored. */
void srvio_snap_row(struct srvio_snap *s, const char *key, const char *value);

/* A tracker of the run's snapshots, for a server of version_num. */
struct srvio *srvio_new(int version_num);
void srvio_free(struct srvio *io);

/* Read a snapshot on c at t_s (seconds since the measured start). 1: *delta holds the deltas
 * since the previous snapshot; 0: the first snapshot (nothing to compare yet); -1: the read
 * failed (why in e; the next one compares with the last good one). Events seen are appended
 * to *events (*n_events counts them; the array grows by realloc). */
int srvio_read(struct srvio *io, struct pg_conn *c, double t_s, struct result_sio *delta,
               struct result_event **events, size_t *n_events, struct err *e);

/* The same from a snapshot already made (the sampler reads one; tests feed recorded
 * answers). Takes s. */
int srvio_next(struct srvio *io, struct srvio_snap *s, double t_s, struct result_sio *delta,
               struct result_event **events, size_t *n_events);

/* The fields the tracker's server version reports. */
uint32_t srvio_fields(const struct srvio *io);

#endif
