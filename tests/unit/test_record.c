/* The recording proxy's messages to capture events: a scripted session's Query, Parse/Bind/
 * Execute/Sync, errors in a pipeline, a cancel, a password, binary parameters, a session that
 * never logged in, written and read back. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "pgwire_fixture.h"
#include "capture/record.h"
#include "capture/typenames.h"

static struct recorder *rec;
static struct buf body;

static void fe(struct rec_session *s, char type, int64_t t)
{
    recorder_frontend(rec, s, type, (const uint8_t *)body.data, body.len, t);
    buf_reset(&body);
}

static void be(struct rec_session *s, char type, int64_t t)
{
    recorder_backend(rec, s, type, (const uint8_t *)body.data, body.len, t);
    buf_reset(&body);
}

static void query(struct rec_session *s, const char *text, int64_t t)
{
    putstr(&body, text);
    fe(s, 'Q', t);
}

static void parse(struct rec_session *s, const char *name, const char *text, int64_t t)
{
    putstr(&body, name);
    putstr(&body, text);
    put16(&body, 0);
    fe(s, 'P', t);
}

/* Bind statement to the unnamed portal with one parameter (format 1: binary). */
static void bind1(struct rec_session *s, const char *stmt, const char *value, int format, int64_t t)
{
    putstr(&body, "");
    putstr(&body, stmt);
    put16(&body, 1);
    put16(&body, (uint16_t)format);
    put16(&body, 1);
    put32(&body, (uint32_t)strlen(value));
    buf_append(&body, value, strlen(value));
    put16(&body, 0);
    fe(s, 'B', t);
}

static void execute(struct rec_session *s, int64_t t)
{
    putstr(&body, "");
    put32(&body, 0);
    fe(s, 'E', t);
}

/* Parse and Bind of the unnamed statement (one parameter, text), then its Execute. */
static void execute_unnamed(struct rec_session *s, const char *text, const char *value, int64_t t)
{
    parse(s, "", text, t);
    bind1(s, "", value, 0, t);
    execute(s, t);
}

static void sync_(struct rec_session *s, int64_t t)
{
    fe(s, 'S', t);
}

static void done(struct rec_session *s, int64_t t)
{
    putstr(&body, "SELECT 1");
    be(s, 'C', t);
}

static void ready(struct rec_session *s, int64_t t)
{
    buf_putc(&body, 'I');
    be(s, 'Z', t);
}

static void error(struct rec_session *s, const char *sqlstate, int64_t t)
{
    buf_putc(&body, 'S');
    putstr(&body, "ERROR");
    buf_putc(&body, 'C');
    putstr(&body, sqlstate);
    buf_putc(&body, 'M');
    putstr(&body, "it failed");
    buf_putc(&body, '\0');
    be(s, 'E', t);
}

/* A recorder writing to path (a file of this test's, named for what), its start at mono_us. */
static void rec_open(char *path, size_t size, const char *what, int64_t mono_us)
{
    snprintf(path, size, "/tmp/test_record%s_%d.cap", what, (int)getpid());
    struct err e = {0};
    rec = recorder_new(path, NULL, 1700000000000000LL, mono_us, &e);
    assert_non_null(rec);
    buf_init(&body);
}

/* The capture closed and written: its statistics. */
static struct record_stats rec_close(void)
{
    struct record_stats st;
    struct capture_header h = {0};
    struct err e = {0};
    assert_int_equal(recorder_close(rec, &h, &st, &e), 0);
    recorder_free(rec);
    buf_free(&body);
    return st;
}

static struct rec_session *start(const char *user, const char *db, int64_t t)
{
    struct pgwire_startup su = {.kind = PGWIRE_STARTUP_V3, .n_params = 2};
    su.names[0] = "user";
    su.values[0] = user;
    su.names[1] = db ? "database" : "application_name";
    su.values[1] = db ? db : "app";
    return recorder_session_start(rec, &su, t);
}

