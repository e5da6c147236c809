#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "server/server.h"

/* The settings lint and the setting conversions it rests on: pg_settings rows and run facts
 * in, warnings out. No server. */

/* A setting as pg_settings would give it; strings are literals (the lint only reads them). */
#define SETTING(n, v, r, u)                                                                        \
    {                                                                                              \
        (char *)(n), (char *)(v), (char *)(r), (char *)(u), 0                                      \
    }

/* A durable, well-sized configuration: nothing to warn about. */
static struct srv_setting safe[] = {
    SETTING("fsync", "on", "on", NULL),
    SETTING("full_page_writes", "on", "on", NULL),
    SETTING("synchronous_commit", "on", "on", NULL),
    SETTING("autovacuum", "on", "on", NULL),
    SETTING("max_connections", "100", "100", NULL),
    SETTING("superuser_reserved_connections", "3", "3", NULL),
    SETTING("checkpoint_timeout", "5min", "300", "s"),
    SETTING("shared_buffers", "128MB", "16384", "8kB"),
};
#define N_SAFE (sizeof safe / sizeof safe[0])

/* A long, remote run on a dataset larger than shared_buffers. */
static struct srv_run_facts safe_facts(void)
{
    return (struct srv_run_facts){.clients = 10,
                                  .duration_s = 600,
                                  .writes = 1,
                                  .dataset_bytes = 1LL << 30,
                                  .location = SRV_LOCATION_REMOTE,
                                  .host = "db1"};
}

/* Lint a copy of safe[] with one setting's value replaced (NULL: none). */
static size_t lint_with(const char *name, const char *value, const char *raw,
                        const struct srv_run_facts *f, struct srv_warning **w)
{
    struct srv_setting s[N_SAFE];
    memcpy(s, safe, sizeof s);
    for (size_t i = 0; name && i < N_SAFE; i++) {
        if (strcmp(s[i].name, name) == 0) {
            s[i].value = (char *)value;
            s[i].raw = (char *)raw;
        }
    }
    return srv_lint(s, N_SAFE, f, w);
}

/* Exactly one warning, on setting with value, whose message is one sentence. */
static void expect_one(size_t n, struct srv_warning *w, const char *setting, const char *value)
{
    assert_int_equal(n, 1);
    assert_string_equal(w[0].setting, setting);
    assert_string_equal(w[0].value, value);
    assert_true(strlen(w[0].message) > 20);
    assert_null(strchr(w[0].message, '\n'));
    srv_warnings_free(w, n);
}

static void test_safe_configuration_is_quiet(void **state)
{
    (void)state;
    struct srv_run_facts f = safe_facts();
    struct srv_warning *w;
    assert_int_equal(srv_lint(safe, N_SAFE, &f, &w), 0);
    assert_null(w);
    /* No settings at all (they could not be read): no setting-based warning either. */
    assert_int_equal(srv_lint(NULL, 0, &f, &w), 0);
}

static void test_durability_settings(void **state)
{
    (void)state;
    struct srv_run_facts f = safe_facts();
    struct srv_warning *w;
    size_t n = lint_with("fsync", "off", "off", &f, &w);
    assert_non_null(strstr(w[0].message, "crash"));
    expect_one(n, w, "fsync", "off");
    n = lint_with("full_page_writes", "off", "off", &f, &w);
    expect_one(n, w, "full_page_writes", "off");
    n = lint_with("synchronous_commit", "off", "off", &f, &w);
    expect_one(n, w, "synchronous_commit", "off");
    n = lint_with("autovacuum", "off", "off", &f, &w);
    expect_one(n, w, "autovacuum", "off");
    /* synchronous_commit=local or remote_write still flushes locally. */
    assert_int_equal(lint_with("synchronous_commit", "local", "local", &f, &w), 0);
    assert_int_equal(lint_with("synchronous_commit", "remote_write", "remote_write", &f, &w), 0);
}

