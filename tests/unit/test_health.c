#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "result/health.h"
#include "result/result.h"
#include "result/result_int.h"
#include "server/selfhealth.h"
#include "stats/series.h"

/* The client's health, its pure parts: /proc's schedstat and PSI text, the stall
 * classification, the summary of the intervals (a run's, recover's, merge's), the JSON both
 * ways, and the series carrying the workers' lateness from interval to interval. */

static void test_parse_schedstat(void **state)
{
    (void)state;
    uint64_t d = 0;
    assert_int_equal(self_parse_schedstat("123456789 98765 4321\n", &d), 0);
    assert_int_equal(d, 98765);
    assert_int_equal(self_parse_schedstat("0 0 0", &d), 0);
    assert_int_equal(d, 0);
    assert_int_equal(self_parse_schedstat("123456789\n", &d), -1);
    assert_int_equal(self_parse_schedstat("", &d), -1);
    assert_int_equal(self_parse_schedstat(NULL, &d), -1);
}

static void test_parse_psi(void **state)
{
    (void)state;
    uint64_t t = 0;
    const char *both = "some avg10=1.50 avg60=0.80 avg300=0.20 total=4983795030\n"
                       "full avg10=0.00 avg60=0.00 avg300=0.00 total=77\n";
    assert_int_equal(self_parse_psi_some(both, &t), 0);
    assert_int_equal(t, 4983795030ULL);
    /* "some" need not come first; "full" alone is not it. */
    assert_int_equal(self_parse_psi_some("full avg10=0 total=9\nsome avg10=0 total=12\n", &t), 0);
    assert_int_equal(t, 12);
    assert_int_equal(self_parse_psi_some("full avg10=0.00 total=9\n", &t), -1);
    /* A "some" line without total= does not take the next line's. */
    assert_int_equal(self_parse_psi_some("some avg10=0.00\nfull avg10=0 total=9\n", &t), -1);
    assert_int_equal(self_parse_psi_some("", &t), -1);
}

/* The live readers: a second take differs from the first by what this process did, and
 * nothing the kernel lacks reads as zero. */
static void test_self_health_live(void **state)
{
    (void)state;
    struct self_health h, h2;
    struct self_health_delta d;
    self_health_read(&h);
    self_health_read(&h2);
    assert_true(h2.read_ns >= h.read_ns);
    self_health_diff(&h, &h2, &d);
    self_health_free(&h2);
    /* Linux with schedstat: a delay of zero or more; elsewhere unknown, never a made-up 0. */
    assert_true(d.run_delay_ms == -1 || d.run_delay_ms >= 0);
    assert_true(d.run_delay_max_ms <= d.run_delay_ms + 1e-9);
    assert_true(d.psi_ms == -1 || d.psi_ms >= 0);
    assert_true(d.steal_share == -1 || (d.steal_share >= 0 && d.steal_share <= 1));
    self_health_free(&h);
}

/* A reading made by hand at read_ms: threads (tid, run delay in ms) ending at tid 0, the PSI
 * total in ms, the host's steal and busy ticks (steal < 0: no /proc/stat). */
static struct self_health reading(double read_ms, const int *tid, const double *delay_ms,
                                  double psi_ms, long steal, long busy)
{
    struct self_health h = {.read_ns = (time_ns)(read_ms * NS_PER_MS), .have_tasks = 1};
    while (tid[h.n])
        h.n++;
    h.tid = malloc(h.n * sizeof *h.tid + 1);
    h.delay_ns = malloc(h.n * sizeof *h.delay_ns + 1);
    for (size_t i = 0; i < h.n; i++) {
        h.tid[i] = tid[i];
        h.delay_ns[i] = (uint64_t)(delay_ms[i] * 1e6);
    }
    h.have_psi = 1;
    h.psi_us = (uint64_t)(psi_ms * 1000);
    h.have_cpu = steal >= 0;
    h.cpu = (struct proc_cpu){.user = (uint64_t)busy, .steal = steal >= 0 ? (uint64_t)steal : 0};
    return h;
}

