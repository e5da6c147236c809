/* The CAPTURE file: round trips of every field, and refusals of bad files. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "capture/capture.h"

static char path[64];

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/test_capture_%d.cap", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static void write_sample(void)
{
    struct err e = {0};
    struct capture_writer *w = capture_writer_open(path, &e);
    assert_non_null(w);
    struct capture_session s0 = {
        .id = 0, .offset_us = 0, .log_id = "6571.2a", .user = "app", .database = "shop"};
    struct capture_session s1 = {
        .id = 1, .offset_us = 150, .log_id = "", .user = "", .database = ""};
    assert_int_equal(capture_write_session_start(w, &s0, &e), 0);
    assert_int_equal(capture_write_session_start(w, &s1, &e), 0);
    struct capture_statement q = {.session = 0,
                                  .offset_us = 200,
                                  .protocol = CAPTURE_SIMPLE,
                                  .text = "SELECT 1;\nSELECT 'a''b'",
                                  .duration_us = 42,
                                  .outcome = CAPTURE_OUTCOME_OK,
                                  .cancel_us = -1};
    assert_int_equal(capture_write_statement(w, &q, &e), 0);
    const char *params[] = {"7", NULL, ""};
    struct capture_statement x = {.session = 1,
                                  .offset_us = 5000000000LL,
                                  .protocol = CAPTURE_EXTENDED_NAMED,
                                  .name = "S_1",
                                  .text = "SELECT $1, $2, $3",
                                  .n_params = 3,
                                  .params = params,
                                  .duration_us = -1,
                                  .outcome = CAPTURE_OUTCOME_ERROR,
                                  .sqlstate = "57014",
                                  .error = "canceling statement due to user request",
                                  .cancel_us = 1000};
    assert_int_equal(capture_write_statement(w, &x, &e), 0);
    /* A late event keeps the stream in order: it is written at the previous offset. */
    assert_int_equal(capture_write_session_end(w, 0, 100, &e), 0);
    assert_int_equal(capture_write_session_end(w, 1, 5000000100LL, &e), 0);
    struct capture_header h = {.system_identifier = "7311234567890123456",
                               .address = "db1.example",
                               .port = 5433,
                               .start_us = 1796051906893203LL,
                               .skipped_copy = 2,
                               .skipped_secret = 1,
                               .skipped_unsupported = 3};
    assert_int_equal(capture_writer_close(w, &h, &e), 0);
}

static void test_round_trip(void **state)
{
    (void)state;
    write_sample();
    struct err e = {0};
    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    const struct capture_header *h = capture_reader_header(r);
    assert_int_equal(h->version, 1); /* nothing of version 2's: older readers take it */
    assert_string_equal(h->system_identifier, "7311234567890123456");
    assert_string_equal(h->address, "db1.example");
    assert_int_equal(h->port, 5433);
    assert_int_equal(h->start_us, 1796051906893203LL);
    assert_int_equal(h->duration_us, 5000000100LL);
    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->n_statements, 2);
    assert_int_equal(h->skipped_copy, 2);
    assert_int_equal(h->skipped_secret, 1);
    assert_int_equal(h->skipped_unsupported, 3);

    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_SESSION_START);
    assert_int_equal(ev.session.id, 0);
    assert_string_equal(ev.session.log_id, "6571.2a");
    assert_string_equal(ev.session.user, "app");
    assert_string_equal(ev.session.database, "shop");
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.session.id, 1);
    assert_int_equal(ev.session.offset_us, 150);
    assert_string_equal(ev.session.user, "");

    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_STATEMENT);
    assert_int_equal(ev.statement.session, 0);
    assert_int_equal(ev.statement.offset_us, 200);
    assert_int_equal(ev.statement.protocol, CAPTURE_SIMPLE);
    assert_string_equal(ev.statement.text, "SELECT 1;\nSELECT 'a''b'");
    assert_string_equal(ev.statement.name, "");
    assert_int_equal(ev.statement.n_params, 0);
    assert_int_equal(ev.statement.duration_us, 42);
    assert_int_equal(ev.statement.outcome, CAPTURE_OUTCOME_OK);
    assert_string_equal(ev.statement.sqlstate, "");
    assert_int_equal(ev.statement.cancel_us, -1);

    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    const struct capture_statement *x = &ev.statement;
    assert_int_equal(x->session, 1);
    assert_int_equal(x->offset_us, 5000000000LL);
    assert_int_equal(x->protocol, CAPTURE_EXTENDED_NAMED);
    assert_string_equal(x->name, "S_1");
    assert_int_equal(x->n_params, 3);
    assert_string_equal(x->params[0], "7");
    assert_null(x->params[1]);
    assert_string_equal(x->params[2], "");
    assert_int_equal(x->duration_us, -1);
    assert_int_equal(x->outcome, CAPTURE_OUTCOME_ERROR);
    assert_string_equal(x->sqlstate, "57014");
    assert_string_equal(x->error, "canceling statement due to user request");
    assert_int_equal(x->cancel_us, 1000);

    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_SESSION_END);
    assert_int_equal(ev.session.id, 0);
    assert_int_equal(ev.session.offset_us, 5000000000LL);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.session.offset_us, 5000000100LL);
    assert_int_equal(capture_reader_next(r, &ev, &e), 0);
    assert_int_equal(capture_reader_next(r, &ev, &e), 0);
    capture_reader_close(r);
}

