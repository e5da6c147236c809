/* replay prepare on real logs (tests/data/replay/, made by make-fixtures.sh from one server
 * writing stderr, csvlog and jsonlog at once): the counts of what script.sql and the pgbench
 * runs sent, the same capture from every format, no password anywhere, filters, gzip. */
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

#include "base/buf.h"
#include "capture/prepare.h"
#include "capture/sqltext.h"

static char out[64], gz[64];

static int setup(void **state)
{
    (void)state;
    snprintf(out, sizeof out, "/tmp/test_prepare_%d.cap", (int)getpid());
    snprintf(gz, sizeof gz, "/tmp/test_prepare_%d.log.gz", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(out);
    unlink(gz);
    return 0;
}

static const char *fixture(const char *name)
{
    static char path[4][512];
    static int next;
    const char *top = getenv("PGARENA_TEST_TOP");
    char *p = path[next++ % 4];
    snprintf(p, 512, "%s/tests/data/replay/%s", top ? top : ".", name);
    return p;
}

static struct prepare_opts all(void)
{
    struct prepare_opts o = {.from_us = INT64_MIN, .to_us = INT64_MAX};
    return o;
}

static void prepare_ok(const char *const *paths, int n, const struct prepare_opts *o,
                       struct prepare_stats *s)
{
    struct err e = {0};
    if (prepare_logs(paths, n, o, out, s, &e) != 0)
        fail_msg("%s", e.msg);
}

/* The capture's events as text, one line each, for comparing captures. */
static void dump(struct buf *b)
{
    struct err e = {0};
    struct capture_reader *r = capture_reader_open(out, &e);
    assert_non_null(r);
    struct capture_event ev;
    int rc;
    buf_reset(b);
    while ((rc = capture_reader_next(r, &ev, &e)) == 1) {
        if (ev.kind != CAPTURE_EV_STATEMENT) {
            buf_printf(b, "%d %u %lld %s %s\n", ev.kind, ev.session.id,
                       (long long)ev.session.offset_us, ev.session.user, ev.session.database);
            continue;
        }
        const struct capture_statement *st = &ev.statement;
        buf_printf(b, "Q %u %lld %d %s %d %s %s %lld %lld [%s]", st->session,
                   (long long)st->offset_us, st->protocol, st->name, st->outcome, st->sqlstate,
                   st->error, (long long)st->duration_us, (long long)st->cancel_us, st->text);
        for (int i = 0; i < st->n_params; i++)
            buf_printf(b, " %s", st->params[i] ? st->params[i] : "NULL");
        buf_putc(b, '\n');
    }
    assert_int_equal(rc, 0);
    capture_reader_close(r);
}

/* A log given as text (a stderr log), prepared whole: its figures in s, its capture dumped
 * into b (made here: the caller frees it). */
static void prepare_text(const char *log, struct prepare_stats *s, struct buf *b)
{
    FILE *f = fopen(gz, "w");
    assert_non_null(f);
    fputs(log, f);
    fclose(f);
    const char *paths[] = {gz};
    struct prepare_opts o = all();
    prepare_ok(paths, 1, &o, s);
    buf_init(b);
    dump(b);
}

static void expect_counts(const struct prepare_stats *s, uint64_t sessions, uint64_t statements,
                          uint64_t copy, uint64_t secret)
{
    assert_int_equal(s->sessions, sessions);
    assert_int_equal(s->statements, statements);
    /* COPY FROM STDIN kept without its data, counted by table */
    assert_int_equal(s->skipped_copy, 0);
    assert_int_equal(s->copy_in.n_tables, copy > 0);
    if (copy) {
        assert_string_equal(s->copy_in.tables[0].table, "replay_t");
        assert_int_equal(s->copy_in.tables[0].count, copy);
    }
    assert_int_equal(s->skipped_secret, 0);
    assert_int_equal(s->secrets_cut, secret); /* kept, their password cut out */
    assert_int_equal(s->skipped_unsupported, 0);
}

/* Every format of a phase gives the same capture. */
static void same_in_every_format(const char *phase, uint64_t sessions, uint64_t statements,
                                 int with_sqlstate)
{
    static const char *const ext[] = {"csv", "json", "log"};
    struct buf first, other;
    buf_init(&first);
    buf_init(&other);
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s.%s", phase, ext[i]);
        const char *paths[] = {fixture(name)};
        struct prepare_opts o = all();
        struct prepare_stats s;
        prepare_ok(paths, 1, &o, &s);
        expect_counts(&s, sessions, statements, 1, 3);
        dump(i == 0 ? &first : &other);
        if (i > 0)
            assert_string_equal(first.data, other.data);
    }
    /* The failures, each with its SQLSTATE and message, tied to its statement. */
    assert_non_null(strstr(first.data, "42P01 relation \"replay_nosuch\" does not exist -1 -1 "
                                       "[SELECT * FROM replay_nosuch;]"));
    assert_non_null(strstr(first.data, "22012 division by zero"));
    assert_non_null(strstr(first.data, "42601 syntax error at or near \"SELEC\""));
    assert_non_null(strstr(first.data, "[SELECT a,\n   b FROM replay_t\n   WHERE a = 1;]"));
    assert_non_null(strstr(first.data, "[INSERT INTO replay_t VALUES (1, 'it''s\nmulti-line'), "
                                       "(2, NULL);]"));
    /* pgbench -M prepared: named statements with their parameters. */
    assert_non_null(strstr(first.data, " 1 P_1 1   "));
    (void)with_sqlstate;
    buf_free(&first);
    buf_free(&other);
}

