/* The open files a run keeps (bench_files_needed), counted from its plan: the threads, -l, the
 * sampler, the coordination and the capture, not a fixed allowance. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "bench/files.h"

static void test_plain_run(void **state)
{
    (void)state;
    struct bench_plan p;
    bench_plan_init(&p);
    p.clients = 100;
    p.threads = 2;
    struct bench_files f;
    bench_files_needed(&p, &f);
    assert_int_equal(f.clients, 100);
    assert_int_equal(f.threads, 4);
    assert_int_equal(f.logs, 0);
    assert_int_equal(f.sampler, 2);
    assert_int_equal(f.coordination, 0);
    assert_int_equal(f.capture, 1);
    assert_int_equal(f.besides, 4 + 2 + 1 + f.process);
    assert_int_equal(f.total, 100 + f.besides);
    assert_true(f.besides < 64); /* the fixed reserve it replaces */
}

static void test_everything_on(void **state)
{
    (void)state;
    struct bench_plan p;
    bench_plan_init(&p);
    p.clients = 10;
    p.threads = 8;
    p.log.on = 1;
    p.agents.count = 3;
    struct bench_files f, base;
    bench_files_needed(&p, &f);
    assert_int_equal(f.threads, 16);
    assert_int_equal(f.logs, 8);
    assert_int_equal(f.coordination, 1);
    /* Without sampling, its two go. */
    p.sampling.off = 1;
    bench_files_needed(&p, &base);
    assert_int_equal(base.sampler, 0);
    assert_int_equal(f.total - base.total, 2);
    /* Each thread costs two descriptors, three with -l. */
    p.threads = 9;
    struct bench_files more;
    bench_files_needed(&p, &more);
    assert_int_equal(more.total - base.total, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_run),
        cmocka_unit_test(test_everything_on),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
