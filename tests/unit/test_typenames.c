/* replay record's names of user types (capture/typenames.h), against a fake catalog: asked
 * once per database and OID on the thread, a statement's types named with those their values
 * hold, a statement held while its names are asked, an OID without a type and a failed
 * lookup left unnamed. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capture/typenames.h"

enum { MOODS = 16400, MOOD = 16401, PAIR = 16402, MISSING = 16499, TEXT = 25 };

/* The fake catalog's answers, held until released; the questions it was asked. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int released, calls, fail_lookups;
static uint32_t asked[16];
static int n_asked;
static char asked_db[32];

static void row(struct typenames_row *r, uint32_t oid, const char *name, char kind, uint32_t inner,
                const uint32_t *children, int n)
{
    *r = (struct typenames_row){oid, xstrdup("public"), xstrdup(name), kind, inner, NULL, n};
    r->children = xcalloc((size_t)n + 1, sizeof *r->children);
    if (n)
        memcpy(r->children, children, (size_t)n * sizeof *children);
}

static int fake_lookup(void *arg, const char *database, const char *user, const uint32_t *oids,
                       int n, struct typenames_row **rows, int *n_rows, char *why, size_t size)
{
    (void)arg;
    (void)user;
    pthread_mutex_lock(&mu);
    while (!released)
        pthread_cond_wait(&cv, &mu);
    calls++;
    n_asked = n < 16 ? n : 16;
    memcpy(asked, oids, (size_t)n_asked * sizeof *oids);
    snprintf(asked_db, sizeof asked_db, "%s", database);
    pthread_mutex_unlock(&mu);
    if (fail_lookups) {
        snprintf(why, size, "refused");
        return -1;
    }
    /* Whatever is asked: the three types, as the catalog's recursive query gives them. */
    *rows = xcalloc(3, sizeof **rows);
    const uint32_t mood[1] = {MOOD}, pair[3] = {MOOD, MOODS, TEXT};
    row(&(*rows)[0], MOODS, "_mood", 'a', MOOD, mood, 1);
    row(&(*rows)[1], MOOD, "mood", 'o', 0, NULL, 0);
    row(&(*rows)[2], PAIR, "pair", 'c', 0, pair, 3);
    *n_rows = 3;
    return 0;
}

static void release(int v)
{
    pthread_mutex_lock(&mu);
    released = v;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static int reset(void **state)
{
    (void)state;
    release(0);
    calls = n_asked = fail_lookups = 0;
    return 0;
}

static void test_named_with_what_they_hold(void **state)
{
    (void)state;
    struct typenames *t = typenames_new(fake_lookup, NULL);
    const uint32_t types[3] = {TEXT, PAIR, PAIR};
    typenames_want(t, "shop", "app", types, 3);
    struct capture_type_name *names;
    int n;
    /* asked, not answered: the statement waits */
    assert_int_equal(typenames_collect(t, "shop", types, 3, &names, &n), -1);
    assert_null(names);
    release(1);
    typenames_settle(t, 5000);
    assert_int_equal(typenames_collect(t, "shop", types, 3, &names, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(names[0].oid, PAIR);
    assert_string_equal(names[0].name, "pair");
    assert_int_equal(names[0].kind, 'c');
    assert_int_equal(names[1].oid, MOOD);
    assert_int_equal(names[2].oid, MOODS);
    assert_int_equal(names[2].inner, MOOD);
    typenames_names_free(names, n);
    /* one question, of the user's type alone, in its database */
    assert_int_equal(calls, 1);
    assert_int_equal(n_asked, 1);
    assert_int_equal(asked[0], PAIR);
    assert_string_equal(asked_db, "shop");
    /* known now, also what the answer named beside: no more questions */
    const uint32_t again[2] = {MOODS, PAIR};
    typenames_want(t, "shop", "app", again, 2);
    typenames_settle(t, 5000);
    assert_int_equal(calls, 1);
    /* another database asks its own */
    typenames_want(t, "other", "app", again, 1);
    typenames_settle(t, 5000);
    assert_int_equal(calls, 2);
    assert_string_equal(asked_db, "other");
    /* an OID no type has: no name, the statement goes on */
    const uint32_t missing[1] = {MISSING};
    typenames_want(t, "shop", "app", missing, 1);
    typenames_settle(t, 5000);
    assert_int_equal(typenames_collect(t, "shop", missing, 1, &names, &n), 0);
    assert_int_equal(n, 0);
    typenames_free(t);
}

/* A lookup that fails, or no answer in time: unnamed, never held for good. */
static void test_failed_and_late(void **state)
{
    (void)state;
    struct typenames *t = typenames_new(fake_lookup, NULL);
    const uint32_t types[1] = {PAIR};
    struct capture_type_name *names;
    int n;
    typenames_want(t, "shop", "app", types, 1);
    typenames_settle(t, 50); /* no answer yet: settled without names */
    assert_int_equal(typenames_collect(t, "shop", types, 1, &names, &n), 0);
    assert_int_equal(n, 0);
    fail_lookups = 1;
    release(1);
    typenames_want(t, "other", "app", types, 1);
    typenames_settle(t, 5000);
    assert_int_equal(typenames_collect(t, "other", types, 1, &names, &n), 0);
    assert_int_equal(n, 0);
    typenames_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_named_with_what_they_hold, reset),
        cmocka_unit_test_setup(test_failed_and_late, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
