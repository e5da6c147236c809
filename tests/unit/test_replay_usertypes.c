/* The replay's user types: the OIDs inside binary arrays and composites mapped from the
 * capture's to the target's (workload/replay/usertypes.h), nested, with NULLs, and a value
 * that does not read left whole. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "workload/replay/usertypes.h"

/* The capture's OIDs, and the target's (each 1000 higher; the text type's is builtin). */
enum { MOOD = 16400, MOODS = 16401, PAIR = 16402, PAIRS = 16403, MOODS_DOM = 16404 };
enum { SHIFT = 1000, TEXT = 25, INT4 = 23 };

struct value {
    uint8_t b[512];
    size_t n;
};

static void u32(struct value *v, uint32_t x)
{
    for (int k = 3; k >= 0; k--)
        v->b[v->n++] = (uint8_t)(x >> (8 * k));
}

static void bytes(struct value *v, const void *p, size_t n)
{
    u32(v, (uint32_t)n);
    memcpy(v->b + v->n, p, n);
    v->n += n;
}

/* An item holding w's bytes. */
static void nested(struct value *v, const struct value *w)
{
    bytes(v, w->b, w->n);
}

/* A one-dimensional array header of n items of elem (has_null: some are NULL). */
static void array_header(struct value *v, uint32_t elem, int n, int has_null)
{
    u32(v, 1);
    u32(v, (uint32_t)has_null);
    u32(v, elem);
    u32(v, (uint32_t)n);
    u32(v, 1);
}

static uint32_t at(const struct value *v, size_t off)
{
    return (uint32_t)v->b[off] << 24 | (uint32_t)v->b[off + 1] << 16 |
           (uint32_t)v->b[off + 2] << 8 | v->b[off + 3];
}

/* The types of database 0: mood (an enum), mood[] (its array), pair (mood m, mood[] ms,
 * text note), pair[], and a domain over mood[]; the target has each, MOODS_DOM too. */
static void types(struct replay_types *m, int with_targets)
{
    const struct capture_type_name names[] = {{MOOD, "public", "mood", 'o', 0},
                                              {MOODS, "public", "_mood", 'a', MOOD},
                                              {PAIR, "public", "pair", 'c', 0},
                                              {PAIRS, "public", "_pair", 'a', PAIR},
                                              {MOODS_DOM, "public", "moods", 'd', MOODS}};
    replay_types_init(m);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        replay_types_add(m, 0, &names[i]);
    for (size_t i = 0; with_targets && i < m->n; i++)
        m->t[i].target = m->t[i].oid + SHIFT;
}

static void test_array_of_enum(void **state)
{
    (void)state;
    struct replay_types m;
    types(&m, 1);
    struct value v = {0};
    array_header(&v, MOOD, 3, 1);
    bytes(&v, "happy", 5);
    u32(&v, 0xffffffff); /* NULL */
    bytes(&v, "sad", 3);
    assert_int_equal(replay_types_rewrite(&m, 0, MOODS, v.b, v.n), 1);
    assert_int_equal(at(&v, 8), MOOD + SHIFT);
    assert_memory_equal(v.b + 24, "happy", 5);
    /* The same value through its domain; of another database, none is named. */
    struct value d = {0};
    array_header(&d, MOOD, 1, 0);
    bytes(&d, "ok", 2);
    assert_int_equal(replay_types_rewrite(&m, 0, MOODS_DOM, d.b, d.n), 1);
    assert_int_equal(at(&d, 8), MOOD + SHIFT);
    struct value o = {0};
    array_header(&o, MOOD, 1, 0);
    bytes(&o, "ok", 2);
    assert_int_equal(replay_types_rewrite(&m, 1, MOODS, o.b, o.n), 0);
    assert_int_equal(at(&o, 8), MOOD);
    replay_types_free(&m);
}

/* pair[] of two pairs, the second with a NULL array field: every OID of a named type mapped,
 * the builtin text's kept. */
