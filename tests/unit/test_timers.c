#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/clock.h"
#include "base/rng.h"
#include "engine/timers.h"

/* An owner as a client would be: it carries its own slot index. */
struct owner {
    int slot;
    int id;
};

static void owners_init(struct owner *o, int n)
{
    for (int i = 0; i < n; i++) {
        o[i].slot = -1;
        o[i].id = i;
    }
}

/*
 * The heap invariants: the min-heap order, every entry's slot pointing back at its index, the
 * slot being the owner's own field, and every owner either queued exactly at its slot or -1.
 */
static void check_heap(const struct timers *t, const struct owner *o, int n_owners)
{
    assert_true(t->n <= t->cap);
    for (size_t i = 0; i < t->n; i++) {
        const struct timer_entry *e = &t->heap[i];
        assert_non_null(e->slot);
        assert_int_equal(*e->slot, (int)i);
        const struct owner *ow = e->owner;
        assert_true(ow >= o && ow < o + n_owners);
        assert_ptr_equal(e->slot, &ow->slot);
        if (i > 0)
            assert_true(t->heap[(i - 1) / 2].when <= e->when);
    }
    size_t queued = 0;
    for (int k = 0; k < n_owners; k++) {
        if (o[k].slot == -1)
            continue;
        assert_true(o[k].slot >= 0 && (size_t)o[k].slot < t->n);
        assert_ptr_equal(t->heap[o[k].slot].owner, &o[k]);
        queued++;
    }
    assert_int_equal(queued, t->n);
    assert_int_equal(timers_next(t), t->n ? t->heap[0].when : -1);
}

static void test_empty(void **state)
{
    (void)state;
    struct timers t;
    timers_init(&t);
    assert_int_equal(t.n, 0);
    assert_int_equal(timers_next(&t), -1);
    assert_null(timers_pop_due(&t, 0));
    assert_null(timers_pop_due(&t, INT64_MAX));

    /* Cancelling an owner that is not queued does nothing. */
    int slot = -1;
    timers_cancel(&t, &slot);
    assert_int_equal(slot, -1);
    assert_int_equal(t.n, 0);
    timers_free(&t);
    assert_int_equal(t.n, 0);
    assert_null(t.heap);

    /* Free of a heap that never allocated, and twice. */
    timers_free(&t);
    assert_null(t.heap);
}

static void test_set_and_pop_in_order(void **state)
{
    (void)state;
    enum { N = 10 };
    static const time_ns when[N] = {500, 100, 900, 300, 700, 200, 800, 400, 1000, 600};
    struct owner o[N];
    owners_init(o, N);
    struct timers t;
    timers_init(&t);
    for (int i = 0; i < N; i++) {
        timers_set(&t, &o[i], &o[i].slot, when[i]);
        check_heap(&t, o, N);
    }
    assert_int_equal(t.n, N);
    assert_int_equal(timers_next(&t), 100);

    /* Nothing is due before the earliest deadline. */
    assert_null(timers_pop_due(&t, 99));
    assert_int_equal(t.n, N);

    /* At 450, exactly the four entries at 100..400 come out, in deadline order. */
    static const int expect_ids[] = {1, 5, 3, 7};
    for (int k = 0; k < 4; k++) {
        struct owner *p = timers_pop_due(&t, 450);
        assert_non_null(p);
        assert_int_equal(p->id, expect_ids[k]);
        assert_int_equal(p->slot, -1);
        check_heap(&t, o, N);
    }
    assert_null(timers_pop_due(&t, 450));
    assert_int_equal(t.n, N - 4);
    assert_int_equal(timers_next(&t), 500);

    /* A deadline equal to now is due. */
    struct owner *p = timers_pop_due(&t, 500);
    assert_non_null(p);
    assert_int_equal(p->id, 0);

    /* Drain: non-decreasing deadlines, each owner once. */
    time_ns prev = 500;
    int seen = 0;
    while (t.n > 0) {
        time_ns next = timers_next(&t);
        p = timers_pop_due(&t, next);
        assert_non_null(p);
        assert_int_equal(when[p->id], next);
        assert_true(next >= prev);
        prev = next;
        seen++;
        check_heap(&t, o, N);
    }
    assert_int_equal(seen, N - 5);
    for (int i = 0; i < N; i++)
        assert_int_equal(o[i].slot, -1);
    assert_int_equal(timers_next(&t), -1);
    timers_free(&t);
}