/* w closed (session 0 ended at 20) and read again: its reader, of version v, at its first
 * event. */
static struct capture_reader *close_and_open(struct capture_writer *w, int v)
{
    struct err e = {0};
    assert_int_equal(capture_write_session_end(w, 0, 20, &e), 0);
    struct capture_header h = {0};
    assert_int_equal(capture_writer_close(w, &h, &e), 0);
    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->version, v);
    return r;
}

/* Version 2's records: startup parameters (pairs, in order) and a statement's COPY rows (bytes
 * with a NUL among them; none at all is not the same as no rows kept). */
static void test_version_2_round_trip(void **state)
{
    (void)state;
    struct err e = {0};
    struct capture_writer *w = capture_writer_open(path, &e);
    assert_non_null(w);
    const char *names[] = {"user", "database", "options"};
    const char *values[] = {"app", "shop", "-c search_path=a\\ b"};
    struct capture_session s0 = {.id = 0,
                                 .log_id = "9",
                                 .user = "app",
                                 .database = "shop",
                                 .n_startup = 3,
                                 .startup_names = names,
                                 .startup_values = values};
    assert_int_equal(capture_write_session_start(w, &s0, &e), 0);
    struct capture_statement c = {.text = "COPY t FROM STDIN",
                                  .offset_us = 10,
                                  .duration_us = 5,
                                  .outcome = CAPTURE_OUTCOME_OK,
                                  .cancel_us = -1,
                                  .copy_kept = 1,
                                  .copy_data = (const uint8_t *)"1\t\0x\n",
                                  .copy_len = 5};
    assert_int_equal(capture_write_statement(w, &c, &e), 0);
    c.copy_len = 0;
    c.copy_data = NULL;
    assert_int_equal(capture_write_statement(w, &c, &e), 0);
    c.copy_kept = 0;
    assert_int_equal(capture_write_statement(w, &c, &e), 0);
    struct capture_reader *r = close_and_open(w, 2);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.session.n_startup, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(ev.session.startup_names[i], names[i]);
        assert_string_equal(ev.session.startup_values[i], values[i]);
    }
    assert_string_equal(ev.session.user, "app");
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.statement.copy_kept, 1);
    assert_int_equal(ev.statement.copy_len, 5);
    assert_memory_equal(ev.statement.copy_data, "1\t\0x\n", 5);
    assert_int_equal(ev.statement.duration_us, 5);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.statement.copy_kept, 1);
    assert_int_equal(ev.statement.copy_len, 0);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.statement.copy_kept, 0);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_SESSION_END);
    assert_int_equal(capture_reader_next(r, &ev, &e), 0);
    capture_reader_close(r);
}

/* A capture of version v holding one session and one statement in its header, then rec (n
 * bytes) as its records. */
static void write_crafted(int v, const char *rec, size_t n)
{
    gzFile z = gzopen(path, "wb");
    assert_non_null(z);
    gzprintf(z,
             "{\"format\":\"pgarena-capture\",\"version\":%d,\"source\":{},\"start_us\":0,"
             "\"duration_us\":0,\"sessions\":1,\"statements\":1,\"skipped\":{\"copy\":0,"
             "\"secret\":0,\"unsupported\":0}}\n",
             v);
    gzwrite(z, rec, (unsigned)n);
    gzclose(z);
}

/* The user's types a statement's parameters hold, named: read back as written (version 3),
 * beside the parameter types; the strings stay whole whatever else the record holds. */
static void test_type_names_round_trip(void **state)
{
    (void)state;
    struct err e = {0};
    struct capture_writer *w = capture_writer_open(path, &e);
    assert_non_null(w);
    struct capture_session s0 = {.id = 0, .log_id = "", .user = "app", .database = "shop"};
    assert_int_equal(capture_write_session_start(w, &s0, &e), 0);
    const uint32_t types[] = {16390, 25};
    const struct capture_type_name names[] = {{16390, "public", "_mood", 'a', 16391},
                                              {16391, "My Schema", "mood\"s", 'o', 0}};
    const char *params[] = {"{happy}", "x"};
    struct capture_statement st = {.offset_us = 1,
                                   .protocol = CAPTURE_EXTENDED_UNNAMED,
                                   .name = "",
                                   .text = "SELECT $1, $2",
                                   .n_params = 2,
                                   .params = params,
                                   .n_param_types = 2,
                                   .param_types = types,
                                   .n_type_names = 2,
                                   .type_names = names,
                                   .duration_us = 3,
                                   .outcome = CAPTURE_OUTCOME_OK,
                                   .cancel_us = -1};
    assert_int_equal(capture_write_statement(w, &st, &e), 0);
    assert_int_equal(capture_write_session_end(w, 0, 5, &e), 0);
    struct capture_header h = {0};
    assert_int_equal(capture_writer_close(w, &h, &e), 0);

    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->version, 3);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    const struct capture_statement *got = &ev.statement;
    assert_int_equal(got->n_param_types, 2);
    assert_int_equal(got->n_type_names, 2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(got->type_names[i].oid, names[i].oid);
        assert_string_equal(got->type_names[i].schema, names[i].schema);
        assert_string_equal(got->type_names[i].name, names[i].name);
        assert_int_equal(got->type_names[i].kind, names[i].kind);
        assert_int_equal(got->type_names[i].inner, names[i].inner);
    }
    assert_string_equal(got->params[0], "{happy}");
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(capture_reader_next(r, &ev, &e), 0);
    capture_reader_close(r);
}

