#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "workload/replay/generated.h"

/* The server's messages for values it generated (as PostgreSQL 15 words them) are named. */
static void test_generated_values_named(void **state)
{
    (void)state;
    assert_string_equal(replay_generated_value("large object 34408 does not exist"),
                        "large object OID");
    assert_string_equal(replay_generated_value("transaction ID 2009 is in the future"),
                        "transaction ID");
    assert_string_equal(replay_generated_value("schema \"pg_temp_3\" does not exist"),
                        "temporary schema name");
    assert_string_equal(replay_generated_value("schema \"pg_toast_temp_12\" does not exist"),
                        "temporary schema name");
    assert_string_equal(replay_generated_value("could not open relation with OID 16390"),
                        "object OID");
    assert_string_equal(replay_generated_value("cache lookup failed for relation 16384"),
                        "object OID");
    assert_string_equal(replay_generated_value("cache lookup failed for type 1"), "object OID");
}

/* Anything else is not: names without numbers, numbers elsewhere, no message. */
static void test_other_errors_not_named(void **state)
{
    (void)state;
    assert_null(replay_generated_value("relation \"t\" does not exist"));
    assert_null(replay_generated_value("schema \"pg_temp\" does not exist"));
    assert_null(replay_generated_value("schema \"testns\" does not exist"));
    assert_null(replay_generated_value("large object descriptor 0 is not open for writing"));
    assert_null(
        replay_generated_value("duplicate key value violates unique constraint \"t_pkey\""));
    assert_null(replay_generated_value("role \"regress_lo_user\" cannot be dropped because "
                                       "some objects depend on it"));
    assert_null(replay_generated_value("cache lookup failed for relation"));
    assert_null(replay_generated_value(""));
    assert_null(replay_generated_value(NULL));
}

/* A unique or foreign key violation on a key a sequence gave, by the constraint's name; other
 * constraints, other errors, a name that only begins the same, are not. */
static void test_sequence_keys(void **state)
{
    (void)state;
    static const char keys[] = "orders_pkey\0items_order_id_fkey\0";
    size_t len = sizeof keys - 1;
    assert_string_equal(
        replay_generated_key(
            "23505", "duplicate key value violates unique constraint \"orders_pkey\"", keys, len),
        "sequence value");
    assert_string_equal(replay_generated_key("23503",
                                             "insert or update on table \"items\" violates foreign "
                                             "key constraint \"items_order_id_fkey\"",
                                             keys, len),
                        "sequence value");
    assert_string_equal(replay_generated_key("23503",
                                             "update or delete on table \"orders\" violates "
                                             "foreign key constraint \"items_order_id_fkey\" on "
                                             "table \"items\"",
                                             keys, len),
                        "sequence value");
    assert_null(replay_generated_key(
        "23505", "duplicate key value violates unique constraint \"users_email_key\"", keys, len));
    assert_null(replay_generated_key(
        "23505", "duplicate key value violates unique constraint \"orders_pkey2\"", keys, len));
    assert_null(replay_generated_key(
        "42P01", "relation \"orders_pkey\" violates constraint \"orders_pkey\"", keys, len));
    assert_null(replay_generated_key(
        "23505", "duplicate key value violates unique constraint \"orders_pkey\"", "", 0));
    assert_null(replay_generated_key("23505", NULL, keys, len));
    assert_null(replay_generated_key(NULL, "x", keys, len));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_values_named),
        cmocka_unit_test(test_other_errors_not_named),
        cmocka_unit_test(test_sequence_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
