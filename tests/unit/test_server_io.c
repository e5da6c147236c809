/* server_io: the statement by server version, snapshots from
 * recorded answers of PostgreSQL 15, 16 and 17 (the harness has only 15), their deltas with
 * absent and zero kept apart, the events of their sequence, and the result file's version-3
 * form read back. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "result/result.h"
#include "result/server_io.h"
#include "server/server_io.h"
#include "server/statements.h"

static void assert_close(double a, double b)
{
    if (fabs(a - b) > 1e-6)
        fail_msg("%g is not %g", a, b);
}

static int has(const struct result_sio *s, int f)
{
    return (s->have >> f) & 1;
}

static void test_sql_by_version(void **state)
{
    (void)state;
    /* pg_stat_statements' columns follow its version: 1.10 is after 1.9. */
    assert_int_equal(srv_extension_version("1.7"), 107);
    assert_int_equal(srv_extension_version("1.10"), 110);
    assert_true(srv_extension_version("1.10") > srv_extension_version("1.9"));
    assert_int_equal(srv_extension_version("1.12"), 112);
    assert_int_equal(srv_extension_version("2"), 200);
    assert_null(srvio_sql(90600));
    char *v13 = srvio_sql(130000), *v15 = srvio_sql(150004), *v16 = srvio_sql(160002);
    char *v17 = srvio_sql(170000);
    assert_null(strstr(v13, "pg_stat_wal"));
    assert_non_null(strstr(v13, "pg_current_wal_lsn"));
    assert_non_null(strstr(v15, "pg_stat_wal"));
    assert_non_null(strstr(v15, "checkpoints_timed"));
    assert_null(strstr(v15, "pg_stat_io"));
    assert_non_null(strstr(v16, "pg_stat_io"));
    assert_non_null(strstr(v16, "buffers_backend"));
    assert_null(strstr(v16, "pg_stat_checkpointer"));
    assert_non_null(strstr(v17, "pg_stat_checkpointer"));
    assert_non_null(strstr(v17, "num_timed"));
    assert_null(strstr(v17, "checkpoints_timed"));
    assert_null(strstr(v17, "buffers_backend"));
    /* 17 has no num_done; a standby's checkpoints are its restartpoints done; 18 counts the
     * checkpoints done, not the timed ones skipped. */
    assert_null(strstr(v17, "num_done"));
    assert_non_null(strstr(v17, "restartpoints_done"));
    char *v18 = srvio_sql(180000);
    assert_non_null(strstr(v18, "num_done"));
    assert_non_null(strstr(v18, "restartpoints_done"));
    assert_null(strstr(v18, "num_timed"));
    /* 18's pg_stat_io: WAL's rows apart, bytes kept */
    assert_non_null(strstr(v18, "object <> 'wal'"));
    assert_non_null(strstr(v18, "read_bytes"));
    assert_null(strstr(v17, "read_bytes"));
    free(v18);
    free(v13);
    free(v15);
    free(v16);
    free(v17);
    uint32_t f13 = result_sio_fields_for_version(130000),
             f15 = result_sio_fields_for_version(150000);
    uint32_t f16 = result_sio_fields_for_version(160000);
    assert_false((f13 >> SIO_WAL_FPI) & 1);
    assert_true((f13 >> SIO_WAL_BYTES) & 1);
    assert_true((f15 >> SIO_WAL_FPI) & 1);
    assert_false((f15 >> SIO_IO) & 1);
    assert_true((f16 >> SIO_IO) & 1);
    assert_int_equal(result_sio_fields_for_version(90600), 0);
}

/* A snapshot from rows given as "key=value" strings. */
static struct srvio_snap *snap_of(const char *const *rows)
{
    struct srvio_snap *s = srvio_snap_new();
    for (size_t i = 0; rows[i]; i++) {
        char key[200];
        const char *eq = strrchr(rows[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - rows[i]), rows[i]);
        srvio_snap_row(s, key, eq + 1);
    }
    return s;
}

struct events {
    struct result_event *ev;
    size_t n;
};

static void events_free(struct events *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->ev[i].detail);
    free(e->ev);
    memset(e, 0, sizeof *e);
}