/* Where each COPY's rows end in a statement of several COPY FROM STDIN (version 3's 'k'):
 * read back as written; a statement of one COPY keeps its rows whole and its capture stays
 * version 2. */
static void test_copy_parts_round_trip(void **state)
{
    (void)state;
    static const char rows[] = "1\n2\n\\.\n3\n4\n\\.\n";
    const size_t parts[] = {7, 7};
    for (int n_parts = 1; n_parts <= 2; n_parts++) {
        struct err e = {0};
        struct capture_writer *w = capture_writer_open(path, &e);
        assert_non_null(w);
        struct capture_session s0 = {.id = 0, .log_id = "", .user = "app", .database = "shop"};
        assert_int_equal(capture_write_session_start(w, &s0, &e), 0);
        struct capture_statement c = {.offset_us = 10,
                                      .text = "COPY t FROM STDIN; COPY t FROM STDIN",
                                      .name = "",
                                      .duration_us = 5,
                                      .outcome = CAPTURE_OUTCOME_OK,
                                      .cancel_us = -1,
                                      .copy_kept = 1,
                                      .copy_data = (const uint8_t *)rows,
                                      .copy_len = sizeof rows - 1,
                                      .n_copy_parts = n_parts,
                                      .copy_parts =
                                          n_parts > 1 ? parts : (const size_t[]){sizeof rows - 1}};
        assert_int_equal(capture_write_statement(w, &c, &e), 0);
        struct capture_reader *r = close_and_open(w, n_parts > 1 ? 3 : 2);
        struct capture_event ev;
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_int_equal(ev.statement.copy_len, sizeof rows - 1);
        assert_memory_equal(ev.statement.copy_data, rows, sizeof rows - 1);
        if (n_parts > 1) {
            assert_int_equal(ev.statement.n_copy_parts, 2);
            assert_int_equal(ev.statement.copy_parts[0], 7);
            assert_int_equal(ev.statement.copy_parts[1], 7);
        } else {
            assert_int_equal(ev.statement.n_copy_parts, 0);
            assert_null(ev.statement.copy_parts);
        }
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_int_equal(capture_reader_next(r, &ev, &e), 0);
        capture_reader_close(r);
    }
}

/* A COPY its client ended with a CopyFail (version 3's 'f'): which COPY of the statement and
 * the client's message, read back as written, in a statement of one COPY and of several; not
 * written for a statement whose rows are not kept (whose capture stays version 1). */
static void test_copy_fail_round_trip(void **state)
{
    (void)state;
    static const char rows[] = "1\n2\n\\.\n3\n";
    const size_t parts[] = {7, 2};
    for (int c = 0; c < 3; c++) {
        struct err e = {0};
        struct capture_writer *w = capture_writer_open(path, &e);
        assert_non_null(w);
        struct capture_session s0 = {.id = 0, .log_id = "", .user = "app", .database = "shop"};
        assert_int_equal(capture_write_session_start(w, &s0, &e), 0);
        struct capture_statement st = {.offset_us = 10,
                                       .text = "COPY t FROM STDIN; COPY t FROM STDIN",
                                       .name = "",
                                       .duration_us = 5,
                                       .outcome = CAPTURE_OUTCOME_ERROR,
                                       .sqlstate = "57014",
                                       .error = "COPY from stdin failed: aborted",
                                       .cancel_us = -1,
                                       .copy_kept = c < 2,
                                       .copy_data = c < 2 ? (const uint8_t *)rows : NULL,
                                       .copy_len = c < 2 ? sizeof rows - 1 : 0,
                                       .n_copy_parts = c == 1 ? 2 : 0,
                                       .copy_parts = c == 1 ? parts : NULL,
                                       .copy_fail = "aborted by the client",
                                       .copy_fail_at = c == 1 ? 1 : 0};
        assert_int_equal(capture_write_statement(w, &st, &e), 0);
        struct capture_reader *r = close_and_open(w, c < 2 ? 3 : 1);
        struct capture_event ev;
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        if (c < 2) {
            assert_int_equal(ev.statement.copy_len, sizeof rows - 1);
            assert_string_equal(ev.statement.copy_fail, "aborted by the client");
            assert_int_equal(ev.statement.copy_fail_at, c == 1 ? 1 : 0);
            assert_int_equal(ev.statement.n_copy_parts, c == 1 ? 2 : 0);
        } else {
            assert_int_equal(ev.statement.copy_kept, 0);
            assert_null(ev.statement.copy_fail);
        }
        assert_string_equal(ev.statement.sqlstate, "57014");
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        assert_int_equal(capture_reader_next(r, &ev, &e), 0);
        capture_reader_close(r);
    }
}