static void test_session(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_record_%d.cap", (int)getpid());
    struct err e = {0};
    rec = recorder_new(path, NULL, 1700000000000000LL, 400, &e); /* 600 µs before the first */
    assert_non_null(rec);
    buf_init(&body);
    struct rec_session *a = start("app", "shop", 1000);
    put32(&body, 77);
    put32(&body, 0xabcdef01);
    be(a, 'K', 1050);
    ready(a, 1100);
    /* simple */
    query(a, "SELECT 1", 2000);
    done(a, 2100);
    ready(a, 2200);
    /* unnamed: timed from its Parse to its CommandComplete */
    parse(a, "", "SELECT $1", 3000);
    bind1(a, "", "5", 0, 3005);
    execute(a, 3010);
    sync_(a, 3010);
    done(a, 3100);
    ready(a, 3150);
    /* named: an error, then two executes of which one binary (kept with its format) */
    parse(a, "S1", "UPDATE t SET a = $1", 4000);
    bind1(a, "S1", "x", 0, 4000);
    execute(a, 4000);
    sync_(a, 4000);
    error(a, "23505", 4100);
    ready(a, 4110);
    bind1(a, "S1", "y", 0, 5000);
    execute(a, 5000);
    bind1(a, "S1", "\1\2", 1, 5001);
    execute(a, 5001);
    sync_(a, 5001);
    done(a, 5050);
    done(a, 5060);
    ready(a, 5070);
    /* a password cut out */
    query(a, "ALTER ROLE u PASSWORD 'sekrit'", 6000);
    done(a, 6010);
    ready(a, 6020);
    /* cancelled */
    query(a, "SELECT pg_sleep(10)", 9000);
    uint8_t key[4] = {0xab, 0xcd, 0xef, 0x01}, other[4] = {0};
    assert_null(recorder_cancel(rec, 77, other, 4, 9400));
    assert_ptr_equal(recorder_cancel(rec, 77, key, 4, 9500), a);
    error(a, "57014", 9600);
    ready(a, 9700);
    /* a pipeline whose first statement fails: the second never runs */
    execute_unnamed(a, "SELECT 1/0", "1", 10000);
    execute_unnamed(a, "SELECT 2", "1", 10001);
    sync_(a, 10001);
    error(a, "22012", 10100);
    ready(a, 10200);
    /* a FunctionCall, then a Query sent before its answer: the Query ends at its own */
    put32(&body, 1247);
    fe(a, 'F', 10500);
    query(a, "SELECT 3", 10501);
    be(a, 'V', 10510);
    ready(a, 10520);
    done(a, 10600);
    ready(a, 10700);
    /* still running at the end: left out */
    query(a, "SELECT pg_sleep(100)", 11000);
    struct rec_session *b = start("bob", NULL, 1500); /* never logs in */
    recorder_session_end(rec, b, 1600);
    recorder_session_end(rec, a, 20000);

    struct record_stats st;
    struct capture_header h = {.port = 5432};
    assert_int_equal(recorder_close(rec, &h, &st, &e), 0);
    recorder_free(rec);
    buf_free(&body);
    assert_int_equal(st.sessions, 1);
    assert_int_equal(st.refused, 1);
    assert_int_equal(st.statements, 9);
    assert_int_equal(st.failed, 3);
    assert_int_equal(st.incomplete, 1);
    assert_int_equal(st.secrets_cut, 1);
    assert_int_equal(st.skipped_unsupported, 0);
    /* Sent before the previous one's answer: S1's binary execute, SELECT 2, SELECT 3; with no
     * Sync since the previous Execute: S1's binary execute, SELECT 2. */
    assert_int_equal(st.pipelined, 3);
    assert_int_equal(st.same_sync, 2);
    assert_int_equal(st.cancels, 1);

    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    const struct capture_header *rh = capture_reader_header(r);
    assert_int_equal(rh->time_resolution_us, 0);
    assert_int_equal(rh->n_sessions, 1);
    assert_int_equal(rh->start_us, 1700000000000600LL);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_SESSION_START);
    assert_string_equal(ev.session.user, "app");
    assert_string_equal(ev.session.database, "shop");
    assert_string_equal(ev.session.log_id, "77");
    assert_int_equal(ev.session.offset_us, 0);
    struct want {
        enum capture_protocol protocol;
        const char *name, *text, *param, *sqlstate;
        int64_t offset, duration, cancel;
    } want[] = {
        {CAPTURE_SIMPLE, "", "SELECT 1", NULL, "", 1000, 200, -1},
        {CAPTURE_EXTENDED_UNNAMED, "", "SELECT $1", "5", "", 2000, 100, -1},
        {CAPTURE_EXTENDED_NAMED, "S1", "UPDATE t SET a = $1", "x", "23505", 3000, 100, -1},
        {CAPTURE_EXTENDED_NAMED, "S1", "UPDATE t SET a = $1", "y", "", 4000, 50, -1},
        {CAPTURE_EXTENDED_NAMED, "S1", "UPDATE t SET a = $1", "\1\2", "", 4001, 59, -1},
        {CAPTURE_SIMPLE, "", "ALTER ROLE u PASSWORD 'pgarena-replaced'", NULL, "", 5000, 20, -1},
        {CAPTURE_SIMPLE, "", "SELECT pg_sleep(10)", NULL, "57014", 8000, 700, 500},
        {CAPTURE_EXTENDED_UNNAMED, "", "SELECT 1/0", "1", "22012", 9000, 100, -1},
        {CAPTURE_SIMPLE, "", "SELECT 3", NULL, "", 9501, 199, -1},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_int_equal(ev.kind, CAPTURE_EV_STATEMENT);
        assert_int_equal(ev.statement.protocol, want[i].protocol);
        assert_string_equal(ev.statement.name, want[i].name);
        assert_string_equal(ev.statement.text, want[i].text);
        if (want[i].param) {
            assert_int_equal(ev.statement.n_params, 1);
            assert_string_equal(ev.statement.params[0], want[i].param);
            assert_int_equal(ev.statement.param_lengths[0], strlen(want[i].param));
            /* The binary one keeps its format; the text ones have none written. */
            int binary = want[i].param[0] == '\1';
            if (binary)
                assert_int_equal(ev.statement.param_formats[0], 1);
            else
                assert_null(ev.statement.param_formats);
            /* It followed the text one with no Sync between them. */
            assert_int_equal(ev.statement.same_sync, binary);
        } else {
            assert_int_equal(ev.statement.n_params, 0);
        }
        assert_string_equal(ev.statement.sqlstate, want[i].sqlstate);
        assert_int_equal(ev.statement.outcome,
                         *want[i].sqlstate ? CAPTURE_OUTCOME_ERROR : CAPTURE_OUTCOME_OK);
        assert_int_equal(ev.statement.offset_us, want[i].offset);
        assert_int_equal(ev.statement.duration_us, want[i].duration);
        assert_int_equal(ev.statement.cancel_us, want[i].cancel);
    }
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_SESSION_END);
    assert_int_equal(ev.session.offset_us, 19000);
    assert_int_equal(capture_reader_next(r, &ev, &e), 0);
    capture_reader_close(r);
    unlink(path);
}