static void test_reset_moves(void **state)
{
    (void)state;
    enum { N = 5 };
    struct owner o[N];
    owners_init(o, N);
    struct timers t;
    timers_init(&t);
    for (int i = 0; i < N; i++)
        timers_set(&t, &o[i], &o[i].slot, 100 * (i + 1)); /* 100 .. 500 */
    check_heap(&t, o, N);

    /* Earlier: o[4] moves from 500 to 50, becomes the first, no new entry. */
    timers_set(&t, &o[4], &o[4].slot, 50);
    check_heap(&t, o, N);
    assert_int_equal(t.n, N);
    assert_int_equal(timers_next(&t), 50);
    assert_int_equal(o[4].slot, 0);

    /* Later: o[4] moves from 50 to 1000, o[0] is first again. */
    timers_set(&t, &o[4], &o[4].slot, 1000);
    check_heap(&t, o, N);
    assert_int_equal(t.n, N);
    assert_int_equal(timers_next(&t), 100);

    /* The root moves later, past the others. */
    timers_set(&t, &o[0], &o[0].slot, 450);
    check_heap(&t, o, N);
    assert_int_equal(timers_next(&t), 200);

    /* Same deadline again: no change. */
    timers_set(&t, &o[2], &o[2].slot, 300);
    check_heap(&t, o, N);
    assert_int_equal(t.n, N);

    /* Order now: 1@200, 2@300, 3@400, 0@450, 4@1000. */
    static const int expect_ids[] = {1, 2, 3, 0, 4};
    static const time_ns expect_when[] = {200, 300, 400, 450, 1000};
    for (int k = 0; k < N; k++) {
        assert_int_equal(timers_next(&t), expect_when[k]);
        struct owner *p = timers_pop_due(&t, expect_when[k]);
        assert_non_null(p);
        assert_int_equal(p->id, expect_ids[k]);
        check_heap(&t, o, N);
    }
    assert_int_equal(t.n, 0);
    timers_free(&t);
}

static void test_cancel_last_middle_root(void **state)
{
    (void)state;
    enum { N = 9 };
    struct owner o[N];
    owners_init(o, N);
    struct timers t;
    timers_init(&t);
    for (int i = 0; i < N; i++)
        timers_set(&t, &o[i], &o[i].slot, 10 * (i + 1)); /* sorted: heap index == i */
    check_heap(&t, o, N);

    /* The last heap element. */
    struct owner *last = t.heap[t.n - 1].owner;
    timers_cancel(&t, &last->slot);
    assert_int_equal(last->slot, -1);
    assert_int_equal(t.n, N - 1);
    check_heap(&t, o, N);

    /* Cancelling it again is a no-op. */
    timers_cancel(&t, &last->slot);
    assert_int_equal(t.n, N - 1);
    check_heap(&t, o, N);

    /* A middle element whose replacement (the last, larger) must sift down. */
    struct owner *mid = t.heap[1].owner;
    timers_cancel(&t, &mid->slot);
    assert_int_equal(mid->slot, -1);
    assert_int_equal(t.n, N - 2);
    check_heap(&t, o, N);

    /* The root. */
    struct owner *root = t.heap[0].owner;
    time_ns root_when = t.heap[0].when;
    timers_cancel(&t, &root->slot);
    assert_int_equal(root->slot, -1);
    check_heap(&t, o, N);
    assert_true(timers_next(&t) >= root_when);

    /* Cancelled owners never come out; the rest come out in deadline order. */
    time_ns prev = root_when;
    int popped = 0;
    while (t.n > 0) {
        time_ns next = timers_next(&t);
        struct owner *p = timers_pop_due(&t, INT64_MAX);
        assert_non_null(p);
        assert_true(p != last && p != mid && p != root);
        assert_int_equal(next, 10 * (p->id + 1));
        assert_true(next >= prev);
        prev = next;
        popped++;
        check_heap(&t, o, N);
    }
    assert_int_equal(popped, N - 3);
    assert_null(timers_pop_due(&t, INT64_MAX));

    /* A cancelled owner can be queued again. */
    timers_set(&t, mid, &mid->slot, 7);
    assert_int_equal(mid->slot, 0);
    assert_ptr_equal(timers_pop_due(&t, 7), mid);
    assert_int_equal(mid->slot, -1);
    timers_free(&t);
}