/* Recorded answers of a PostgreSQL 17 server, two intervals apart. */
static const char *const pg17_a[] = {"wal_bytes=1000000",
                                     "wal_records=5000",
                                     "wal_fpi=100",
                                     "ckpt_timed=3",
                                     "ckpt_req=1",
                                     "ckpt_write_ms=1200",
                                     "ckpt_sync_ms=30",
                                     "buf_written.checkpointer=900",
                                     "buf_written.bgwriter=10",
                                     "buf_written.backend=40",
                                     "io.client backend.reads=500",
                                     "io.client backend.writes=40",
                                     "io.client backend.extends=7",
                                     "io.client backend.fsyncs=0",
                                     "io.checkpointer.writes=900",
                                     "io.checkpointer.fsyncs=12",
                                     "blks_hit=10000",
                                     "blks_read=500",
                                     "temp_files=0",
                                     "temp_bytes=0",
                                     "deadlocks=0",
                                     "tup.ins=100",
                                     "tup.upd=300",
                                     "tup.hot=250",
                                     "tup.del=0",
                                     "dead_tup=80",
                                     "av.public.pgbench_tellers=4",
                                     "aa.public.pgbench_tellers=2",
                                     "ckpt_busy=0",
                                     NULL};
static const char *const pg17_b[] = {"wal_bytes=3000000",
                                     "wal_records=9000",
                                     "wal_fpi=1100",
                                     "ckpt_timed=4",
                                     "ckpt_req=1",
                                     "ckpt_write_ms=1200",
                                     "ckpt_sync_ms=30",
                                     "buf_written.checkpointer=1900",
                                     "buf_written.bgwriter=10",
                                     "buf_written.backend=52",
                                     "io.client backend.reads=800",
                                     "io.client backend.writes=52",
                                     "io.client backend.extends=7",
                                     "io.client backend.fsyncs=0",
                                     "io.checkpointer.writes=1900",
                                     "io.checkpointer.fsyncs=12",
                                     "blks_hit=19000",
                                     "blks_read=1500",
                                     "temp_files=0",
                                     "temp_bytes=0",
                                     "deadlocks=0",
                                     "tup.ins=150",
                                     "tup.upd=600",
                                     "tup.hot=500",
                                     "tup.del=0",
                                     "dead_tup=20",
                                     "av.public.pgbench_tellers=5",
                                     "aa.public.pgbench_tellers=2",
                                     "avw.autovacuum: VACUUM ANALYZE public.pgbench_accounts",
                                     "ckpt_busy=1",
                                     NULL};

static void test_pg17_deltas(void **state)
{
    (void)state;
    struct srvio *io = srvio_new(170002);
    struct result_sio d;
    struct events e = {0};
    assert_int_equal(srvio_next(io, snap_of(pg17_a), 0.0, &d, &e.ev, &e.n), 0);
    assert_int_equal(d.have, 0);
    assert_int_equal(e.n, 0); /* nothing was going on at the start */
    assert_int_equal(srvio_next(io, snap_of(pg17_b), 1.0, &d, &e.ev, &e.n), 1);
    assert_true(d.have & SIO_HAVE_ANY);
    assert_int_equal(d.v[SIO_WAL_BYTES], 2000000);
    assert_int_equal(d.v[SIO_WAL_FPI], 1000);
    assert_int_equal(d.v[SIO_CKPT_TIMED], 1);
    assert_int_equal(d.v[SIO_BUF_CHECKPOINTER], 1000);
    assert_int_equal(d.v[SIO_BUF_BACKEND], 12);
    assert_int_equal(d.v[SIO_BLKS_READ], 1000);
    assert_int_equal(d.v[SIO_DEAD_TUP], 20); /* a level, not a delta */
    assert_int_equal(d.v[SIO_AUTOVACUUM], 1);
    assert_int_equal(d.v[SIO_AUTOANALYZE], 0);
    /* A reported zero is had, and zero. */
    assert_true(has(&d, SIO_TEMP_BYTES));
    assert_int_equal(d.v[SIO_TEMP_BYTES], 0);
    assert_true(has(&d, SIO_IO));
    assert_int_equal(d.n_io, 2);
    assert_string_equal(d.io[0].backend_type, "client backend");
    assert_int_equal(d.io[0].reads, 300);
    assert_int_equal(d.io[0].writes, 12);
    assert_int_equal(d.io[1].writes, 1000);
    assert_int_equal(d.n_lag, 0);
    /* Events: a checkpoint began (busy, its count grown), a worker began on accounts (vacuum
     * and analyze), tellers' vacuum ran between the snapshots. */
    int ckpt = 0, acc = 0, tellers = 0;
    for (size_t i = 0; i < e.n; i++) {
        if (e.ev[i].kind == RESULT_EV_CHECKPOINT) {
            ckpt++;
            assert_true(e.ev[i].start);
            assert_string_equal(e.ev[i].detail, "timed");
        } else if (strcmp(e.ev[i].detail, "public.pgbench_accounts") == 0) {
            acc++;
            assert_true(e.ev[i].start);
            assert_close(e.ev[i].t_s, 1.0);
        } else if (strcmp(e.ev[i].detail, "public.pgbench_tellers") == 0) {
            tellers++;
            assert_int_equal(e.ev[i].kind, RESULT_EV_AUTOVACUUM);
            assert_close(e.ev[i].t_s, e.ev[i].start ? 0.5 : 1.0);
        }
    }
    assert_int_equal(ckpt, 1);
    assert_int_equal(acc, 2);
    assert_int_equal(tellers, 2);
    result_sio_clear(&d);
    events_free(&e);
    srvio_free(io);
}

