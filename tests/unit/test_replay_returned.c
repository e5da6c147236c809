/* The capture's server's values mapped to the replay's: whole numbers only, in literals and
 * parameters; the latest learning wins; nothing learnt, nothing touched. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
    assert_int_equal(replay_returned_map_text(&m, "SELECT lo_get(35017)", &out), 0);
    replay_returned_learn(&m, "35017", "35017"); /* the same: nothing to map */
    assert_int_equal(replay_returned_map_text(&m, "SELECT lo_get(35017)", &out), 0);
    replay_returned_learn(&m, "35017", "16400");
    replay_returned_learn(&m, "7", "8");
    assert_int_equal(replay_returned_map_text(&m, "SELECT lo_get(35017), '35017'::oid", &out), 2);
    assert_string_equal(out.data, "SELECT lo_get(16400), '16400'::oid");
    /* Not a whole number: part of a longer one, of a name, of a decimal, of a $n. */
    assert_int_equal(
        replay_returned_map_text(&m, "SELECT 350170, t35017, 35017.5, 1.7, $7, x_7", &out), 0);
    assert_int_equal(replay_returned_map_text(&m, "7+7", &out), 2);
    assert_string_equal(out.data, "8+8");
    replay_returned_learn(&m, "35017", "16500"); /* learnt again: the latest wins */
    assert_string_equal(replay_returned_map_value(&m, "35017"), "16500");
    assert_null(replay_returned_map_value(&m, "3501"));
    assert_null(replay_returned_map_value(&m, NULL));
    buf_free(&out);
    replay_returned_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_text_whole_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
