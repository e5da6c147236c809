/* base/sqllex: the tokens, and which statements are COPY with the client's end. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "base/sqllex.h"

static enum sql_copy copy_of(const char *text)
{
    return sql_copy_client(text, NULL, NULL);
}

static void test_copy_client(void **state)
{
    (void)state;
    assert_int_equal(copy_of("COPY pgbench_accounts FROM stdin;"), SQL_COPY_IN);
    assert_int_equal(copy_of("copy t from STDIN"), SQL_COPY_IN);
    assert_int_equal(copy_of("  -- a comment\n Copy t (a, b) FROM\n  stdin CSV"), SQL_COPY_IN);
    assert_int_equal(copy_of("copy t(a,b) from stdin with (format csv)"), SQL_COPY_IN);
    assert_int_equal(copy_of("COPY BINARY t FROM STDIN"), SQL_COPY_IN);
    assert_int_equal(copy_of("COPY \"from\" FROM /* to stdout */ STDIN"), SQL_COPY_IN);
    assert_int_equal(copy_of("COPY (SELECT 1) TO STDOUT;"), SQL_COPY_OUT);
    assert_int_equal(copy_of("copy (select a from t where b = 'to stdout') to stdout"),
                     SQL_COPY_OUT);
    assert_int_equal(copy_of("COPY t TO STDOUT WITH (FORMAT binary)"), SQL_COPY_OUT);
    /* The server takes either word on either side: the direction decides. */
    assert_int_equal(copy_of("COPY t FROM STDOUT"), SQL_COPY_IN);
    assert_int_equal(copy_of("COPY t TO STDIN"), SQL_COPY_OUT);
    /* Server-side: a file or a program; the words in a query, a string or a comment. */
    assert_int_equal(copy_of("COPY t FROM '/tmp/file'"), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPY t TO '/tmp/stdout'"), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPY t FROM PROGRAM 'cat stdin'"), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPY t TO PROGRAM 'gzip > /tmp/x'"), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPY (SELECT * FROM stdin) TO '/tmp/f'"), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPY stdin TO '/tmp/f'"), SQL_COPY_NONE);
    assert_int_equal(copy_of("SELECT 'COPY t FROM STDIN'"), SQL_COPY_NONE);
    assert_int_equal(copy_of("-- COPY t FROM STDIN\nSELECT 1"), SQL_COPY_NONE);
    assert_int_equal(copy_of("/* COPY t /* nested */ FROM STDIN */ SELECT 1"), SQL_COPY_NONE);
    assert_int_equal(copy_of("SELECT 1 FROM stdin"), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPY t FROM $$stdin$$"), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPYt FROM STDIN"), SQL_COPY_NONE);
    assert_int_equal(copy_of(""), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPY"), SQL_COPY_NONE);
    assert_int_equal(copy_of("COPY t FROM"), SQL_COPY_NONE);
}

/* Statement by statement: where each COPY begins, and where the next statement does. */
static void test_copy_statements(void **state)
{
    (void)state;
    const char *text = "SELECT ';'; COPY t FROM '/f'; /* c */ copy u to stdout; SELECT 2";
    const char *at, *next;
    assert_int_equal(sql_copy_client(text, &at, &next), SQL_COPY_NONE);
    assert_ptr_equal(at, text);
    assert_non_null(next);
    assert_int_equal(sql_copy_client(next, &at, &next), SQL_COPY_NONE);
    assert_ptr_equal(at, strstr(text, "COPY"));
    assert_int_equal(sql_copy_client(next, &at, &next), SQL_COPY_OUT);
    assert_ptr_equal(at, strstr(text, "copy"));
    assert_int_equal(sql_copy_client(next, &at, &next), SQL_COPY_NONE);
    assert_null(next);
    /* Nothing but blanks after the last ';': no next statement. */
    assert_int_equal(sql_copy_client("COPY t FROM STDIN; -- end\n", &at, &next), SQL_COPY_IN);
    assert_null(next);
}

static void test_tokens(void **state)
{
    (void)state;
    const char *s = "E'a\\'b' \"x\"\"y\" $q$ ; $q$ 1";
    struct sql_token t = sql_token_next(s);
    assert_int_equal(t.kind, SQL_TOK_STRING);
    assert_int_equal(t.end - t.start, 7);
    t = sql_token_next(t.end);
    assert_int_equal(t.kind, SQL_TOK_IDENT);
    assert_int_equal(t.end - t.start, 6);
    t = sql_token_next(t.end);
    assert_int_equal(t.kind, SQL_TOK_STRING); /* the ';' is inside the dollar quote */
    t = sql_token_next(t.end);
    assert_int_equal(t.kind, SQL_TOK_WORD);
    assert_true(sql_token_is(&t, "1"));
    assert_int_equal(sql_token_next(t.end).kind, SQL_TOK_END);
    t = sql_token_next("/* unterminated");
    assert_int_equal(t.kind, SQL_TOK_END);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_client),
        cmocka_unit_test(test_copy_statements),
        cmocka_unit_test(test_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
