/* What prepare decides from a statement's text alone: secrets and COPY. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "capture/sqltext.h"

static void test_secrets(void **state)
{
    (void)state;
    assert_true(sqltext_is_secret("CREATE ROLE r PASSWORD 'x'"));
    assert_true(sqltext_is_secret("create user u with encrypted password 'x'"));
    assert_true(
        sqltext_is_secret("ALTER USER u PASSWORD 'SCRAM-SHA-256$4096:abc'")); /* \password */
    assert_true(sqltext_is_secret("SELECT 1; ALTER ROLE r PASSWORD 'x'"));
    assert_true(
        sqltext_is_secret("CREATE USER MAPPING FOR u SERVER s OPTIONS (user 'a', password 'b')"));
    assert_true(sqltext_is_secret("ALTER SUBSCRIPTION s CONNECTION 'host=h password=p'"));
    assert_true(sqltext_is_secret("-- comment\nCREATE ROLE r LOGIN PASSWORD 'x'"));
    assert_false(sqltext_is_secret("SELECT password FROM users WHERE id = 1"));
    assert_false(sqltext_is_secret("CREATE TABLE users(id int, password_hash text)"));
    assert_false(sqltext_is_secret("ALTER ROLE r VALID UNTIL 'infinity'"));
    assert_false(sqltext_is_secret(""));
    /* A column called password is no secret; PASSWORD NULL sets none. */
    assert_false(sqltext_is_secret("CREATE TABLE users (id int, password text)"));
    assert_false(sqltext_is_secret("ALTER TABLE users ADD COLUMN password text DEFAULT ''"));
    assert_false(sqltext_is_secret("ALTER TABLE users RENAME COLUMN pw TO password"));
    assert_false(sqltext_is_secret("  /* c */ ALTER ROLE r PASSWORD NULL"));
    assert_false(sqltext_is_secret("UPDATE users SET password = 'x'"));
    assert_false(sqltext_is_secret("CREATE TABLE \"password\" (a text DEFAULT 'b')"));
}

/* The password cut out, the rest as written; what cannot be cut out is -1. */
static void expect_cut(const char *in, int rc, const char *out)
{
    struct buf b;
    buf_init(&b);
    assert_int_equal(sqltext_secret_replace(in, "NEW", &b), rc);
    if (rc > 0)
        assert_string_equal(b.data, out);
    buf_free(&b);
}

static void test_cut(void **state)
{
    (void)state;
    expect_cut("CREATE ROLE r LOGIN PASSWORD 'se;cr''et' IN ROLE a", 1,
               "CREATE ROLE r LOGIN PASSWORD 'NEW' IN ROLE a");
    expect_cut("ALTER USER \"Bob\" WITH ENCRYPTED PASSWORD E'a\\'b;c'", 1,
               "ALTER USER \"Bob\" WITH ENCRYPTED PASSWORD 'NEW'");
    expect_cut("alter role r password 'md5abc'\n  'continued'; SELECT 'x'", 1,
               "alter role r password 'NEW'; SELECT 'x'");
    expect_cut("ALTER USER u PASSWORD 'SCRAM-SHA-256$4096:abc$def'", 1,
               "ALTER USER u PASSWORD 'NEW'");
    expect_cut("CREATE ROLE a PASSWORD $x$one$x$; CREATE ROLE b PASSWORD 'two'", 1,
               "CREATE ROLE a PASSWORD 'NEW'; CREATE ROLE b PASSWORD 'NEW'");
    expect_cut("CREATE USER MAPPING FOR u SERVER s OPTIONS (user 'a', password 'b')", 1,
               "CREATE USER MAPPING FOR u SERVER s OPTIONS (user 'a', password 'NEW')");
    expect_cut("ALTER USER MAPPING FOR u SERVER s OPTIONS (SET \"password\" 'b')", 1,
               "ALTER USER MAPPING FOR u SERVER s OPTIONS (SET \"password\" 'NEW')");
    /* The word in a comment or a string of another statement is not a password. */
    expect_cut("SELECT 'password' -- password 'x'\n", 0, "");
    expect_cut("CREATE TABLE t (password text) /* password 'x' */", 0, "");
    /* Inside a string: cannot be cut out. */
    expect_cut("CREATE SUBSCRIPTION s CONNECTION 'host=h password=p' PUBLICATION p", -1, "");
    expect_cut("CREATE FUNCTION f() RETURNS void AS $$ALTER ROLE r PASSWORD 'x'$$ LANGUAGE sql", -1,
               "");
}

static void expect_role(const char *text, const char *role)
{
    char got[64];
    int rc = sqltext_password_role(text, got, sizeof got);
    if (!role) {
        assert_int_equal(rc, 0);
        return;
    }
    assert_int_equal(rc, 1);
    assert_string_equal(got, role);
}

static void test_password_role(void **state)
{
    (void)state;
    expect_role("CREATE ROLE Alice LOGIN PASSWORD 'x'", "alice");
    expect_role("alter user \"Mixed\"\"Q\" password 'x'", "Mixed\"Q");
    expect_role("CREATE GROUP g WITH ENCRYPTED PASSWORD 'x'", "g");
    expect_role("CREATE ROLE r LOGIN", NULL);
    expect_role("CREATE TABLE t (a int); CREATE ROLE app LOGIN PASSWORD 'x'; GRANT a TO app",
                "app");
    expect_role("CREATE ROLE a LOGIN; ALTER ROLE b PASSWORD 'x'", "b");
    expect_role("ALTER ROLE r PASSWORD NULL", NULL);
    expect_role("ALTER ROLE CURRENT_USER PASSWORD 'x'", NULL);
    expect_role("CREATE USER MAPPING FOR u SERVER s OPTIONS (password 'b')", NULL);
}