/* Nobody came: a capture of no session. */
static void test_empty(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_record_empty_%d.cap", (int)getpid());
    struct err e = {0};
    struct recorder *r = recorder_new(path, NULL, 1700000000000000LL, 5, &e);
    struct record_stats st;
    struct capture_header h = {0};
    assert_int_equal(recorder_flush(r, 100, &e), 0);
    assert_int_equal(recorder_close(r, &h, &st, &e), 0);
    recorder_free(r);
    assert_int_equal(st.sessions, 0);
    struct capture_reader *rd = capture_reader_open(path, &e);
    assert_non_null(rd);
    assert_int_equal(capture_reader_header(rd)->n_sessions, 0);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(rd, &ev, &e), 0);
    capture_reader_close(rd);
    unlink(path);
}

/* A flush writes nothing that a statement still running could come before: the other
 * session's statement, done first, waits, and the capture keeps the order of the starts. */
static void test_flush_order(void **state)
{
    (void)state;
    char path[64];
    rec_open(path, sizeof path, "_order", 0);
    struct err e = {0};
    struct rec_session *a = start("a", "db", 100);
    ready(a, 110);
    struct rec_session *c = start("c", "db", 120);
    ready(c, 130);
    query(a, "SELECT 'a'", 200);
    query(c, "SELECT 'c'", 250);
    done(c, 260);
    ready(c, 270);
    assert_int_equal(recorder_flush(rec, 280, &e), 0);
    done(a, 300);
    ready(a, 310);
    assert_int_equal(recorder_flush(rec, 320, &e), 0);
    recorder_session_end(rec, c, 330);
    assert_int_equal(recorder_flush(rec, 340, &e), 0); /* c is written whole and freed */
    recorder_session_end(rec, a, 400);
    rec_close();
    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    struct capture_event ev;
    const char *want[] = {"start 0 0",        "start 1 20", "SELECT 'a' 0 100",
                          "SELECT 'c' 1 150", "end 1 230",  "end 0 300"};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        char got[64];
        if (ev.kind == CAPTURE_EV_STATEMENT)
            snprintf(got, sizeof got, "%s %u %lld", ev.statement.text, ev.statement.session,
                     (long long)ev.statement.offset_us);
        else
            snprintf(got, sizeof got, "%s %u %lld",
                     ev.kind == CAPTURE_EV_SESSION_START ? "start" : "end", ev.session.id,
                     (long long)ev.session.offset_us);
        assert_string_equal(got, want[i]);
    }
    assert_int_equal(capture_reader_next(r, &ev, &e), 0);
    capture_reader_close(r);
    unlink(path);
}

