#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/err.h"
#include "base/mem.h"
#include "result/field.h"
#include "result/result.h"
#include "result/run_id.h"
#include "replay_fixture.h"
#include "workload/workload.h"

/* A file of an earlier pgarena: no run_id, no meta. */
static const char old_file[] =
    "{\"format\": \"pgarena-result\", \"version\": 1, \"label\": \"A\", \"server\": "
    "{\"version\": \"15.1\", \"settings\": {\"work_mem\": \"4MB\", \"jit\": \"off\"}}, "
    "\"workload\": {\"name\": \"tpcb-like\", \"scale\": 10}, \"options\": {\"clients\": 4, "
    "\"rate\": 0, \"protocol\": \"simple\"}, \"summary\": {\"transactions\": 1, \"tps\": 1.0, "
    "\"latency_us\": {}}, \"intervals\": [], \"histogram\": {\"unit\": \"us\", \"count\": 0, "
    "\"min\": 0, \"max\": 0, \"bins\": []}}";

static int is_uuid(const char *s, char version)
{
    if (strlen(s) != RUN_ID_LEN || s[14] != version || !strchr("89ab", s[19]))
        return 0;
    for (int i = 0; i < RUN_ID_LEN; i++)
        if ((i == 8 || i == 13 || i == 18 || i == 23) ? s[i] != '-'
                                                      : !strchr("0123456789abcdef", s[i]))
            return 0;
    return 1;
}

static char *value_of(const struct result *r, const char *name)
{
    char *v;
    return result_field_value(r, name, &v) ? v : NULL;
}

static void assert_field(const struct result *r, const char *name, const char *want)
{
    char *v = value_of(r, name);
    if (want) {
        assert_non_null(v);
        assert_string_equal(v, want);
    } else {
        assert_null(v);
    }
    free(v);
}

static void test_valid_names(void **state)
{
    (void)state;
    static const char *const good[] = {"label",          "run_id",
                                       "started_at",     "workload.name",
                                       "workload.scale", "options.clients",
                                       "options.rate",   "options.protocol",
                                       "server.version", "server.settings.work_mem",
                                       "meta.commit",    "meta.a.b",
                                       "replay.speed",   "replay.capture"};
    static const char *const bad[] = {
        "",     "labels", "workload", "meta.", "server.settings.", "options.seed", "summary.tps",
        "meta", "Label"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++)
        assert_true(result_field_valid(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(result_field_valid(bad[i]));
    assert_false(result_field_valid(NULL));
}

/* Values of an old file, absent ones told apart; its run_id is the hash of its bytes. */
static void test_old_file(void **state)
{
    (void)state;
    struct result r, again;
    struct err e = {0};
    if (result_read_text(old_file, strlen(old_file), "old.json", &r, &e) != 0)
        fail_msg("read failed: %s", e.msg);
    assert_field(&r, "label", "A");
    assert_field(&r, "workload.name", "tpcb-like");
    assert_field(&r, "workload.scale", "10");
    assert_field(&r, "options.clients", "4");
    assert_field(&r, "options.rate", "0");
    assert_field(&r, "options.protocol", "simple");
    assert_field(&r, "server.version", "15.1");
    assert_field(&r, "server.settings.work_mem", "4MB");
    assert_field(&r, "server.settings.shared_buffers", NULL);
    assert_field(&r, "meta.commit", NULL);
    assert_field(&r, "started_at", NULL);
    assert_field(&r, "no.such", NULL);
    assert_field(&r, "replay.speed", NULL); /* not a replay */
    assert_field(&r, "replay.capture", NULL);
    replay_fixture(&r)->capture = xstrdup("app.pgc");
    assert_field(&r, "replay.capture", "app.pgc");
    assert_field(&r, "replay.speed", "max"); /* 0: --speed max */
    replay_fixture(&r)->speed = 2.5;
    assert_field(&r, "replay.speed", "2.5");
    assert_non_null(r.run_id);
    assert_true(is_uuid(r.run_id, '8'));
    assert_field(&r, "run_id", r.run_id);
    /* The same bytes, the same id; read from a file, the same as from memory. */
    assert_int_equal(result_read_text(old_file, strlen(old_file), "old.json", &again, &e), 0);
    assert_string_equal(r.run_id, again.run_id);
    result_free(&again);
    char path[] = "/tmp/pgarena-field-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, old_file, strlen(old_file)), (ssize_t)strlen(old_file));
    close(fd);
    assert_int_equal(result_read(path, &again, &e), 0);
    assert_string_equal(r.run_id, again.run_id);
    result_free(&again);
    /* One byte more is another file. */
    char *changed = xasprintf("%s ", old_file);
    assert_int_equal(result_read_text(changed, strlen(changed), "c.json", &again, &e), 0);
    assert_string_not_equal(r.run_id, again.run_id);
    result_free(&again);
    free(changed);
    unlink(path);
    result_free(&r);
}

/* meta and run_id written and read back; the written id is kept, not derived. */
static void test_write_read_meta(void **state)
{
    (void)state;
    struct result r, back;
    struct err e = {0};
    assert_int_equal(result_read_text(old_file, strlen(old_file), "old.json", &r, &e), 0);
    free(r.run_id);
    char id[RUN_ID_LEN + 1];
    run_id_random(id);
    assert_true(is_uuid(id, '4'));
    r.run_id = xstrdup(id);
    free(r.meta);
    r.meta = xcalloc(2, sizeof *r.meta);
    r.meta[r.n_meta++] = (struct result_meta){xstrdup("commit"), xstrdup("abc123")};
    r.meta[r.n_meta++] = (struct result_meta){xstrdup("build.id"), xstrdup("caf\xc3\xa9 7")};
    char path[] = "/tmp/pgarena-field-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    if (result_write(&r, path, &e) != 0)
        fail_msg("write failed: %s", e.msg);
    if (result_read(path, &back, &e) != 0)
        fail_msg("read failed: %s", e.msg);
    assert_string_equal(back.run_id, id);
    assert_int_equal(back.n_meta, 2);
    assert_field(&back, "meta.commit", "abc123");
    assert_field(&back, "meta.build.id", "caf\xc3\xa9 7");
    assert_field(&back, "meta.build", NULL);
    assert_field(&back, "run_id", id);
    unlink(path);
    result_free(&back);
    result_free(&r);
}

/* Derived ids: the same inputs give the same id; another index or kind another. */
static void test_derived_ids(void **state)
{
    (void)state;
    char a[RUN_ID_LEN + 1], b[RUN_ID_LEN + 1], c[RUN_ID_LEN + 1], m[RUN_ID_LEN + 1];
    run_id_derived("agent", "nightly-7", 0, a);
    run_id_derived("agent", "nightly-7", 0, b);
    run_id_derived("agent", "nightly-7", 1, c);
    run_id_derived("merged", "nightly-7", -1, m);
    assert_true(is_uuid(a, '8'));
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    assert_string_not_equal(a, m);
    run_id_random(a);
    run_id_random(b);
    assert_string_not_equal(a, b);
}

int main(void)
{
    workload_parts_register(); /* replay {}: read, merged, its fields */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_names),
        cmocka_unit_test(test_old_file),
        cmocka_unit_test(test_write_read_meta),
        cmocka_unit_test(test_derived_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
