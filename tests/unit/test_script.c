#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/rng.h"
#include "script/expr.h"
#include "script/script.h"
#include "workload/workload.h"
#include "workload/workload_int.h"

#define N_DRAWS 100000

/* Index of variable `name` without creating it; -1 when the set has no such variable. */
static int find_var(const struct script_set *s, const char *name)
{
    for (int i = 0; i < s->n_vars; i++)
        if (strcmp(s->var_names[i], name) == 0)
            return i;
    return -1;
}

/* Parse one script into a fresh set, failing the test on a syntax error. */
static void parse_ok(struct script_set *s, const char *text)
{
    struct err e = {0};
    script_set_init(s);
    if (script_set_add(s, "t.sql", text, 1, &e) != 0)
        fail_msg("unexpected parse error: %s", e.msg);
    assert_int_equal(s->n_scripts, 1);
}

static void assert_sql(const struct script_command *c, const char *params, int n_params)
{
    assert_int_equal(c->kind, CMD_SQL);
    assert_string_equal(c->sql_params, params);
    assert_int_equal(c->n_params, n_params);
}

static void assert_part(const struct script_command *c, int i, const char *text, int var)
{
    assert_true(i < c->n_parts);
    assert_string_equal(c->parts[i].text, text);
    assert_int_equal(c->parts[i].var, var);
}

/* A script saved by a Windows editor: a UTF-8 byte-order mark and CRLF line ends. */
static void test_bom_and_crlf(void **state)
{
    (void)state;
    struct script_set s;
    parse_ok(&s, "\xEF\xBB\xBF\\set x 1\r\nSELECT :x;\r\n");
    const struct script *sc = &s.scripts[0];
    assert_int_equal(sc->n_cmds, 2);
    assert_string_equal(sc->cmds[0].text, "\\set x 1");
    assert_int_equal(sc->cmds[0].var, find_var(&s, "x"));
    assert_sql(&sc->cmds[1], "SELECT $1;", 1);
    script_set_free(&s);
}

static void test_builtins_parse(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int n_set, n_sql;
    } want[] = {{"tpcb-like", 4, 7}, {"simple-update", 4, 5}, {"select-only", 1, 1}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const struct workload *w = workload_find(want[k].name);
        assert_non_null(w);
        assert_string_equal(w->name, want[k].name);
        struct script_set s;
        parse_ok(&s, w->script);
        const struct script *sc = &s.scripts[0];
        assert_int_equal(sc->n_cmds, want[k].n_set + want[k].n_sql);
        /* pgbench's scripts set their variables first, then run SQL. */
        for (int i = 0; i < sc->n_cmds; i++)
            assert_int_equal(sc->cmds[i].kind, i < want[k].n_set ? CMD_SET : CMD_SQL);
        assert_string_equal(s.var_names[SCRIPT_VAR_SCALE], "scale");
        assert_string_equal(s.var_names[SCRIPT_VAR_CLIENT_ID], "client_id");
        assert_int_equal(sc->cmds[0].var, find_var(&s, "aid"));
        assert_string_equal(sc->cmds[0].text, "\\set aid random(1, 100000 * :scale)");
        assert_int_equal(sc->cmds[0].line, 1);
        script_set_free(&s);
    }
    assert_null(workload_find("tpc"));
    assert_int_equal(workload_find("tpcc")->dataset, DATASET_TPCC);
    int n = 0;
    for (const struct workload *const *a = workload_all(); *a; a++, n++)
        assert_ptr_equal(workload_find((*a)->name), *a);
    assert_int_equal(n, 10); /* 3 of pgbench, 4 of sysbench (test_load.c), tpcc (test_tpcc.c), ch
                              * (test_ch.c), replay */
}