/* A statement's COPY parts that do not add up to its rows, or without rows, or in a version 2
 * capture: corrupt. */
static void test_copy_parts_refused(void **state)
{
    (void)state;
    /* a session's start; a statement (session 0, +0, simple, ok, no name, text, params,
     * duration, sqlstate, error, cancel), then its fields */
    static const struct {
        int version;
        char fields[12];
        size_t n;
        const char *what;
    } cases[] = {
        {3, {'c', 4, 'a', '\n', 'b', '\n', 'k', 2, 2, 2, 0}, 11, NULL},
        {3, {'c', 4, 'a', '\n', 'b', '\n', 'k', 2, 1, 2, 0}, 11, "COPY parts differ from the rows"},
        {3, {'k', 2, 0, 0, 0}, 5, "COPY parts differ from the rows"},
        {3, {'c', 1, 'a', 'k', 1, 1, 0}, 7, "bad COPY parts"},
        {2, {'c', 4, 'a', '\n', 'b', '\n', 'k', 2, 2, 2, 0}, 11, "bad statement field"},
        /* a CopyFail's mark ('f' copy, message): of a COPY the statement has, with rows */
        {3, {'c', 1, 'a', 'f', 0, 1, 'x', 0}, 8, NULL},
        {3, {'c', 1, 'a', 'f', 1, 1, 'x', 0}, 8, "bad COPY failed"},
        {3, {'f', 0, 1, 'x', 0}, 5, "bad COPY failed"},
        {3, {'c', 1, 'a', 'f', 0, 0, 'f', 0, 0, 0}, 10, "bad statement field"},
        {2, {'c', 1, 'a', 'f', 0, 1, 'x', 0}, 8, "bad statement field"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char rec[64] = {'S', 0, 0, 0, 0, 0, 'R', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
        memcpy(rec + 18, cases[i].fields, cases[i].n);
        write_crafted(cases[i].version, rec, 18 + cases[i].n);
        struct err e = {0};
        struct capture_reader *r = capture_reader_open(path, &e);
        assert_non_null(r);
        struct capture_event ev;
        assert_int_equal(capture_reader_next(r, &ev, &e), 1);
        int rc = capture_reader_next(r, &ev, &e);
        if (!cases[i].what) {
            assert_int_equal(rc, 1);
            if (cases[i].fields[3] == 'f')
                assert_string_equal(ev.statement.copy_fail, "x");
            else
                assert_int_equal(ev.statement.n_copy_parts, 2);
        } else {
            if (rc != -1 || !strstr(e.msg, cases[i].what))
                fail_msg("case %zu: %d, %s (wanted %s)", i, rc, e.msg, cases[i].what);
        }
        capture_reader_close(r);
    }
}

/* A version 1 header over a version 2 record: corrupt, not read as something else. */
static void test_version_2_record_in_version_1(void **state)
{
    (void)state;
    const char rec[] = {'T', 0, 0, 0, 0, 0, 0};
    write_crafted(1, rec, sizeof rec);
    struct err e = {0};
    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), -1);
    assert_non_null(strstr(e.msg, "a version 2 record in a version 1 capture"));
    capture_reader_close(r);
}

/* Version 3's settings reported with a statement (pairs in their order, a value with any byte
 * but NUL) and a session's NegotiateProtocolVersion (with and without startup parameters, with
 * no option refused). */