static void test_log_statement_all(void **state)
{
    (void)state;
    same_in_every_format("a", 8, 53, 1);
    struct buf b;
    buf_init(&b);
    dump(&b);
    /* The cancel request: 57014 "due to user request", and when it came. */
    const char *c = strstr(b.data, "57014 canceling statement due to user request -1 ");
    assert_non_null(c);
    long long cancel = atoll(c + strlen("57014 canceling statement due to user request -1 "));
    assert_true(cancel >= 400000 && cancel < 5000000);
    /* A statement timeout is no cancel request. */
    assert_non_null(strstr(b.data, "57014 canceling statement due to statement timeout -1 -1 "));
    /* Several statements in one Query message stay one. */
    assert_non_null(strstr(b.data, "[SELECT 1; SELECT 2]"));
    buf_free(&b);
}

static void test_log_min_duration(void **state)
{
    (void)state;
    same_in_every_format("b", 5, 50, 1);
    struct buf b;
    buf_init(&b);
    dump(&b);
    /* Durations are known, and statements of a session stay in the log's order. */
    assert_non_null(strstr(b.data, "[DROP TABLE IF EXISTS replay_t;]"));
    const char *begin = strstr(b.data, "[BEGIN;]"), *div = strstr(b.data, "[SELECT 1/0;]");
    const char *rollback = strstr(b.data, "[ROLLBACK;]");
    assert_true(begin && div && rollback && begin < div && div < rollback);
    buf_free(&b);
}

static void test_pgreplay_prefix(void **state)
{
    (void)state;
    const char *paths[] = {fixture("c.log")};
    struct prepare_opts o = all();
    struct prepare_stats s;
    prepare_ok(paths, 1, &o, &s);
    assert_string_equal(s.prefix, "%m|%u|%d|%c|");
    assert_int_equal(s.sessions, 3);
    assert_int_equal(s.statements, 17);
    struct buf b;
    buf_init(&b);
    dump(&b);
    /* Without %e the failure is known, its SQLSTATE not. */
    assert_non_null(strstr(b.data, " 2  division by zero -1 -1 [SELECT 1/0]"));
    buf_free(&b);
}

/* No password, in any form the script sent it, is anywhere in the capture: the statements
 * that set one are kept with it replaced. */