static void test_tpcb_like_commands(void **state)
{
    (void)state;
    struct script_set s;
    parse_ok(&s, workload_find("tpcb-like")->script);
    const struct script *sc = &s.scripts[0];
    int aid = find_var(&s, "aid"), bid = find_var(&s, "bid"), tid = find_var(&s, "tid");
    int delta = find_var(&s, "delta");
    assert_true(aid >= 0 && bid >= 0 && tid >= 0 && delta >= 0);
    assert_int_equal(sc->cmds[1].var, bid);
    assert_int_equal(sc->cmds[2].var, tid);
    assert_int_equal(sc->cmds[3].var, delta);

    assert_sql(&sc->cmds[4], "BEGIN;", 0);
    assert_int_equal(sc->cmds[4].line, 5);
    assert_int_equal(sc->cmds[4].n_parts, 1);
    assert_part(&sc->cmds[4], 0, "BEGIN;", -1);

    const struct script_command *upd = &sc->cmds[5];
    assert_sql(upd, "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2;", 2);
    assert_int_equal(upd->param_vars[0], delta);
    assert_int_equal(upd->param_vars[1], aid);
    assert_int_equal(upd->line, 6);
    assert_string_equal(
        upd->text, "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;");
    assert_int_equal(upd->n_parts, 3);
    assert_part(upd, 0, "UPDATE pgbench_accounts SET abalance = abalance + ", delta);
    assert_part(upd, 1, " WHERE aid = ", aid);
    assert_part(upd, 2, ";", -1);

    assert_sql(&sc->cmds[6], "SELECT abalance FROM pgbench_accounts WHERE aid = $1;", 1);
    assert_int_equal(sc->cmds[6].param_vars[0], aid);

    const struct script_command *ins = &sc->cmds[9];
    assert_sql(ins,
               "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, "
               "CURRENT_TIMESTAMP);",
               4);
    int order[] = {tid, bid, aid, delta};
    for (int i = 0; i < 4; i++)
        assert_int_equal(ins->param_vars[i], order[i]);
    assert_sql(&sc->cmds[10], "END;", 0);
    assert_int_equal(sc->cmds[10].line, 11);
    script_set_free(&s);
}

static void test_sql_variables(void **state)
{
    (void)state;
    struct script_set s;
    /* The same variable reused keeps its $n; `::` is a cast, not a variable. */
    parse_ok(&s, "SELECT :a, :b, :a + :b_2, :a::int, '1'::text, x::bigint;");
    const struct script_command *c = &s.scripts[0].cmds[0];
    assert_sql(c, "SELECT $1, $2, $1 + $3, $1::int, '1'::text, x::bigint;", 3);
    int a = find_var(&s, "a"), b = find_var(&s, "b"), b2 = find_var(&s, "b_2");
    assert_int_equal(c->param_vars[0], a);
    assert_int_equal(c->param_vars[1], b);
    assert_int_equal(c->param_vars[2], b2);
    assert_int_equal(find_var(&s, "int"), -1);
    assert_int_equal(find_var(&s, "text"), -1);
    assert_int_equal(find_var(&s, "bigint"), -1);
    assert_int_equal(c->n_parts, 6);
    assert_part(c, 0, "SELECT ", a);
    assert_part(c, 1, ", ", b);
    assert_part(c, 2, ", ", a);
    assert_part(c, 3, " + ", b2);
    assert_part(c, 4, ", ", a);
    assert_part(c, 5, "::int, '1'::text, x::bigint;", -1);
    script_set_free(&s);

    /* A variable as the very last thing, and variables shared across commands and \set. */
    parse_ok(&s, "\\set n 1\nSELECT :n;\nSELECT 1 + :n");
    assert_int_equal(s.scripts[0].n_cmds, 3);
    int n = find_var(&s, "n");
    assert_int_equal(s.scripts[0].cmds[0].var, n);
    assert_int_equal(s.scripts[0].cmds[2].param_vars[0], n);
    assert_sql(&s.scripts[0].cmds[2], "SELECT 1 + $1", 1);
    assert_part(&s.scripts[0].cmds[2], 0, "SELECT 1 + ", n);
    assert_part(&s.scripts[0].cmds[2], 1, "", -1);
    script_set_free(&s);
}