static void test_param_status_and_negotiate_round_trip(void **state)
{
    (void)state;
    struct err e = {0};
    struct capture_writer *w = capture_writer_open(path, &e);
    assert_non_null(w);
    const char *su_names[] = {"user", "_pq_.x"}, *su_values[] = {"app", "1"};
    const char *options[] = {"_pq_.x", "_pq_.y"};
    struct capture_session s0 = {.id = 0,
                                 .log_id = "1",
                                 .user = "app",
                                 .database = "app",
                                 .n_startup = 2,
                                 .startup_names = su_names,
                                 .startup_values = su_values,
                                 .negotiated = 1,
                                 .negotiated_minor = 0,
                                 .n_unrecognised = 2,
                                 .unrecognised = options};
    struct capture_session s1 = {
        .id = 1, .log_id = "", .user = "", .database = "", .negotiated = 1, .negotiated_minor = 2};
    assert_int_equal(capture_write_session_start(w, &s0, &e), 0);
    assert_int_equal(capture_write_session_start(w, &s1, &e), 0);
    const char *names[] = {"is_superuser", "session_authorization", "application_name"};
    const char *values[] = {"off", "rec_app", "caf\xc3\xa9 \x01\xff"};
    struct capture_statement st = {.session = 0,
                                   .offset_us = 10,
                                   .text = "SET SESSION AUTHORIZATION rec_app",
                                   .duration_us = 5,
                                   .outcome = CAPTURE_OUTCOME_OK,
                                   .cancel_us = -1,
                                   .same_sync = 1,
                                   .n_param_status = 3,
                                   .param_status_names = names,
                                   .param_status_values = values};
    assert_int_equal(capture_write_statement(w, &st, &e), 0);
    st.n_param_status = 0; /* the next statement changed nothing */
    assert_int_equal(capture_write_statement(w, &st, &e), 0);
    assert_int_equal(capture_write_session_end(w, 0, 20, &e), 0);
    assert_int_equal(capture_write_session_end(w, 1, 20, &e), 0);
    struct capture_header h = {0};
    assert_int_equal(capture_writer_close(w, &h, &e), 0);

    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->version, 3);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.session.negotiated, 1);
    assert_int_equal(ev.session.negotiated_minor, 0);
    assert_int_equal(ev.session.n_unrecognised, 2);
    assert_string_equal(ev.session.unrecognised[0], "_pq_.x");
    assert_string_equal(ev.session.unrecognised[1], "_pq_.y");
    assert_int_equal(ev.session.n_startup, 2);
    assert_string_equal(ev.session.startup_names[1], "_pq_.x");
    assert_string_equal(ev.session.startup_values[0], "app");
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.session.negotiated, 1);
    assert_int_equal(ev.session.negotiated_minor, 2);
    assert_int_equal(ev.session.n_unrecognised, 0);
    assert_int_equal(ev.session.n_startup, 0);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.kind, CAPTURE_EV_STATEMENT);
    assert_int_equal(ev.statement.n_param_status, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(ev.statement.param_status_names[i], names[i]);
        assert_string_equal(ev.statement.param_status_values[i], values[i]);
    }
    assert_int_equal(ev.statement.same_sync, 1);
    assert_string_equal(ev.statement.text, "SET SESSION AUTHORIZATION rec_app");
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.statement.n_param_status, 0);
    assert_null(ev.statement.param_status_names);
    capture_reader_close(r);
    struct capture_summary sum;
    assert_int_equal(capture_summarise(path, &sum, &e), 0);
    assert_int_equal(sum.param_status, 3); /* replay show's "parameter changes" */
    capture_summary_free(&sum);

    /* Without them, a session is version 1's or 2's again. */
    w = capture_writer_open(path, &e);
    assert_non_null(w);
    s0.negotiated = 0;
    assert_int_equal(capture_write_session_start(w, &s0, &e), 0);
    assert_int_equal(capture_writer_close(w, &h, &e), 0);
    r = capture_reader_open(path, &e);
    assert_non_null(r);
    assert_int_equal(capture_reader_header(r)->version, 2);
    assert_int_equal(capture_reader_next(r, &ev, &e), 1);
    assert_int_equal(ev.session.negotiated, 0);
    assert_null(ev.session.unrecognised);
    capture_reader_close(r);
}

/* A capture of version v: a session's start, then rec (n bytes); what reading rec gives (-1
 * with e set when refused), its event in ev. */
static int read_after_start(int v, const char *rec, size_t n, struct capture_event *ev,
                            struct err *e)
{
    char recs[64] = {'S', 0, 0, 0, 0, 0};
    assert_true(n <= sizeof recs - 6);
    memcpy(recs + 6, rec, n);
    write_crafted(v, recs, n + 6);
    struct capture_reader *r = capture_reader_open(path, e);
    assert_non_null(r);
    assert_int_equal(capture_reader_next(r, ev, e), 1);
    int rc = capture_reader_next(r, ev, e);
    if (rc == 1) /* (the strings are the reader's: checked before it closes) */
        assert_string_equal(ev->statement.param_status_values[0], "b");
    capture_reader_close(r);
    return rc;
}

/* Version 3's settings reported ('R''s tag 'p') and session start with more ('U') in a version 2
 * capture: corrupt, as version 3's other fields. */
static void test_version_3_fields_in_version_2(void **state)
{
    (void)state;
    /* session 0, offset +0, simple, ok, name "", text "", no params, duration, sqlstate,
     * error, cancel; then 'p' with one pair a=b, and the end of the fields */
    const char status[] = {'R', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 'p', 1, 1, 'a', 1, 'b', 0};
    struct capture_event ev;
    struct err e = {0};
    assert_int_equal(read_after_start(3, status, sizeof status, &ev, &e), 1);
    assert_int_equal(ev.statement.n_param_status, 1);
    assert_int_equal(read_after_start(2, status, sizeof status, &ev, &e), -1);
    assert_non_null(strstr(e.msg, "record 2: bad statement field"));
    const char negotiated[] = {'U', 1, 0, 0, 0, 0, 0, 'n', 0, 0, 0};
    e = (struct err){0};
    assert_int_equal(read_after_start(2, negotiated, sizeof negotiated, &ev, &e), -1);
    assert_non_null(strstr(e.msg, "record 2: a version 3 record in an older capture"));
}