/* 15 answers no io rows: io is absent from the deltas, not an empty zero. 16's rows have it. */
static void test_io_absent_before_16(void **state)
{
    (void)state;
    static const char *const pg15[] = {"wal_bytes=10", "blks_hit=1", "blks_read=0", NULL};
    static const char *const pg16[] = {"wal_bytes=10", "io.client backend.reads=1", NULL};
    struct srvio *io15 = srvio_new(150004), *io16 = srvio_new(160000);
    struct result_sio d;
    struct events e = {0};
    srvio_next(io15, snap_of(pg15), 0, &d, &e.ev, &e.n);
    srvio_next(io15, snap_of(pg15), 1, &d, &e.ev, &e.n);
    assert_false(has(&d, SIO_IO));
    assert_true(has(&d, SIO_BLKS_READ));
    assert_false(has(&d, SIO_TEMP_BYTES)); /* not answered: absent */
    result_sio_clear(&d);
    srvio_next(io16, snap_of(pg16), 0, &d, &e.ev, &e.n);
    srvio_next(io16, snap_of(pg16), 1, &d, &e.ev, &e.n);
    assert_true(has(&d, SIO_IO));
    assert_int_equal(d.n_io, 1);
    assert_int_equal(d.io[0].reads, 0);
    result_sio_clear(&d);
    assert_int_equal(e.n, 0);
    srvio_free(io15);
    srvio_free(io16);
}

/* Checkpoints: seen busy over several snapshots (one start, one end); begun and ended between
 * two (by the count: a start halfway, an end); one that ended before its count came (no
 * second checkpoint when the count comes). */
static void test_checkpoint_events(void **state)
{
    (void)state;
    static const char *const seq[][3] = {
        {"ckpt_req=0", "ckpt_busy=0", NULL}, {"ckpt_req=0", "ckpt_busy=1", NULL},
        {"ckpt_req=1", "ckpt_busy=1", NULL}, {"ckpt_req=1", "ckpt_busy=0", NULL},
        {"ckpt_req=2", "ckpt_busy=0", NULL}, {"ckpt_req=2", "ckpt_busy=1", NULL},
        {"ckpt_req=2", "ckpt_busy=0", NULL}, {"ckpt_req=3", "ckpt_busy=0", NULL},
    };
    struct srvio *io = srvio_new(150000);
    struct events e = {0};
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        struct result_sio d;
        srvio_next(io, snap_of(seq[i]), (double)i, &d, &e.ev, &e.n);
        result_sio_clear(&d);
    }
    const double t[] = {1, 3, 3.5, 4, 5, 6};
    const int start[] = {1, 0, 1, 0, 1, 0};
    assert_int_equal(e.n, 6);
    for (size_t i = 0; i < e.n; i++) {
        assert_int_equal(e.ev[i].kind, RESULT_EV_CHECKPOINT);
        assert_close(e.ev[i].t_s, t[i]);
        assert_int_equal(e.ev[i].start, start[i]);
    }
    events_free(&e);
    srvio_free(io);
}

/* What is going on at the first read starts with the run; its end then pairs with it. */
static void test_running_at_start(void **state)
{
    (void)state;
    static const char *const first[] = {"ckpt_busy=1", "avw.autovacuum: ANALYZE public.t", NULL};
    static const char *const next[] = {"ckpt_busy=0", "ckpt_timed=0", NULL};
    struct srvio *io = srvio_new(150000);
    struct events e = {0};
    struct result_sio d;
    assert_int_equal(srvio_next(io, snap_of(first), 0.25, &d, &e.ev, &e.n), 0);
    assert_int_equal(e.n, 2);
    assert_int_equal(e.ev[0].kind, RESULT_EV_CHECKPOINT);
    assert_string_equal(e.ev[0].detail, "running at the start");
    assert_int_equal(e.ev[1].kind, RESULT_EV_AUTOANALYZE);
    assert_string_equal(e.ev[1].detail, "public.t");
    assert_true(e.ev[1].start);
    srvio_next(io, snap_of(next), 1.25, &d, &e.ev, &e.n);
    result_sio_clear(&d);
    assert_int_equal(e.n, 4); /* both end, and no count makes a second checkpoint */
    assert_false(e.ev[2].start);
    assert_false(e.ev[3].start);
    assert_close(e.ev[3].t_s, 1.25);
    events_free(&e);
    srvio_free(io);
}