static void test_array_slice_is_not_variable(void **state)
{
    (void)state;
    struct script_set s;
    parse_ok(&s, "SELECT (ARRAY[1,2,3])[1:2];");
    assert_sql(&s.scripts[0].cmds[0], "SELECT (ARRAY[1,2,3])[1:2];", 0);
    assert_int_equal(find_var(&s, "2"), -1);
    script_set_free(&s);
}

static void test_sql_splitting(void **state)
{
    (void)state;
    struct script_set s;
    parse_ok(&s, "SELECT 1; SELECT 2;SELECT 3;\n"
                 "SELECT 4,\n"
                 "  5\n"
                 "  ;\n"
                 "\n"
                 "SELECT 'a;b', \"c;d\", 'it''s; fine';\n"
                 "  SELECT 6\n");
    const struct script *sc = &s.scripts[0];
    static const struct {
        const char *text;
        int line;
    } want[] = {{"SELECT 1;", 1},
                {"SELECT 2;", 1},
                {"SELECT 3;", 1},
                {"SELECT 4,\n  5\n  ;", 2},
                {"SELECT 'a;b', \"c;d\", 'it''s; fine';", 6},
                {"SELECT 6", 7}};
    assert_int_equal(sc->n_cmds, 6);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(sc->cmds[i].kind, CMD_SQL);
        assert_string_equal(sc->cmds[i].text, want[i].text);
        assert_int_equal(sc->cmds[i].line, want[i].line);
    }
    script_set_free(&s);
}

static void test_comments(void **state)
{
    (void)state;
    struct script_set s;
    parse_ok(&s, "-- header; with a semicolon\n"
                 "\\set x 1\n"
                 "   -- indented comment\n"
                 "SELECT 1; -- trailing; comment\n"
                 "SELECT 2 -- not the end;\n"
                 "  + 3;\n"
                 "-- last line, no newline");
    const struct script *sc = &s.scripts[0];
    assert_int_equal(sc->n_cmds, 3);
    assert_int_equal(sc->cmds[0].kind, CMD_SET);
    assert_int_equal(sc->cmds[0].line, 2);
    assert_string_equal(sc->cmds[1].text, "SELECT 1;");
    assert_int_equal(sc->cmds[1].line, 4);
    assert_string_equal(sc->cmds[2].text, "SELECT 2 -- not the end;\n  + 3;");
    assert_int_equal(sc->cmds[2].line, 5);
    script_set_free(&s);
}

static void test_meta_ends_unterminated_sql(void **state)
{
    (void)state;
    struct script_set s;
    parse_ok(&s, "SELECT 1\n\\set x 1\n");
    assert_int_equal(s.scripts[0].n_cmds, 2);
    assert_string_equal(s.scripts[0].cmds[0].text, "SELECT 1");
    assert_int_equal(s.scripts[0].cmds[1].kind, CMD_SET);
    assert_int_equal(s.scripts[0].cmds[1].line, 2);
    script_set_free(&s);
}

/* \set: evaluate and store, as the engine does. */
static int script_exec_set(const struct script_set *s, const struct script_command *c,
                           struct script_vars *v, struct rng *r, char *msg, size_t msg_size)
{
    struct value val;
    if (script_eval(s, c, v, r, &val, msg, msg_size) < 0)
        return -1;
    script_vars_set_value(v, c->var, val);
    return 0;
}