static void test_set(void **state)
{
    (void)state;
    assert_true(sqltext_is_set("SET DateStyle = 'ISO, MDY'"));
    assert_true(sqltext_is_set("  /* c */ set local search_path to a"));
    assert_true(sqltext_is_set("SET ROLE r"));
    assert_false(sqltext_is_set("RESET DateStyle"));
    assert_false(sqltext_is_set("SELECT set_config('a', 'b', false)"));
    assert_false(sqltext_is_set("settings"));
}

static void test_copy(void **state)
{
    (void)state;
    assert_true(sqltext_is_copy_from_stdin("COPY t FROM STDIN"));
    assert_true(sqltext_is_copy_from_stdin("copy pgbench_accounts from stdin with (freeze on)"));
    assert_true(sqltext_is_copy_from_stdin("COPY t (a, b) FROM\n  stdin CSV"));
    assert_false(sqltext_is_copy_from_stdin("COPY t FROM '/tmp/file'"));
    assert_false(sqltext_is_copy_from_stdin("SELECT 'COPY t FROM STDIN'"));
    assert_true(sqltext_is_copy_to_stdout("COPY (SELECT 1) TO STDOUT"));
    assert_false(sqltext_is_copy_to_stdout("COPY t FROM STDIN"));
}

/* DEALLOCATE and DISCARD as the server reads them: names folded unless quoted, ALL over
 * names, several statements, the rest untouched. */
static void test_unprepare(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b);
    assert_int_equal(sqltext_unprepare("DEALLOCATE \"S_1\"", &b), SQLTEXT_UNPREPARE_NAMES);
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, "S_1\0\0", 5);
    buf_reset(&b);
    assert_int_equal(sqltext_unprepare("deallocate prepare S_1; DEALLOCATE \"a\"\"b\"", &b),
                     SQLTEXT_UNPREPARE_NAMES);
    assert_memory_equal(b.data, "s_1\0a\"b\0\0", b.len);
    buf_reset(&b);
    assert_int_equal(sqltext_unprepare("DEALLOCATE x; /* c */ DEALLOCATE ALL", &b),
                     SQLTEXT_UNPREPARE_ALL);
    assert_int_equal(b.len, 0);
    assert_int_equal(sqltext_unprepare("DISCARD ALL", &b), SQLTEXT_UNPREPARE_ALL);
    assert_int_equal(sqltext_unprepare("  discard plans;", NULL), SQLTEXT_UNPREPARE_PLANS);
    assert_int_equal(sqltext_unprepare("DISCARD TEMP", &b), SQLTEXT_UNPREPARE_NONE);
    assert_int_equal(sqltext_unprepare("SELECT 'DEALLOCATE ALL'", &b), SQLTEXT_UNPREPARE_NONE);
    assert_int_equal(sqltext_unprepare("DEALLOCATE", &b), SQLTEXT_UNPREPARE_NONE);
    assert_int_equal(b.len, 0);
    buf_free(&b);
}

/* What a statement draws through: the tables it inserts into and the sequences it names,
 * as the server reads the names; none inside strings, comments or function bodies. */
static void draws_are(const char *text, int n, const char *want, size_t want_len)
{
    struct buf b;
    buf_init(&b);
    assert_int_equal(sqltext_draws(text, &b), n);
    assert_int_equal(b.len, want_len);
    assert_memory_equal(b.data, want, want_len);
    buf_free(&b);
}

static void test_draws(void **state)
{
    (void)state;
    draws_are("INSERT INTO orders (note) VALUES ('a') RETURNING id", 1, "torders\0cnote", 14);
    draws_are("insert into Public.\"Order Lines\"(a) select 1", 1, "tpublic.Order Lines\0ca", 23);
    /* the columns given their values, as the server reads their names (sysbench's insert) */
    draws_are("INSERT INTO sbtest1 (ID, k, \"C\", pad) VALUES (1, 2, 'c', 'p')", 1,
              "tsbtest1\0cid,k,C,pad", 21);
    draws_are("WITH x AS (INSERT INTO a DEFAULT VALUES RETURNING id) MERGE INTO b USING x ON "
              "true WHEN NOT MATCHED THEN INSERT VALUES (x.id)",
              2, "ta\0tb", 6);
    draws_are("SELECT nextval('orders_id_seq'::regclass), setval('s.\"Q\"', 5)", 2,
              "sorders_id_seq\0ss.Q", 20);
    draws_are("COPY items (a) FROM STDIN; SELECT currval('x')", 1, "titems", 7);
    draws_are("SELECT 'INSERT INTO a' /* insert into b */ -- merge into c\n", 0, "", 0);
    draws_are("CREATE FUNCTION f() RETURNS int AS $$ INSERT INTO a VALUES (1) $$ LANGUAGE sql", 0,
              "", 0);
    draws_are("SELECT nextval($1), nextval('a b')", 0, "", 0);
    draws_are("COPY (SELECT 1) TO STDOUT", 0, "", 0);
    draws_are("INSERT INTO (", 0, "", 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secrets),       cmocka_unit_test(test_cut),
        cmocka_unit_test(test_password_role), cmocka_unit_test(test_set),
        cmocka_unit_test(test_copy),          cmocka_unit_test(test_unprepare),
        cmocka_unit_test(test_draws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
