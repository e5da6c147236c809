#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "server/server.h"

/* The pure parts of server/ besides the lint: statistics deltas, where the server is, and
 * what the client machine's files say. */

static void test_stats_delta(void **state)
{
    (void)state;
    struct srv_stats a, b, d;
    for (int i = 0; i < SRV_N_STATS; i++) {
        a.v[i] = 100;
        b.v[i] = 150 + i;
    }
    a.v[SRV_WAL_BYTES] = -1;     /* unknown before */
    b.v[SRV_CHECKPOINTS] = -1;   /* unknown after */
    b.v[SRV_XACT_ROLLBACK] = 10; /* went back: statistics were reset */
    b.v[SRV_DEADLOCKS] = 100;    /* unchanged */
    srv_stats_delta(&a, &b, &d);
    assert_int_equal(d.v[SRV_XACT_COMMIT], 50);
    assert_int_equal(d.v[SRV_TEMP_BYTES], 50 + SRV_TEMP_BYTES);
    assert_int_equal(d.v[SRV_WAL_BYTES], -1);
    assert_int_equal(d.v[SRV_CHECKPOINTS], -1);
    assert_int_equal(d.v[SRV_XACT_ROLLBACK], -1);
    assert_int_equal(d.v[SRV_DEADLOCKS], 0);
}

static void test_cache_hit_ratio(void **state)
{
    (void)state;
    struct srv_stats d;
    for (int i = 0; i < SRV_N_STATS; i++)
        d.v[i] = 0;
    assert_true(srv_cache_hit_ratio(&d) < 0); /* nothing read */
    d.v[SRV_BLKS_HIT] = 990;
    d.v[SRV_BLKS_READ] = 10;
    assert_true(srv_cache_hit_ratio(&d) == 0.99);
    d.v[SRV_BLKS_READ] = -1;
    assert_true(srv_cache_hit_ratio(&d) < 0);
}

static void test_stat_names(void **state)
{
    (void)state;
    /* Every counter has a distinct name; the result file's documented ones are there. */
    for (int i = 0; i < SRV_N_STATS; i++) {
        assert_non_null(srv_stat_names[i]);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(srv_stat_names[i], srv_stat_names[j]);
    }
    assert_string_equal(srv_stat_names[SRV_XACT_COMMIT], "xact_commit");
    assert_string_equal(srv_stat_names[SRV_WAL_BYTES], "wal_bytes");
    assert_string_equal(srv_stat_names[SRV_CHECKPOINTS], "checkpoints");
}

static void test_addr_is_local(void **state)
{
    (void)state;
    const char *own[] = {"10.1.2.3", "fe80::1", "192.168.0.7"};
    assert_true(srv_addr_is_local("127.0.0.1", NULL, 0));
    assert_true(srv_addr_is_local("127.10.0.1", NULL, 0));
    assert_true(srv_addr_is_local("::1", NULL, 0));
    assert_true(srv_addr_is_local("::ffff:127.0.0.1", NULL, 0));
    assert_true(srv_addr_is_local("10.1.2.3", own, 3));
    assert_true(srv_addr_is_local("192.168.0.7", own, 3));
    assert_true(srv_addr_is_local("fe80:0::1", own, 3)); /* same address, other spelling */
    assert_false(srv_addr_is_local("10.1.2.4", own, 3));
    assert_false(srv_addr_is_local("::2", own, 3));
    assert_false(srv_addr_is_local("db.example.com", own, 3));
    assert_false(srv_addr_is_local("", own, 3));
}

static void test_cpuinfo_model(void **state)
{
    (void)state;
    char *m = srv_cpuinfo_model("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
                                "model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6230 CPU  \n"
                                "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6230 CPU\n");
    assert_string_equal(m, "Intel(R) Xeon(R) Gold 6230 CPU");
    free(m);
    m = srv_cpuinfo_model("processor\t: 0\nBogoMIPS\t: 108.00\nHardware\t: BCM2835\n");
    assert_string_equal(m, "BCM2835");
    free(m);
    m = srv_cpuinfo_model("processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n");
    assert_string_equal(m, "POWER9 (raw), altivec supported");
    free(m);
    assert_null(srv_cpuinfo_model("processor\t: 0\nCPU implementer\t: 0x41\ncpu MHz : 3000\n"));
    assert_null(srv_cpuinfo_model(""));
    assert_null(srv_cpuinfo_model("model name\t:\n"));
}

static void test_os_release_name(void **state)
{
    (void)state;
    char *n = srv_os_release_name("NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 "
                                  "(bookworm)\"\nID=debian\n");
    assert_string_equal(n, "Debian GNU/Linux 12 (bookworm)");
    free(n);
    n = srv_os_release_name("ID=alpine\nPRETTY_NAME=Alpine\n");
    assert_string_equal(n, "Alpine");
    free(n);
    n = srv_os_release_name("PRETTY_NAME='Fedora Linux 40'");
    assert_string_equal(n, "Fedora Linux 40");
    free(n);
    assert_null(srv_os_release_name("NAME=x\n"));
    assert_null(srv_os_release_name("PRETTY_NAME=\"\"\n"));
}

/* The live readers give something on Linux, and free cleanly. */
static void test_machine_read(void **state)
{
    (void)state;
    struct srv_machine m;
    srv_machine_read(&m);
    assert_non_null(m.kernel);
    srv_machine_free(&m);
    assert_null(m.kernel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_delta),   cmocka_unit_test(test_cache_hit_ratio),
        cmocka_unit_test(test_stat_names),    cmocka_unit_test(test_addr_is_local),
        cmocka_unit_test(test_cpuinfo_model), cmocka_unit_test(test_os_release_name),
        cmocka_unit_test(test_machine_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
