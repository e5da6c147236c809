#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/args.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static void test_int_accepts(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t lo, hi, want;
    } ok[] = {
        {"10", 1, 100, 10},
        {"1", 1, 100, 1},
        {"100", 1, 100, 100},
        {"0", 0, 5, 0},
        {"-5", -10, 10, -5},
        {"007", 0, 10, 7},
        {"9223372036854775807", 0, INT64_MAX, INT64_MAX},
        {"-9223372036854775808", INT64_MIN, 0, INT64_MIN},
    };
    for (size_t i = 0; i < N_OF(ok); i++) {
        struct err e = {0};
        int64_t v = -42;
        if (num_int("-c", ok[i].text, ok[i].lo, ok[i].hi, &v, &e) != 0)
            fail_msg("'%s' rejected: %s", ok[i].text, e.msg);
        assert_true(v == ok[i].want);
        assert_int_equal(e.code, ERR_NONE);
    }
}

static void test_int_rejects(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int64_t lo, hi;
    } bad[] = {
        {"-1", 0, 100},
        {"0", 1, 100},
        {"101", 1, 100},
        {"99999999999999999999", 0, INT64_MAX},
        {"-99999999999999999999", INT64_MIN, 0},
        {"9223372036854775808", 0, INT64_MAX},
        {"10x", 1, 100},
        {"1.5", 1, 100},
        {"1e3", 1, 10000},
        {"0x10", 0, 100},
        {"", 0, 100},
        {" 10", 1, 100},
        {"\t10", 1, 100},
        {"10 ", 1, 100},
        {"abc", 0, 100},
        {"-", 0, 100},
    };
    for (size_t i = 0; i < N_OF(bad); i++) {
        struct err e = {0};
        int64_t v = -42;
        if (num_int("--jobs", bad[i].text, bad[i].lo, bad[i].hi, &v, &e) == 0)
            fail_msg("'%s' accepted as %lld", bad[i].text, (long long)v);
        assert_int_equal(e.code, ERR_INPUT);
        assert_int_equal(v, -42); /* untouched on error */
        if (!strstr(e.msg, "--jobs"))
            fail_msg("message does not name the option: %s", e.msg);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "'%s'", bad[i].text);
        if (!strstr(e.msg, quoted))
            fail_msg("message does not quote the value %s: %s", quoted, e.msg);
    }
}

struct mask_case {
    const char *in, *want;
};

static void check_mask(const struct mask_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *got = args_mask_password(c[i].in);
        assert_non_null(got);
        if (strcmp(got, c[i].want) != 0)
            fail_msg("mask(\"%s\") = \"%s\", want \"%s\"", c[i].in, got, c[i].want);
        free(got);
    }
}

static void test_mask_conninfo(void **state)
{
    (void)state;
    static const struct mask_case cases[] = {
        {"password=secret", "password=***"},
        {"host=db password=secret dbname=x", "host=db password=*** dbname=x"},
        {"host=db password = secret dbname=x", "host=db password = *** dbname=x"},
        {"host=db password  =secret", "host=db password  =***"},
        {"host=db password='a b' dbname=x", "host=db password=*** dbname=x"},
        {"password='it\\'s secret' user=u", "password=*** user=u"},
        {"password='' user=u", "password=*** user=u"},
        {"password=secret password=secret2", "password=*** password=***"},
        {"user=password password=secret", "user=password password=***"},
        {"--password=secret", "--password=***"},
    };
    check_mask(cases, N_OF(cases));
}

static void test_mask_uri(void **state)
{
    (void)state;
    static const struct mask_case cases[] = {
        {"postgresql://user:secret@host/db", "postgresql://user:***@host/db"},
        {"postgresql://user:secret@host:5432/db", "postgresql://user:***@host:5432/db"},
        {"postgres://user:secret@host/db", "postgres://user:***@host/db"},
        {"postgresql://user:secret@host", "postgresql://user:***@host"},
        {"postgresql://:secret@host/db", "postgresql://:***@host/db"},
        {"postgresql://user:pa%40ss@host/db", "postgresql://user:***@host/db"},
        {"postgresql://user@host/db?password=secret", "postgresql://user@host/db?password=***"},
        {"postgresql://user@host/db?password=secret&sslmode=require",
         "postgresql://user@host/db?password=***&sslmode=require"},
        {"postgresql://host/db?sslmode=require&password=secret",
         "postgresql://host/db?sslmode=require&password=***"},
        {"postgresql://user:secret@host/db?password=secret2",
         "postgresql://user:***@host/db?password=***"},
    };
    check_mask(cases, N_OF(cases));
}

