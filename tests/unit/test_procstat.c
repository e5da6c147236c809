#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/procstat.h"
#include "server/statements.h"

/* The pure parts of sampling: /proc's text (CPU, disks, a thread's times) and the
 * pg_stat_statements delta. */

static const char stat_text[] = "cpu  1000 50 300 8000 100 10 40 0 0 0\n"
                                "cpu0 500 25 150 4000 50 5 20 0 0 0\n"
                                "intr 12345\n";

static void test_parse_cpu(void **state)
{
    (void)state;
    struct proc_cpu c;
    assert_int_equal(proc_parse_cpu(stat_text, &c), 0);
    assert_int_equal(c.user, 1000);
    assert_int_equal(c.nice, 50);
    assert_int_equal(c.system, 300);
    assert_int_equal(c.idle, 8000);
    assert_int_equal(c.iowait, 100);
    assert_int_equal(c.softirq, 40);
    /* The "cpu " line need not come first; "cpu0" alone is not it. */
    assert_int_equal(proc_parse_cpu("intr 1\ncpu  1 2 3 4\n", &c), 0);
    assert_int_equal(c.idle, 4);
    assert_int_equal(c.iowait, 0);
    assert_int_equal(proc_parse_cpu("cpu0 1 2 3 4 5\n", &c), -1);
    assert_int_equal(proc_parse_cpu("cpu  1 2\n", &c), -1);
    assert_int_equal(proc_parse_cpu("", &c), -1);
}

static void test_cpu_share(void **state)
{
    (void)state;
    struct proc_cpu a = {1000, 0, 300, 8000, 100, 0, 0, 0};
    struct proc_cpu b = {1300, 100, 400, 8400, 200, 50, 50, 100};
    struct proc_cpu_share s;
    proc_cpu_share(&a, &b, &s);
    /* 400 user (with nice) + 200 system (with irq, softirq) + 100 iowait + 400 idle + 100 steal
     * = 1200 */
    assert_float_equal(s.user, 400.0 / 1200, 1e-9);
    assert_float_equal(s.system, 200.0 / 1200, 1e-9);
    assert_float_equal(s.iowait, 100.0 / 1200, 1e-9);
    assert_float_equal(s.idle, 400.0 / 1200, 1e-9);
    assert_float_equal(s.steal, 100.0 / 1200, 1e-9);
    proc_cpu_share(&a, &a, &s); /* no time passed */
    assert_float_equal(s.user + s.system + s.iowait + s.idle, 0, 0);
    proc_cpu_share(&b, &a, &s); /* counters went back (a CPU went offline): nothing grew */
    assert_float_equal(s.idle, 0, 0);
}

static const char diskstats[] =
    "   7       0 loop0 5 0 80 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    " 254       0 vda 542489 24732 1000 763124 2238496 407417 3000 1543444 0 458796 2696677\n"
    " 254       1 vda1 100 0 999 0 10 0 2999 0 0 0 0\n"
    " 259       0 nvme0n1 1 0 10 0 1 0 20 0 0 0 0 0 0 0 0 0 0\n";

static void test_parse_diskstats(void **state)
{
    (void)state;
    struct proc_disk d;
    const char *const disks[] = {"vda", "nvme0n1"};
    assert_int_equal(proc_parse_diskstats(diskstats, disks, 2, &d), 0);
    /* Whole disks only: vda1 is a partition of vda, loop0 is not listed. */
    assert_int_equal(d.read_bytes, (1000 + 10) * 512);
    assert_int_equal(d.write_bytes, (3000 + 20) * 512);
    assert_int_equal(proc_parse_diskstats(diskstats, disks, 0, &d), 0);
    assert_int_equal(d.read_bytes, 0);
    assert_int_equal(proc_parse_diskstats("254 0 vda 1 2\n", disks, 2, &d), -1);
    assert_int_equal(proc_parse_diskstats("", disks, 2, &d), 0);
}

static void test_physical_disk(void **state)
{
    (void)state;
    assert_true(proc_is_physical_disk("vda"));
    assert_true(proc_is_physical_disk("sda"));
    assert_true(proc_is_physical_disk("nvme0n1"));
    assert_false(proc_is_physical_disk("loop3"));
    assert_false(proc_is_physical_disk("zram0"));
    assert_false(proc_is_physical_disk("dm-0"));
    assert_false(proc_is_physical_disk("md127"));
    assert_false(proc_is_physical_disk("ram0"));
    assert_false(proc_is_physical_disk(""));
}