/* The fake catalog: every OID asked is public.mood, an enum, once the test lets it answer. */
static volatile int catalog_open;

static int mood_catalog(void *arg, const char *database, const char *user, const uint32_t *oids,
                        int n, struct typenames_row **rows, int *n_rows, char *why, size_t size)
{
    (void)arg, (void)database, (void)user, (void)why, (void)size;
    while (!catalog_open)
        usleep(1000);
    *rows = xcalloc((size_t)n, sizeof **rows);
    for (int i = 0; i < n; i++)
        (*rows)[i] =
            (struct typenames_row){oids[i], xstrdup("public"), xstrdup("mood"), 'o', 0, NULL, 0};
    *n_rows = n;
    return 0;
}

/* A Parse naming a user's type: its statement waits at the flushes until the type's name is
 * learnt, then is written with it. */
static void test_user_type_names(void **state)
{
    (void)state;
    char path[64];
    rec_open(path, sizeof path, "_types", 0);
    catalog_open = 0;
    struct typenames *names = typenames_new(mood_catalog, NULL);
    recorder_type_names(rec, names);
    struct err e = {0};
    struct rec_session *a = start("a", "db", 100);
    ready(a, 110);
    putstr(&body, "");
    putstr(&body, "SELECT $1, $2");
    put16(&body, 2);
    put32(&body, 25);
    put32(&body, 16500);
    fe(a, 'P', 200);
    bind1(a, "", "x", 0, 210);
    execute(a, 220);
    sync_(a, 230);
    done(a, 240);
    ready(a, 250);
    assert_int_equal(recorder_flush(rec, 300, &e), 0);
    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->n_statements, 0); /* held for its names */
    capture_reader_close(r);
    catalog_open = 1;
    typenames_settle(names, 5000);
    assert_int_equal(recorder_flush(rec, 400, &e), 0);
    recorder_session_end(rec, a, 500);
    rec_close();
    typenames_free(names);
    r = capture_reader_open(path, &e);
    assert_non_null(r);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.statement.n_type_names, 1);
    assert_int_equal(ev.statement.type_names[0].oid, 16500);
    assert_string_equal(ev.statement.type_names[0].name, "mood");
    capture_reader_close(r);
    unlink(path);
}

/* Version 2: a session's startup parameters as sent, and a COPY FROM STDIN's rows (CopyData
 * after the server's CopyInResponse, up to CopyDone) kept with its statement; a COPY the server
 * refused before asking for rows is kept with none. (A log's capture, holding neither, stays
 * version 1: test_capture.) */