static void test_lag_events(void **state)
{
    (void)state;
    static const char *const seq[][3] = {
        {"lag.bytes.walreceiver=0", "lag.s.walreceiver=0", NULL},
        {"lag.bytes.walreceiver=800000", "lag.s.walreceiver=2.5", NULL},
        {"lag.bytes.walreceiver=900000", "lag.s.walreceiver=3.5", NULL},
        {"lag.bytes.walreceiver=0", "lag.s.walreceiver=0.01", NULL},
    };
    struct srvio *io = srvio_new(150000);
    struct events e = {0};
    struct result_sio d;
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        srvio_next(io, snap_of(seq[i]), (double)i, &d, &e.ev, &e.n);
        if (i == 2) {
            assert_int_equal(d.n_lag, 1);
            assert_string_equal(d.lag[0].name, "walreceiver");
            assert_int_equal(d.lag[0].bytes, 900000);
            assert_close(d.lag[0].s, 3.5);
        }
        result_sio_clear(&d);
    }
    assert_int_equal(e.n, 2);
    assert_int_equal(e.ev[0].kind, RESULT_EV_STANDBY_LAG);
    assert_true(e.ev[0].start);
    assert_close(e.ev[0].t_s, 1);
    assert_false(e.ev[1].start);
    assert_close(e.ev[1].t_s, 3);
    assert_string_equal(e.ev[1].detail, "walreceiver");
    events_free(&e);
    srvio_free(io);
}

/* Version 3 writes an interval's server_io without its zeros; the reader tells a zero (the
 * field is listed in server_io_fields) from an absent field (it is not). */
static void test_result_round_trip(void **state)
{
    (void)state;
    char path[] = "/tmp/pgarena-sio-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct result r;
    memset(&r, 0, sizeof r);
    r.server.database_size_bytes = r.server.dataset_bytes = -1;
    r.sio_fields = result_sio_fields_for_version(150000);
    r.n_intervals = 1;
    r.intervals = calloc(1, sizeof *r.intervals);
    struct result_interval *it = &r.intervals[0];
    it->t_s = it->duration_s = 1;
    it->sio.have = SIO_HAVE_ANY | r.sio_fields;
    it->sio.v[SIO_WAL_BYTES] = 123456;
    it->sio.v[SIO_BUF_BACKEND] = 3;
    it->sio.n_lag = 1;
    it->sio.lag = calloc(1, sizeof *it->sio.lag);
    it->sio.lag[0] = (struct result_sio_lag){strdup("s1"), 4096, 1.5};
    r.n_events = 1;
    r.events = calloc(1, sizeof *r.events);
    r.events[0] = (struct result_event){0.5, RESULT_EV_AUTOVACUUM, 1, strdup("public.t")};
    r.summary.transactions = 10;
    r.sio_per_tx = (struct result_sio_per_tx){1, 12345.6, -1, 0.3, 0};
    r.event_counts[RESULT_EV_AUTOVACUUM] = 1;
    struct err e = {0};
    assert_int_equal(result_write(&r, path, &e), 0);
    result_free(&r);
    FILE *f = fopen(path, "r");
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_non_null(strstr(text,
                           "\"server_io\":{\"wal_bytes\":123456,\"buf_written\":{\"backend\":3},"
                           "\"repl_lag\":{\"s1\":{\"bytes\":4096,\"s\":1.5}}}"));
    assert_null(strstr(text, "\"temp_bytes\":0"));
    struct result back;
    assert_int_equal(result_read(path, &back, &e), 0);
    unlink(path);
    const struct result_sio *s = &back.intervals[0].sio;
    assert_true(has(s, SIO_TEMP_BYTES)); /* written as nothing, read as a zero */
    assert_int_equal(s->v[SIO_TEMP_BYTES], 0);
    assert_false(has(s, SIO_IO)); /* 15 lacks it */
    assert_int_equal(s->v[SIO_WAL_BYTES], 123456);
    assert_int_equal(s->n_lag, 1);
    assert_close(s->lag[0].s, 1.5);
    assert_int_equal(back.n_events, 1);
    assert_string_equal(back.events[0].detail, "public.t");
    assert_int_equal(back.events[0].kind, RESULT_EV_AUTOVACUUM);
    assert_true(back.sio_per_tx.present);
    assert_close(back.sio_per_tx.wal_bytes, 12345.6);
    assert_true(back.sio_per_tx.fpi_share < 0); /* null: unknown */
    assert_int_equal(back.event_counts[RESULT_EV_AUTOVACUUM], 1);
    result_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sql_by_version),      cmocka_unit_test(test_pg17_deltas),
        cmocka_unit_test(test_io_absent_before_16), cmocka_unit_test(test_checkpoint_events),
        cmocka_unit_test(test_lag_events),          cmocka_unit_test(test_running_at_start),
        cmocka_unit_test(test_result_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
