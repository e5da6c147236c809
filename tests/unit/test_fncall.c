/* libpq's large-object FunctionCalls as statements: lowrite's binary descriptor and bytea,
 * lo_lseek64's int8, a NULL, lo_creat's OID response; other functions and text-format
 * arguments are not taken, a body cut short does not read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "capture/fncall.h"
#include "pgwire_fixture.h"

/* A FunctionCall body: oid, one format code (format), n args (len 0xffffffff: NULL). */
static void call(struct buf *b, uint32_t oid, int format, int n, const uint32_t *lens,
                 const char *const *vals)
{
    buf_reset(b);
    put32(b, oid);
    put16(b, 1);
    put16(b, (uint16_t)format);
    put16(b, (uint16_t)n);
    for (int i = 0; i < n; i++) {
        put32(b, lens[i]);
        if (lens[i] != 0xffffffffu)
            buf_append(b, vals[i], lens[i]);
    }
    put16(b, 1);
}

static void test_fncall(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b);
    struct fncall c;
    uint32_t lens[3] = {4, 3};
    const char *vals[3] = {"\0\0\0\2", "a\0\xff"};
    call(&b, 955, 1, 2, lens, vals); /* lowrite(2, 'a\0\xff') */
    assert_int_equal(fncall_parse((const uint8_t *)b.data, b.len, &c), 1);
    assert_string_equal(c.text.data, "SELECT pg_catalog.lowrite($1, $2)");
    assert_int_equal(c.n_params, 2);
    assert_string_equal(c.params[0], "2");
    assert_string_equal(c.params[1], "\\x6100ff");
    assert_int_equal(c.returns_oid, 0);
    fncall_free(&c);

    uint32_t l3[3] = {4, 8, 4};
    const char *v3[3] = {"\0\0\0\0", "\xff\xff\xff\xff\xff\xff\xff\xfe", "\0\0\0\1"};
    call(&b, 3170, 1, 3, l3, v3); /* lo_lseek64(0, -2, 1) */
    assert_int_equal(fncall_parse((const uint8_t *)b.data, b.len, &c), 1);
    assert_string_equal(c.text.data, "SELECT pg_catalog.lo_lseek64($1, $2, $3)");
    assert_string_equal(c.params[1], "-2");
    fncall_free(&c);

    uint32_t l1[1] = {0xffffffffu};
    call(&b, 957, 1, 1, l1, NULL); /* lo_creat(NULL) */
    assert_int_equal(fncall_parse((const uint8_t *)b.data, b.len, &c), 1);
    assert_null(c.params[0]);
    assert_int_equal(c.returns_oid, 1);
    fncall_free(&c);

    call(&b, 1247, 1, 2, lens, vals); /* not a large-object function */
    assert_int_equal(fncall_parse((const uint8_t *)b.data, b.len, &c), 0);
    fncall_free(&c);
    call(&b, 955, 0, 2, lens, vals); /* text format */
    assert_int_equal(fncall_parse((const uint8_t *)b.data, b.len, &c), 0);
    fncall_free(&c);
    call(&b, 955, 1, 2, lens, vals);
    assert_int_equal(fncall_parse((const uint8_t *)b.data, b.len - 4, &c), -1);
    fncall_free(&c);

    char oid[16];
    buf_reset(&b);
    put32(&b, 4);
    put32(&b, 4000000000u);
    assert_int_equal(fncall_oid_result((const uint8_t *)b.data, b.len, oid), 0);
    assert_string_equal(oid, "4000000000");
    assert_int_equal(fncall_oid_result((const uint8_t *)b.data, 6, oid), -1);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fncall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