static void test_startup_and_copy_rows(void **state)
{
    (void)state;
    char path[64];
    rec_open(path, sizeof path, "_copy", 0);
    struct err e = {0};
    struct pgwire_startup su = {.kind = PGWIRE_STARTUP_V3, .n_params = 4};
    const char *names[] = {"user", "database", "DateStyle", "application_name"};
    const char *values[] = {"app", "shop", "ISO, DMY", "loader"};
    for (int i = 0; i < 4; i++)
        su.names[i] = names[i], su.values[i] = values[i];
    struct rec_session *a = recorder_session_start(rec, &su, 100);
    ready(a, 110);
    query(a, "COPY t FROM STDIN", 200);
    be(a, 'G', 210);
    buf_append(&body, "1\ta\n", 4);
    fe(a, 'd', 220);
    buf_append(&body, "2\t\0b\n", 5); /* bytes as sent, a NUL among them */
    fe(a, 'd', 230);
    fe(a, 'c', 240);
    putstr(&body, "COPY 2");
    be(a, 'C', 250);
    ready(a, 260);
    query(a, "SELECT 1", 300); /* no rows of its own: CopyData only after a CopyInResponse */
    buf_append(&body, "stray", 5);
    fe(a, 'd', 305);
    done(a, 310);
    ready(a, 320);
    query(a, "COPY nosuch FROM STDIN", 400);
    error(a, "42P01", 410);
    ready(a, 420);
    /* One row of one oid column: its value is kept (text, then binary format); two rows, or
     * another type: none. */
    const struct {
        const char *text;
        uint32_t type;
        int binary, rows;
    } results[] = {{"SELECT lo_creat(-1)", 26, 0, 1},
                   {"SELECT lo_import('/f')", 26, 1, 1},
                   {"SELECT oid FROM pg_class", 26, 0, 2},
                   {"SELECT 35017::int4", 23, 0, 1}};
    for (int i = 0; i < 4; i++) {
        query(a, results[i].text, 430 + 10 * i);
        put16(&body, 1);
        putstr(&body, "col");
        put32(&body, 0);
        put16(&body, 0);
        put32(&body, results[i].type);
        put16(&body, 4);
        put32(&body, 0xffffffffu);
        put16(&body, (uint16_t)results[i].binary);
        be(a, 'T', 431 + 10 * i);
        for (int row = 0; row < results[i].rows; row++) {
            put16(&body, 1);
            if (results[i].binary) {
                put32(&body, 4);
                put32(&body, 35018);
            } else {
                put32(&body, 5);
                buf_append(&body, "35017", 5);
            }
            be(a, 'D', 432 + 10 * i);
        }
        done(a, 433 + 10 * i);
        ready(a, 434 + 10 * i);
    }
    recorder_session_end(rec, a, 600);
    struct record_stats st = rec_close();
    assert_int_equal(st.copy_in.with_rows, 2);

    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->version, 2);
    assert_int_equal(capture_reader_header(r)->copy_in.with_rows, 2);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.session.n_startup, 4);
    for (int i = 0; i < 4; i++) {
        assert_string_equal(ev.session.startup_names[i], names[i]);
        assert_string_equal(ev.session.startup_values[i], values[i]);
    }
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_string_equal(ev.statement.text, "COPY t FROM STDIN");
    assert_int_equal(ev.statement.copy_kept, 1);
    assert_int_equal(ev.statement.copy_len, 9);
    assert_memory_equal(ev.statement.copy_data, "1\ta\n2\t\0b\n", 9);
    assert_int_equal(ev.statement.duration_us, 60);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_string_equal(ev.statement.text, "SELECT 1");
    assert_int_equal(ev.statement.copy_kept, 0);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_string_equal(ev.statement.text, "COPY nosuch FROM STDIN");
    assert_int_equal(ev.statement.copy_kept, 1);
    assert_int_equal(ev.statement.copy_len, 0);
    assert_string_equal(ev.statement.sqlstate, "42P01");
    assert_null(ev.statement.returned);
    const char *want_returned[] = {"35017", "35018", NULL, NULL};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_string_equal(ev.statement.text, results[i].text);
        if (want_returned[i])
            assert_string_equal(ev.statement.returned, want_returned[i]);
        else
            assert_null(ev.statement.returned);
    }
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_SESSION_END);
    assert_int_equal(capture_reader_next(r, &ev, &e), 0);
    capture_reader_close(r);
    unlink(path);
}

