/* The capture's server's values mapped to the replay's: whole numbers only, in literals and
 * parameters; the latest learning wins; nothing learnt, nothing touched. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <setjmp.h>
#include <cmocka.h>

#include "workload/replay/returned.h"

static void test_map_text_whole_numbers(void **state)
{
    (void)state;
    struct replay_returned m;
    replay_returned_init(&m);
    struct buf out;
    buf_init(&out);
    assert_int_equal(replay_returned_map_text(&m, "SELECT lo_get(35017)", 0, &out), 0);
    replay_returned_learn(&m, "35017", "35017", 0, -1); /* the same: nothing to map */
    assert_int_equal(replay_returned_map_text(&m, "SELECT lo_get(35017)", 0, &out), 0);
    replay_returned_learn(&m, "35017", "16400", 0, -1);
    replay_returned_learn(&m, "7", "8", 0, -1);
    assert_int_equal(replay_returned_map_text(&m, "SELECT lo_get(35017), '35017'::oid", 0, &out),
                     2);
    assert_string_equal(out.data, "SELECT lo_get(16400), '16400'::oid");
    /* Not a whole number: part of a longer one, of a name, of a decimal, of a $n. */
    assert_int_equal(
        replay_returned_map_text(&m, "SELECT 350170, t35017, 35017.5, 1.7, $7, x_7", 0, &out), 0);
    assert_int_equal(replay_returned_map_text(&m, "7+7", 0, &out), 2);
    assert_string_equal(out.data, "8+8");
    replay_returned_learn(&m, "35017", "16500", 0, -1); /* learnt again: the latest wins */
    assert_string_equal(replay_returned_map_value(&m, "35017", 0), "16500");
    assert_null(replay_returned_map_value(&m, "3501", 0));
    assert_null(replay_returned_map_value(&m, NULL, 0));
    buf_free(&out);
    replay_returned_free(&m);
}

/* An id a sequence gave is mapped where a value stands (after = < > ( , [, a quote between),
 * not after LIMIT or an operator; a parameter always. */
static void test_map_ids_where_values_stand(void **state)
{
    (void)state;
    struct replay_returned m;
    replay_returned_init(&m);
    struct buf out;
    buf_init(&out);
    replay_returned_learn(&m, "5", "1005", 1, -1);
    assert_int_equal(replay_returned_map_text(&m,
                                              "INSERT INTO c VALUES (5, 5) ; SELECT * FROM p "
                                              "WHERE id = '5' OR id IN (3,5) OR id<>5 LIMIT 5",
                                              0, &out),
                     5);
    assert_string_equal(out.data, "INSERT INTO c VALUES (1005, 1005) ; SELECT * FROM p "
                                  "WHERE id = '1005' OR id IN (3,1005) OR id<>1005 LIMIT 5");
    assert_int_equal(replay_returned_map_text(&m, "SELECT 5, x + 5 FROM t OFFSET 5", 0, &out), 0);
    assert_string_equal(replay_returned_map_value(&m, "5", 0), "1005");
    /* Learnt again with the same value on both sides: no longer mapped; the value handed out
     * before stays valid. */
    const char *before = replay_returned_map_value(&m, "5", 0);
    replay_returned_learn(&m, "5", "5", 1, -1);
    assert_null(replay_returned_map_value(&m, "5", 0));
    assert_int_equal(replay_returned_map_text(&m, "WHERE id = 5", 0, &out), 0);
    assert_string_equal(before, "1005");
    buf_free(&out);
    replay_returned_free(&m);
}

/* A number that is a date's or a time's field, or part of a longer quoted value, is not the
 * id or OID it equals (pg_regress's array['2010-02-01', ...] after id 2010 was mapped). */