/* Evaluate `\set r EXPR` once with scale = 5 and x = -7 set. */
static int eval(const char *expr, struct rng *r, int64_t *out, char *msg, size_t msg_size)
{
    char text[256];
    snprintf(text, sizeof text, "\\set x -7\n\\set r %s\n", expr);
    struct script_set s;
    parse_ok(&s, text);
    struct script_vars v;
    script_vars_init(&v, &s);
    script_vars_set(&v, SCRIPT_VAR_SCALE, 5);
    msg[0] = '\0';
    int rc = script_exec_set(&s, &s.scripts[0].cmds[0], &v, r, msg, msg_size);
    assert_int_equal(rc, 0);
    rc = script_exec_set(&s, &s.scripts[0].cmds[1], &v, r, msg, msg_size);
    int rv = find_var(&s, "r");
    if (rc == 0) {
        char buf[32];
        assert_non_null(script_var_sql(&v, rv, buf, sizeof buf));
        *out = strtoll(buf, NULL, 10);
        assert_true(*out == v.slot[rv].value.u.i);
    } else {
        assert_int_equal(v.slot[rv].state, VAR_UNSET); /* a failed \set leaves it unset */
    }
    script_vars_free(&v);
    script_set_free(&s);
    return rc;
}

static void test_eval_arithmetic(void **state)
{
    (void)state;
    static const struct {
        const char *expr;
        int64_t want;
    } cases[] = {
        {"1 + 2 * 3", 7},
        {"(1 + 2) * 3", 9},
        {"10 - 2 - 3", 5},
        {"100 / 10 / 5", 2},
        {"7 / 2", 3},
        {"-7 / 2", -3},
        {"7 % 3", 1},
        {"-7 % 3", -1},
        {"7 % -3", 1},
        {"-3 - -4", 1},
        {"- (2 + 3) * 4", -20},
        {"--5", 5},
        {"+4", 4},
        {":scale * 100000", 500000},
        {":x * :x - :scale", 44},
        {"-:x", 7},
        {"((((1))))", 1},
        {"9223372036854775807", INT64_MAX},
        {"-9223372036854775807 - 1", INT64_MIN},
        {"(-9223372036854775807 - 1) % -1", 0},
        {"9223372036854775807 / -1", -INT64_MAX},
        {"random(7, 7)", 7},
        {"random(1, 1 * :scale) * 0", 0},
        /* CASE takes the truth of numbers as pgbench does: zero is false, null is false */
        {"CASE WHEN 1 THEN 10 ELSE 20 END", 10},
        {"CASE WHEN 1.0 THEN 10 ELSE 20 END", 10},
        {"CASE WHEN 0 THEN 10 ELSE 20 END", 20},
        {"CASE WHEN 0.0 THEN 10 WHEN -3 THEN 30 ELSE 20 END", 30},
        {"CASE WHEN NULL THEN 10 ELSE 20 END", 20},
        {"CASE WHEN :x THEN 10 END", 10},
        {"least(16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)", 1}, /* 16 arguments */
    };
    struct rng r;
    rng_seed(&r, 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = 0;
        char msg[256];
        if (eval(cases[i].expr, &r, &got, msg, sizeof msg) != 0)
            fail_msg("%s: unexpected error: %s", cases[i].expr, msg);
        if (got != cases[i].want)
            fail_msg("%s: got %lld, want %lld", cases[i].expr, (long long)got,
                     (long long)cases[i].want);
    }
}

static void test_eval_errors(void **state)
{
    (void)state;
    static const struct {
        const char *expr;
        const char *msg_has;
    } cases[] = {
        {"1 / 0", "division by zero"},
        {"5 % (3 - 3)", "division by zero"},
        {"9223372036854775807 + 1", "out of range"},
        {"-9223372036854775807 - 2", "out of range"},
        {"4611686018427387904 * 2", "out of range"},
        {"-(-9223372036854775807 - 1)", "out of range"},
        {"(-9223372036854775807 - 1) / -1", "out of range"},
        {":nosuchvar + 1", "nosuchvar"},
        {"random(1, :undefined_hi)", "undefined_hi"},
        {"random(5, 1)", "random"},
        {"1 AND TRUE", "cannot coerce int to boolean"}, /* AND, OR, NOT stay strict */
        {"NOT 1.5", "cannot coerce double to boolean"},
    };
    struct rng r;
    rng_seed(&r, 2);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = 0;
        char msg[256];
        if (eval(cases[i].expr, &r, &got, msg, sizeof msg) == 0)
            fail_msg("%s: evaluated to %lld, want an error", cases[i].expr, (long long)got);
        if (!strstr(msg, cases[i].msg_has))
            fail_msg("%s: message '%s' lacks '%s'", cases[i].expr, msg, cases[i].msg_has);
    }
}