/* psql's `SELECT 0\; COPY t FROM STDIN\; COPY t FROM STDIN\; SELECT 1`: one Query whose two
 * COPY FROM STDIN each get the rows the client sent after their CopyInResponse, kept as two
 * parts (version 3); one whose second COPY the client ended with a CopyFail keeps what it sent
 * before it, marked failed by its client there with the client's message; a Query of one COPY
 * keeps its rows whole, and one ended with a CopyFail is marked so at its first. Each counts
 * once by the table of its first COPY and once with rows, as the events do. */
static void copy_rows(struct rec_session *s, const char *rows, char end, int64_t t)
{
    be(s, 'G', t);
    buf_append(&body, rows, strlen(rows));
    fe(s, 'd', t + 1);
    if (end == 'f')
        putstr(&body, "aborted");
    fe(s, end, t + 2);
    if (end == 'c') {
        putstr(&body, "COPY 2");
        be(s, 'C', t + 3);
    } else {
        error(s, "57014", t + 3);
    }
}

static void test_copy_parts(void **state)
{
    (void)state;
    char path[64];
    rec_open(path, sizeof path, "_copyparts", 0);
    struct err e = {0};
    struct rec_session *a = start("app", "shop", 100);
    ready(a, 110);
    query(a, "SELECT 0; COPY t FROM STDIN; COPY t FROM STDIN; SELECT 1", 200);
    done(a, 205);
    copy_rows(a, "1\n2\n\\.\n", 'c', 210);
    copy_rows(a, "3\n4\n\\.\n", 'c', 220);
    done(a, 230);
    ready(a, 240);
    query(a, "COPY t FROM STDIN; COPY u FROM STDIN", 300);
    copy_rows(a, "5\n", 'c', 310);
    copy_rows(a, "6\n7", 'f', 320);
    ready(a, 330);
    query(a, "COPY u FROM STDIN", 400);
    copy_rows(a, "8\n", 'c', 410);
    ready(a, 420);
    query(a, "COPY u FROM STDIN", 430);
    copy_rows(a, "9\n", 'f', 440);
    ready(a, 450);
    recorder_session_end(rec, a, 500);
    struct record_stats st = rec_close();
    assert_int_equal(st.copy_in.with_rows, 4);
    assert_int_equal(st.copy_in.n_tables, 2);
    assert_string_equal(st.copy_in.tables[0].table, "t");
    assert_int_equal(st.copy_in.tables[0].count, 2);
    assert_int_equal(st.copy_in.tables[1].count, 2);

    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->version, 3);
    assert_int_equal(capture_reader_header(r)->copy_in.with_rows, 4);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    const struct {
        const char *rows;
        size_t parts[2];
        int fail_at; /* the COPY failed by its client, -1 none */
    } want[] = {{"1\n2\n\\.\n3\n4\n\\.\n", {7, 7}, -1},
                {"5\n6\n7", {2, 3}, 1},
                {"8\n", {0, 0}, -1},
                {"9\n", {0, 0}, 0}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        const struct capture_statement *got = &ev.statement;
        assert_int_equal(got->copy_kept, 1);
        assert_int_equal(got->copy_len, strlen(want[i].rows));
        assert_memory_equal(got->copy_data, want[i].rows, got->copy_len);
        assert_int_equal(got->n_copy_parts, want[i].parts[0] ? 2 : 0);
        for (int k = 0; k < got->n_copy_parts; k++)
            if (got->copy_parts[k] != want[i].parts[k])
                fail_msg("statement %d part %d: %zu bytes, wanted %zu", i, k, got->copy_parts[k],
                         want[i].parts[k]);
        if (want[i].fail_at < 0) {
            assert_null(got->copy_fail);
            assert_int_equal(got->copy_fail_at, 0);
        } else {
            assert_non_null(got->copy_fail);
            assert_string_equal(got->copy_fail, "aborted");
            assert_int_equal(got->copy_fail_at, want[i].fail_at);
            assert_string_equal(got->sqlstate, "57014");
        }
    }
    assert_int_equal(ev.statement.outcome, CAPTURE_OUTCOME_ERROR);
    capture_reader_close(r);
    unlink(path);
}