static void test_no_secret(void **state)
{
    (void)state;
    static const char *const names[] = {"a.log", "a.csv", "a.json", "b.log", "b.csv", "b.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *paths[] = {fixture(names[i])};
        struct prepare_opts o = all();
        struct prepare_stats s;
        prepare_ok(paths, 1, &o, &s);
        assert_int_equal(s.skipped_secret, 0);
        assert_int_equal(s.secrets_cut, 3);
        gzFile f = gzopen(out, "rb");
        struct buf b;
        buf_init(&b);
        char chunk[4096];
        int n;
        while ((n = gzread(f, chunk, sizeof chunk)) > 0)
            buf_append(&b, chunk, (size_t)n);
        gzclose(f);
        assert_true(b.len > 1000);
        assert_null(memmem(b.data, b.len, "sekrit", 6));
        assert_null(memmem(b.data, b.len, "SCRAM-SHA-256", 13));
        /* The statements are there, each with the placeholder for its password. */
        size_t kept = 0;
        for (const char *p = b.data; (p = memmem(p, b.len - (size_t)(p - b.data),
                                                 "PASSWORD '" SQLTEXT_SECRET_PLACEHOLDER "'",
                                                 strlen(SQLTEXT_SECRET_PLACEHOLDER) + 11));
             p++)
            kept++;
        assert_int_equal(kept, 3);
        buf_free(&b);
    }
}

static void test_filters_gzip_and_several_logs(void **state)
{
    (void)state;
    struct buf plain, zipped;
    buf_init(&plain);
    buf_init(&zipped);
    const char *paths[] = {fixture("a.log"), fixture("c.log")};
    struct prepare_opts o = all();
    struct prepare_stats s;
    prepare_ok(paths, 2, &o, &s);
    assert_int_equal(s.sessions, 11);
    assert_int_equal(s.statements, 53 + 17);
    dump(&plain);
    /* The same log gzip-compressed. */
    FILE *in = fopen(paths[0], "rb");
    gzFile z = gzopen(gz, "wb");
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
        gzwrite(z, chunk, (unsigned)n);
    fclose(in);
    gzclose(z);
    const char *zpaths[] = {gz, paths[1]};
    prepare_ok(zpaths, 2, &o, &s);
    dump(&zipped);
    assert_string_equal(plain.data, zipped.data);
    /* Another user: nothing kept, everything counted as filtered. */
    o.user = "nobody";
    prepare_ok(paths, 1, &o, &s);
    assert_int_equal(s.sessions, 0);
    assert_int_equal(s.statements, 0);
    assert_int_equal(s.filtered, 53);
    /* A time window: c.log's statements only. */
    o = all();
    assert_int_equal(prepare_parse_time("2026-12-01 11:50:09.9", &o.from_us), 0);
    prepare_ok(paths, 2, &o, &s);
    assert_int_equal(s.statements, 17);
    assert_int_equal(s.filtered, 53);
    assert_int_equal(prepare_parse_time("2026-12-01 11:50", &o.from_us), -1);
    buf_free(&plain);
    buf_free(&zipped);
}

/* With log_min_duration_statement an execute is timed back over its parse and bind, to
 * before the line that started its session: still one session. */
static void test_start_timed_back(void **state)
{
    (void)state;
    FILE *f = fopen(gz, "w");
    fputs("6b0eb695.1d2e 2026-12-01 11:59:17.923 UTC 00000 user=app db=shop LOG:  duration: "
          "0.058 ms  parse <unnamed>: BEGIN;\n"
          "6b0eb695.1d2e 2026-12-01 11:59:17.923 UTC 00000 user=app db=shop LOG:  duration: "
          "0.006 ms  bind <unnamed>: BEGIN;\n"
          "6b0eb695.1d2e 2026-12-01 11:59:17.923 UTC 00000 user=app db=shop LOG:  duration: "
          "0.007 ms  execute <unnamed>: BEGIN;\n"
          "6b0eb695.1d2e 2026-12-01 11:59:17.924 UTC 00000 user=app db=shop LOG:  duration: "
          "0.194 ms  execute <unnamed>: SELECT $1\n"
          "6b0eb695.1d2e 2026-12-01 11:59:17.924 UTC 00000 user=app db=shop DETAIL:  parameters: "
          "$1 = 'it''s', $2 = NULL\n",
          f);
    fclose(f);
    const char *paths[] = {gz};
    struct prepare_opts o = all();
    struct prepare_stats s;
    prepare_ok(paths, 1, &o, &s);
    assert_int_equal(s.sessions, 1);
    assert_int_equal(s.statements, 2);
    struct buf b;
    buf_init(&b);
    dump(&b);
    assert_non_null(strstr(b.data, "1 0 0 app shop\nQ 0 0 2  1   7 -1 [BEGIN;]\n"));
    assert_non_null(strstr(b.data, "[SELECT $1] it's NULL\n"));
    buf_free(&b);
}

