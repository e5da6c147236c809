/* The log readers: prefixes (given and inferred), times, stderr continuation and DETAIL /
 * STATEMENT lines, csvlog quoting across lines, jsonlog, and the refusals of bad input. Lines
 * are PostgreSQL 15's own (tests/data/replay/). */
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

#include "capture/logread.h"
#include "capture/logread_int.h"

static char path[64];

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/test_logread_%d.log", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static void write_file(const char *text, int gzip)
{
    if (gzip) {
        gzFile f = gzopen(path, "wb");
        gzwrite(f, text, (unsigned)strlen(text));
        gzclose(f);
        return;
    }
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_time(void **state)
{
    (void)state;
    int64_t t, u;
    size_t end;
    const char *s = "2026-12-01 11:41:16.332 UTC|x";
    assert_int_equal(log_parse_time(s, strlen(s), &t, &end), 0);
    assert_int_equal(t, 1796125276332000LL);
    assert_int_equal(s[end], '|');
    s = "2026-12-01 13:41:16.332 +02";
    assert_int_equal(log_parse_time(s, strlen(s), &u, NULL), 0);
    assert_int_equal(u, t);
    s = "2026-12-01 06:11:16.332 -05:30";
    assert_int_equal(log_parse_time(s, strlen(s), &u, NULL), 0);
    assert_int_equal(u, t);
    s = "2026-13-01 11:41:16";
    assert_int_equal(log_parse_time(s, strlen(s), &u, NULL), -1);
    s = "2026-12-01 11:41";
    assert_int_equal(log_parse_time(s, strlen(s), &u, NULL), -1);
}

static void test_prefix_match(void **state)
{
    (void)state;
    struct log_prefix p;
    char msg[256];
    assert_int_equal(log_prefix_compile(&p, "%m|%u|%d|%c|", msg, sizeof msg), 0);
    const char *line = "2026-12-01 11:50:09.974 UTC|postgres|shop|6b0eb471.6631|LOG:  statement: "
                       "SELECT 1";
    struct log_prefix_match m;
    assert_int_equal(log_prefix_match(&p, line, strlen(line), &m), 0);
    assert_int_equal(m.user_len, 8);
    assert_memory_equal(m.user, "postgres", 8);
    assert_memory_equal(m.database, "shop", 4);
    assert_memory_equal(m.session, "6b0eb471.6631", 13);
    assert_memory_equal(m.severity, "LOG", 3);
    assert_string_equal(m.message, "statement: SELECT 1");
    /* The postmaster's lines leave user, database and session empty. */
    line = "2026-12-01 11:41:15.377 UTC|||6b0eb255.50c3|LOG:  parameter changed";
    assert_int_equal(log_prefix_match(&p, line, strlen(line), &m), 0);
    assert_int_equal(m.user_len, 0);
    /* A line written before the prefix was set does not match. */
    line = "2026-12-01 11:41:09.344 UTC [20675] LOG:  starting PostgreSQL 15.18";
    assert_int_equal(log_prefix_match(&p, line, strlen(line), &m), -1);
    /* The same fields in another order, with a SQLSTATE and labels. */
    assert_int_equal(log_prefix_compile(&p, "%c %e %m db=%d,user=%u ", msg, sizeof msg), 0);
    line = "6b0eb470.6608 42P01 2026-12-01 11:50:08.097 UTC db=shop,user=app ERROR:  relation "
           "\"x\" does not exist";
    assert_int_equal(log_prefix_match(&p, line, strlen(line), &m), 0);
    assert_memory_equal(m.sqlstate, "42P01", 5);
    assert_memory_equal(m.database, "shop", 4);
    assert_memory_equal(m.user, "app", 3);
    assert_memory_equal(m.severity, "ERROR", 5);
    /* %q: what follows is left out for processes without a session. */
    assert_int_equal(log_prefix_compile(&p, "%m [%p] %q%u@%d %c ", msg, sizeof msg), 0);
    line = "2026-12-01 11:50:08.097 UTC [26120] app@shop 6b0eb470.6608 LOG:  statement: SELECT 1";
    assert_int_equal(log_prefix_match(&p, line, strlen(line), &m), 0);
    assert_memory_equal(m.user, "app", 3);
    assert_memory_equal(m.session, "6b0eb470.6608", 13);
    line = "2026-12-01 11:50:08.097 UTC [20675] LOG:  checkpoint starting: time";
    assert_int_equal(log_prefix_match(&p, line, strlen(line), &m), 0);
    assert_int_equal(m.session_len, 0);
    /* Without a millisecond time or a session id a prefix is refused. */
    assert_int_equal(log_prefix_compile(&p, "%t [%p] %u@%d ", msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "millisecond"));
    assert_int_equal(log_prefix_compile(&p, "%m %u@%d ", msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "session id"));
    /* Debian's default prefix has no %c: the pid serves as the session id. */
    assert_int_equal(log_prefix_compile(&p, "%m [%p] %q%u@%d ", msg, sizeof msg), 0);
    line = "2026-12-01 11:50:08.097 UTC [26120] app@shop LOG:  statement: SELECT 1";
    assert_int_equal(log_prefix_match(&p, line, strlen(line), &m), 0);
    assert_memory_equal(m.session, "26120", 5);
}

static void expect_inferred(const char *line, const char *spec)
{
    struct log_prefix p;
    assert_int_equal(log_prefix_infer(&p, line, strlen(line)), 0);
    assert_string_equal(p.spec, spec);
}

static void test_prefix_infer(void **state)
{
    (void)state;
    expect_inferred("2026-12-01 11:50:09.974 UTC|postgres|postgres|6b0eb471.6631|LOG:  "
                    "statement: SELECT 1",
                    "%m|%u|%d|%c|");
    expect_inferred("2026-12-01 11:50:05.749 UTC|postgres|postgres|6b0eb46d.65ad|00000|LOG:  "
                    "connection authorized: user=postgres database=postgres",
                    "%m|%u|%d|%c|%e|");
    expect_inferred("2026-12-01 11:50:08.048 UTC [26120] 6b0eb470.6608 00000 user=postgres "
                    "db=postgres LOG:  duration: 11.412 ms  statement: DROP TABLE t;",
                    "%m [%p] %c %e user=%u db=%d ");
    expect_inferred("1796118076.332 [26120]: app@shop 6b0eb470.6608 LOG:  execute P_1: SELECT 1",
                    "%n [%p]: %u@%d %c ");
    /* The database before the user: a connection line tells which word is which. */
    expect_inferred("2026-12-01 11:50:05.749 UTC|shop|app|6b0eb46d.65ad|LOG:  connection "
                    "authorized: user=app database=shop application_name=psql",
                    "%m|%d|%u|%c|");
    expect_inferred("2026-12-01 11:41:09.344 UTC [20675] app@shop LOG:  statement: SELECT 1",
                    "%m [%p] %u@%d ");
    struct log_prefix p;
    const char *line = "2026-12-01 11:41:09.344 UTC app@shop LOG:  statement: SELECT 1";
    assert_int_equal(log_prefix_infer(&p, line, strlen(line)), -1); /* no session id */
    line = "2026-12-01 11:41:09.344 UTC [20675] 6b0eb470.6608 LOG:  checkpoint starting";
    assert_int_equal(log_prefix_infer(&p, line, strlen(line)), -1); /* not a client's line */
}

static const char stderr_log[] =
    "2026-12-01 11:41:09.344 UTC [20675] LOG:  starting PostgreSQL 15.18\n"
    "2026-12-01 11:50:05.752 UTC|postgres|postgres|6b0eb46d.65ad|00000|LOG:  statement: INSERT "
    "INTO replay_t VALUES (1, 'it''s\n"
    "\tmulti-line'), (2, NULL);\n"
    "2026-12-01 11:50:05.761 UTC|postgres|postgres|6b0eb46d.65ad|42P01|ERROR:  relation "
    "\"replay_nosuch\" does not exist at character 15\n"
    "2026-12-01 11:50:05.761 UTC|postgres|postgres|6b0eb46d.65ad|42P01|STATEMENT:  SELECT * "
    "FROM replay_nosuch;\n"
    "2026-12-01 11:50:06.424 UTC|postgres|postgres|6b0eb46e.65c0|00000|LOG:  execute P_1: "
    "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;\n"
    "2026-12-01 11:50:06.424 UTC|postgres|postgres|6b0eb46e.65c0|00000|DETAIL:  parameters: $1 "
    "= '895', $2 = '57613'\n";

static void test_stderr(void **state)
{
    (void)state;
    for (int gz = 0; gz < 2; gz++) {
        write_file(stderr_log, gz);
        struct err e = {0};
        struct log_reader *r = log_reader_open(path, LOG_FORMAT_AUTO, NULL, &e);
        assert_non_null(r);
        struct log_entry le;
        assert_int_equal(log_reader_next(r, &le, &e), 1);
        assert_int_equal(log_reader_format(r), LOG_FORMAT_STDERR);
        assert_string_equal(log_reader_prefix(r), "%m|%u|%d|%c|%e|");
        assert_string_equal(
            le.message,
            "statement: INSERT INTO replay_t VALUES (1, 'it''s\nmulti-line'), (2, NULL);");
        assert_string_equal(le.session, "6b0eb46d.65ad");
        assert_string_equal(le.sqlstate, "00000");
        assert_int_equal(le.line, 2);
        assert_int_equal(log_reader_next(r, &le, &e), 1);
        assert_string_equal(le.severity, "ERROR");
        assert_string_equal(le.sqlstate, "42P01");
        assert_string_equal(le.statement, "SELECT * FROM replay_nosuch;");
        assert_int_equal(le.line, 4);
        assert_int_equal(log_reader_next(r, &le, &e), 1);
        assert_string_equal(le.detail, "parameters: $1 = '895', $2 = '57613'");
        assert_int_equal(log_reader_next(r, &le, &e), 0);
        assert_int_equal(log_reader_unmatched(r), 1);
        log_reader_close(r);
    }
}

static const char csv_log[] =
    "2026-12-01 11:50:05.752 UTC,\"postgres\",\"postgres\",26029,\"127.0.0.1:47616\","
    "6b0eb46d.65ad,4,\"idle\",2026-12-01 11:50:05 UTC,3/13,0,LOG,00000,\"statement: INSERT INTO "
    "replay_t VALUES (1, 'it''s\nmulti-line'), (2, NULL);\",,,,,,,,,\"psql\",\"client "
    "backend\",,0\n"
    "2026-12-01 11:50:05.761 UTC,\"postgres\",\"postgres\",26029,\"127.0.0.1:47616\","
    "6b0eb46d.65ad,5,\"SELECT\",2026-12-01 11:50:05 UTC,3/14,0,ERROR,42P01,\"relation "
    "\"\"replay_nosuch\"\" does not exist\",,,,,,\"SELECT * FROM "
    "replay_nosuch;\",15,,\"psql\",\"client backend\",,0\n";

static void test_csv(void **state)
{
    (void)state;
    write_file(csv_log, 0);
    struct err e = {0};
    struct log_reader *r = log_reader_open(path, LOG_FORMAT_AUTO, NULL, &e);
    assert_non_null(r);
    struct log_entry le;
    assert_int_equal(log_reader_next(r, &le, &e), 1);
    assert_int_equal(log_reader_format(r), LOG_FORMAT_CSV);
    assert_string_equal(
        le.message, "statement: INSERT INTO replay_t VALUES (1, 'it''s\nmulti-line'), (2, NULL);");
    assert_string_equal(le.user, "postgres");
    assert_int_equal(log_reader_next(r, &le, &e), 1);
    assert_string_equal(le.message, "relation \"replay_nosuch\" does not exist");
    assert_string_equal(le.statement, "SELECT * FROM replay_nosuch;");
    assert_string_equal(le.sqlstate, "42P01");
    assert_int_equal(le.line, 3);
    assert_int_equal(log_reader_next(r, &le, &e), 0);
    log_reader_close(r);
}

static void test_json(void **state)
{
    (void)state;
    write_file("{\"timestamp\":\"2026-12-01 11:50:05.761 UTC\",\"user\":\"postgres\",\"dbname\":"
               "\"shop\",\"session_id\":\"6b0eb46d.65ad\",\"error_severity\":\"ERROR\","
               "\"state_code\":\"42P01\",\"message\":\"relation \\\"x\\\" does not exist\","
               "\"statement\":\"SELECT * FROM x;\"}\n",
               0);
    struct err e = {0};
    struct log_reader *r = log_reader_open(path, LOG_FORMAT_AUTO, NULL, &e);
    assert_non_null(r);
    struct log_entry le;
    assert_int_equal(log_reader_next(r, &le, &e), 1);
    assert_int_equal(log_reader_format(r), LOG_FORMAT_JSON);
    assert_string_equal(le.database, "shop");
    assert_string_equal(le.message, "relation \"x\" does not exist");
    assert_string_equal(le.statement, "SELECT * FROM x;");
    assert_int_equal(log_reader_next(r, &le, &e), 0);
    log_reader_close(r);
}

/* Read to the end; the error it stopped with. */
static void expect_refused(const char *text, enum log_format fmt, const char *prefix,
                           const char *what)
{
    write_file(text, 0);
    struct err e = {0};
    struct log_reader *r = log_reader_open(path, fmt, prefix, &e);
    int rc = -1;
    if (r) {
        struct log_entry le;
        while ((rc = log_reader_next(r, &le, &e)) == 1)
            ;
        log_reader_close(r);
    }
    assert_int_equal(rc, -1);
    assert_int_equal(e.code, ERR_INPUT);
    if (!strstr(e.msg, what))
        fail_msg("'%s' does not say '%s'", e.msg, what);
}

static void test_bad_input(void **state)
{
    (void)state;
    char want[128];
    snprintf(want, sizeof want, "%s:1: no usable log_line_prefix", path);
    expect_refused("2026-12-01 11:41:09.344 UTC LOG:  statement: SELECT 1\n", LOG_FORMAT_AUTO, NULL,
                   want);
    snprintf(want, sizeof want, "%s:2: truncated csvlog record", path);
    expect_refused("2026-12-01 11:50:05.752 UTC,\"postgres\",\"postgres\",1,\"h\",a.b,4,\"idle\","
                   "2026-12-01 11:50:05 UTC,3/13,0,LOG,00000,\"statement: x\",,,,,,,,,\"psql\","
                   "\"client backend\",,0\n"
                   "2026-12-01 11:50:05.752 UTC,\"postgres\",\"postgres\",1,\"h\",a.b,4,\"idle\","
                   "2026-12-01 11:50:05 UTC,3/13,0,LOG,00000,\"statement: SELECT 'unterminated\n",
                   LOG_FORMAT_AUTO, NULL, want);
    snprintf(want, sizeof want, "%s:1: not a csvlog record", path);
    expect_refused("2026-12-01 11:50:05.752 UTC,\"postgres\",3\n", LOG_FORMAT_AUTO, NULL, want);
    snprintf(want, sizeof want, "%s:2: not a jsonlog line", path);
    expect_refused("{\"timestamp\":\"2026-12-01 11:50:05.761 UTC\"}\n{\"timestamp\":\n",
                   LOG_FORMAT_AUTO, NULL, want);
    expect_refused("x\n", LOG_FORMAT_STDERR, "%m [%u] ", "lacks the session id");
    snprintf(want, sizeof want, "%s:1: no line matches log_line_prefix", path);
    expect_refused("garbage\nmore garbage\n", LOG_FORMAT_STDERR, "%m|%c|", want);
    struct err e = {0};
    assert_null(log_reader_open("/nonexistent/pg.log", LOG_FORMAT_AUTO, NULL, &e));
    assert_non_null(strstr(e.msg, "/nonexistent/pg.log: "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_time),
        cmocka_unit_test(test_prefix_match),
        cmocka_unit_test(test_prefix_infer),
        cmocka_unit_test_setup_teardown(test_stderr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_csv, setup, teardown),
        cmocka_unit_test_setup_teardown(test_json, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
