/* Protocol 3 as the recording proxy reads it: startup packets, the framer over a stream cut
 * anywhere, Bind's parameters, ErrorResponse's fields, the error the proxy writes, and the
 * SASL mechanisms it passes on. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/buf.h"
#include "pgwire_fixture.h"
#include "capture/pgwire.h"

/* A typed message: type, length, body. */
static void msg(struct buf *out, char type, const struct buf *body)
{
    buf_putc(out, type);
    put32(out, (uint32_t)body->len + 4);
    buf_append(out, body->data, body->len);
}

/* A startup packet of code with the pairs (NULL-terminated). */
static void startup(struct buf *b, uint32_t code, const char *const *pairs)
{
    struct buf body;
    buf_init(&body);
    put32(&body, code);
    for (int i = 0; pairs && pairs[i]; i++)
        putstr(&body, pairs[i]);
    if (pairs)
        buf_putc(&body, '\0');
    put32(b, (uint32_t)body.len + 4);
    buf_append(b, body.data, body.len);
    buf_free(&body);
}

static void test_startup_v3(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b);
    const char *pairs[] = {"user", "app", "database", "shop", "options", "-c x=1", NULL};
    startup(&b, PGWIRE_PROTOCOL_3, pairs);
    const uint8_t *d = (const uint8_t *)b.data;
    assert_int_equal(pgwire_startup_len(d, 3), 0);
    assert_int_equal(pgwire_startup_len(d, b.len), (long)b.len);
    struct pgwire_startup su;
    assert_int_equal(pgwire_startup_parse(d, b.len, &su), 0);
    assert_int_equal(su.kind, PGWIRE_STARTUP_V3);
    assert_int_equal(su.n_params, 3);
    assert_string_equal(pgwire_startup_param(&su, "database"), "shop");
    assert_string_equal(pgwire_startup_param(&su, "options"), "-c x=1");
    assert_null(pgwire_startup_param(&su, "replication"));
    /* Without the terminating NUL: refused. */
    assert_int_equal(pgwire_startup_parse(d, b.len - 1, &su), -1);
    buf_free(&b);
}

static void test_startup_requests(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b);
    startup(&b, PGWIRE_SSL_REQUEST, NULL);
    struct pgwire_startup su;
    assert_int_equal(pgwire_startup_parse((const uint8_t *)b.data, b.len, &su), 0);
    assert_int_equal(su.kind, PGWIRE_STARTUP_SSL);
    buf_reset(&b);
    startup(&b, PGWIRE_GSSENC_REQUEST, NULL);
    assert_int_equal(pgwire_startup_parse((const uint8_t *)b.data, b.len, &su), 0);
    assert_int_equal(su.kind, PGWIRE_STARTUP_GSSENC);
    buf_reset(&b);
    put32(&b, 16);
    put32(&b, PGWIRE_CANCEL_REQUEST);
    put32(&b, 4242);
    put32(&b, 0xdeadbeef);
    assert_int_equal(pgwire_startup_parse((const uint8_t *)b.data, b.len, &su), 0);
    assert_int_equal(su.kind, PGWIRE_STARTUP_CANCEL);
    assert_int_equal(su.cancel_pid, 4242);
    assert_int_equal(su.cancel_key_len, 4);
    assert_int_equal(su.cancel_key[0], 0xde);
    buf_reset(&b);
    startup(&b, 0x00020000u, NULL);
    assert_int_equal(pgwire_startup_parse((const uint8_t *)b.data, b.len, &su), 0);
    assert_int_equal(su.kind, PGWIRE_STARTUP_OTHER);
    /* Lengths out of range. */
    uint8_t tiny[4] = {0, 0, 0, 4}, huge[4] = {0x7f, 0, 0, 0};
    assert_int_equal(pgwire_startup_len(tiny, 4), -1);
    assert_int_equal(pgwire_startup_len(huge, 4), -1);
    buf_free(&b);
}

/* A Query "SELECT 1", a password message of skipped's bytes, a Sync: appended to stream. */
static void three_messages(struct buf *stream, const char *skipped)
{
    struct buf body;
    buf_init(&body);
    putstr(&body, "SELECT 1");
    msg(stream, 'Q', &body);
    buf_reset(&body);
    buf_append(&body, skipped, strlen(skipped));
    msg(stream, 'p', &body);
    buf_reset(&body);
    msg(stream, 'S', &body);
    buf_free(&body);
}

