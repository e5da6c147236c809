#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "pg/pg.h"
#include "pg/pg_driver.h"

/* What src/pg/ decides without a server: failure classes, one-line messages, quoting. */

static void test_sqlstate_classes(void **state)
{
    (void)state;
    assert_int_equal(pg_sqlstate_class("40001"), PGF_SERIALIZATION);
    assert_int_equal(pg_sqlstate_class("40P01"), PGF_DEADLOCK);
    assert_int_equal(pg_sqlstate_class("57014"), PGF_TIMEOUT);
    assert_int_equal(pg_sqlstate_class("08006"), PGF_CONNECTION);
    assert_int_equal(pg_sqlstate_class("57P01"), PGF_CONNECTION);
    assert_int_equal(pg_sqlstate_class("23505"), PGF_OTHER);
    assert_int_equal(pg_sqlstate_class(NULL), PGF_OTHER);
}

/* A connection that only has an error message: enough for pg_conn_error. */
static const char *message;

static const char *stub_error(const struct pg_conn *c)
{
    (void)c;
    return message;
}

static const struct pg_driver stub = {.error_message = stub_error};

static void test_messages_fold_to_one_line(void **state)
{
    (void)state;
    struct pg_conn c = {&stub};
    char out[256];
    message = "server closed the connection unexpectedly\n"
              "\tThis probably means the server terminated abnormally\n"
              "\tbefore or while processing the request.\n";
    pg_conn_error(&c, out, sizeof out);
    assert_string_equal(out, "server closed the connection unexpectedly This probably means the "
                             "server terminated abnormally before or while processing the "
                             "request.");
    /* DETAIL and HINT lines, and the next host's message, are not continuations. */
    message = "ERROR:  relation \"x\" does not exist\nDETAIL:  more\n";
    pg_conn_error(&c, out, sizeof out);
    assert_string_equal(out, "relation \"x\" does not exist");
    message = "";
    pg_conn_error(&c, out, sizeof out);
    assert_string_equal(out, "unknown error");
    pg_conn_error(NULL, out, sizeof out);
    assert_string_equal(out, "unknown error");
    /* Cut to the room given, still one line. */
    message = "abcdef\n\tghij\n";
    pg_conn_error(&c, out, 8);
    assert_string_equal(out, "abcdef");
}

static void test_quoting(void **state)
{
    (void)state;
    char *s = pg_quote_ident("a\"b");
    assert_string_equal(s, "\"a\"\"b\"");
    free(s);
    s = pg_quote_literal("it's");
    assert_string_equal(s, "'it''s'");
    free(s);
    s = pg_quote_literal("a\\b");
    assert_string_equal(s, "E'a\\\\b'");
    free(s);
}

/* CONN for another database: its other settings kept (a URI's too), the user given only
 * when CONN names none. */
static void test_connopts_with_database(void **state)
{
    (void)state;
    struct err e = {0};
    struct pg_connopts out;
    unsetenv("PGUSER");
    struct pg_connopts uri = {.dbname = "postgresql://db1:5433/app?sslmode=require"};
    assert_int_equal(pg_connopts_with_database(&uri, "it's", "alice", &out, &e), 0);
    assert_non_null(strstr(out.dbname, "host='db1'"));
    assert_non_null(strstr(out.dbname, "port='5433'"));
    assert_non_null(strstr(out.dbname, "sslmode='require'"));
    assert_non_null(strstr(out.dbname, "dbname='it\\'s'"));
    assert_null(strstr(out.dbname, "dbname='app'"));
    assert_string_equal(out.user, "alice");
    pg_connopts_free(&out);
    struct pg_connopts named = {.dbname = "host=db1 user=bob dbname=app"};
    assert_int_equal(pg_connopts_with_database(&named, "shop", "alice", &out, &e), 0);
    assert_null(out.user);
    assert_non_null(strstr(out.dbname, "user='bob'"));
    assert_non_null(strstr(out.dbname, "dbname='shop'"));
    pg_connopts_free(&out);
    struct pg_connopts u = {.host = "/run/pg", .user = "carol", .dbname = "app"};
    assert_int_equal(pg_connopts_with_database(&u, "shop", "alice", &out, &e), 0);
    assert_string_equal(out.user, "carol");
    assert_string_equal(out.host, "/run/pg");
    assert_string_equal(out.dbname, " dbname='shop'");
    pg_connopts_free(&out);
    setenv("PGUSER", "dave", 1);
    struct pg_connopts plain = {.dbname = "app"};
    assert_int_equal(pg_connopts_with_database(&plain, "shop", "alice", &out, &e), 0);
    assert_null(out.user); /* libpq takes PGUSER's */
    pg_connopts_free(&out);
    unsetenv("PGUSER");
    struct pg_connopts bad = {.dbname = "host=db1 nonsense"};
    assert_int_equal(pg_connopts_with_database(&bad, "shop", "alice", &out, &e), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sqlstate_classes),
        cmocka_unit_test(test_messages_fold_to_one_line),
        cmocka_unit_test(test_quoting),
        cmocka_unit_test(test_connopts_with_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