static void test_several_warnings_in_fixed_order(void **state)
{
    (void)state;
    struct srv_setting s[N_SAFE];
    memcpy(s, safe, sizeof s);
    s[0].value = s[0].raw = (char *)"off"; /* fsync */
    s[1].value = s[1].raw = (char *)"off"; /* full_page_writes */
    struct srv_run_facts f = safe_facts();
    f.location = SRV_LOCATION_LOCAL;
    f.host = "/var/run/postgresql";
    struct srv_warning *w;
    size_t n = srv_lint(s, N_SAFE, &f, &w);
    assert_int_equal(n, 3);
    assert_string_equal(w[0].setting, "fsync");
    assert_string_equal(w[1].setting, "full_page_writes");
    assert_string_equal(w[2].setting, "host");
    assert_string_equal(w[2].value, "/var/run/postgresql");
    srv_warnings_free(w, n);
}

static void test_clients_above_max_connections(void **state)
{
    (void)state;
    struct srv_run_facts f = safe_facts();
    struct srv_warning *w;
    f.clients = 97; /* 100 - 3 reserved: just fits */
    assert_int_equal(lint_with(NULL, NULL, NULL, &f, &w), 0);
    f.clients = 98;
    size_t n = lint_with(NULL, NULL, NULL, &f, &w);
    assert_non_null(strstr(w[0].message, "98 clients"));
    assert_non_null(strstr(w[0].message, "97 connections"));
    expect_one(n, w, "max_connections", "100");
    /* PostgreSQL 16 reserves more with reserved_connections. */
    struct srv_setting s[N_SAFE + 1];
    memcpy(s, safe, sizeof safe);
    s[N_SAFE] = (struct srv_setting)SETTING("reserved_connections", "5", "5", NULL);
    f.clients = 92;
    assert_int_equal(srv_lint(s, N_SAFE + 1, &f, &w), 0);
    f.clients = 93;
    n = srv_lint(s, N_SAFE + 1, &f, &w);
    expect_one(n, w, "max_connections", "100");
}

static void test_run_shorter_than_checkpoint_timeout(void **state)
{
    (void)state;
    struct srv_run_facts f = safe_facts();
    struct srv_warning *w;
    f.duration_s = 60;
    size_t n = lint_with(NULL, NULL, NULL, &f, &w);
    assert_non_null(strstr(w[0].message, "60 s"));
    expect_one(n, w, "checkpoint_timeout", "5min");
    f.writes = 0; /* read-only: checkpoints have nothing to write */
    assert_int_equal(lint_with(NULL, NULL, NULL, &f, &w), 0);
    f.writes = 1;
    f.duration_s = 300; /* as long as the timeout */
    assert_int_equal(lint_with(NULL, NULL, NULL, &f, &w), 0);
    f.duration_s = 30;
    n = lint_with("checkpoint_timeout", "30s", "30", &f, &w);
    assert_int_equal(n, 0);
}

static void test_dataset_in_shared_buffers(void **state)
{
    (void)state;
    struct srv_run_facts f = safe_facts();
    struct srv_warning *w;
    f.dataset_bytes = 30 * 1024 * 1024;
    size_t n = lint_with(NULL, NULL, NULL, &f, &w);
    assert_non_null(strstr(w[0].message, "30.0 MB"));
    assert_non_null(strstr(w[0].message, "in-memory"));
    expect_one(n, w, "shared_buffers", "128MB");
    f.dataset_bytes = 128LL * 1024 * 1024; /* exactly fits */
    n = lint_with(NULL, NULL, NULL, &f, &w);
    expect_one(n, w, "shared_buffers", "128MB");
    f.dataset_bytes = 128LL * 1024 * 1024 + 1;
    assert_int_equal(lint_with(NULL, NULL, NULL, &f, &w), 0);
    f.dataset_bytes = -1; /* unknown */
    assert_int_equal(lint_with(NULL, NULL, NULL, &f, &w), 0);
    f.dataset_bytes = 0; /* no tables: nothing to say */
    assert_int_equal(lint_with(NULL, NULL, NULL, &f, &w), 0);
}

static void test_server_on_the_same_host(void **state)
{
    (void)state;
    struct srv_run_facts f = safe_facts();
    struct srv_warning *w;
    f.location = SRV_LOCATION_LOCAL;
    f.host = "127.0.0.1";
    size_t n = lint_with(NULL, NULL, NULL, &f, &w);
    assert_non_null(strstr(w[0].message, "CPU"));
    expect_one(n, w, "host", "127.0.0.1");
    f.location = SRV_LOCATION_UNKNOWN;
    assert_int_equal(lint_with(NULL, NULL, NULL, &f, &w), 0);
}