/* Draw `\set r random(lo, hi)` N_DRAWS times; returns the mean, checks the bounds. */
static double draw_mean(const char *lo, const char *hi, int64_t lo_v, int64_t hi_v, uint64_t seed,
                        int64_t *first)
{
    char text[128];
    snprintf(text, sizeof text, "\\set r random(%s, %s)", lo, hi);
    struct script_set s;
    parse_ok(&s, text);
    struct script_vars v;
    script_vars_init(&v, &s);
    script_vars_set(&v, SCRIPT_VAR_SCALE, 3);
    struct rng r;
    rng_seed(&r, seed);
    char msg[128];
    int rv = s.scripts[0].cmds[0].var;
    double sum = 0;
    int64_t min = INT64_MAX, max = INT64_MIN;
    for (int i = 0; i < N_DRAWS; i++) {
        assert_int_equal(script_exec_set(&s, &s.scripts[0].cmds[0], &v, &r, msg, sizeof msg), 0);
        int64_t x = v.slot[rv].value.u.i;
        if (i == 0)
            *first = x;
        min = x < min ? x : min;
        max = x > max ? x : max;
        sum += (double)x;
    }
    assert_true(min >= lo_v);
    assert_true(max <= hi_v);
    if ((uint64_t)hi_v - (uint64_t)lo_v < 100) { /* a small range is covered end to end */
        assert_int_equal(min, lo_v);
        assert_int_equal(max, hi_v);
    }
    script_vars_free(&v);
    script_set_free(&s);
    return sum / N_DRAWS;
}

static void test_random_bounds_and_mean(void **state)
{
    (void)state;
    int64_t first, again;
    /* Standard errors of the mean: 0.009, 9.1 and 273; the tolerances are above 5 of them. */
    double m = draw_mean("1", "10", 1, 10, 42, &first);
    assert_true(m > 5.45 && m < 5.55);
    m = draw_mean("-5000", "5000", -5000, 5000, 42, &first);
    assert_true(m > -50 && m < 50);
    m = draw_mean("1", "100000 * :scale", 1, 300000, 7, &first);
    assert_true(m > 150000.5 - 1500 && m < 150000.5 + 1500);
    /* The same seed draws the same values; another seed, others. */
    draw_mean("1", "100000 * :scale", 1, 300000, 7, &again);
    assert_int_equal(first, again);
    draw_mean("1", "100000 * :scale", 1, 300000, 8, &again);
    assert_int_not_equal(first, again);
    /* As in pgbench, a range wider than INT64_MAX is refused rather than drawn from. */
    struct rng r;
    rng_seed(&r, 1);
    char msg[128];
    int64_t out;
    assert_int_equal(
        eval("random(-9223372036854775807 - 1, 9223372036854775807)", &r, &out, msg, sizeof msg),
        -1);
    assert_non_null(strstr(msg, "random range is too large"));
}