static void test_nested_composites(void **state)
{
    (void)state;
    struct replay_types m;
    types(&m, 1);
    struct value moods = {0};
    array_header(&moods, MOOD, 2, 0);
    bytes(&moods, "ok", 2);
    bytes(&moods, "sad", 3);
    struct value p1 = {0}, p2 = {0};
    u32(&p1, 3);
    u32(&p1, MOOD);
    bytes(&p1, "happy", 5);
    u32(&p1, MOODS);
    nested(&p1, &moods);
    u32(&p1, TEXT);
    bytes(&p1, "first", 5);
    u32(&p2, 3);
    u32(&p2, MOOD);
    bytes(&p2, "ok", 2);
    u32(&p2, MOODS);
    u32(&p2, 0xffffffff);
    u32(&p2, TEXT);
    bytes(&p2, "second", 6);
    struct value v = {0};
    array_header(&v, PAIR, 2, 0);
    nested(&v, &p1);
    nested(&v, &p2);
    /* pair[]'s header, p1's mood, mood[] and the array's element, p2's mood and mood[]. */
    assert_int_equal(replay_types_rewrite(&m, 0, PAIRS, v.b, v.n), 6);
    assert_int_equal(at(&v, 8), PAIR + SHIFT);
    size_t p1_at = 20 + 4; /* after the header and p1's length */
    assert_int_equal(at(&v, p1_at + 4), MOOD + SHIFT);
    assert_int_equal(at(&v, p1_at + 17), MOODS + SHIFT);
    assert_int_equal(at(&v, p1_at + 25 + 8), MOOD + SHIFT); /* the nested array's header */
    assert_int_equal(at(&v, p1_at + 25 + moods.n), TEXT);
    replay_types_free(&m);
}

/* A value that does not read as its type says is left whole; a type the target lacks is
 * left as the capture's. */
static void test_malformed_left_whole(void **state)
{
    (void)state;
    struct replay_types m;
    types(&m, 1);
    struct value good = {0};
    array_header(&good, MOOD, 2, 0);
    bytes(&good, "ok", 2);
    bytes(&good, "sad", 3);
    struct value v = good;
    /* cut short in its last element */
    assert_int_equal(replay_types_rewrite(&m, 0, MOODS, v.b, v.n - 1), -1);
    assert_memory_equal(v.b, good.b, good.n);
    /* a byte too many */
    assert_int_equal(replay_types_rewrite(&m, 0, MOODS, v.b, v.n + 1), -1);
    assert_memory_equal(v.b, good.b, good.n);
    /* an element type not the array's */
    v.b[11] ^= 1;
    assert_int_equal(replay_types_rewrite(&m, 0, MOODS, v.b, v.n), -1);
    v.b[11] ^= 1;
    assert_memory_equal(v.b, good.b, good.n);
    /* a composite whose second field runs past the end: its first field's OID kept too */
    struct value p = {0};
    u32(&p, 2);
    u32(&p, MOOD);
    bytes(&p, "ok", 2);
    u32(&p, INT4);
    u32(&p, 4);
    struct value before = p;
    assert_int_equal(replay_types_rewrite(&m, 0, PAIR, p.b, p.n), -1);
    assert_memory_equal(p.b, before.b, before.n);
    /* more dimensions than PostgreSQL has */
    struct value dims = good;
    dims.b[3] = 7;
    assert_int_equal(replay_types_rewrite(&m, 0, MOODS, dims.b, dims.n), -1);
    replay_types_free(&m);
    /* no target OIDs: nothing to map, the value as it was */
    types(&m, 0);
    v = good;
    assert_int_equal(replay_types_rewrite(&m, 0, MOODS, v.b, v.n), 0);
    assert_memory_equal(v.b, good.b, good.n);
    replay_types_free(&m);
}

/* The table: sorted by database and OID, the first name of each kept, found again. */
static void test_table(void **state)
{
    (void)state;
    struct replay_types m;
    replay_types_init(&m);
    const struct capture_type_name a = {16500, "s", "a", 'o', 0}, b = {16400, "s", "b", 'o', 0},
                                   again = {16500, "s", "other", 'o', 0};
    replay_types_add(&m, 1, &a);
    replay_types_add(&m, 0, &a);
    replay_types_add(&m, 1, &b);
    replay_types_add(&m, 1, &again);
    assert_int_equal(m.n, 3);
    assert_string_equal(replay_types_find(&m, 1, 16500)->name, "a");
    assert_string_equal(replay_types_find(&m, 1, 16400)->name, "b");
    assert_non_null(replay_types_find(&m, 0, 16500));
    assert_null(replay_types_find(&m, 0, 16400));
    assert_null(replay_types_find(&m, -1, 16500));
    replay_types_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_of_enum),
        cmocka_unit_test(test_nested_composites),
        cmocka_unit_test(test_malformed_left_whole),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