/* Debian's default prefix, '%m [%p] %q%u@%d ': the pid is the session, and a new
 * connection on a pid starts a new one. */
static void test_pid_sessions(void **state)
{
    (void)state;
    FILE *f = fopen(gz, "w");
    fputs("2026-12-01 11:59:17.100 UTC [4242] [unknown]@[unknown] LOG:  connection received: "
          "host=[local]\n"
          "2026-12-01 11:59:17.101 UTC [4242] app@shop LOG:  connection authorized: user=app "
          "database=shop\n"
          "2026-12-01 11:59:17.102 UTC [4242] app@shop LOG:  statement: SELECT 1\n"
          "2026-12-01 11:59:17.200 UTC [4242] [unknown]@[unknown] LOG:  connection received: "
          "host=[local]\n"
          "2026-12-01 11:59:17.201 UTC [4242] bob@shop LOG:  statement: SELECT 2\n",
          f);
    fclose(f);
    const char *paths[] = {gz};
    struct prepare_opts o = all();
    struct prepare_stats s;
    prepare_ok(paths, 1, &o, &s);
    assert_string_equal(s.prefix, "%m [%p] %u@%d ");
    assert_int_equal(s.sessions, 2);
    assert_int_equal(s.statements, 2);
    struct buf b;
    buf_init(&b);
    dump(&b);
    assert_non_null(strstr(b.data, "1 0 0 app shop\nQ 0 1000 0  1 "));
    assert_non_null(strstr(b.data, "3 0 99000 "));
    assert_non_null(strstr(b.data, "1 1 100000 bob shop\nQ 1 100000 0  1 "));
    buf_free(&b);
}

/* log_statement = all: a statement whose ERROR comes after the window (it ran 12 s) is written
 * once, as succeeded; its ERROR makes no statement of its own. With durations logged, a later
 * failure of the same text is a statement of its own. */
static void test_late_error(void **state)
{
    (void)state;
    FILE *f = fopen(gz, "w");
    fputs("2026-12-01 11:00:00.000 UTC|a|d|1.1|LOG:  statement: SELECT pg_sleep(12)\n"
          "2026-12-01 11:00:11.000 UTC|a|d|2.2|LOG:  statement: SELECT 2\n"
          "2026-12-01 11:00:12.000 UTC|a|d|1.1|ERROR:  canceling statement due to user request\n"
          "2026-12-01 11:00:12.000 UTC|a|d|1.1|STATEMENT:  SELECT pg_sleep(12)\n"
          "2026-12-01 11:00:13.000 UTC|a|d|3.3|LOG:  duration: 1.000 ms  statement: UPDATE t\n"
          "2026-12-01 11:00:30.000 UTC|a|d|4.4|LOG:  statement: SELECT 4\n"
          "2026-12-01 11:00:31.000 UTC|a|d|3.3|ERROR:  deadlock detected\n"
          "2026-12-01 11:00:31.000 UTC|a|d|3.3|STATEMENT:  UPDATE t\n",
          f);
    fclose(f);
    const char *paths[] = {gz};
    struct prepare_opts o = all();
    struct prepare_stats s;
    prepare_ok(paths, 1, &o, &s);
    assert_int_equal(s.statements, 5);
    struct buf b;
    buf_init(&b);
    dump(&b);
    const char *first = strstr(b.data, "[SELECT pg_sleep(12)]");
    assert_non_null(first);
    assert_null(strstr(first + 1, "[SELECT pg_sleep(12)]"));
    assert_non_null(strstr(b.data, " deadlock detected -1 -1 [UPDATE t]"));
    buf_free(&b);
}