/* An id a sequence gave: an INSERT's RETURNING (first column, an integer type; simple and
 * extended, text and binary; several rows' ids in order), currval; not an UPDATE's RETURNING
 * id, nor a SELECT of an integer column, nor an OID of two rows. Kept as ids (version 3). */
static void test_returned_ids(void **state)
{
    (void)state;
    char path[64];
    rec_open(path, sizeof path, "_ids", 0);
    struct err e = {0};
    struct rec_session *a = start("app", "shop", 100);
    ready(a, 110);
    const struct {
        const char *text, *column, *tag;
        uint32_t type;
        int binary, extended;
        const char *want;
    } results[] = {
        {"INSERT INTO p(tag) VALUES (1) RETURNING id, tag", "id", "INSERT 0 1", 20, 0, 0, "1001"},
        {"INSERT INTO p(tag) VALUES ($1) RETURNING id", "id", "INSERT 0 1", 23, 1, 1, "1001"},
        {"INSERT INTO p(tag) VALUES (2) RETURNING seq", "seq", "INSERT 0 1", 21, 1, 0, "1001"},
        {"SELECT currval('p_id_seq')", "currval", "SELECT 1", 20, 0, 0, "1001"},
        {"SELECT LastVal() AS cur", "cur", "SELECT 1", 20, 1, 0, "1001"},
        {"SELECT nextvalue FROM t", "nextvalue", "SELECT 1", 20, 0, 0, NULL},
        {"UPDATE p SET tag = 3 RETURNING id", "id", "UPDATE 1", 20, 0, 0, NULL},
        {"INSERT INTO p(tag) VALUES (1), (2) RETURNING id", "id", "INSERT 0 2", 20, 0, 0,
         "1001\n1001"},
        {"SELECT lo_creat(-1) FROM generate_series(1, 2)", "lo_creat", "SELECT 2", 26, 0, 0, NULL},
        {"SELECT id FROM p LIMIT 1", "id", "SELECT 1", 20, 0, 0, NULL},
        {"INSERT INTO p(tag) VALUES (4) RETURNING tag", "tag", "INSERT 0 1", 25, 0, 0, NULL},
    };
    int n = (int)(sizeof results / sizeof *results);
    for (int i = 0; i < n; i++) {
        int64_t t = 200 + 10 * i;
        if (results[i].extended) {
            execute_unnamed(a, results[i].text, "5", t);
            sync_(a, t);
        } else {
            query(a, results[i].text, t);
        }
        put16(&body, 1);
        putstr(&body, results[i].column);
        put32(&body, 0);
        put16(&body, 0);
        put32(&body, results[i].type);
        put16(&body, 8);
        put32(&body, 0xffffffffu);
        put16(&body, (uint16_t)results[i].binary);
        be(a, 'T', t + 1);
        const char *tag = results[i].tag;
        for (int row = 0; row < tag[strlen(tag) - 1] - '0'; row++) { /* the tag's count */
            put16(&body, 1);
            if (results[i].binary) { /* 1001 as the type's size in network order */
                int size = results[i].type == 20 ? 8 : results[i].type == 23 ? 4 : 2;
                put32(&body, (uint32_t)size);
                for (int b = size - 1; b >= 0; b--)
                    buf_putc(&body, (char)(b < 4 ? (1001u >> (8 * b)) & 0xff : 0));
            } else {
                put32(&body, 4);
                buf_append(&body, "1001", 4);
            }
            be(a, 'D', t + 2);
        }
        putstr(&body, results[i].tag);
        be(a, 'C', t + 3);
        ready(a, t + 4);
    }
    /* A session started after them (a version 2 record) leaves the capture's version at 3. */
    struct rec_session *b = start("app", "shop", 590);
    ready(b, 595);
    recorder_session_end(rec, b, 598);
    recorder_session_end(rec, a, 600);
    rec_close();

    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->version, 3);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    for (int i = 0; i < n; i++) {
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_string_equal(ev.statement.text, results[i].text);
        if (results[i].want) {
            assert_non_null(ev.statement.returned);
            assert_string_equal(ev.statement.returned, results[i].want);
            assert_int_equal(ev.statement.returned_id, 1);
        } else {
            assert_null(ev.statement.returned);
        }
    }
    capture_reader_close(r);
    unlink(path);
}

