/* The capture's real-time order across sessions (workload/replay/order.h), on small captures
 * built by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "workload/replay/order.h"

/* Session 0 creates a table (0..100 µs) and then sleeps (200..5000); session 1 inserts
 * (150..160) and reads (5100..5110) after the sleep; session 2 runs one statement whose end
 * the log does not say (300, then its disconnect at 400). Capture order:
 *   #0 s0 CREATE at 0 (100)   #1 s1 INSERT at 150 (10)   #2 s0 SLEEP at 200 (4800)
 *   #3 s2 ? at 300 (ends at its disconnect, 400)         #4 s1 SELECT at 5100 (10) */
static void build_small(struct replay_order *o)
{
    struct replay_order_build b;
    replay_order_build_init(&b, 3, 0);
    replay_order_build_statement(&b, 0, 0, 100, 1);
    replay_order_build_statement(&b, 1, 150, 10, 1);
    replay_order_build_statement(&b, 0, 200, 4800, 1);
    replay_order_build_statement(&b, 2, 300, -1, 1);
    replay_order_build_session_end(&b, 2, 400);
    replay_order_build_statement(&b, 1, 5100, 10, 1);
    replay_order_build_finish(&b, o);
}

static void test_waits_for_what_finished_before(void **state)
{
    (void)state;
    struct replay_order o;
    build_small(&o);
    assert_int_equal(o.n, 5);
    /* By end: CREATE 100, INSERT 160, ? 400, SLEEP 5000, SELECT 5110. */
    assert_int_equal(o.rank[0], 0);
    assert_int_equal(o.rank[1], 1);
    assert_int_equal(o.rank[3], 2);
    assert_int_equal(o.rank[2], 3);
    assert_int_equal(o.rank[4], 4);
    assert_int_equal(o.need[0], 0);
    assert_int_equal(o.need[1], 1); /* the CREATE */
    assert_int_equal(o.need[2], 2); /* CREATE, INSERT */
    assert_int_equal(o.need[3], 2);
    assert_int_equal(o.need[4], 4); /* everything but itself */

    assert_true(replay_order_ready(&o, 0));
    assert_false(replay_order_ready(&o, 1)); /* the INSERT waits for the CREATE */
    assert_true(replay_order_finished(&o, 0));
    assert_true(replay_order_ready(&o, 1));
    assert_false(replay_order_ready(&o, 3));
    /* The ? ends before the SLEEP: its finishing moves nothing until the INSERT's. */
    assert_false(replay_order_finished(&o, 3));
    assert_false(replay_order_ready(&o, 2)); /* it waits for the INSERT too */
    assert_true(replay_order_finished(&o, 1));
    assert_true(replay_order_ready(&o, 2));
    assert_true(replay_order_ready(&o, 3));
    assert_false(replay_order_ready(&o, 4)); /* the SELECT waits for the SLEEP */
    assert_true(replay_order_finished(&o, 2));
    assert_true(replay_order_ready(&o, 4));
    assert_true(replay_order_finished(&o, 4));
    replay_order_free(&o);
}

/* A statement left out (a COPY) is never waited for; statements that overlap in time (a
 * long one of session 0, a short one of session 1 inside it) wait for neither; a statement
 * whose end is never known (no next event) is never waited for; equal ends and starts:
 * the one earlier in the capture is before. */