/* The reading at hand-over, when an edge is missing: what the test set, and how often. */
static struct self_health fallback;
static int fallback_reads;

static void read_fallback(struct self_health *h)
{
    *h = fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback_reads++;
}

static void put_edge(struct self_edges *r, size_t k, struct self_health h)
{
    self_edges_put(r, k, &h);
}

static void assert_delta(const struct self_health_delta *d, double run, double run_max, double psi)
{
    assert_float_equal(d->run_delay_ms, run, 1e-6);
    assert_float_equal(d->run_delay_max_ms, run_max, 1e-6);
    assert_float_equal(d->psi_ms, psi, 1e-6);
}

/* An interval's figures are the difference between the readings at its two edges: the
 * reading before the measured start (started, in a duet up to 100 ms early) does not count;
 * a thread born in the interval counts its whole delay, one gone (not recorded as ended)
 * nothing; a missing edge falls back to a reading at hand-over, and the interval after it
 * starts from that reading (an edge read before it is not used); an edge overwritten in the
 * ring is missing. */
static void test_edges_delta(void **state)
{
    (void)state;
    struct self_edges r = {0};
    struct self_health_delta d;
    fallback_reads = 0;
    struct self_health first = reading(-100, (int[]){1, 0}, (double[]){0}, 0, 0, 0);
    self_edges_start(&r, &first);
    put_edge(&r, 0, reading(0, (int[]){1, 0}, (double[]){5}, 50, 0, 100));
    put_edge(&r, 1, reading(1000, (int[]){1, 2, 0}, (double[]){25, 3}, 800, 10, 190));
    put_edge(&r, 2, reading(2000, (int[]){1, 2, 0}, (double[]){30, 10}, 1500, 10, 290));
    self_edges_take(&r, 0, read_fallback, &d);
    assert_delta(&d, 20 + 3, 20, 750); /* not the 50 ms before the start */
    assert_float_equal(d.steal_share, 0.1, 1e-9);
    self_edges_take(&r, 1, read_fallback, &d);
    assert_delta(&d, 5 + 7, 7, 700);
    assert_float_equal(d.steal_share, 0, 1e-9);
    assert_int_equal(fallback_reads, 0);
    /* Edge 3 not seen: the reading at hand-over (thread 1 gone: it counts nothing). */
    fallback = reading(3400, (int[]){2, 0}, (double[]){12}, 2100, 10, 390);
    self_edges_take(&r, 2, read_fallback, &d);
    assert_int_equal(fallback_reads, 1);
    assert_delta(&d, 2, 2, 600);
    /* Edge 3 came after all, read before that hand-over: interval 3 starts at the hand-over. */
    put_edge(&r, 3, reading(3000, (int[]){2, 0}, (double[]){11}, 1900, 10, 390));
    put_edge(&r, 4, reading(4000, (int[]){2, 0}, (double[]){20}, 2300, 10, 490));
    self_edges_take(&r, 3, read_fallback, &d);
    assert_int_equal(fallback_reads, 1);
    assert_delta(&d, 8, 8, 200);
    /* Edge 5 overwritten by edge 21 (the ring holds 16): missing. */
    put_edge(&r, 5, reading(5000, (int[]){2, 0}, (double[]){21}, 2400, 10, 590));
    put_edge(&r, 5 + SELF_EDGES, reading(21000, (int[]){2, 0}, (double[]){99}, 9000, 10, 2190));
    fallback = reading(5100, (int[]){2, 0}, (double[]){23}, 2450, 10, 600);
    self_edges_take(&r, 4, read_fallback, &d);
    assert_int_equal(fallback_reads, 2);
    assert_delta(&d, 3, 3, 150);
    /* A reading without PSI or /proc/stat: unknown, never 0. */
    fallback = reading(6000, (int[]){2, 0}, (double[]){23}, 0, -1, 0);
    fallback.have_psi = 0;
    self_edges_take(&r, 5, read_fallback, &d);
    assert_delta(&d, 0, 0, -1);
    assert_float_equal(d.steal_share, -1, 1e-9);
    self_edges_free(&r);
}