static void param_status(struct rec_session *s, const char *name, const char *value, int64_t t)
{
    putstr(&body, name);
    putstr(&body, value);
    be(s, 'S', t);
}

/* The settings the server reports after the login, with the statement that changed them: a
 * Query's before its ReadyForQuery; an Execute's at once (PostgreSQL 13) or at its Sync group's
 * end (14 and later: with the group's last Execute, which a flush before that ReadyForQuery
 * does not write); none with a statement left out. The login's are not kept; its
 * NegotiateProtocolVersion is, with the session's start. */
static void test_param_status_and_negotiate(void **state)
{
    (void)state;
    char path[64];
    rec_open(path, sizeof path, "_status", 0);
    struct err e = {0};
    struct rec_session *a = start("app", "shop", 100);
    put32(&body, 0x30000); /* 3.0 (the whole version, as PostgreSQL sends it); two options */
    put32(&body, 2);
    putstr(&body, "_pq_.x");
    putstr(&body, "_pq_.y");
    be(a, 'v', 101);
    put32(&body, 0);
    be(a, 'R', 102);
    param_status(a, "TimeZone", "UTC", 103);
    ready(a, 110);
    query(a, "SET TimeZone = 'Asia/Tokyo'", 200);
    done(a, 201);
    param_status(a, "TimeZone", "Asia/Tokyo", 202);
    ready(a, 203);
    /* 14+: a group of two Executes, a flush between the last one's end and its ReadyForQuery */
    execute_unnamed(a, "SELECT 1", "1", 300);
    execute_unnamed(a, "SET application_name = 'b'", "1", 301);
    sync_(a, 301);
    done(a, 310);
    done(a, 311);
    assert_int_equal(recorder_flush(rec, 320, &e), 0);
    param_status(a, "application_name", "b", 321);
    ready(a, 322);
    /* 13: at once, during the Execute */
    execute_unnamed(a, "RESET ALL", "1", 400);
    sync_(a, 400);
    param_status(a, "application_name", "", 401);
    param_status(a, "TimeZone", "UTC", 402);
    done(a, 403);
    ready(a, 404);
    /* left out (a password that cannot be cut out): its settings go nowhere */
    query(a, "CREATE SUBSCRIPTION s CONNECTION 'password=x' PUBLICATION p; SET TimeZone = 'UTC'",
          500);
    done(a, 501);
    param_status(a, "TimeZone", "UTC", 502);
    ready(a, 503);
    recorder_session_end(rec, a, 600);
    struct record_stats st = rec_close();
    assert_int_equal(st.param_status, 4);

    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->version, 3);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_SESSION_START);
    assert_int_equal(ev.session.negotiated, 1);
    assert_int_equal(ev.session.negotiated_minor, 0);
    assert_int_equal(ev.session.n_unrecognised, 2);
    assert_string_equal(ev.session.unrecognised[1], "_pq_.y");
    const char *want[] = {"SET TimeZone = 'Asia/Tokyo' TimeZone=Asia/Tokyo", "SELECT 1",
                          "SET application_name = 'b' application_name=b",
                          "RESET ALL application_name= TimeZone=UTC"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_int_equal(ev.kind, CAPTURE_EV_STATEMENT);
        char got[128];
        int n = snprintf(got, sizeof got, "%s", ev.statement.text);
        for (int k = 0; k < ev.statement.n_param_status; k++)
            n += snprintf(got + n, sizeof got - (size_t)n, " %s=%s",
                          ev.statement.param_status_names[k], ev.statement.param_status_values[k]);
        assert_string_equal(got, want[i]);
    }
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_SESSION_END);
    capture_reader_close(r);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session),         cmocka_unit_test(test_empty),
        cmocka_unit_test(test_flush_order),     cmocka_unit_test(test_startup_and_copy_rows),
        cmocka_unit_test(test_returned_ids),    cmocka_unit_test(test_param_status_and_negotiate),
        cmocka_unit_test(test_user_type_names), cmocka_unit_test(test_copy_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