/* A statement that sets a password and fails: its ERROR, whose STATEMENT holds the password,
 * is the failure of the statement kept with the password cut out, not a statement of its own
 * (which the replay would run twice). */
static void test_secret_error(void **state)
{
    (void)state;
    struct prepare_stats s;
    struct buf b;
    prepare_text("2026-12-01 11:00:00.000 UTC|a|d|1.1|LOG:  statement: CREATE ROLE r PASSWORD "
                 "'sekrit'\n"
                 "2026-12-01 11:00:00.001 UTC|a|d|1.1|ERROR:  role \"r\" already exists\n"
                 "2026-12-01 11:00:00.001 UTC|a|d|1.1|STATEMENT:  CREATE ROLE r PASSWORD "
                 "'sekrit'\n"
                 "2026-12-01 11:00:00.002 UTC|a|d|1.1|LOG:  statement: SELECT 1\n",
                 &s, &b);
    assert_int_equal(s.statements, 2);
    assert_int_equal(s.secrets_cut, 1);
    const char *text = "[CREATE ROLE r PASSWORD '" SQLTEXT_SECRET_PLACEHOLDER "']";
    const char *first = strstr(b.data, text);
    assert_non_null(first);
    assert_null(strstr(first + 1, text));
    assert_non_null(strstr(b.data, " role \"r\" already exists -1 -1 [CREATE ROLE r"));
    assert_null(strstr(b.data, "sekrit"));
    buf_free(&b);
}

/* log_statement = all with log_duration = on: parse and bind log a bare "duration:" each,
 * before their execute's line; only the one after a statement's line is its duration. One
 * that failed (at bind: never logged; at execute: no duration of its own) lends its place to
 * no parse or bind of the next. */