/* A thread that ends: its ID, after it recorded its run delay as it ended. */
static void *ending_thread(void *arg)
{
    char text[64] = "";
    FILE *f = fopen("/proc/thread-self/stat", "r");
    if (f) {
        if (!fgets(text, sizeof text, f))
            text[0] = '\0';
        fclose(f);
    }
    *(int *)arg = atoi(text);
    self_health_thread_ended();
    return NULL;
}

static int has_tid(const struct self_health *h, int tid)
{
    for (size_t i = 0; i < h->n; i++)
        if (h->tid[i] == tid)
            return 1;
    return 0;
}

/* Whether thread tid is gone from /proc/self/task (a joined thread leaves it a moment after). */
static int gone(int tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d", tid);
    for (int i = 0; i < 100000; i++) {
        if (access(path, F_OK) != 0)
            return 1;
        sched_yield();
    }
    return 0;
}

/* A thread gone from /proc/self/task still counts in a reading once it recorded its delay as it
 * ended (a run's workers, gone before its last interval is handed over), until forgotten. */
static void test_ended_thread_counts(void **state)
{
    (void)state;
    int tid = 0;
    pthread_t t;
    self_health_forget_ended();
    assert_int_equal(pthread_create(&t, NULL, ending_thread, &tid), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    if (tid <= 0 || !gone(tid))
        skip(); /* no /proc/thread-self */
    struct self_health h;
    self_health_read(&h);
    assert_true(h.have_tasks);
    assert_true(has_tid(&h, tid));
    self_health_free(&h);
    self_health_forget_ended();
    self_health_read(&h);
    assert_false(has_tid(&h, tid));
    self_health_free(&h);
}

static enum result_stall_cause classify(double late, double runq, double steal, double *lost)
{
    struct result_health_in in = {1000, late, runq, steal};
    return result_stall_classify(&in, lost);
}

static void test_classify(void **state)
{
    (void)state;
    double lost = -1;
    /* Below the share: nothing lost. */
    assert_int_equal(classify(399, 399, 399, &lost), RESULT_STALL_NONE);
    assert_true(lost == 0);
    /* A stopped process: its workers woke late. */
    assert_int_equal(classify(1000, 10, 0, &lost), RESULT_STALL_LATE);
    assert_true(lost == 1000);
    /* The cause is the one that lost the most; lateness that follows from it is its. */
    assert_int_equal(classify(450, 600, 5, &lost), RESULT_STALL_RUNQUEUE);
    assert_true(lost == 600);
    assert_int_equal(classify(500, 300, 700, &lost), RESULT_STALL_STEAL);
    assert_true(lost == 700);
    /* On a tie: steal, then runqueue. */
    assert_int_equal(classify(500, 500, 500, &lost), RESULT_STALL_STEAL);
    assert_int_equal(classify(500, 500, 0, &lost), RESULT_STALL_RUNQUEUE);
    /* Unknown figures (-1) lose nothing; at most the interval is lost. */
    assert_int_equal(classify(1800, -1, -1, &lost), RESULT_STALL_LATE);
    assert_true(lost == 1000);
    assert_int_equal(classify(0, -1, -1, &lost), RESULT_STALL_NONE);
    /* An interval of no length is never stalled. */
    struct result_health_in empty = {0, 50, 0, 0};
    assert_int_equal(result_stall_classify(&empty, &lost), RESULT_STALL_NONE);
    /* A sliver of a last interval: over the share, but no whole millisecond lost (a stall of
     * 0 ms would leave the summary's worst without a cause). */
    struct result_health_in sliver = {0.9, 0.45, -1, -1};
    assert_int_equal(result_stall_classify(&sliver, &lost), RESULT_STALL_NONE);
    assert_true(lost == 0);
    /* Lost time is whole milliseconds, as the file holds it. */
    struct result_health_in part = {1000, 612.4, -1, -1};
    assert_int_equal(result_stall_classify(&part, &lost), RESULT_STALL_LATE);
    assert_true(lost == 612);
}

static struct result_interval_health health(double late_max, double run_delay, double steal,
                                            double stalled, enum result_stall_cause cause)
{
    return (struct result_interval_health){1,  late_max, late_max, run_delay,
                                           -1, steal,    stalled,  cause};
}

static void test_summary(void **state)
{
    (void)state;
    struct result_client_health s = {0};
    struct result_interval_health absent = {0};
    result_health_add(&s, 1, 1, &absent); /* a file before health: nothing */
    assert_false(s.present);
    struct result_interval_health h[4] = {
        health(3, 20, 0, 0, RESULT_STALL_NONE),
        health(1000, 0, 10, 1000, RESULT_STALL_LATE),
        health(480, 30, 0, 480, RESULT_STALL_LATE),
        health(2, 10, 20, 0, RESULT_STALL_NONE),
    };
    for (int i = 0; i < 4; i++)
        result_health_add(&s, i + 1, 1, &h[i]);
    result_health_finish(&s);
    assert_true(s.present);
    assert_int_equal(s.intervals, 4);
    assert_int_equal(s.intervals_stalled, 2);
    assert_float_equal(s.stalled_ms, 1480, 1e-9);
    assert_float_equal(s.worst_ms, 1000, 1e-9);
    assert_float_equal(s.worst_t_s, 2, 1e-9);
    assert_int_equal(s.worst_cause, RESULT_STALL_LATE);
    assert_float_equal(s.run_delay_ms, 60, 1e-9);
    assert_float_equal(s.steal_share, 30.0 / 4000, 1e-12);

    /* Steal unknown in every interval: the share is unknown, not 0. */
    struct result_client_health u = {0};
    struct result_interval_health no_steal = health(1, 5, -1, 0, RESULT_STALL_NONE);
    result_health_add(&u, 1, 1, &no_steal);
    result_health_finish(&u);
    assert_true(u.steal_share < 0);

    /* Merge: counts and times add, the worst is the largest, steal weighs by time. */
    struct result_client_health m = {0};
    result_health_merge(&m, &s);
    struct result_client_health other = s;
    other.worst_ms = 1500;
    other.worst_t_s = 9;
    other.worst_cause = RESULT_STALL_STEAL;
    other.steal_ms = 400;
    other.steal_of_ms = 4000;
    result_health_merge(&m, &other);
    assert_int_equal(m.intervals, 8);
    assert_int_equal(m.intervals_stalled, 4);
    assert_float_equal(m.stalled_ms, 2960, 1e-9);
    assert_float_equal(m.worst_ms, 1500, 1e-9);
    assert_int_equal(m.worst_cause, RESULT_STALL_STEAL);
    assert_float_equal(m.run_delay_ms, 120, 1e-9);
    assert_float_equal(m.steal_share, 430.0 / 8000, 1e-12);
}

static void test_json(void **state)
{
    (void)state;
    struct result_interval it = {.t_s = 3, .duration_s = 1};
    it.health = health(1000.4, 12.6, 0, 1000, RESULT_STALL_LATE);
    json_t *o = json_object();
    result_interval_health_json(&it, o);
    const json_t *c = json_object_get(o, "client_health");
    assert_non_null(c);
    assert_null(json_object_get(c, "psi_ms")); /* unknown: absent, never 0 */
    assert_string_equal(json_string_value(json_object_get(c, "cause")), "late");
    struct result_interval back = {0};
    assert_int_equal(result_interval_health_read(o, &back), 0);
    assert_true(back.health.present);
    assert_float_equal(back.health.late_max_ms, 1000, 1e-9);
    assert_float_equal(back.health.run_delay_ms, 13, 1e-9);
    assert_true(back.health.psi_ms < 0);
    assert_float_equal(back.health.steal_ms, 0, 1e-9);
    assert_int_equal(back.health.cause, RESULT_STALL_LATE);
    assert_float_equal(back.health.stalled_ms, 1000, 1e-9);
    json_decref(o);

    /* Not stalled: the keys are there all the same (a file's keys do not depend on the
     * machine), the cause null. */
    it.health = health(3, 1, 0, 0, RESULT_STALL_NONE);
    o = json_object();
    result_interval_health_json(&it, o);
    c = json_object_get(o, "client_health");
    assert_true(json_is_null(json_object_get(c, "cause")));
    assert_int_equal(json_integer_value(json_object_get(c, "stalled_ms")), 0);
    memset(&back, 0, sizeof back);
    assert_int_equal(result_interval_health_read(o, &back), 0);
    assert_int_equal(back.health.cause, RESULT_STALL_NONE);
    json_decref(o);

    /* An interval without it reads as absent; a malformed one is refused. */
    o = json_pack("{s:i}", "client_health", 3);
    assert_int_equal(result_interval_health_read(o, &back), -1);
    json_decref(o);

    struct result r = {0};
    r.client_health = (struct result_client_health){.present = 1,
                                                    .intervals = 60,
                                                    .intervals_stalled = 3,
                                                    .stalled_ms = 2100,
                                                    .worst_t_s = 37,
                                                    .worst_ms = 1400,
                                                    .worst_cause = RESULT_STALL_STEAL,
                                                    .steal_share = 0.0123,
                                                    .run_delay_ms = 850};
    json_t *summary = json_object();
    result_health_summary_json(&r, summary);
    struct result rb = {0};
    assert_int_equal(result_health_summary_read(summary, &rb), 0);
    assert_int_equal(rb.client_health.intervals, 60);
    assert_int_equal(rb.client_health.intervals_stalled, 3);
    assert_float_equal(rb.client_health.stalled_ms, 2100, 1e-9);
    assert_float_equal(rb.client_health.worst_t_s, 37, 1e-9);
    assert_float_equal(rb.client_health.worst_ms, 1400, 1e-9);
    assert_int_equal(rb.client_health.worst_cause, RESULT_STALL_STEAL);
    assert_float_equal(rb.client_health.steal_share, 0.0123, 1e-9);
    assert_float_equal(rb.client_health.run_delay_ms, 850, 1e-9);
    json_decref(summary);
}

/* The workers' lateness rides the series: summed over workers and intervals taken together,
 * the largest kept; one handed over already folds into the next. */
static void test_series_late(void **state)
{
    (void)state;
    struct series a, b;
    series_init(&a, 1000000);
    series_init(&b, 1000000);
    series_add_late(&a, 2, 700, 400);
    series_add_late(&a, 2, 300, 300);
    series_add_late(&b, 2, 100, 100);
    series_add_late(&b, 0, 50, 50);
    series_merge(&a, &b);
    assert_int_equal(a.items[2].late_sum_ns, 1100);
    assert_int_equal(a.items[2].late_max_ns, 400);
    assert_int_equal(a.items[0].late_sum_ns, 50);
    struct interval acc = {0};
    series_take_into(&a, 1, 0, &acc);
    assert_int_equal(acc.late_sum_ns, 50);
    series_add_late(&a, 0, 25, 25); /* handed over: into interval 2 */
    memset(&acc, 0, sizeof acc);
    series_take_into(&a, 2, 0, &acc);
    assert_int_equal(acc.late_sum_ns, 1125);
    assert_int_equal(acc.late_max_ns, 400);
    hist_sparse_free(&acc.latency);
    series_free(&a);
    series_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_schedstat),
        cmocka_unit_test(test_parse_psi),
        cmocka_unit_test(test_self_health_live),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_series_late),
        cmocka_unit_test(test_edges_delta),
        cmocka_unit_test(test_ended_thread_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