static void test_cancel_sift_up_case(void **state)
{
    (void)state;
    /*
     * Heap (index: when):   0:1
     *                1:100        2:2
     *             3:101 4:102  5:3  6:4
     * Cancelling index 3 moves the last entry (when 4) there; it is smaller than its new
     * parent (100) and must sift up to index 1.
     */
    enum { N = 7 };
    static const time_ns when[N] = {1, 100, 2, 101, 102, 3, 4};
    struct owner o[N];
    owners_init(o, N);
    struct timers t;
    timers_init(&t);
    for (int i = 0; i < N; i++)
        timers_set(&t, &o[i], &o[i].slot, when[i]);
    check_heap(&t, o, N);
    for (int i = 0; i < N; i++)
        assert_int_equal(o[i].slot, i); /* inserted already in heap order */

    timers_cancel(&t, &o[3].slot);
    check_heap(&t, o, N);
    assert_int_equal(o[3].slot, -1);
    assert_int_equal(o[6].slot, 1);

    static const int expect_ids[] = {0, 2, 5, 6, 1, 4};
    for (size_t k = 0; k < sizeof expect_ids / sizeof expect_ids[0]; k++) {
        struct owner *p = timers_pop_due(&t, 1000);
        assert_non_null(p);
        assert_int_equal(p->id, expect_ids[k]);
        check_heap(&t, o, N);
    }
    assert_int_equal(t.n, 0);
    timers_free(&t);
}

static void test_equal_deadlines(void **state)
{
    (void)state;
    enum { N = 20 };
    struct owner o[N];
    owners_init(o, N);
    struct timers t;
    timers_init(&t);
    for (int i = 0; i < N; i++)
        timers_set(&t, &o[i], &o[i].slot, i % 2 ? 50 : 40);
    check_heap(&t, o, N);
    int seen[N] = {0};
    for (int k = 0; k < N; k++) {
        struct owner *p = timers_pop_due(&t, 50);
        assert_non_null(p);
        /* All the 40s before any 50. */
        assert_int_equal(p->id % 2, k < N / 2 ? 0 : 1);
        assert_int_equal(seen[p->id], 0);
        seen[p->id] = 1;
        check_heap(&t, o, N);
    }
    timers_free(&t);
}

static void test_growth(void **state)
{
    (void)state;
    /* Well past the first allocation, in descending order (every insert sifts to the root). */
    enum { N = 1000 };
    struct owner *o = malloc(N * sizeof *o);
    assert_non_null(o);
    owners_init(o, N);
    struct timers t;
    timers_init(&t);
    for (int i = 0; i < N; i++) {
        timers_set(&t, &o[i], &o[i].slot, (time_ns)(N - i) * NS_PER_MS);
        assert_int_equal(timers_next(&t), (time_ns)(N - i) * NS_PER_MS);
    }
    check_heap(&t, o, N);
    assert_int_equal(t.n, N);
    for (int k = 0; k < N; k++) {
        struct owner *p = timers_pop_due(&t, INT64_MAX);
        assert_non_null(p);
        assert_int_equal(p->id, N - 1 - k);
    }
    check_heap(&t, o, N);
    timers_free(&t);
    free(o);
}