/* Parse `text`, which must fail with "t.sql:LINE:COL: ..." at line, col in [col_lo, col_hi]. */
static void expect_parse_error(const char *text, int line, int col_lo, int col_hi)
{
    struct script_set s;
    struct err e = {0};
    script_set_init(&s);
    int n_vars = s.n_vars;
    if (script_set_add(&s, "t.sql", text, 1, &e) == 0)
        fail_msg("parsed, but should fail: %s", text);
    assert_int_equal(e.code, ERR_INPUT);
    int got_line = 0, got_col = 0, n = 0;
    if (sscanf(e.msg, "t.sql:%d:%d: %n", &got_line, &got_col, &n) != 2 || n == 0)
        fail_msg("message not 'NAME:LINE:COL: ': %s", e.msg);
    if (got_line != line || got_col < col_lo || got_col > col_hi)
        fail_msg("%s: want line %d, col %d..%d", e.msg, line, col_lo, col_hi);
    assert_true(strlen(e.msg + n) > 0);
    /* A failed add leaves the set as it was, and usable. */
    assert_int_equal(s.n_scripts, 0);
    assert_int_equal(s.total_weight, 0);
    assert_true(s.n_vars >= n_vars);
    assert_int_equal(script_set_add(&s, "ok.sql", "SELECT 1;", 2, &e), 0);
    assert_int_equal(s.n_scripts, 1);
    assert_int_equal(s.total_weight, 2);
    script_set_free(&s);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_parse_error("SELECT 1;\n\\set x 1\n\\foo bar\n", 3, 1, 2);
    expect_parse_error("SELECT 1;\n  \\foo\n", 2, 3, 4);
    expect_parse_error("\\setx 1\n", 1, 1, 2);
    expect_parse_error("\\set\n", 1, 2, 6);
    expect_parse_error("SELECT 1;\n\\set   \n", 2, 2, 9);
    expect_parse_error("\\set x 1 +\n", 1, 10, 11);
    expect_parse_error("\\set x 1 +", 1, 10, 11);
    expect_parse_error("\\set x\n", 1, 7, 8);
    expect_parse_error("\\set x (1 + 2\n", 1, 8, 14);
    expect_parse_error("\\set x 1 * * 2\n", 1, 10, 12);
    expect_parse_error("SELECT 1;\n\n\\set x foo(1)\n", 3, 8, 11);
    expect_parse_error("\\set x random(1)\n", 1, 8, 16);
    expect_parse_error("\\set x y + 1\n", 1, 8, 8);
    expect_parse_error("\\set x 1 2\n", 1, 10, 10);
    expect_parse_error("\\set x random(1, 2) )\n", 1, 21, 21);
    expect_parse_error("\\set x 99999999999999999999\n", 1, 8, 8);
    expect_parse_error("\\set d 1.0E309\n", 1, 8, 8); /* "double constant overflow" */
    expect_parse_error("\\set d .1E310\n", 1, 8, 8);
    expect_parse_error("\\set d 1e-400\n", 1, 8, 8);
    /* pgbench's limit: 16 function arguments */
    expect_parse_error(
        "\\set x greatest(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17)\n", 1, 70, 70);
    expect_parse_error("SELECT 1;\nSELECT 'abc;\nSELECT 2;\n", 2, 1, 8);
    expect_parse_error("SELECT \"abc;\n", 1, 1, 8);
}

/* COPY with the client's end is refused at its COPY; a server-side COPY is a statement. */
static void test_parse_copy(void **state)
{
    (void)state;
    expect_parse_error("COPY pgbench_accounts FROM stdin;\n", 1, 1, 1);
    expect_parse_error("SELECT 1;\n\\set a 1\n  copy t(a,b) from stdin with (format csv);\n", 3, 3,
                       3);
    expect_parse_error("COPY (SELECT 1) TO STDOUT;\n", 1, 1, 1);
    expect_parse_error("SELECT 1 \\; COPY t TO STDOUT;\n", 1, 13, 13);
    expect_parse_error("BEGIN;\nCOPY t FROM STDIN \\gset\n", 2, 1, 1);
    struct script_set s;
    struct err e = {0};
    script_set_init(&s);
    assert_int_equal(script_set_add(&s, "t.sql", "COPY t FROM stdin;", 1, &e), -1);
    assert_non_null(strstr(e.msg, "t.sql:1:1: COPY ... FROM STDIN is not supported in a script"));
    assert_int_equal(script_set_add(&s, "t.sql", "COPY (SELECT 1) TO stdout;", 1, &e), -1);
    assert_non_null(strstr(e.msg, "t.sql:1:1: COPY ... TO STDOUT is not supported in a script"));
    script_set_free(&s);
    parse_ok(&s, "COPY t FROM '/tmp/f';\nCOPY t TO PROGRAM 'cat';\n"
                 "SELECT 'COPY t FROM STDIN'; -- COPY t TO STDOUT\n");
    assert_int_equal(s.scripts[0].n_cmds, 3);
    script_set_free(&s);
}