static void test_parse_task_stat(void **state)
{
    (void)state;
    uint64_t u = 0, s = 0;
    const char *line = "4242 (pgarena) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 3";
    assert_int_equal(proc_parse_task_stat(line, &u, &s), 0);
    assert_int_equal(u, 1234);
    assert_int_equal(s, 567);
    /* A command with spaces and parentheses: the fields count from the last ')'. */
    line = "7 (a) b (c) R 1 7 7 0 -1 0 0 0 0 0 11 22 0 0";
    assert_int_equal(proc_parse_task_stat(line, &u, &s), 0);
    assert_int_equal(u, 11);
    assert_int_equal(s, 22);
    assert_int_equal(proc_parse_task_stat("7 (x) R 1 2", &u, &s), -1);
    assert_int_equal(proc_parse_task_stat("no parenthesis", &u, &s), -1);
}

/* This process's threads: the reader finds at least this one, and a busy loop shows. */
static void test_tasks_max_core(void **state)
{
    (void)state;
    struct proc_tasks a = {0}, b = {0};
    int tid[2] = {1, 2};
    uint64_t t0[2] = {100, 100}, t1[2] = {150, 180};
    a = (struct proc_tasks){2, tid, t0};
    b = (struct proc_tasks){2, tid, t1};
    long hz = sysconf(_SC_CLK_TCK);
    /* Thread 2 used 80 ticks in one second. */
    assert_float_equal(proc_tasks_max_core(&a, &b, 1.0), 80.0 / (double)hz, 1e-9);
    assert_float_equal(proc_tasks_max_core(&a, &b, 0), 0, 0);
    struct proc_tasks live;
    assert_int_equal(proc_read_tasks(&live), 0);
    assert_true(live.n >= 1);
    proc_tasks_free(&live);
    assert_int_equal(live.n, 0);
}

static struct srv_statement st(const char *key, const char *query, uint64_t calls, uint64_t rows,
                               double total_ms)
{
    return (struct srv_statement){(char *)key, (char *)query, calls, rows, total_ms};
}

static void test_statements_delta(void **state)
{
    (void)state;
    /* Sorted by key, as srv_statements_read leaves them. */
    struct srv_statement b[] = {st("10/1/t", "A", 10, 10, 100), st("10/2/t", "B", 5, 0, 50),
                                st("10/3/t", "C", 7, 7, 70)};
    struct srv_statement a[] = {st("10/1/t", "A", 30, 30, 130), st("10/2/t", "B", 5, 0, 50),
                                st("10/3/t", "C", 2, 2, 900), st("10/4/t", "D", 4, 8, 40)};
    struct srv_statements before = {1, "", 3, b}, after = {1, "", 4, a};
    struct srv_statement *d;
    size_t n = srv_statements_delta(&before, &after, 10, &d);
    /* B was not called in between; C's counters went back (a reset): it counts whole. */
    assert_int_equal(n, 3);
    assert_string_equal(d[0].query, "C");
    assert_float_equal(d[0].total_ms, 900, 1e-9);
    assert_int_equal(d[0].calls, 2);
    assert_string_equal(d[1].query, "D");
    assert_int_equal(d[1].rows, 8);
    assert_string_equal(d[2].query, "A");
    assert_int_equal(d[2].calls, 20);
    assert_int_equal(d[2].rows, 20);
    assert_float_equal(d[2].total_ms, 30, 1e-9);
    srv_statements_delta_free(d, n);
    n = srv_statements_delta(&before, &after, 1, &d); /* top 1 */
    assert_int_equal(n, 1);
    assert_string_equal(d[0].query, "C");
    srv_statements_delta_free(d, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_cpu),        cmocka_unit_test(test_cpu_share),
        cmocka_unit_test(test_parse_diskstats),  cmocka_unit_test(test_physical_disk),
        cmocka_unit_test(test_parse_task_stat),  cmocka_unit_test(test_tasks_max_core),
        cmocka_unit_test(test_statements_delta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