/* Three messages fed one byte at a time and all at once: the same types and kept bodies. */
static void test_framer(void **state)
{
    (void)state;
    struct buf stream;
    buf_init(&stream);
    three_messages(&stream, "secret-bytes"); /* 'p' is not kept: never held */
    for (size_t step = 1; step <= stream.len; step += stream.len - 1) {
        struct pgwire_framer f;
        pgwire_framer_init(&f, "QS", 1024);
        char types[4] = {0};
        int n = 0, sawq = 0;
        for (size_t pos = 0; pos < stream.len;) {
            size_t len = stream.len - pos < step ? stream.len - pos : step, used = 0;
            while (len > 0) {
                char t;
                const uint8_t *bd;
                size_t bl;
                int rc = pgwire_framer_feed(&f, (const uint8_t *)stream.data + pos, len, &used, &t,
                                            &bd, &bl);
                assert_true(rc >= 0);
                pos += used;
                len -= used;
                if (rc == 1) {
                    types[n++] = t;
                    if (t == 'Q') {
                        assert_int_equal(bl, 9);
                        assert_string_equal((const char *)bd, "SELECT 1");
                        sawq = 1;
                    }
                    if (t == 'p')
                        assert_null(bd);
                }
            }
        }
        assert_string_equal(types, "QpS");
        assert_true(sawq);
        pgwire_framer_free(&f);
    }
    buf_free(&stream);
}

static void test_framer_refuses(void **state)
{
    (void)state;
    struct pgwire_framer f;
    pgwire_framer_init(&f, "Q", 8);
    uint8_t bad_len[5] = {'Q', 0, 0, 0, 3}, too_long[5] = {'Q', 0, 0, 0, 20};
    size_t used;
    char t;
    const uint8_t *bd;
    size_t bl;
    assert_int_equal(pgwire_framer_feed(&f, bad_len, 5, &used, &t, &bd, &bl), -1);
    pgwire_framer_free(&f);
    pgwire_framer_init(&f, "Q", 8);
    assert_int_equal(pgwire_framer_feed(&f, too_long, 5, &used, &t, &bd, &bl), -1);
    pgwire_framer_free(&f);
}

/* Feed a stream in two parts split at every point: check foresees each part's failure (a
 * length under 4, then a kept body over the most) exactly where feeding it fails. */
static void test_framer_check(void **state)
{
    (void)state;
    static const uint8_t tails[2][5] = {{'Q', 0, 0, 0, 3}, {'Q', 0, 0, 0, 4 + 17}};
    for (int bad = 0; bad < 2; bad++) {
        struct buf stream;
        buf_init(&stream);
        three_messages(&stream, "secret-bytes-longer-than-16"); /* not kept: may be longer */
        buf_append(&stream, (const char *)tails[bad], 5);
        for (size_t split = 0; split <= stream.len; split++) {
            struct pgwire_framer f;
            pgwire_framer_init(&f, "QS", 16);
            size_t bounds[3] = {0, split, stream.len};
            int failed = 0;
            for (int part = 0; part < 2 && !failed; part++) {
                const uint8_t *d = (const uint8_t *)stream.data + bounds[part];
                size_t len = bounds[part + 1] - bounds[part], pos = 0, used;
                int foreseen = pgwire_framer_check(&f, d, len);
                while (pos < len && !failed) {
                    char t;
                    const uint8_t *bd;
                    size_t bl;
                    failed = pgwire_framer_feed(&f, d + pos, len - pos, &used, &t, &bd, &bl) < 0;
                    pos += used;
                }
                if (foreseen != (failed ? -1 : 0))
                    fail_msg("bad tail %d split at %zu, part %d: check %d, feed %s", bad, split,
                             part, foreseen, failed ? "failed" : "read");
            }
            assert_int_equal(failed, 1); /* the tail's header, wherever the split */
            pgwire_framer_free(&f);
        }
        buf_free(&stream);
    }
}