/* pgbench 15: \if takes the truth of numbers; out-of-range double constants are refused. */
static void test_truth_and_double_overflow(void **state)
{
    (void)state;
    int t = -1;
    char msg[128];
    assert_int_equal(script_truth(&(struct value){.type = VAL_INT, .u.i = 2}, &t, msg, 128), 0);
    assert_int_equal(t, 1);
    assert_int_equal(script_truth(&(struct value){.type = VAL_DOUBLE, .u.d = 0.0}, &t, msg, 128),
                     0);
    assert_int_equal(t, 0);
    assert_int_equal(script_truth(&(struct value){.type = VAL_NULL}, &t, msg, 128), 0);
    assert_int_equal(t, 0);
    /* CASE takes any number of WHENs, as pgbench's does */
    char text[2048];
    int n = snprintf(text, sizeof text, "\\set c CASE");
    for (int i = 1; i <= 40; i++)
        n += snprintf(text + n, sizeof text - (size_t)n, " WHEN %d THEN %d", i, i);
    snprintf(text + n, sizeof text - (size_t)n, " END\n");
    struct script_set cs;
    parse_ok(&cs, text);
    assert_int_equal(cs.scripts[0].cmds[0].expr->n_args, 81);
    script_set_free(&cs);
    static const char *const bad[] = {"\\set d 1.0E309\n", "\\set d .1E310\n"};
    for (size_t i = 0; i < 2; i++) {
        struct script_set s;
        struct err e = {0};
        script_set_init(&s);
        assert_int_equal(script_set_add(&s, "t.sql", bad[i], 1, &e), -1);
        if (!strstr(e.msg, "double constant overflow"))
            fail_msg("%s", e.msg);
        script_set_free(&s);
    }
}

/* \sleep as pgbench 15 parses it: the unit may be attached, in any case. */
static void test_sleep_units(void **state)
{
    (void)state;
    struct script_set s;
    parse_ok(&s, "\\sleep 2ms\n\\sleep 10us\n\\sleep 1s\n\\sleep 3 MS\n\\sleep -1\n\\sleep 7\n");
    static const int64_t value[] = {2, 10, 1, 3, 0, 7},
                         unit[] = {1000, 1, 1000000, 1000, 1000000, 1000000};
    assert_int_equal(s.scripts[0].n_cmds, 6);
    for (int i = 0; i < 6; i++) {
        const struct script_command *c = &s.scripts[0].cmds[i];
        assert_int_equal(c->kind, CMD_SLEEP);
        assert_int_equal(c->sleep_value, value[i]);
        assert_int_equal(c->sleep_unit_us, unit[i]);
    }
    script_set_free(&s);
    expect_parse_error("\\sleep 2xs\n", 1, 8, 9);
    expect_parse_error("\\sleep 2ms ms\n", 1, 8, 8);
    expect_parse_error("\\sleep ms\n", 1, 8, 8);
    expect_parse_error("\\sleep 2 ms 3\n", 1, 13, 13);
}

/* \gset refuses columns that are no variable names, as pgbench's valid_variable_name. */
static void test_var_name_valid(void **state)
{
    (void)state;
    assert_true(script_var_name_valid("", "abalance"));
    assert_true(script_var_name_valid("p_", "x1"));
    assert_true(script_var_name_valid("", "_a9"));
    assert_true(script_var_name_valid("", "caf\xc3\xa9"));
    assert_true(script_var_name_valid("p", "1")); /* digits after the first character */
    assert_false(script_var_name_valid("", "?column?"));
    assert_false(script_var_name_valid("", "bad name!"));
    assert_false(script_var_name_valid("", "1x"));
    assert_false(script_var_name_valid("", ""));
    assert_false(script_var_name_valid("p", "a-b"));
}

