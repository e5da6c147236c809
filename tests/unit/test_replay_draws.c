/* The capture's order of draws from each sequence (workload/replay/draws.h), on small
 * captures built by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "workload/replay/draws.h"

/* Keys: 0 INSERT INTO orders (sequence 5), 1 INSERT INTO items (sequence 6), 2 a nextval of
 * orders' sequence by name (5), 3 a table fed by no sequence. Times in ms (R = 1 ms):
 *   #1 key0 at 1.0   #4 key1 at 1.5   #7 key0 at 3.0   #8 key2 at 3.5   #9 key3 at 9
 *   #12 key0 at 3.9 (in the same millisecond as #8)   #20 key1 at 2.4 */
static void build_shop(struct replay_draws *d)
{
    struct replay_draws_build b;
    replay_draws_build_init(&b, 1000);
    replay_draws_build_statement(&b, 1, 1000, 0);
    replay_draws_build_statement(&b, 4, 1500, 1);
    replay_draws_build_statement(&b, 7, 3000, 0);
    replay_draws_build_statement(&b, 8, 3500, 2);
    replay_draws_build_statement(&b, 9, 9000, 3);
    replay_draws_build_statement(&b, 12, 3900, 0);
    replay_draws_build_statement(&b, 20, 2400, 1);
    replay_draws_build_link(&b, 0, 5);
    replay_draws_build_link(&b, 1, 6);
    replay_draws_build_link(&b, 2, 5);
    replay_draws_build_finish(&b, d);
}

static void test_waits_for_draws_that_started_before(void **state)
{
    (void)state;
    struct replay_draws d;
    build_shop(&d);
    assert_int_equal(d.n, 6); /* #9 draws from no known sequence: left out */
    assert_int_equal(d.n_groups, 2);
    /* Not in the structure: ready at once, finishing moves nothing. */
    assert_true(replay_draws_ready(&d, 9));
    assert_true(replay_draws_ready(&d, 2));
    assert_false(replay_draws_finished(&d, 9));
    assert_int_equal(replay_draws_mark(&d, 9), REPLAY_DRAWS_NONE);

    assert_true(replay_draws_ready(&d, 1));
    assert_true(replay_draws_ready(&d, 4));
    /* #7 and the nextval #8 draw from orders' sequence after #1 (2 ms and more later). */
    assert_false(replay_draws_ready(&d, 7));
    assert_false(replay_draws_ready(&d, 8));
    /* #20 drew 0.9 ms after #4: within the millisecond, not ordered. */
    assert_true(replay_draws_ready(&d, 20));
    assert_true(replay_draws_finished(&d, 1));
    assert_true(replay_draws_ready(&d, 7));
    /* #8 also waits for #7 (3.0 + 1 > 3.5: no): ready once #1 is done. */
    assert_true(replay_draws_ready(&d, 8));
    /* #12 at 3.9: #7 at 3.0 is within the millisecond, #1 is not. */
    assert_true(replay_draws_ready(&d, 12));
    assert_int_equal(replay_draws_mark(&d, 12), 1);
    /* The items' group is apart: its mark moves with its own statements only. */
    assert_int_equal(replay_draws_mark(&d, 4), 0);
    replay_draws_free(&d);
}

/* A group's mark moves past statements finished out of their order only once those before
 * them are done; a statement ranks by start, not by its number. */
static void test_mark_by_start(void **state)
{
    (void)state;
    struct replay_draws_build b;
    struct replay_draws d;
    replay_draws_build_init(&b, 1000);
    replay_draws_build_statement(&b, 0, 5000, 0); /* ranks second */
    replay_draws_build_statement(&b, 1, 1000, 0); /* ranks first (a start logged later) */
    replay_draws_build_statement(&b, 2, 9000, 0);
    replay_draws_build_link(&b, 0, 0);
    replay_draws_build_finish(&b, &d);
    assert_int_equal(d.need[0], 1);
    assert_int_equal(d.need[1], 0);
    assert_int_equal(d.need[2], 2);
    assert_false(replay_draws_ready(&d, 0));
    assert_false(replay_draws_finished(&d, 2)); /* out of turn: no move */
    assert_true(replay_draws_finished(&d, 1));
    assert_int_equal(replay_draws_mark(&d, 0), 1);
    assert_true(replay_draws_ready(&d, 0));
    assert_true(replay_draws_finished(&d, 0));
    assert_int_equal(replay_draws_mark(&d, 0), 3); /* past #2, done before */
    replay_draws_free(&d);
}

/* Keys sharing a sequence are one group, also through a statement drawing from two; exact
 * times order anything a microsecond apart, ties never. */
static void test_groups_and_exact_times(void **state)
{
    (void)state;
    struct replay_draws_build b;
    struct replay_draws d;
    replay_draws_build_init(&b, 0);
    replay_draws_build_statement(&b, 0, 100, 0); /* sequence 1 */
    replay_draws_build_statement(&b, 1, 100, 1); /* sequences 1 and 2: the same instant */
    replay_draws_build_statement(&b, 2, 101, 2); /* sequence 2 */
    replay_draws_build_link(&b, 0, 1);
    replay_draws_build_link(&b, 1, 1);
    replay_draws_build_link(&b, 1, 2);
    replay_draws_build_link(&b, 2, 2);
    replay_draws_build_finish(&b, &d);
    assert_int_equal(d.n_groups, 1);
    assert_int_equal(d.need[0], 0);
    assert_int_equal(d.need[1], 0); /* a tie: no proof */
    assert_int_equal(d.need[2], 2);
    replay_draws_free(&d);

    /* Nothing draws: every check passes. */
    replay_draws_build_init(&b, 1000);
    replay_draws_build_finish(&b, &d);
    assert_true(replay_draws_ready(&d, 0));
    assert_false(replay_draws_finished(&d, 0));
    replay_draws_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits_for_draws_that_started_before),
        cmocka_unit_test(test_mark_by_start),
        cmocka_unit_test(test_groups_and_exact_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