static void test_writer_refuses_misuse(void **state)
{
    (void)state;
    struct err e = {0};
    struct capture_writer *w = capture_writer_open(path, &e);
    assert_non_null(w);
    struct capture_session s = {.id = 1, .log_id = "", .user = "", .database = ""};
    assert_int_equal(capture_write_session_start(w, &s, &e), -1);
    struct capture_statement q = {.session = 0, .text = "SELECT 1", .cancel_us = -1};
    assert_int_equal(capture_write_statement(w, &q, &e), -1);
    assert_non_null(strstr(e.msg, "not open"));
    capture_writer_abort(w);
    assert_int_not_equal(access(path, F_OK), 0);
}

/* Read the capture's bytes, uncompressed. */
static size_t slurp(char *out, size_t cap)
{
    gzFile f = gzopen(path, "rb");
    assert_non_null(f);
    int n = gzread(f, out, (unsigned)cap);
    gzclose(f);
    assert_true(n > 0);
    return (size_t)n;
}

static void spit(const char *data, size_t n)
{
    gzFile f = gzopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(gzwrite(f, data, (unsigned)n), (int)n);
    gzclose(f);
}

/* Every proper prefix of the events is refused as truncated, never read as a shorter file. */
static void test_truncated(void **state)
{
    (void)state;
    write_sample();
    char data[4096];
    size_t n = slurp(data, sizeof data);
    size_t header = (size_t)(strchr(data, '\n') - data) + 1;
    for (size_t cut = header; cut < n; cut++) {
        spit(data, cut);
        struct err e = {0};
        struct capture_reader *r = capture_reader_open(path, &e);
        assert_non_null(r);
        struct capture_event ev;
        int rc;
        while ((rc = capture_reader_next(r, &ev, &e)) == 1)
            ;
        assert_int_equal(rc, -1);
        assert_int_equal(e.code, ERR_INPUT);
        assert_non_null(strstr(e.msg, ": record "));
        capture_reader_close(r);
    }
}

/* Read CAPTURE through: its header's counts, and the events' (*starts, *ends, *statements). */
static void read_cut(uint64_t *starts, uint64_t *ends, uint64_t *statements,
                     struct capture_header *h)
{
    struct err e = {0};
    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    *h = *capture_reader_header(r);
    *starts = *ends = *statements = 0;
    struct capture_event ev;
    int rc;
    while ((rc = capture_reader_next(r, &ev, &e)) == 1) {
        *starts += ev.kind == CAPTURE_EV_SESSION_START;
        *ends += ev.kind == CAPTURE_EV_SESSION_END;
        *statements += ev.kind == CAPTURE_EV_STATEMENT;
    }
    assert_int_equal(rc, 0);
    capture_reader_close(r);
}

/* A live capture never closed (its writer killed): every cut of its bytes after the header
 * reads whole up to its last whole event, with its open sessions ended; a sync flush makes
 * all that was written readable. */
static void test_live_cut(void **state)
{
    (void)state;
    struct err e = {0};
    struct capture_writer *w = capture_writer_open_live(path, &e);
    assert_non_null(w);
    struct capture_header h = {.address = "db1", .port = 5432, .start_us = 1796051906893203LL};
    assert_int_equal(capture_writer_begin(w, &h, &e), 0);
    for (uint32_t i = 0; i < 3; i++) {
        struct capture_session s = {
            .id = i, .offset_us = i * 10, .log_id = "", .user = "app", .database = "shop"};
        assert_int_equal(capture_write_session_start(w, &s, &e), 0);
    }
    for (int i = 0; i < 40; i++) {
        struct capture_statement q = {.session = (uint32_t)(i % 3),
                                      .offset_us = 100 + i,
                                      .text = "INSERT INTO t VALUES (1)",
                                      .duration_us = 5,
                                      .outcome = CAPTURE_OUTCOME_OK,
                                      .cancel_us = -1};
        assert_int_equal(capture_write_statement(w, &q, &e), 0);
    }
    assert_int_equal(capture_write_session_end(w, 1, 500, &e), 0);
    assert_int_equal(capture_writer_sync(w, &e), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char data[1 << 16];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    uint64_t starts, ends, statements, last = 0;
    struct capture_header got;
    read_cut(&starts, &ends, &statements, &got);
    assert_true(got.cut);
    assert_int_equal(starts, 3);
    assert_int_equal(ends, 3);
    assert_int_equal(statements, 40);
    assert_int_equal(got.n_statements, 40);
    assert_int_equal(got.n_sessions, 3);
    assert_int_equal(got.duration_us, 500);
    assert_int_equal(got.start_us, h.start_us);
    assert_int_equal(got.time_resolution_us, 0);
    assert_string_equal(got.address, "db1");
    /* The header's own gzip member ends where the events' starts: cut anywhere after it. */
    size_t from = 0;
    for (size_t i = 10; i + 1 < n && !from; i++)
        if ((unsigned char)data[i] == 0x1f && (unsigned char)data[i + 1] == 0x8b)
            from = i;
    assert_true(from > 0);
    for (size_t cut = from; cut <= n; cut++) {
        f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, cut, f), cut);
        fclose(f);
        read_cut(&starts, &ends, &statements, &got);
        assert_int_equal(starts, ends);
        assert_int_equal(statements, got.n_statements);
        assert_true(statements >= last);
        last = statements;
    }
    assert_int_equal(last, 40);
    capture_writer_abort(w);
}