static void test_empty_script(void **state)
{
    (void)state;
    static const char *const empty[] = {"", "\n\n  \n", "-- only a comment\n"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        struct script_set s;
        struct err e = {0};
        script_set_init(&s);
        if (script_set_add(&s, "empty.sql", empty[i], 1, &e) == 0)
            fail_msg("empty script %zu parsed", i);
        assert_int_equal(e.code, ERR_INPUT);
        assert_non_null(strstr(e.msg, "empty.sql:"));
        assert_int_equal(s.n_scripts, 0);
        script_set_free(&s);
    }
}

static void test_script_choose_weights(void **state)
{
    (void)state;
    struct script_set s;
    struct err e = {0};
    script_set_init(&s);
    assert_int_equal(script_set_add(&s, "a", "SELECT 1;", 3, &e), 0);
    struct rng r;
    rng_seed(&r, 9);
    assert_ptr_equal(script_choose(&s, &r), &s.scripts[0]);
    assert_int_equal(script_set_add(&s, "b", "SELECT 2;", 1, &e), 0);
    assert_int_equal(s.total_weight, 4);
    assert_string_equal(s.scripts[0].name, "a");
    assert_string_equal(s.scripts[1].source, "SELECT 2;");
    int n_a = 0;
    for (int i = 0; i < N_DRAWS; i++) {
        const struct script *sc = script_choose(&s, &r);
        assert_true(sc == &s.scripts[0] || sc == &s.scripts[1]);
        n_a += sc == &s.scripts[0];
    }
    /* 3:1 is 75 %; the standard error is 0.14 %. */
    double share = (double)n_a / N_DRAWS;
    assert_true(share > 0.74 && share < 0.76);
    script_set_free(&s);
}

static void test_var_text(void **state)
{
    (void)state;
    struct script_set s;
    parse_ok(&s, "\\set big -9223372036854775807 - 1\nSELECT :big, :other;");
    struct script_vars v;
    script_vars_init(&v, &s);
    assert_int_equal(v.n, s.n_vars);
    char buf[32], msg[64];
    struct rng r;
    rng_seed(&r, 3);
    int big = find_var(&s, "big"), other = find_var(&s, "other");
    assert_null(script_var_sql(&v, big, buf, sizeof buf));
    assert_int_equal(script_exec_set(&s, &s.scripts[0].cmds[0], &v, &r, msg, sizeof msg), 0);
    assert_non_null(script_var_sql(&v, big, buf, sizeof buf));
    assert_string_equal(buf, "-9223372036854775808");
    assert_null(script_var_sql(&v, other, buf, sizeof buf));
    script_vars_set(&v, other, 0);
    assert_non_null(script_var_sql(&v, other, buf, sizeof buf));
    assert_string_equal(buf, "0");
    script_vars_free(&v);
    script_set_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins_parse),
        cmocka_unit_test(test_bom_and_crlf),
        cmocka_unit_test(test_tpcb_like_commands),
        cmocka_unit_test(test_sql_variables),
        cmocka_unit_test(test_array_slice_is_not_variable),
        cmocka_unit_test(test_sql_splitting),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_meta_ends_unterminated_sql),
        cmocka_unit_test(test_eval_arithmetic),
        cmocka_unit_test(test_eval_errors),
        cmocka_unit_test(test_random_bounds_and_mean),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_copy),
        cmocka_unit_test(test_truth_and_double_overflow),
        cmocka_unit_test(test_sleep_units),
        cmocka_unit_test(test_var_name_valid),
        cmocka_unit_test(test_empty_script),
        cmocka_unit_test(test_script_choose_weights),
        cmocka_unit_test(test_var_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
