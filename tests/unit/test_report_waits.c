/* The summary's lines about why (report/text_waits.c) and show --intervals' columns. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/text.h"

/* What f printed about r, in a new string. */
static char *printed(void (*f)(FILE *, const struct result *), const struct result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    f(out, r);
    fclose(out);
    return text;
}

static struct result_wait ev(const char *name, uint64_t count)
{
    return (struct result_wait){(char *)name, count};
}

static void test_waits_as_shares(void **state)
{
    (void)state;
    struct result_wait events[] = {
        ev("Lock:transactionid", 70), ev("IO:WALSync", 20),     ev("CPU", 5),
        ev("Client:ClientRead", 3),   ev("LWLock:WALWrite", 1), ev("Lock:tuple", 1)};
    struct result r;
    memset(&r, 0, sizeof r);
    r.waits = (struct result_waits){1, 100, 42, 6, events, "all", NULL};
    r.client_cpu = (struct result_client_cpu){1, 0.25, 0.125, 0.5};
    char *t = printed(report_text_waits, &r);
    assert_non_null(strstr(t, "wait events:         Lock:transactionid 70.0 %, IO:WALSync 20.0 %"));
    assert_non_null(strstr(t, "2 more")); /* four named, the rest counted */
    assert_null(strstr(t, "Lock:tuple"));
    assert_non_null(strstr(t, "(42 samples, every 100 ms, of the run's own backends)"));
    assert_null(strstr(t, "own sessions"));
    assert_non_null(strstr(t, "client CPU:          0.38 cores (user 0.25, system 0.12)"));
    assert_null(strstr(t, "warning:")); /* the busiest thread at 50 % */
    for (char *line = t; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        assert_true(strcspn(line, "\n") <= 100);
    free(t);

    /* Only the user's own sessions visible, and a client thread above 90 % of a core. */
    r.waits.visibility = "own-user";
    r.client_cpu.max_thread_core = 0.95;
    t = printed(report_text_waits, &r);
    assert_non_null(strstr(t, "pg_stat_activity showed only the user's own sessions"));
    assert_non_null(strstr(t, "warning:             a client thread used 95 % of a core"));
    free(t);

    /* Nothing seen: the note says why. */
    r.waits.n_events = 0;
    r.waits.note = "the sampler could not start: no such host";
    r.client_cpu.present = 0;
    t = printed(report_text_waits, &r);
    assert_non_null(strstr(t, "wait events:         none seen (the sampler could not start"));
    assert_null(strstr(t, "client CPU"));
    free(t);
}

static void test_statements_and_nothing(void **state)
{
    (void)state;
    struct result r;
    memset(&r, 0, sizeof r);
    char *t = printed(report_text_waits, &r); /* --no-sampling: not a word */
    assert_string_equal(t, "");
    free(t);
    r.statements_server_note = "pg_stat_statements is not installed in this database";
    t = printed(report_text_waits, &r);
    assert_non_null(strstr(t, "server statements:   none: pg_stat_statements is not installed"));
    free(t);
    struct result_server_statement st = {"SELECT 1", 1000, 12.5, 0.0125, 1000};
    r.n_statements_server = 1;
    r.statements_server = &st;
    t = printed(report_text_waits, &r);
    assert_non_null(strstr(t, "pg_stat_statements, top by total time"));
    assert_non_null(strstr(t, "      1000       12.5     0.013       1000  SELECT 1"));
    free(t);
}

static void test_interval_columns(void **state)
{
    (void)state;
    struct result_wait w0[] = {ev("CPU", 3), ev("Client:ClientRead", 1)};
    struct result_interval its[2];
    memset(its, 0, sizeof its);
    its[0] = (struct result_interval){.t_s = 1,
                                      .tps = 10,
                                      .n_waits = 2,
                                      .waits = w0,
                                      .has_client_cpu = 1,
                                      .cpu_user = 0.5,
                                      .cpu_system = 0.25,
                                      .has_host = 1};
    its[0].host.idle = 0.4;
    its[1] = (struct result_interval){.t_s = 2, .tps = 10}; /* not sampled */
    struct result r;
    memset(&r, 0, sizeof r);
    r.n_intervals = 2;
    r.intervals = its;
    char *t = printed(report_text_intervals, &r);
    assert_non_null(strstr(t, "   cpu host_busy  top_wait\n"));
    assert_non_null(strstr(t, "   0.75       60%  CPU 75 %\n"));
    assert_non_null(strstr(t, "      -         -  -\n"));
    free(t);
    r.n_intervals = 1;
    its[0] = (struct result_interval){.t_s = 1, .tps = 10};
    t = printed(report_text_intervals, &r); /* unsampled file: the old columns only */
    assert_null(strstr(t, "top_wait"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits_as_shares),
        cmocka_unit_test(test_statements_and_nothing),
        cmocka_unit_test(test_interval_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