static void test_map_not_inside_dates_or_strings(void **state)
{
    (void)state;
    struct replay_returned m;
    replay_returned_init(&m);
    struct buf out;
    buf_init(&out);
    replay_returned_learn(&m, "2010", "2011", 1, -1);
    replay_returned_learn(&m, "30", "31", 0, -1);
    assert_int_equal(
        replay_returned_map_text(&m,
                                 "SELECT * FROM t WHERE a = any(array['2010-02-01', "
                                 "'2020-2010-01']::date[]) OR r = '[2010-02-01,2010/3/4)' OR "
                                 "n = '2010 rows' OR t = '12:30:05' OR t = 30:05 OR p = 1/30",
                                 0, &out),
        0);
    assert_int_equal(replay_returned_map_text(
                         &m, "WHERE id IN ('2010', 2010) AND d = '30' AND x = 30 - 1", 0, &out),
                     4);
    assert_string_equal(out.data, "WHERE id IN ('2011', 2011) AND d = '31' AND x = 31 - 1");
    buf_free(&out);
    replay_returned_free(&m);
}

/* Many pairs (an application's inserted rows): each found, none lost as the table grows. */
static void test_many_pairs(void **state)
{
    (void)state;
    struct replay_returned m;
    replay_returned_init(&m);
    char a[16], b[16];
    for (int i = 1; i <= 5000; i++) {
        snprintf(a, sizeof a, "%d", i);
        snprintf(b, sizeof b, "%d", i + 100000);
        replay_returned_learn(&m, a, b, 1, -1);
    }
    assert_int_equal(atomic_load(&m.count), 5000);
    for (int i = 1; i <= 5000; i++) {
        snprintf(a, sizeof a, "%d", i);
        snprintf(b, sizeof b, "%d", i + 100000);
        assert_string_equal(replay_returned_map_value(&m, a, 0), b);
    }
    assert_null(replay_returned_map_value(&m, "5001", 0));
    replay_returned_free(&m);
}

/* Several rows' values (a '\n' between them) learnt pair by pair; other counts: none. */
static void test_learn_rows(void **state)
{
    (void)state;
    struct replay_returned m;
    replay_returned_init(&m);
    replay_returned_learn_rows(&m, "1001\n1002\n1003", "1\n2\n3", 1, -1);
    assert_string_equal(replay_returned_map_value(&m, "1001", 0), "1");
    assert_string_equal(replay_returned_map_value(&m, "1003", 0), "3");
    replay_returned_learn_rows(&m, "2001\n2002", "11\n12\n13", 1, -1);
    assert_null(replay_returned_map_value(&m, "2001", 0));
    replay_returned_learn_rows(&m, "3001", "21", 1, -1);
    assert_string_equal(replay_returned_map_value(&m, "3001", 0), "21");
    replay_returned_free(&m);
}

/* A transaction ID (learnt for one session) is mapped in that session's statements only: the
 * same small number in another session's is something else. pg_regress through the proxy:
 * session 56's pg_current_xact_id() gave 2000 there, 1999 here, and other sessions' partition
 * bounds FOR VALUES FROM (1000) TO (2000) and lo_create(2001) went out with 1999 and 2000. */
static void test_xid_only_in_its_session(void **state)
{
    (void)state;
    struct replay_returned m;
    replay_returned_init(&m);
    struct buf out;
    buf_init(&out);
    replay_returned_learn(&m, "2000", "1999", 1, 56);
    replay_returned_learn(&m, "1000", "1001", 1, -1); /* an id of every session's */
    assert_int_equal(replay_returned_map_text(&m, "SELECT txid_status(2000)", 56, &out), 1);
    assert_string_equal(out.data, "SELECT txid_status(1999)");
    assert_string_equal(replay_returned_map_value(&m, "2000", 56), "1999");
    assert_int_equal(replay_returned_map_text(&m,
                                              "CREATE TABLE p2 PARTITION OF p FOR VALUES FROM "
                                              "(1000) TO (2000)",
                                              57, &out),
                     1);
    assert_string_equal(out.data,
                        "CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (1001) TO (2000)");
    assert_null(replay_returned_map_value(&m, "2000", 57));
    replay_returned_learn_rows(&m, "2000", "2005", 0, -1); /* learnt again, for every session */
    assert_string_equal(replay_returned_map_value(&m, "2000", 57), "2005");
    buf_free(&out);
    replay_returned_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_text_whole_numbers),
        cmocka_unit_test(test_map_ids_where_values_stand),
        cmocka_unit_test(test_map_not_inside_dates_or_strings),
        cmocka_unit_test(test_many_pairs),
        cmocka_unit_test(test_learn_rows),
        cmocka_unit_test(test_xid_only_in_its_session),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
