/* Why a connection failed, from its message (pg/pg.h pg_connect_failure_of): libpq's and the
 * server's words as they reach a caller's struct err. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pg/pg.h"

static void test_kinds(void **state)
{
    (void)state;
    assert_int_equal(pg_connect_failure_of("could not connect to server: timeout expired"),
                     PG_CONNECT_NO_ANSWER);
    assert_int_equal(pg_connect_failure_of("could not read server statistics: no answer from the "
                                           "server within 5000 ms"),
                     PG_CONNECT_NO_ANSWER);
    assert_int_equal(pg_connect_failure_of("connection to server on socket \"/tmp/.s.PGSQL.5432\" "
                                           "failed: FATAL:  sorry, too many clients already"),
                     PG_CONNECT_TOO_MANY_CLIENTS);
    assert_int_equal(pg_connect_failure_of("FATAL:  remaining connection slots are reserved for "
                                           "roles with the SUPERUSER attribute"),
                     PG_CONNECT_TOO_MANY_CLIENTS);
    assert_int_equal(pg_connect_failure_of("connection to server at \"127.0.0.1\", port 5432 "
                                           "failed: FATAL:  database \"postgres\" does not exist"),
                     PG_CONNECT_NO_DATABASE);
    /* A role that does not exist is not a missing database, even with a database named. */
    assert_int_equal(pg_connect_failure_of("FATAL:  role \"database \" does not exist"),
                     PG_CONNECT_OTHER);
    assert_int_equal(pg_connect_failure_of("FATAL:  password authentication failed for user "
                                           "\"bob\""),
                     PG_CONNECT_OTHER);
    assert_int_equal(pg_connect_failure_of(""), PG_CONNECT_OTHER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
