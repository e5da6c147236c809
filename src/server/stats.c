#include "server/server.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "result/result.h"
#include "server/server_int.h"

/* Server statistics before and after the measured part. Each reading is three small queries
 * on the caller's connection, so a failing one (a standby has no WAL position, a view moved
 * between versions) loses only its own counters. The comment after each first word keeps
 * them out of the run's statements (pg_stat_statements). */

const char *const srv_stat_names[SRV_N_STATS] = {"xact_commit",
                                                 "xact_rollback",
                                                 "blks_hit",
                                                 "blks_read",
                                                 "tup_returned",
                                                 "tup_fetched",
                                                 "tup_inserted",
                                                 "tup_updated",
                                                 "tup_deleted",
                                                 "deadlocks",
                                                 "conflicts",
                                                 "temp_files",
                                                 "temp_bytes",
                                                 "wal_bytes",
                                                 "checkpoints",
                                                 "checkpoints_timed",
                                                 "checkpoints_requested",
                                                 "buffers_checkpoint",
                                                 "buffers_clean",
                                                 "buffers_backend"};

/* Run sql and store its one row's columns into the counters listed in slots. */
static int read_into(struct pg_conn *c, const char *sql, const enum srv_stat *slots, int n,
                     struct srv_stats *out, struct err *e)
{
    struct pg_result *r = srv_query(c, sql, e);
    if (!r)
        return -1;
    for (int i = 0; i < n && i < pg_result_cols(r); i++)
        out->v[slots[i]] = srv_value_int(r, 0, i);
    pg_result_free(r);
    return 0;
}

static int read_database(struct pg_conn *c, struct srv_stats *out, struct err *e)
{
    static const enum srv_stat slots[] = {
        SRV_XACT_COMMIT, SRV_XACT_ROLLBACK, SRV_BLKS_HIT,    SRV_BLKS_READ,   SRV_TUP_RETURNED,
        SRV_TUP_FETCHED, SRV_TUP_INSERTED,  SRV_TUP_UPDATED, SRV_TUP_DELETED, SRV_DEADLOCKS,
        SRV_CONFLICTS,   SRV_TEMP_FILES,    SRV_TEMP_BYTES};
    return read_into(
        c,
        "SELECT /* pgarena:stats */ xact_commit, xact_rollback, blks_hit, blks_read, tup_returned, "
        "tup_fetched, tup_inserted, tup_updated, tup_deleted, deadlocks, conflicts, "
        "temp_files, temp_bytes FROM pg_stat_database "
        "WHERE datname = current_database()",
        slots, (int)(sizeof slots / sizeof slots[0]), out, e);
}

/* The WAL position as bytes since 0/0: its difference is the WAL written, by every
 * database. */
static int read_wal(struct pg_conn *c, struct srv_stats *out, struct err *e)
{
    static const enum srv_stat slots[] = {SRV_WAL_BYTES};
    return read_into(c,
                     "SELECT /* pgarena:stats */ CASE WHEN pg_is_in_recovery() THEN NULL "
                     "ELSE pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') END",
                     slots, 1, out, e);
}

static int read_checkpoints(struct pg_conn *c, int version_num, struct srv_stats *out,
                            struct err *e)
{
    static const enum srv_stat slots[] = {SRV_CHECKPOINTS_TIMED, SRV_CHECKPOINTS_REQUESTED,
                                          SRV_BUFFERS_CHECKPOINT, SRV_BUFFERS_CLEAN,
                                          SRV_BUFFERS_BACKEND};
    /* PostgreSQL 17 moved checkpoints to pg_stat_checkpointer and backend writes to
     * pg_stat_io. */
#define CKPT17(timed, req)                                                                         \
    "SELECT /* pgarena:stats */ " timed ", " req ", k.buffers_written, b.buffers_clean, "          \
    "(SELECT sum(writes) FROM pg_stat_io WHERE backend_type = 'client backend' AND object = "      \
    "'relation') "                                                                                 \
    "FROM pg_stat_checkpointer k, pg_stat_bgwriter b"
    const char *sql = version_num >= 180000 ? CKPT17(SRV_CKPT_TIMED_18, SRV_CKPT_REQ_18)
                      : version_num >= 170000
                          ? CKPT17(SRV_CKPT_TIMED_17, SRV_CKPT_REQ_17)
                          : "SELECT /* pgarena:stats */ checkpoints_timed, checkpoints_req, "
                            "buffers_checkpoint, buffers_clean, "
                            "buffers_backend FROM pg_stat_bgwriter";
#undef CKPT17
    if (read_into(c, sql, slots, (int)(sizeof slots / sizeof slots[0]), out, e) < 0)
        return -1;
    int64_t t = out->v[SRV_CHECKPOINTS_TIMED], q = out->v[SRV_CHECKPOINTS_REQUESTED];
    out->v[SRV_CHECKPOINTS] = t >= 0 && q >= 0 ? t + q : -1;
    return 0;
}

int srv_stats_read(struct pg_conn *c, int version_num, struct srv_stats *out, struct err *e)
{
    for (int i = 0; i < SRV_N_STATS; i++)
        out->v[i] = -1;
    struct err later = {0};
    int failed = 0;
    failed += read_database(c, out, e) < 0;
    failed += read_wal(c, out, failed ? &later : e) < 0;
    failed += read_checkpoints(c, version_num, out, failed ? &later : e) < 0;
    return failed;
}

void srv_stats_flush_own(struct pg_conn *c, int version_num)
{
    if (version_num < 150000)
        return;
    /* Superusers only by default; a failed call would count as a rollback. */
    struct err ignored = {0};
    pg_exec(c,
            "SELECT /* pgarena:stats */ CASE WHEN has_function_privilege("
            "'pg_stat_force_next_flush()', 'EXECUTE') "
            "THEN pg_stat_force_next_flush() END",
            &ignored);
}

void srv_stats_delta(const struct srv_stats *before, const struct srv_stats *after,
                     struct srv_stats *delta)
{
    for (int i = 0; i < SRV_N_STATS; i++) {
        int64_t a = before->v[i], b = after->v[i];
        delta->v[i] = a >= 0 && b >= a ? b - a : -1;
    }
}

double srv_cache_hit_ratio(const struct srv_stats *d)
{
    return result_hit_ratio(d->v[SRV_BLKS_HIT], d->v[SRV_BLKS_READ]);
}

int srv_wait_backends(struct pg_conn *c, int n_other, time_ns timeout_ns)
{
    time_ns deadline = clock_now_ns() + timeout_ns;
    for (;;) {
        struct err ignored = {0};
        struct pg_result *r =
            srv_query(c,
                      "SELECT /* pgarena:stats */ count(*) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                      "AND backend_type = 'client backend'",
                      &ignored);
        if (!r)
            return -1;
        int64_t n = srv_value_int(r, 0, 0);
        pg_result_free(r);
        if (n <= n_other)
            return 0;
        if (clock_now_ns() >= deadline)
            return -1;
        struct timespec pause = {0, 5 * NS_PER_MS};
        nanosleep(&pause, NULL);
    }
}
