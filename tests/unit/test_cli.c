#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* cli_parse_only on a command line given as words separated by single spaces; returns its
 * result and fills e. */
static int parse_line(const char *line, struct err *e)
{
    char *copy = strdup(line), *argv[64];
    int argc = 0;
    for (char *w = strtok(copy, " "); w && argc < 63; w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    int rc = cli_parse_only(argc, argv, e);
    free(copy);
    return rc;
}

static void test_accepts(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "run",
        "run -c 4 -j 2 -T 5 -M prepared -o /tmp/x.json bench",
        "run -b tpcb@3 -b select@7 -D x=1",
        "run -w oltp-read-write --tables 2 --table-size 100",
        "run -f missing.sql", /* files are not read */
        "run postgresql://u:secret@localhost/db?password=x -t 10",
        "init -s 10 --partitions 4 --partition-method hash",
        "init -w oltp-read-only --tables 4",
        "show r.json --intervals",
        "compare a.json b.json c.json --json --fail-if-worse --seed 1 --margin 5",
        "report a.json b.json -o r.html --title T",
        "local start",
        "local stop --dir /tmp/d",
        "local start --bin /usr/lib/postgresql/15/bin --dir /tmp/d",
    };
    for (size_t i = 0; i < N_OF(ok); i++) {
        struct err e = {0};
        if (parse_line(ok[i], &e) != 0)
            fail_msg("'%s' refused: %s", ok[i], e.msg);
    }
}

static void test_refuses(void **state)
{
    (void)state;
    static const struct {
        const char *line, *msg;
    } bad[] = {
        {"run -T 10 -t 5", "-T and -t cannot be used together"},
        {"run -c 0", "invalid value for -c"},
        {"run -w nope", "unknown workload 'nope'"},
        {"run -w tpcb-like -b select-only", "-w cannot be combined"},
        {"run -s 2 -w oltp-read-only", "-s"},
        {"run --nope", "unknown option '--nope'"},
        {"run -c", "option -c needs a value"},
        {"run a b", "too many arguments"},
        {"run -o /nonexistent-dir/x.json", "cannot write the result file"},
        /* a finding of the command-line fuzz target: this crashed (NULL script) */
        {"run -b tpcb@3 -b oltp-write-o 42", "one script per table"},
        {"run -b oltp-read-only", "one script per table"},
        {"init -w oltp-read-write -s 2", "uses sysbench's tables"},
        {"init --partition-method list", "--partition-method"},
        {"init -w nope", "unknown workload"},
        {"show", "expected one result file"},
        {"show a.json b.json", "expected one result file"},
        {"local status", "--dir DIR is required"},
        {"local restart --dir /tmp/d", "unknown action 'restart'"},
        {"local status --bin /b --dir /tmp/d", "--bin is for start only"},
        {"compare a.json", "expected at least two result files"},
        {"compare --margin 80 a.json b.json", "invalid value for --margin"},
        {"report a.json", "-o REPORT.html is required"},
        {"report -o r.html", "expected one result file or more"},
        {"bench a.json", "unknown command 'bench'"},
    };
    for (size_t i = 0; i < N_OF(bad); i++) {
        struct err e = {0};
        if (parse_line(bad[i].line, &e) == 0)
            fail_msg("'%s' accepted", bad[i].line);
        assert_int_equal(e.code, ERR_INPUT);
        if (!strstr(e.msg, bad[i].msg))
            fail_msg("'%s': message lacks '%s': %s", bad[i].line, bad[i].msg, e.msg);
    }
}

/* getopt keeps state between parses: a parse that stops inside a group of short options must
 * not leak into the next one. */
static void test_parses_are_independent(void **state)
{
    (void)state;
    struct err e = {0};
    assert_int_equal(parse_line("run -Cqx -c 2", &e), -1);
    assert_non_null(strstr(e.msg, "unknown option '-x'"));
    assert_int_equal(parse_line("run -c 2 -T 3", &e), 0);
    assert_int_equal(parse_line("init -qj", &e), -1);
    assert_int_equal(parse_line("init -j 2 -q", &e), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts),
        cmocka_unit_test(test_refuses),
        cmocka_unit_test(test_parses_are_independent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