/*
 * Random operations against a reference model: model[k] is owner k's deadline, or -1 when it
 * is not queued. Deadlines are drawn from a small range so that ties are common.
 */
static void run_random(uint64_t seed, int n_owners, int n_ops, int64_t range)
{
    struct owner *o = malloc((size_t)n_owners * sizeof *o);
    time_ns *model = malloc((size_t)n_owners * sizeof *model);
    assert_non_null(o);
    assert_non_null(model);
    owners_init(o, n_owners);
    for (int k = 0; k < n_owners; k++)
        model[k] = -1;
    struct rng r;
    rng_seed(&r, seed);
    struct timers t;
    timers_init(&t);
    int n_pops = 0, n_cancels = 0, n_moves = 0;

    for (int op = 0; op < n_ops; op++) {
        int k = (int)rng_range(&r, 0, n_owners - 1);
        int64_t what = rng_range(&r, 0, 9);
        if (what < 5) {
            /* set (new or move) */
            time_ns when = rng_range(&r, 0, range);
            n_moves += model[k] >= 0;
            timers_set(&t, &o[k], &o[k].slot, when);
            model[k] = when;
        } else if (what < 7) {
            n_cancels += model[k] >= 0;
            timers_cancel(&t, &o[k].slot);
            model[k] = -1;
        } else {
            /* pop at a random now, possibly several times */
            time_ns now = rng_range(&r, -1, range);
            int reps = (int)rng_range(&r, 1, 4);
            for (int rep = 0; rep < reps; rep++) {
                time_ns min = -1;
                for (int j = 0; j < n_owners; j++)
                    if (model[j] >= 0 && (min < 0 || model[j] < min))
                        min = model[j];
                struct owner *p = timers_pop_due(&t, now);
                if (min < 0 || min > now) {
                    assert_null(p);
                    break;
                }
                assert_non_null(p);
                /* Any owner holding the minimum (ties are unordered). */
                assert_int_equal(model[p->id], min);
                assert_int_equal(p->slot, -1);
                model[p->id] = -1;
                n_pops++;
            }
        }
        /* The heap agrees with the model after every operation. */
        check_heap(&t, o, n_owners);
        size_t queued = 0;
        time_ns min = -1;
        for (int j = 0; j < n_owners; j++) {
            assert_int_equal(o[j].slot >= 0, model[j] >= 0);
            if (model[j] >= 0) {
                assert_int_equal(t.heap[o[j].slot].when, model[j]);
                queued++;
                if (min < 0 || model[j] < min)
                    min = model[j];
            }
        }
        assert_int_equal(t.n, queued);
        assert_int_equal(timers_next(&t), min);
    }
    /* Every kind of operation happened. */
    assert_true(n_pops > n_ops / 20);
    assert_true(n_cancels > n_ops / 50);
    assert_true(n_moves > n_ops / 50);

    /* Drain in order. */
    time_ns prev = -1;
    while (t.n > 0) {
        time_ns next = timers_next(&t);
        assert_true(next >= prev);
        struct owner *p = timers_pop_due(&t, next);
        assert_non_null(p);
        assert_int_equal(model[p->id], next);
        model[p->id] = -1;
        prev = next;
    }
    for (int j = 0; j < n_owners; j++)
        assert_int_equal(model[j], -1);
    check_heap(&t, o, n_owners);
    timers_free(&t);
    free(model);
    free(o);
}

static void test_random_vs_model(void **state)
{
    (void)state;
    run_random(1, 8, 5000, 50);        /* tiny heap, many ties */
    run_random(2, 64, 20000, 1000000); /* mostly distinct deadlines */
    run_random(3, 300, 20000, 1000);   /* larger heap, some ties */
    run_random(4, 17, 10000, 3);       /* almost all ties */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_set_and_pop_in_order),
        cmocka_unit_test(test_reset_moves),
        cmocka_unit_test(test_cancel_last_middle_root),
        cmocka_unit_test(test_cancel_sift_up_case),
        cmocka_unit_test(test_equal_deadlines),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_random_vs_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