static void expect_open_refused(const char *content, const char *what)
{
    spit(content, strlen(content));
    struct err e = {0};
    assert_null(capture_reader_open(path, &e));
    assert_int_equal(e.code, ERR_INPUT);
    assert_non_null(strstr(e.msg, what));
    assert_int_equal(strncmp(e.msg, path, strlen(path)), 0);
}

static void test_bad_headers(void **state)
{
    (void)state;
    expect_open_refused("", "not a pgarena capture");
    expect_open_refused("2026-12-01 11:00:00.000 UTC|u|d|1.2|LOG:  statement: x\n",
                        "not a pgarena capture");
    expect_open_refused("{\"format\":\"pgarena-capture\",\"version\":4}\n", "version 4");
    expect_open_refused("{\"format\":\"pgarena-capture\",\"version\":0}\n", "version 0");
    expect_open_refused("{\"format\":\"pgarena-capture\",\"version\":1}\n", "bad capture header");
    struct err e = {0};
    assert_null(capture_reader_open("/nonexistent/x.cap", &e));
    assert_int_equal(e.code, ERR_INPUT);
    assert_non_null(strstr(e.msg, "/nonexistent/x.cap: "));
}

/* The unsupported by kind (each with its first example) and the COPY FROM STDIN kept by
 * table round-trip through the header; a header without them (an older capture) reads, with
 * none; malformed ones are refused. */
static void test_kinds_and_copy_tables(void **state)
{
    (void)state;
    struct err e = {0};
    struct capture_writer *w = capture_writer_open(path, &e);
    assert_non_null(w);
    struct capture_header h = {.skipped_unsupported = 3};
    capture_count_unsupported(h.unsupported, CAPTURE_UNSUP_FETCH, "SELECT * FROM big");
    capture_count_unsupported(h.unsupported, CAPTURE_UNSUP_FETCH, "SELECT 2");
    capture_count_unsupported(h.unsupported, CAPTURE_UNSUP_PARAMETERS_NOT_LOGGED, "SELECT $1");
    capture_count_copy(&h.copy_in, "t");
    capture_count_copy(&h.copy_in, "s.u");
    capture_count_copy(&h.copy_in, "t");
    assert_int_equal(capture_writer_close(w, &h, &e), 0);
    struct capture_reader *r = capture_reader_open(path, &e);
    assert_non_null(r);
    const struct capture_header *g = capture_reader_header(r);
    assert_int_equal(g->unsupported[CAPTURE_UNSUP_FETCH].count, 2);
    assert_string_equal(g->unsupported[CAPTURE_UNSUP_FETCH].example, "SELECT * FROM big");
    assert_int_equal(g->unsupported[CAPTURE_UNSUP_PARAMETERS_NOT_LOGGED].count, 1);
    assert_string_equal(g->unsupported[CAPTURE_UNSUP_PARAMETERS_NOT_LOGGED].example, "SELECT $1");
    assert_int_equal(g->unsupported[CAPTURE_UNSUP_OUT_OF_ORDER].count, 0);
    assert_true(g->copy_in.kept);
    assert_int_equal(g->copy_in.n_tables, 2);
    assert_string_equal(g->copy_in.tables[0].table, "t");
    assert_int_equal(g->copy_in.tables[0].count, 2);
    assert_string_equal(g->copy_in.tables[1].table, "s.u");
    assert_int_equal(g->copy_in.tables[1].count, 1);
    capture_reader_close(r);

    /* An older header: no kinds, no COPY kept. */
    gzFile z = gzopen(path, "wb");
    gzputs(z, "{\"format\":\"pgarena-capture\",\"version\":1,\"source\":{},\"start_us\":0,"
              "\"duration_us\":0,\"sessions\":0,\"statements\":0,\"skipped\":{\"copy\":4,"
              "\"secret\":0,\"unsupported\":5}}\nZ");
    gzputc(z, 0);
    gzputc(z, 0);
    gzclose(z);
    r = capture_reader_open(path, &e);
    assert_non_null(r);
    g = capture_reader_header(r);
    assert_int_equal(g->skipped_copy, 4);
    assert_int_equal(g->skipped_unsupported, 5);
    for (int k = 0; k < CAPTURE_UNSUP__COUNT; k++)
        assert_int_equal(g->unsupported[k].count, 0);
    assert_false(g->copy_in.kept);
    struct capture_event ev;
    assert_int_equal(capture_reader_next(r, &ev, &e), 0);
    capture_reader_close(r);
    expect_open_refused("{\"format\":\"pgarena-capture\",\"version\":1,\"source\":{},"
                        "\"start_us\":0,\"duration_us\":0,\"sessions\":0,\"statements\":0,"
                        "\"skipped\":{\"copy\":0,\"secret\":0,\"unsupported\":0},"
                        "\"copy_from_stdin\":{\"tables\":{\"t\":\"x\"},\"other\":0}}\n",
                        "bad capture header");
}