static void test_mask_leaves_others(void **state)
{
    (void)state;
    /* Keys that merely end (or start) with "password" are not the keyword; a port after a
     * host colon is not a password; nothing at all stays nothing. */
    static const char *const same[] = {
        "",
        "host=db user=u dbname=x",
        "mypassword=1",
        "host=x mypassword=1",
        "x_password=1",
        "password_file=/x",
        "passwordx=1",
        "dbname=password",
        "password",
        "postgresql://host:5432/db",
        "postgresql://user@host:5432/db",
        "postgresql://host/db?application_name=a:b@c",
        "mysql://user:secret@host/db",
        "-c",
        "tpcb-like",
    };
    for (size_t i = 0; i < N_OF(same); i++) {
        char *got = args_mask_password(same[i]);
        if (strcmp(got, same[i]) != 0)
            fail_msg("mask(\"%s\") changed it to \"%s\"", same[i], got);
        free(got);
    }
    static const struct mask_case mixed[] = {
        {"host=db mypassword=1 password=secret", "host=db mypassword=1 password=***"},
        {"mypassword=1 password=secret", "mypassword=1 password=***"},
    };
    check_mask(mixed, N_OF(mixed));
}

static void test_mask_value_delimiters(void **state)
{
    (void)state;
    static const struct mask_case cases[] = {
        {"host=db password=a&b", "host=db password=***"},
        {"host=db password=a&b port=5", "host=db password=*** port=5"},
        {"host=db password\t=secret", "host=db password\t=***"},
        {"host=db\tpassword=secret\tport=5", "host=db\tpassword=***\tport=5"},
    };
    check_mask(cases, N_OF(cases));
}

static void test_masked_command_exact(void **state)
{
    (void)state;
    char *a1[] = {"pgarena", "run", "-c", "4", "host=db password=secret"};
    char *a2[] = {"pgarena", "run", "postgresql://u:secret@h/db", "-T", "10"};
    char *a3[] = {"pgarena", "run", "--label", "my run", "-w", "tpcb-like"};
    char *a4[] = {"pgarena", "run", "--label", "it's"};
    char *a5[] = {"pgarena", "run", "--label", ""};
    char *a6[] = {"pgarena"};
    const struct {
        char **argv;
        int argc;
        const char *want;
    } cases[] = {
        {a1, 5, "pgarena run -c 4 'host=db password=***'"},
        {a2, 5, "pgarena run postgresql://u:***@h/db -T 10"},
        {a3, 6, "pgarena run --label 'my run' -w tpcb-like"},
        {a4, 4, "pgarena run --label 'it'\\''s'"},
        {a5, 4, "pgarena run --label ''"},
        {a6, 1, "pgarena"},
        {a6, 0, ""},
    };
    for (size_t i = 0; i < N_OF(cases); i++) {
        char *got = args_masked_command(cases[i].argc, cases[i].argv);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, got, cases[i].want);
        free(got);
    }
}

static void assert_no_secret(int argc, char **argv)
{
    char *got = args_masked_command(argc, argv);
    if (strstr(got, "secret"))
        fail_msg("password shown: %s", got);
    /* Every argument is still there (masked ones as "***"). */
    assert_non_null(strstr(got, "pgarena"));
    assert_non_null(strstr(got, "***"));
    free(got);
}

static void test_masked_command_hides_passwords(void **state)
{
    (void)state;
    char *v1[] = {"pgarena", "run", "password=secret"};
    char *v2[] = {"pgarena", "run", "host=db password='my secret' dbname=x"};
    char *v3[] = {"pgarena", "run", "host=db password = secret"};
    char *v4[] = {"pgarena", "run", "postgresql://u:secret@h:5432/db"};
    char *v5[] = {"pgarena", "run", "postgres://u@h/db?password=secret"};
    char *v6[] = {"pgarena", "init", "-s", "10", "--local", "dbname=x password=secret"};
    char *v7[] = {"pgarena", "run", "--password=secret"};
    char *v8[] = {"pgarena", "run", "password='it\\'s secret'"};
    struct {
        char **argv;
        int argc;
    } cases[] = {{v1, 3}, {v2, 3}, {v3, 3}, {v4, 3}, {v5, 3}, {v6, 6}, {v7, 3}, {v8, 3}};
    for (size_t i = 0; i < N_OF(cases); i++)
        assert_no_secret(cases[i].argc, cases[i].argv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_accepts),
        cmocka_unit_test(test_int_rejects),
        cmocka_unit_test(test_mask_conninfo),
        cmocka_unit_test(test_mask_uri),
        cmocka_unit_test(test_mask_leaves_others),
        cmocka_unit_test(test_mask_value_delimiters),
        cmocka_unit_test(test_masked_command_exact),
        cmocka_unit_test(test_masked_command_hides_passwords),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
