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
    assert_true(sqltext_is_secret("  /* c */ ALTER ROLE r PASSWORD NULL"));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secrets),
        cmocka_unit_test(test_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