static void test_out_overlap_and_ties(void **state)
{
    (void)state;
    struct replay_order_build b;
    struct replay_order o;
    replay_order_build_init(&b, 3, 0);
    replay_order_build_statement(&b, 0, 0, 1000, 1); /* #0 long */
    replay_order_build_statement(&b, 1, 10, 0, 0);   /* #1 COPY: out */
    replay_order_build_statement(&b, 1, 20, 10, 1);  /* #2 inside #0 */
    replay_order_build_statement(&b, 2, 30, -1, 1);  /* #3 never ends in the log */
    replay_order_build_statement(&b, 1, 1000, 0, 1); /* #4 starts as #0 ends */
    replay_order_build_statement(&b, 0, 2000, 5, 1); /* #5 */
    replay_order_build_finish(&b, &o);
    assert_int_equal(o.n, 5);
    assert_int_equal(o.rank[1], REPLAY_ORDER_NONE);
    assert_true(replay_order_ready(&o, 1));
    assert_true(replay_order_ready(&o, 2));  /* #0 had not finished when #2 started */
    assert_false(replay_order_ready(&o, 3)); /* #2 ended at 30 as #3 started, before it */
    assert_int_equal(o.need[4], 2); /* #0 (ends at 1000, before #4 in the capture) and #2 */
    assert_int_equal(o.need[5], 3); /* #0, #2, #4; never #3 */
    assert_int_equal(o.rank[3], 4); /* last: its end is not known */
    assert_false(replay_order_finished(&o, 1)); /* out: nothing moves */
    assert_true(replay_order_finished(&o, 2));  /* first by end */
    assert_true(replay_order_ready(&o, 3));
    assert_false(replay_order_ready(&o, 4)); /* #0 still runs */
    assert_true(replay_order_finished(&o, 0));
    assert_true(replay_order_ready(&o, 4));
    assert_false(replay_order_ready(&o, 5));
    assert_true(replay_order_finished(&o, 4));
    assert_true(replay_order_ready(&o, 5));  /* #3 still runs: not waited for */
    assert_true(replay_order_ready(&o, 99)); /* beyond the capture */
    replay_order_free(&o);
}

/* A log's millisecond times (resolution 1000 µs): statements of two sessions in the same
 * millisecond are not ordered (the log cannot tell which came first), one that ended a whole
 * millisecond before another started is. Session 0 updates a row at 10 ms (its end: its next
 * statement, the COMMIT, also at 10 ms), session 1 updates the same row at 10 ms and commits
 * at 12 ms; session 0 commits at 10 ms and runs a SELECT at 11 ms. */
static void test_millisecond_resolution(void **state)
{
    (void)state;
    struct replay_order_build b;
    struct replay_order o;
    replay_order_build_init(&b, 2, 1000);
    replay_order_build_statement(&b, 0, 10000, -1, 1); /* #0 s0 UPDATE, ends <= 10 ms + R */
    replay_order_build_statement(&b, 1, 10000, -1, 1); /* #1 s1 UPDATE */
    replay_order_build_statement(&b, 0, 10000, -1, 1); /* #2 s0 COMMIT: ends at #3's 11 ms */
    replay_order_build_statement(&b, 0, 11000, 50, 1); /* #3 s0 SELECT */
    replay_order_build_statement(&b, 1, 12000, 20, 1); /* #4 s1 COMMIT */
    replay_order_build_session_end(&b, 0, 13000);
    replay_order_build_finish(&b, &o);
    assert_int_equal(o.need[1], 0); /* the same millisecond as #0: no wait (exact: it would) */
    assert_true(replay_order_ready(&o, 1));
    assert_int_equal(o.need[3], 1); /* #0 ended by 10 ms + R <= 11 ms: certain; #2 not */
    assert_false(replay_order_ready(&o, 3));
    assert_int_equal(o.need[4], 2); /* #0 and #2 (by 11 ms + R); #1 ends only at #4 */
    assert_true(replay_order_finished(&o, 0));
    assert_true(replay_order_ready(&o, 3));
    assert_false(replay_order_ready(&o, 4));
    replay_order_free(&o);

    /* The same capture with exact times: #1 waits for #0 (it ended as #1 started, earlier in
     * the capture), which is the guess the resolution removes. */
    replay_order_build_init(&b, 2, 0);
    replay_order_build_statement(&b, 0, 10000, -1, 1);
    replay_order_build_statement(&b, 1, 10000, -1, 1);
    replay_order_build_statement(&b, 0, 10000, -1, 1);
    replay_order_build_finish(&b, &o);
    assert_int_equal(o.need[1], 1);
    replay_order_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits_for_what_finished_before),
        cmocka_unit_test(test_out_overlap_and_ties),
        cmocka_unit_test(test_millisecond_resolution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