static void test_log_duration(void **state)
{
    (void)state;
    struct prepare_stats s;
    struct buf b;
    prepare_text("2026-12-01 11:00:00.000 UTC|a|d|1.1|LOG:  duration: 0.050 ms\n"
                 "2026-12-01 11:00:00.001 UTC|a|d|1.1|LOG:  duration: 0.020 ms\n"
                 "2026-12-01 11:00:00.002 UTC|a|d|1.1|LOG:  execute <unnamed>: SELECT 10 / $1\n"
                 "2026-12-01 11:00:00.002 UTC|a|d|1.1|DETAIL:  parameters: $1 = '0'\n"
                 "2026-12-01 11:00:00.003 UTC|a|d|1.1|ERROR:  division by zero\n"
                 "2026-12-01 11:00:00.003 UTC|a|d|1.1|STATEMENT:  SELECT 10 / $1\n"
                 "2026-12-01 11:00:00.004 UTC|a|d|1.1|LOG:  duration: 0.030 ms\n"
                 "2026-12-01 11:00:00.005 UTC|a|d|1.1|ERROR:  division by zero\n"
                 "2026-12-01 11:00:00.005 UTC|a|d|1.1|STATEMENT:  SELECT 10 / $1\n"
                 "2026-12-01 11:00:00.006 UTC|a|d|1.1|LOG:  duration: 0.031 ms\n"
                 "2026-12-01 11:00:00.007 UTC|a|d|1.1|LOG:  duration: 0.041 ms\n"
                 "2026-12-01 11:00:00.008 UTC|a|d|1.1|LOG:  execute <unnamed>: SELECT $1 + 1\n"
                 "2026-12-01 11:00:00.008 UTC|a|d|1.1|DETAIL:  parameters: $1 = '1'\n"
                 "2026-12-01 11:00:00.009 UTC|a|d|1.1|LOG:  duration: 0.123 ms\n"
                 "2026-12-01 11:00:00.010 UTC|a|d|2.2|LOG:  duration: 0.500 ms\n"
                 "2026-12-01 11:00:00.011 UTC|a|d|2.2|LOG:  duration: 0.060 ms\n"
                 "2026-12-01 11:00:00.012 UTC|a|d|2.2|LOG:  execute P_1: SELECT 10 / $1\n"
                 "2026-12-01 11:00:00.012 UTC|a|d|2.2|DETAIL:  parameters: $1 = '5'\n"
                 "2026-12-01 11:00:00.013 UTC|a|d|2.2|LOG:  duration: 0.250 ms\n"
                 "2026-12-01 11:00:00.014 UTC|a|d|2.2|LOG:  duration: 0.070 ms\n"
                 "2026-12-01 11:00:00.015 UTC|a|d|2.2|LOG:  execute P_1: SELECT 10 / $1\n"
                 "2026-12-01 11:00:00.015 UTC|a|d|2.2|DETAIL:  parameters: $1 = '0'\n"
                 "2026-12-01 11:00:00.016 UTC|a|d|2.2|ERROR:  division by zero\n"
                 "2026-12-01 11:00:00.016 UTC|a|d|2.2|STATEMENT:  SELECT 10 / $1\n"
                 "2026-12-01 11:00:00.017 UTC|a|d|2.2|LOG:  duration: 0.080 ms\n"
                 "2026-12-01 11:00:00.018 UTC|a|d|2.2|LOG:  execute P_1: SELECT 10 / $1\n"
                 "2026-12-01 11:00:00.018 UTC|a|d|2.2|DETAIL:  parameters: $1 = '2'\n"
                 "2026-12-01 11:00:00.019 UTC|a|d|2.2|LOG:  duration: 0.300 ms\n"
                 "2026-12-01 11:00:00.020 UTC|a|d|3.3|LOG:  statement: SELECT 1/0\n"
                 "2026-12-01 11:00:00.021 UTC|a|d|3.3|ERROR:  division by zero\n"
                 "2026-12-01 11:00:00.021 UTC|a|d|3.3|STATEMENT:  SELECT 1/0\n"
                 "2026-12-01 11:00:00.022 UTC|a|d|3.3|LOG:  statement: SELECT 2\n"
                 "2026-12-01 11:00:00.023 UTC|a|d|3.3|LOG:  duration: 0.111 ms\n",
                 &s, &b);
    /* The failure at bind was never logged with its parameters: left out, counted. */
    assert_int_equal(s.statements, 7);
    assert_int_equal(s.skipped_unsupported, 1);
    static const char *const want[] = {
        " 2  2  division by zero -1 -1 [SELECT 10 / $1] 0\n",
        " 2  1   123 -1 [SELECT $1 + 1] 1\n",
        " 1 P_1 1   250 -1 [SELECT 10 / $1] 5\n",
        " 1 P_1 2  division by zero -1 -1 [SELECT 10 / $1] 0\n",
        " 1 P_1 1   300 -1 [SELECT 10 / $1] 2\n",
        " 0  2  division by zero -1 -1 [SELECT 1/0]\n",
        " 0  1   111 -1 [SELECT 2]\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(b.data, want[i]))
            fail_msg("no \"%s\" in:\n%s", want[i], b.data);
    buf_free(&b);
}

/* Several logs are read in the order of their first entries; one that covers the time of
 * another (the same log twice, or in two formats) is refused, naming both. */
static void test_several_logs_order_and_overlap(void **state)
{
    (void)state;
    struct buf given, sorted;
    buf_init(&given);
    buf_init(&sorted);
    struct prepare_opts o = all();
    struct prepare_stats s;
    const char *in_order[] = {fixture("a.log"), fixture("b.log"), fixture("c.log")};
    prepare_ok(in_order, 3, &o, &s);
    dump(&sorted);
    const char *shuffled[] = {fixture("c.log"), fixture("a.log"), fixture("b.log")};
    prepare_ok(shuffled, 3, &o, &s);
    dump(&given);
    assert_string_equal(given.data, sorted.data);
    unlink(out);
    static const char *const twice[][2] = {
        {"a.log", "a.log"}, {"a.csv", "a.log"}, {"c.log", "a.json"}, {"a.json", "a.json"}};
    for (size_t i = 0; i < sizeof twice / sizeof twice[0]; i++) {
        const char *paths[] = {fixture(twice[i][0]), fixture(twice[i][1]), fixture("a.csv")};
        struct err e = {0};
        assert_int_equal(prepare_logs(paths, i == 2 ? 3 : 2, &o, out, &s, &e), -1);
        assert_int_equal(e.code, ERR_INPUT);
        assert_non_null(strstr(e.msg, " overlaps "));
        assert_non_null(strstr(e.msg, "give each log once"));
        assert_int_not_equal(access(out, F_OK), 0);
    }
    buf_free(&given);
    buf_free(&sorted);
}

/* A rotation between a session's two statements of one millisecond with the same message
 * (log_duration's "duration: 0.050 ms"): the second file's first entry looks like one of the
 * first file's but for its number in the session, so the files follow one another. */
static void test_rotation_inside_a_millisecond(void **state)
{
    (void)state;
    static const char *const row = "2026-12-01 11:50:05.%03d UTC,\"postgres\",\"postgres\",7,"
                                   "\"127.0.0.1:5\",6b0eb46d.7,%d,\"SELECT\",2026-12-01 11:50:05 "
                                   "UTC,3/38,0,LOG,00000,\"%s\",,,,,,,,,\"psql\",\"client "
                                   "backend\",,0\n";
    char first[80], second[80];
    snprintf(first, sizeof first, "%s.1.csv", out);
    snprintf(second, sizeof second, "%s.2.csv", out);
    FILE *f = fopen(first, "w");
    fprintf(f, row, 749, 1, "connection authorized: user=postgres database=postgres");
    fprintf(f, row, 750, 2, "statement: SELECT 1");
    fprintf(f, row, 750, 3, "duration: 0.050 ms");
    fprintf(f, row, 750, 4, "statement: SELECT 1");
    fclose(f);
    f = fopen(second, "w");
    fprintf(f, row, 750, 5, "duration: 0.050 ms");
    fclose(f);
    const char *paths[] = {first, second};
    struct prepare_opts o = all();
    struct prepare_stats st;
    prepare_ok(paths, 2, &o, &st);
    assert_int_equal(st.statements, 2);
    /* The same file twice is still the same log twice. */
    const char *twice[] = {first, first};
    struct err e = {0};
    assert_int_equal(prepare_logs(twice, 2, &o, out, &st, &e), -1);
    assert_non_null(strstr(e.msg, " overlaps "));
    unlink(first);
    unlink(second);
}

static void test_bad_log_leaves_no_capture(void **state)
{
    (void)state;
    FILE *f = fopen(gz, "w");
    fputs("{\"timestamp\":\"2026-12-01 11:50:05.761 UTC\"}\n{broken\n", f);
    fclose(f);
    const char *paths[] = {gz};
    struct prepare_opts o = all();
    struct prepare_stats s;
    struct err e = {0};
    assert_int_equal(prepare_logs(paths, 1, &o, out, &s, &e), -1);
    assert_int_equal(e.code, ERR_INPUT);
    char want[96];
    snprintf(want, sizeof want, "%s:2: ", gz);
    assert_non_null(strstr(e.msg, want));
    assert_int_not_equal(access(out, F_OK), 0);
}

/* PostgreSQL 18's log of drivers' traffic (make-fixtures-18.sh): "Parameters:" read, the
 * portal's fetches folded into its first execute, a value cut by log_parameter_max_length
 * left out; the stderr and csvlog give the same capture. */
static void test_pg18_drivers(void **state)
{
    (void)state;
    struct buf b[2];
    const char *names[] = {"d18.log", "d18.csv"};
    for (int i = 0; i < 2; i++) {
        const char *paths[] = {fixture(names[i])};
        struct prepare_opts o = all();
        struct prepare_stats s;
        prepare_ok(paths, 1, &o, &s);
        assert_int_equal(s.sessions, 3);
        assert_int_equal(s.statements, 26);
        assert_int_equal(s.portal_fetches, 3);
        assert_int_equal(s.skipped_unsupported, 1);
        assert_int_equal(s.unsupported[CAPTURE_UNSUP_PARAMETERS_CUT].count, 1);
        assert_string_equal(s.unsupported[CAPTURE_UNSUP_PARAMETERS_CUT].example,
                            "SELECT length($1::text)");
        buf_init(&b[i]);
        dump(&b[i]);
    }
    assert_string_equal(b[0].data, b[1].data);
    assert_non_null(strstr(b[0].data,
                           "1 S_2 1   -1 -1 [SELECT a, b FROM drv_t WHERE a > $1 ORDER BY "
                           "a] 2\n"));
    assert_non_null(strstr(b[0].data, "[SELECT count(*) FROM drv_t WHERE a < $1 AND b IS DISTINCT "
                                      "FROM $2] 7 it's\n"));
    assert_non_null(strstr(b[0].data, "[SELECT $1::text IS NULL, length($2::text)] NULL short\n"));
    buf_free(&b[0]);
    buf_free(&b[1]);
}

/* A portal's fetches fold into its first execute, and an ERROR after a fetch is that
 * execute's (a replay runs the portal whole there); a fetch whose first execute is not the
 * session's last statement stands alone, its ERROR left out with it. */
static void test_fetch_folded(void **state)
{
    (void)state;
    struct prepare_stats s;
    struct buf b;
    prepare_text(
        "2026-12-01 11:00:00.000 UTC|a|d|1.1|LOG:  execute S_1/C_1: SELECT f($1)\n"
        "2026-12-01 11:00:00.000 UTC|a|d|1.1|DETAIL:  parameters: $1 = '1'\n"
        "2026-12-01 11:00:00.001 UTC|a|d|1.1|LOG:  execute fetch from S_1/C_1: SELECT f($1)\n"
        "2026-12-01 11:00:00.001 UTC|a|d|1.1|DETAIL:  parameters: $1 = '1'\n"
        "2026-12-01 11:00:00.002 UTC|a|d|1.1|ERROR:  division by zero\n"
        "2026-12-01 11:00:00.002 UTC|a|d|1.1|STATEMENT:  SELECT f($1)\n"
        "2026-12-01 11:00:00.003 UTC|a|d|1.1|LOG:  execute S_2/C_2: SELECT g($1)\n"
        "2026-12-01 11:00:00.003 UTC|a|d|1.1|DETAIL:  Parameters: $1 = '2'\n"
        "2026-12-01 11:00:00.004 UTC|a|d|1.1|LOG:  statement: SELECT 3\n"
        "2026-12-01 11:00:00.005 UTC|a|d|1.1|LOG:  execute fetch from S_2/C_2: SELECT g($1)\n"
        "2026-12-01 11:00:00.005 UTC|a|d|1.1|DETAIL:  Parameters: $1 = '2'\n"
        "2026-12-01 11:00:00.006 UTC|a|d|1.1|ERROR:  division by zero\n"
        "2026-12-01 11:00:00.006 UTC|a|d|1.1|STATEMENT:  SELECT g($1)\n"
        "2026-12-01 11:00:00.007 UTC|a|d|1.1|LOG:  statement: SELECT 4\n",
        &s, &b);
    assert_int_equal(s.statements, 4);
    assert_int_equal(s.portal_fetches, 2);
    assert_int_equal(s.skipped_unsupported, 0);
    assert_non_null(strstr(b.data, " 1 S_1 2  division by zero -1 -1 [SELECT f($1)] 1\n"));
    assert_non_null(strstr(b.data, " 1 S_2 1   -1 -1 [SELECT g($1)] 2\n"));
    assert_non_null(strstr(b.data, "[SELECT 4]"));
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_log_statement_all, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_min_duration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pgreplay_prefix, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_secret, setup, teardown),
        cmocka_unit_test_setup_teardown(test_filters_gzip_and_several_logs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_start_timed_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pid_sessions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_late_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_secret_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_duration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_several_logs_order_and_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rotation_inside_a_millisecond, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_log_leaves_no_capture, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pg18_drivers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fetch_folded, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