/* The table a COPY FROM STDIN loads, as the server reads its name. */
static void test_copy_table_of(void **state)
{
    (void)state;
    char t[16];
    assert_int_equal(capture_copy_table_of("COPY ct FROM STDIN;", t, sizeof t), 0);
    assert_string_equal(t, "ct");
    assert_int_equal(
        capture_copy_table_of("  copy Public.\"My \"\"T\"\"\" (a, b) from stdin", t, sizeof t), 0);
    assert_string_equal(t, "public.My \"T\"");
    assert_int_equal(capture_copy_table_of("COPY (SELECT 1) TO STDOUT", t, sizeof t), -1);
    assert_int_equal(capture_copy_table_of("COPY a_very_long_table_name FROM STDIN", t, sizeof t),
                     -1);
    assert_int_equal(capture_copy_table_of("SELECT 1", t, sizeof t), -1);
}

/* replay show's figures: statements by protocol and outcome, classes by normalised text,
 * ordered by count then text, with their failures and known durations. */
static void test_summary(void **state)
{
    (void)state;
    struct err e = {0};
    struct capture_writer *w = capture_writer_open(path, &e);
    assert_non_null(w);
    struct capture_session s0 = {.id = 0, .log_id = "", .user = "u", .database = "d"};
    assert_int_equal(capture_write_session_start(w, &s0, &e), 0);
    static const char *const texts[] = {"SELECT 1", "BEGIN", "SELECT 22", "BEGIN",
                                        "select 3", "BEGIN", "SELECT  7"};
    for (int i = 0; i < 7; i++) {
        struct capture_statement st = {.session = 0,
                                       .offset_us = 10 * i,
                                       .protocol = (enum capture_protocol)(i % 3),
                                       .name = i % 3 == 1 ? "S_1" : "",
                                       .text = texts[i],
                                       .duration_us = i < 2 ? -1 : 1000 * i,
                                       .outcome = i == 2   ? CAPTURE_OUTCOME_ERROR
                                                  : i == 6 ? CAPTURE_OUTCOME_UNKNOWN
                                                           : CAPTURE_OUTCOME_OK,
                                       .error = "",
                                       .cancel_us = i == 2 ? 5 : -1};
        assert_int_equal(capture_write_statement(w, &st, &e), 0);
    }
    assert_int_equal(capture_write_session_end(w, 0, 100, &e), 0);
    struct capture_header h = {.start_us = 1796051906893203LL};
    assert_int_equal(capture_writer_close(w, &h, &e), 0);

    struct capture_summary sum;
    assert_int_equal(capture_summarise(path, &sum, &e), 0);
    assert_int_equal(sum.header.n_statements, 7);
    assert_int_equal(sum.by_protocol[CAPTURE_SIMPLE], 3);
    assert_int_equal(sum.by_protocol[CAPTURE_EXTENDED_NAMED], 2);
    assert_int_equal(sum.by_protocol[CAPTURE_EXTENDED_UNNAMED], 2);
    assert_int_equal(sum.ok, 5);
    assert_int_equal(sum.failed, 1);
    assert_int_equal(sum.unknown, 1);
    assert_int_equal(sum.cancelled, 1);
    /* "SELECT $1" (3: 1, 22, 7 with its spaces squeezed) and "BEGIN" (3) tie: by text. */
    assert_int_equal(sum.n_classes, 3);
    assert_string_equal(sum.classes[0].text, "BEGIN");
    assert_int_equal(sum.classes[0].count, 3);
    assert_int_equal(sum.classes[0].timed, 2); /* the first BEGIN has no duration */
    assert_int_equal(sum.classes[0].total_us, 3000 + 5000);
    assert_string_equal(sum.classes[1].text, "SELECT $1");
    assert_int_equal(sum.classes[1].count, 3);
    assert_int_equal(sum.classes[1].failed, 1);
    assert_int_equal(sum.classes[1].total_us, 2000 + 6000);
    assert_string_equal(sum.classes[2].text, "select $1");
    assert_int_equal(sum.other.count, 0);
    capture_summary_free(&sum);

    /* A capture cut short is refused, as the reader refuses it, and leaves nothing. */
    char data[4096];
    size_t n = slurp(data, sizeof data);
    spit(data, n - 3);
    struct err e2 = {0};
    assert_int_equal(capture_summarise(path, &sum, &e2), -1);
    assert_int_equal(e2.code, ERR_INPUT);
    assert_int_equal(sum.n_classes, 0);
    assert_null(sum.classes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version_2_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_parts_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_fail_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_copy_parts_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_type_names_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version_2_record_in_version_1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_param_status_and_negotiate_round_trip, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_version_3_fields_in_version_2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writer_refuses_misuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_live_cut, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_headers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kinds_and_copy_tables, setup, teardown),
        cmocka_unit_test(test_copy_table_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