static void test_setting_bytes(void **state)
{
    (void)state;
    struct srv_setting s = SETTING("shared_buffers", "128MB", "16384", "8kB");
    assert_int_equal(srv_setting_bytes(&s), 128LL << 20);
    s = (struct srv_setting)SETTING("work_mem", "4MB", "4096", "kB");
    assert_int_equal(srv_setting_bytes(&s), 4LL << 20);
    s = (struct srv_setting)SETTING("max_wal_size", "1GB", "1024", "MB");
    assert_int_equal(srv_setting_bytes(&s), 1LL << 30);
    s = (struct srv_setting)SETTING("wal_segment_size", "16MB", "16777216", "B");
    assert_int_equal(srv_setting_bytes(&s), 16LL << 20);
    s = (struct srv_setting)SETTING("checkpoint_timeout", "5min", "300", "s");
    assert_int_equal(srv_setting_bytes(&s), -1);
    s = (struct srv_setting)SETTING("max_connections", "100", "100", NULL);
    assert_int_equal(srv_setting_bytes(&s), -1);
    s = (struct srv_setting)SETTING("wal_buffers", "-1", "-1", "8kB");
    assert_int_equal(srv_setting_bytes(&s), -1);
    s = (struct srv_setting)SETTING("x", "?", "12abc", "kB");
    assert_int_equal(srv_setting_bytes(&s), -1);
    assert_int_equal(srv_setting_bytes(NULL), -1);
}

static void test_setting_seconds(void **state)
{
    (void)state;
    struct srv_setting s = SETTING("checkpoint_timeout", "5min", "300", "s");
    assert_true(srv_setting_seconds(&s) == 300);
    s = (struct srv_setting)SETTING("bgwriter_delay", "200ms", "200", "ms");
    assert_true(srv_setting_seconds(&s) == 0.2);
    s = (struct srv_setting)SETTING("x", "2min", "2", "min");
    assert_true(srv_setting_seconds(&s) == 120);
    s = (struct srv_setting)SETTING("shared_buffers", "128MB", "16384", "8kB");
    assert_true(srv_setting_seconds(&s) < 0);
    s = (struct srv_setting)SETTING("jit", "on", "on", NULL);
    assert_true(srv_setting_seconds(&s) < 0);
}

static void test_setting_is_changed(void **state)
{
    (void)state;
    assert_false(srv_setting_is_changed("on", "on", "default"));
    assert_false(srv_setting_is_changed("512", "-1", "default")); /* wal_buffers, auto */
    assert_false(srv_setting_is_changed("512", "-1", "override"));
    /* initdb writes max_wal_size = 1GB into postgresql.conf: the same as the default. */
    assert_false(srv_setting_is_changed("1024", "1024", "configuration file"));
    assert_true(srv_setting_is_changed("off", "on", "configuration file"));
    assert_true(srv_setting_is_changed("120", "100", "command line"));
    assert_true(srv_setting_is_changed("on", "off", "override")); /* data_checksums */
    assert_true(srv_setting_is_changed("64", "128", "user"));
    assert_true(srv_setting_is_changed("x", NULL, "session"));
    assert_false(srv_setting_is_changed("x", "y", NULL));
}

static void test_setting_find(void **state)
{
    (void)state;
    assert_ptr_equal(srv_setting_find(safe, N_SAFE, "autovacuum"), &safe[3]);
    assert_null(srv_setting_find(safe, N_SAFE, "jit"));
    assert_null(srv_setting_find(NULL, 0, "jit"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_safe_configuration_is_quiet),
        cmocka_unit_test(test_durability_settings),
        cmocka_unit_test(test_several_warnings_in_fixed_order),
        cmocka_unit_test(test_clients_above_max_connections),
        cmocka_unit_test(test_run_shorter_than_checkpoint_timeout),
        cmocka_unit_test(test_dataset_in_shared_buffers),
        cmocka_unit_test(test_server_on_the_same_host),
        cmocka_unit_test(test_setting_bytes),
        cmocka_unit_test(test_setting_seconds),
        cmocka_unit_test(test_setting_is_changed),
        cmocka_unit_test(test_setting_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
