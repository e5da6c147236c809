#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "base/buf.h"
#include "capture/normalize.h"

/* Statement → class, as pg_stat_statements shows the class (PostgreSQL 18 for the lists). */
struct norm_case {
    const char *sql, *want;
};

/* clang-format off */
static const struct norm_case cases[] = {
    {"SELECT abalance FROM pgbench_accounts WHERE aid = 4711;",
     "SELECT abalance FROM pgbench_accounts WHERE aid = $1"},
    {"UPDATE pgbench_accounts SET abalance = abalance + -3021 WHERE aid = 17;",
     "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2"},
    {"INSERT INTO t VALUES (1, 'it''s', -2.5e3, E'a\\'b', 0x1F, .5)",
     "INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6)"},
    {"select a-1, a - 1, -1, f(-1), a*-1 from t", "select a-$1, a - $2, $3, f($4), a*$5 from t"},
    {"SELECT $$x'y$$ || $tag$ $$ $tag$ || 'z'", "SELECT $1 || $2 || $3"},
    {"SELECT * FROM t WHERE a = $1 AND b = 5", "SELECT * FROM t WHERE a = $1 AND b = $2"},
    {"SELECT * FROM t WHERE a = $2 AND b = 'x' LIMIT 10", "SELECT * FROM t WHERE a = $2 AND b = $3 LIMIT $4"},
    {"  SELECT\n\t1   -- a comment\n  , /* block /* nested */ */ 2 ;;  ", "SELECT $1 , $2"},
    {"SELECT \"Weird \"\"1\"\"\" FROM t1 WHERE x2 = date '2024-01-01'",
     "SELECT \"Weird \"\"1\"\"\" FROM t1 WHERE x2 = date $1"},
    {"SELECT '5'::int, b'101', X'ff', N'n', U&'d\\0061t'", "SELECT $1::int, $2, $3, $4, $5"},
    {"SELECT 1 WHERE a IN (1, 2, 3)", "SELECT $1 WHERE a IN ($2 /*, ... */)"},
    {"SELECT 1 WHERE a IN (7)", "SELECT $1 WHERE a IN ($2 /*, ... */)"},
    {"SELECT 1 WHERE a in ('x'::text, 'y'::character varying, -4, $1)",
     "SELECT $2 WHERE a in ($3 /*, ... */)"},
    {"SELECT 1 WHERE a = ANY(ARRAY[1,2,3]) AND b IN(4,5)",
     "SELECT $1 WHERE a = ANY(ARRAY[$2 /*, ... */]) AND b IN($3 /*, ... */)"},
    {"SELECT 1 WHERE a IN (SELECT b FROM u WHERE c = 2)",
     "SELECT $1 WHERE a IN (SELECT b FROM u WHERE c = $2)"},
    {"SELECT 1 WHERE a IN (b, 2)", "SELECT $1 WHERE a IN (b, $2)"},
    {"BEGIN", "BEGIN"},
    {"SELECT 'unterminated", "SELECT $1"},
    {"SELECT /* unterminated", "SELECT"},
    {"SELECT $", "SELECT $"},
    {"", ""},
};
/* clang-format on */

static void test_cases(void **state)
{
    (void)state;
    struct buf out;
    buf_init(&out);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        normalize_statement(cases[i].sql, strlen(cases[i].sql), &out);
        if (strcmp(out.data, cases[i].want) != 0)
            fail_msg("case %zu: %s\n got  %s\n want %s", i, cases[i].sql, out.data, cases[i].want);
    }
    buf_free(&out);
}

/* Every IN list length and every value is one class. */
static void test_in_lists_one_class(void **state)
{
    (void)state;
    struct buf one, out, sql;
    buf_init(&one);
    buf_init(&out);
    buf_init(&sql);
    normalize_statement("SELECT * FROM t WHERE id IN (1)", 31, &one);
    for (int n = 1; n <= 300; n += 37) {
        buf_reset(&sql);
        buf_puts(&sql, "SELECT * FROM t WHERE id IN (");
        for (int k = 0; k < n; k++)
            buf_printf(&sql, "%s%d", k ? ", " : "", k * 7 + n);
        buf_puts(&sql, ")");
        normalize_statement(sql.data, sql.len, &out);
        assert_string_equal(out.data, one.data);
    }
    buf_free(&one);
    buf_free(&out);
    buf_free(&sql);
}

/* Only the bytes given are read: a statement need not be NUL-terminated. */
static void test_length_bounds(void **state)
{
    (void)state;
    struct buf out;
    buf_init(&out);
    const char *sql = "SELECT 12345 FROM t";
    normalize_statement(sql, 9, &out); /* "SELECT 12" */
    assert_string_equal(out.data, "SELECT $1");
    /* Every prefix of a tricky statement normalises without reading past its end. */
    const char *tricky = "SELECT $a$x$a$, E'\\'', U&'x', \"q\"\"\", 1e+5, 0x, /* c */ -- d\n $3";
    for (size_t n = 0; n <= strlen(tricky); n++) {
        char *copy = test_malloc(n ? n : 1);
        memcpy(copy, tricky, n);
        normalize_statement(copy, n, &out);
        test_free(copy);
    }
    buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_in_lists_one_class),
        cmocka_unit_test(test_length_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