static void test_bind(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b);
    putstr(&b, "");
    putstr(&b, "P_1");
    put16(&b, 0); /* all text */
    put16(&b, 3);
    put32(&b, 2);
    buf_append(&b, "42", 2);
    put32(&b, 0xffffffffu); /* NULL */
    put32(&b, 0);
    put16(&b, 0);
    struct pgwire_bind bd;
    assert_int_equal(pgwire_parse_bind((const uint8_t *)b.data, b.len, &bd), 0);
    assert_string_equal(bd.statement, "P_1");
    assert_int_equal(bd.n_params, 3);
    assert_false(bd.any_binary);
    assert_int_equal(bd.lens[0], 2);
    assert_memory_equal(bd.values[0], "42", 2);
    assert_null(bd.values[1]);
    assert_int_equal(bd.lens[2], 0);
    assert_int_equal(bd.formats[0] + bd.formats[1] + bd.formats[2], 0);
    assert_int_equal(bd.n_result_formats, 0);
    pgwire_bind_free(&bd);
    /* One format code for all, binary. */
    buf_reset(&b);
    putstr(&b, "");
    putstr(&b, "");
    put16(&b, 1);
    put16(&b, 1);
    put16(&b, 1);
    put32(&b, 4);
    put32(&b, 7);
    put16(&b, 2); /* the results' formats: text, binary */
    put16(&b, 0);
    put16(&b, 1);
    assert_int_equal(pgwire_parse_bind((const uint8_t *)b.data, b.len, &bd), 0);
    assert_true(bd.any_binary);
    assert_int_equal(bd.formats[0], 1);
    assert_int_equal(bd.n_result_formats, 2);
    assert_int_equal(bd.result_formats[0], 0);
    assert_int_equal(bd.result_formats[1], 1);
    pgwire_bind_free(&bd);
    /* A value longer than the body: refused. */
    assert_int_equal(pgwire_parse_bind((const uint8_t *)b.data, b.len - 1, &bd), -1);
    buf_free(&b);
}

static void test_errors(void **state)
{
    (void)state;
    struct buf out;
    buf_init(&out);
    pgwire_error_response(&out, "0A000", "no replication");
    assert_int_equal(out.data[0], 'E');
    uint32_t n = (uint32_t)(uint8_t)out.data[1] << 24 | (uint32_t)(uint8_t)out.data[2] << 16 |
                 (uint32_t)(uint8_t)out.data[3] << 8 | (uint8_t)out.data[4];
    assert_int_equal(n, out.len - 1);
    char sqlstate[6];
    const char *m;
    pgwire_parse_error((const uint8_t *)out.data + 5, out.len - 5, sqlstate, &m);
    assert_string_equal(sqlstate, "0A000");
    assert_string_equal(m, "no replication");
    /* A body cut short: what reads is kept, nothing past the end. */
    pgwire_parse_error((const uint8_t *)out.data + 5, 8, sqlstate, &m);
    assert_string_equal(m, "");
    buf_free(&out);
}

/* AuthenticationSASL without SCRAM-SHA-256-PLUS: the other mechanisms kept in order, the
 * length rewritten; nothing left: -1. */
static void test_sasl_without(void **state)
{
    (void)state;
    struct buf body, out, want, wbody;
    buf_init(&body);
    buf_init(&out);
    buf_init(&want);
    buf_init(&wbody);
    put32(&body, 10);
    putstr(&body, "SCRAM-SHA-256-PLUS");
    putstr(&body, "SCRAM-SHA-256");
    buf_putc(&body, '\0');
    assert_int_equal(
        pgwire_sasl_without((const uint8_t *)body.data, body.len, "SCRAM-SHA-256-PLUS", &out), 0);
    put32(&wbody, 10);
    putstr(&wbody, "SCRAM-SHA-256");
    buf_putc(&wbody, '\0');
    msg(&want, 'R', &wbody);
    assert_int_equal(out.len, want.len);
    assert_memory_equal(out.data, want.data, want.len);
    /* Without it: unchanged. */
    buf_reset(&out);
    assert_int_equal(
        pgwire_sasl_without((const uint8_t *)wbody.data, wbody.len, "SCRAM-SHA-256-PLUS", &out), 0);
    assert_memory_equal(out.data, want.data, want.len);
    /* Another one taken out: the rest kept. Only it: nothing left. */
    buf_reset(&out);
    assert_int_equal(
        pgwire_sasl_without((const uint8_t *)body.data, body.len, "SCRAM-SHA-256", &out), 0);
    buf_reset(&body);
    put32(&body, 10);
    putstr(&body, "SCRAM-SHA-256-PLUS");
    buf_putc(&body, '\0');
    buf_reset(&out);
    assert_int_equal(
        pgwire_sasl_without((const uint8_t *)body.data, body.len, "SCRAM-SHA-256-PLUS", &out), -1);
    buf_free(&body);
    buf_free(&out);
    buf_free(&want);
    buf_free(&wbody);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_startup_v3),   cmocka_unit_test(test_startup_requests),
        cmocka_unit_test(test_framer),       cmocka_unit_test(test_framer_refuses),
        cmocka_unit_test(test_framer_check), cmocka_unit_test(test_bind),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_sasl_without),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
