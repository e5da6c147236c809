#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sparse_assert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "coord/coord.h"
#include "result/merge.h"
#include "result/result.h"
#include "stats/hist.h"
#include "replay_fixture.h"
#include "workload/workload.h"

/* The split of one run over n agents: clients add up, rates add up, seeds differ. */
static void test_split_clients_and_rate(void **state)
{
    (void)state;
    for (int64_t c = 1; c <= 50; c++) {
        for (int n = 1; n <= c && n <= 12; n++) {
            int64_t sum = 0, lo = INT64_MAX, hi = 0;
            double rate = 0;
            for (int i = 0; i < n; i++) {
                int64_t ci = coord_split_clients(c, n, i);
                sum += ci;
                lo = ci < lo ? ci : lo;
                hi = ci > hi ? ci : hi;
                rate += coord_split_rate(1000, c, ci);
            }
            assert_int_equal(sum, c);
            assert_true(hi - lo <= 1);
            assert_true(lo >= 1);
            assert_true(fabs(rate - 1000) < 1e-9);
        }
    }
    /* The formula itself: 10 clients over 3 agents give 3, 3, 4. */
    assert_int_equal(coord_split_clients(10, 3, 0), 3);
    assert_int_equal(coord_split_clients(10, 3, 1), 3);
    assert_int_equal(coord_split_clients(10, 3, 2), 4);
    assert_true(fabs(coord_split_rate(300, 10, 4) - 120) < 1e-9);
    /* Large counts do not overflow. */
    assert_int_equal(
        coord_split_clients(INT64_MAX / 2, 7, 6) - coord_split_clients(INT64_MAX / 2, 7, 0) <= 1,
        1);
}

static void test_split_seeds(void **state)
{
    (void)state;
    uint64_t seen[64];
    for (int i = 0; i < 64; i++) {
        seen[i] = coord_split_seed(42, i);
        assert_true(seen[i] <= INT64_MAX); /* a result file writes it as an integer */
        assert_int_equal(seen[i], coord_split_seed(42, i)); /* the same on every host */
        for (int j = 0; j < i; j++)
            assert_true(seen[i] != seen[j]);
    }
    assert_true(coord_split_seed(42, 0) != coord_split_seed(43, 0));
}

static void test_index_from_env(void **state)
{
    (void)state;
    unsetenv("JOB_COMPLETION_INDEX");
    unsetenv("SLURM_PROCID");
    assert_int_equal(coord_index_from_env(), -1);
    setenv("SLURM_PROCID", "3", 1);
    assert_int_equal(coord_index_from_env(), 3);
    setenv("JOB_COMPLETION_INDEX", "5", 1); /* Kubernetes' first */
    assert_int_equal(coord_index_from_env(), 5);
    setenv("JOB_COMPLETION_INDEX", "x1", 1);
    assert_int_equal(coord_index_from_env(), -2);
    unsetenv("JOB_COMPLETION_INDEX");
    unsetenv("SLURM_PROCID");
}

/* A histogram of the given values into a sparse one. */
static void sparse_of(const int64_t *v, size_t n, struct hist_sparse *out)
{
    struct hist *h = hist_new();
    for (size_t i = 0; i < n; i++)
        hist_record(h, v[i]);
    hist_to_sparse(h, out);
    hist_free(h);
}

/*
 * One agent's result: agent index i of n in run "r", starting start_us on the server's
 * clock; values[] its latencies, one interval per second, values spread over them in order.
 */
static void make_agent(struct result *r, int i, int n, int64_t start_us, const int64_t *values,
                       size_t n_values, size_t n_intervals)
{
    memset(r, 0, sizeof *r);
    r->complete = 1;
    r->end_reason = xstrdup("finished");
    r->client.hostname = xasprintf("host%d", i);
    r->workload.name = xstrdup("select-only");
    r->workload.scale = 1;
    r->options.clients = 2;
    r->options.threads = 1;
    r->options.duration_s = (double)n_intervals;
    r->options.rate = 100;
    r->options.protocol = xstrdup("simple");
    r->options.seed = 7;
    r->hist_sub_buckets = HIST_SUB_BUCKETS;
    r->has_agent = 1;
    r->agent = (struct result_agent){.index = i,
                                     .count = n,
                                     .run_id = xstrdup("r"),
                                     .clock_offset_us = 10.0 * i,
                                     .clock_uncertainty_us = 5.0 + i,
                                     .start_us = start_us};
    r->summary.duration_s = (double)n_intervals;
    r->summary.transactions = n_values;
    r->summary.tps = (double)n_values / (double)n_intervals;
    sparse_of(values, n_values, &r->histogram);
    struct hist *h = hist_new();
    hist_add_sparse(h, &r->histogram);
    r->summary.latency_us.p99 = (double)hist_percentile(h, 99);
    hist_free(h);
    r->n_intervals = n_intervals;
    r->intervals = xcalloc(n_intervals, sizeof *r->intervals);
    size_t per = n_values / n_intervals;
    for (size_t k = 0; k < n_intervals; k++) {
        struct result_interval *it = &r->intervals[k];
        size_t from = k * per, to = k + 1 == n_intervals ? n_values : from + per;
        it->t_s = (double)(k + 1);
        it->duration_s = 1;
        it->transactions = to - from;
        sparse_of(values + from, to - from, &it->histogram);
    }
    r->n_clients = 2;
    r->clients = xcalloc(2, sizeof *r->clients);
    r->clients[0].transactions = n_values / 2;
    r->clients[1].transactions = n_values - n_values / 2;
}

static const char *const names3[] = {"a.json", "b.json", "c.json"};

#define START 1700000000000000LL

/* Agent 0: fast (100 us); agent 1: slow (10 ms); their p99s average to ~5 ms, while the
 * merged p99 is the slow agent's (more than 1 % of all transactions are slow). */
static void make_pair(struct result in[2], int64_t start1_us)
{
    static int64_t fast[300], slow[100];
    for (int i = 0; i < 300; i++)
        fast[i] = 100 + i % 7;
    for (int i = 0; i < 100; i++)
        slow[i] = 10000 + 13 * i;
    make_agent(&in[1], 1, 2, start1_us, slow, 100, 3);
    make_agent(&in[0], 0, 2, START, fast, 300, 3);
}

static void test_merge_exact(void **state)
{
    (void)state;
    struct result in[2], out;
    struct err e = {0};
    make_pair(in, START + 300000); /* agent 1 started 0.3 s later: same slots */
    /* The union of all values, recorded once: what the merged histogram must be. */
    struct hist *all = hist_new();
    hist_add_sparse(all, &in[0].histogram);
    hist_add_sparse(all, &in[1].histogram);
    struct hist_sparse want;
    hist_to_sparse(all, &want);
    double avg_p99 = (in[0].summary.latency_us.p99 + in[1].summary.latency_us.p99) / 2;

    assert_int_equal(result_merge(in, names3, 2, 0, &out, &e), 0);
    assert_int_equal(out.summary.transactions, 400);
    assert_int_equal(out.histogram.count, 400);
    assert_sparse_equal_tol(&out.histogram, &want, 1e-12);
    assert_true(out.summary.latency_us.p99 == (double)hist_percentile(all, 99));
    assert_true(out.summary.latency_us.p99 > 10000);
    assert_true(fabs(out.summary.latency_us.p99 - avg_p99) > 1000); /* not an average */
    assert_true(out.summary.latency_us.p50 == (double)hist_percentile(all, 50));
    assert_int_equal(out.options.clients, 4);
    assert_true(fabs(out.options.rate - 200) < 1e-9);
    assert_int_equal(out.n_clients, 4);
    /* The run lasts from the first start to the last end. */
    assert_true(fabs(out.summary.duration_s - 3.3) < 1e-9);
    assert_true(fabs(out.summary.tps - 400 / 3.3) < 1e-9);
    /* Intervals: three, each holding both agents' transactions. */
    assert_int_equal(out.n_intervals, 3);
    for (size_t k = 0; k < 3; k++) {
        uint64_t both = in[0].intervals[k].transactions + in[1].intervals[k].transactions;
        assert_int_equal(out.intervals[k].transactions, both);
        assert_int_equal(out.intervals[k].histogram.count, both);
        assert_true(fabs(out.intervals[k].t_s - (double)(k + 1)) < 1e-9);
    }
    /* agents[] in index order with hosts and figures; the spread of the starts. */
    assert_int_equal(out.n_agents, 2);
    assert_string_equal(out.agents[0].host, "host0");
    assert_string_equal(out.agents[1].host, "host1");
    assert_int_equal(out.agents[1].transactions, 100);
    assert_true(out.agents[1].p99_us > 10000 && out.agents[0].p99_us < 200);
    assert_true(fabs(out.merge.start_spread_us - 300000) < 1e-6);
    assert_true(fabs(out.merge.clock_uncertainty_us - 6) < 1e-9);
    assert_true(out.merge.aligned);
    assert_true(out.complete);
    assert_string_equal(out.end_reason, "finished");
    hist_sparse_free(&want);
    hist_free(all);
    result_free(&out);
    result_free(&in[0]);
    result_free(&in[1]);
}

/* A lag of n values from base, step apart. */
static void make_lag(struct result_lag *l, int64_t base, int64_t step, int n)
{
    struct hist *h = hist_new();
    for (int i = 0; i < n; i++)
        hist_record(h, base + step * i);
    l->p50_us = (double)hist_percentile(h, 50);
    l->p99_us = (double)hist_percentile(h, 99);
    l->max_us = (double)hist_max(h);
    hist_to_sparse(h, &l->hist);
    hist_free(h);
}

/* A replay's lag: n values from base (its client's part from base / 10), and reasons of
 * divergence. */
static void make_replay(struct result *r, int64_t base, int n, const char *const *why,
                        const uint64_t *count, size_t n_why)
{
    struct replay_result *p = replay_fixture(r);
    p->capture = strdup("app.pgc");
    p->sent = (uint64_t)n;
    make_lag(&p->lag, base, 3, n);
    make_lag(&p->client_lag, base / 10, 1, n);
    p->top = calloc(n_why + 1, sizeof *p->top);
    for (size_t i = 0; i < n_why; i++)
        p->top[p->n_top++] = (struct replay_result_reason){strdup(why[i]), count[i]};
}

static void make_replay_pair(struct result in[2])
{
    make_pair(in, START);
    make_replay(&in[0], 100, 300, (const char *const[]){"A", "B"}, (uint64_t[]){5, 3}, 2);
    make_replay(&in[1], 9000, 100, (const char *const[]){"B", "C"}, (uint64_t[]){4, 1}, 2);
}

/* Replays merge their lag exactly (through its histogram, not the larger of two p99s) and
 * add up their reasons by text; an input without a lag histogram (an older file) leaves
 * the larger figures and no histogram. */
static void test_merge_replay(void **state)
{
    (void)state;
    struct result in[2], out;
    struct err e = {0};
    make_replay_pair(in);
    struct hist *all = hist_new(), *client = hist_new();
    hist_add_sparse(all, &replay_fixture(&in[0])->lag.hist);
    hist_add_sparse(all, &replay_fixture(&in[1])->lag.hist);
    hist_add_sparse(client, &replay_fixture(&in[0])->client_lag.hist);
    hist_add_sparse(client, &replay_fixture(&in[1])->client_lag.hist);
    assert_int_equal(result_merge(in, names3, 2, 0, &out, &e), 0);
    const struct replay_result *p = replay_result_of(&out);
    assert_non_null(p);
    assert_int_equal(p->sent, 400);
    assert_int_equal(p->lag.hist.count, 400);
    assert_true(p->lag.p99_us == (double)hist_percentile(all, 99));
    assert_true(p->lag.p50_us == (double)hist_percentile(all, 50));
    assert_true(p->lag.p50_us < 1000); /* three quarters are fast: not the larger p50 */
    assert_true(p->lag.max_us == (double)hist_max(all));
    assert_int_equal(p->client_lag.hist.count, 400);
    assert_true(p->client_lag.p99_us == (double)hist_percentile(client, 99));
    assert_true(p->client_lag.p50_us < 900); /* not the larger p50 either */
    assert_true(p->client_lag.max_us == (double)hist_max(client));
    assert_int_equal(p->n_top, 2);
    assert_string_equal(p->top[0].reason, "B");
    assert_int_equal(p->top[0].count, 7);
    assert_string_equal(p->top[1].reason, "A");
    assert_int_equal(p->top[1].count, 5);
    result_free(&out);
    result_free(&in[0]);
    result_free(&in[1]);
    /* An older input: no lag histogram (merge takes parts of its inputs: a pair anew). */
    make_replay_pair(in);
    hist_sparse_free(&replay_fixture(&in[1])->lag.hist);
    double p50 = replay_fixture(&in[1])->lag.p50_us, max = replay_fixture(&in[1])->lag.max_us;
    assert_int_equal(result_merge(in, names3, 2, 0, &out, &e), 0);
    p = replay_result_of(&out);
    assert_int_equal(p->lag.hist.count, 0);
    assert_true(p->lag.p50_us == p50 && p->lag.max_us == max);
    assert_int_equal(p->client_lag.hist.count, 400); /* its own histograms: exact */
    result_free(&out);
    result_free(&in[0]);
    result_free(&in[1]);
    /* An input written before client_lag_us: its statements measured, no client lag. The
     * other's alone would pass for the whole: the merge has none. */
    make_replay_pair(in);
    hist_sparse_free(&replay_fixture(&in[1])->client_lag.hist);
    replay_fixture(&in[1])->client_lag = (struct result_lag){0};
    assert_int_equal(result_merge(in, names3, 2, 0, &out, &e), 0);
    p = replay_result_of(&out);
    assert_int_equal(p->client_lag.hist.count, 0);
    assert_true(p->client_lag.max_us == 0 && p->lag.hist.count == 400);
    result_free(&out);
    hist_free(all);
    hist_free(client);
    result_free(&in[0]);
    result_free(&in[1]);
}

/* An agent that started 1 s late has its intervals one slot later; the merged run lasts
 * until its end. */
static void test_merge_aligns_by_time(void **state)
{
    (void)state;
    struct result in[2], out;
    struct err e = {0};
    make_pair(in, START + 1000000);
    /* Given in the other order: the output is by agent index anyway. */
    struct result swapped[2] = {in[1], in[0]};
    const char *const names[] = {"b.json", "a.json"};
    assert_int_equal(result_merge(swapped, names, 2, 0, &out, &e), 0);
    assert_int_equal(out.n_intervals, 4);
    assert_int_equal(out.intervals[0].transactions, in[0].intervals[0].transactions);
    assert_int_equal(out.intervals[1].transactions,
                     in[0].intervals[1].transactions + in[1].intervals[0].transactions);
    assert_int_equal(out.intervals[3].transactions, in[1].intervals[2].transactions);
    assert_int_equal(out.agents[0].index, 0);
    assert_true(fabs(out.summary.duration_s - 4) < 1e-9);
    result_free(&out);
    result_free(&swapped[0]);
    result_free(&swapped[1]);
}

static void expect_refused(struct result *in, size_t n, int force, const char *needle)
{
    struct result out;
    struct err e = {0};
    assert_int_equal(result_merge(in, names3, n, force, &out, &e), -1);
    assert_int_equal(e.code, ERR_INPUT);
    if (!strstr(e.msg, needle))
        fail_msg("expected '%s' in: %s", needle, e.msg);
}

static void free_pair(struct result in[2])
{
    result_free(&in[0]);
    result_free(&in[1]);
}

static void test_merge_refusals(void **state)
{
    (void)state;
    struct result in[2], out;
    struct err e = {0};

    make_pair(in, START);
    in[1].hist_sub_buckets = 2048; /* other histogram parameters: never merged */
    expect_refused(in, 2, 1, "other parameters");
    free_pair(in);

    make_pair(in, START);
    in[1].histogram.bins[0].value_us += 1; /* not a bin of this histogram */
    expect_refused(in, 2, 1, "not this pgarena's");
    free_pair(in);

    make_pair(in, START);
    in[1].agent.index = 0;
    expect_refused(in, 2, 1, "both agent 0 of run r");
    free_pair(in);

    make_pair(in, START);
    free(in[1].agent.run_id);
    in[1].agent.run_id = xstrdup("other");
    expect_refused(in, 2, 0, "of run other");
    assert_int_equal(result_merge(in, names3, 2, 1, &out, &e), 0); /* --force */
    result_free(&out);
    free_pair(in);

    make_pair(in, START);
    in[1].options.duration_s = 9;
    expect_refused(in, 2, 0, "differ in -T");
    free_pair(in);

    make_pair(in, START);
    in[0].agent.count = in[1].agent.count = 3;
    expect_refused(in, 2, 0, "agent 2 is missing");
    free_pair(in);

    make_pair(in, START);
    in[1].has_agent = 0;
    expect_refused(in, 2, 0, "not an agent's result");
    free_pair(in);
}

/* A lost agent: the merged result is incomplete, agent-lost wins over other reasons. */
static void test_merge_incomplete(void **state)
{
    (void)state;
    struct result in[2], out;
    struct err e = {0};
    make_pair(in, START);
    in[0].complete = 0;
    free(in[0].end_reason);
    in[0].end_reason = xstrdup("agent-lost");
    assert_int_equal(result_merge(in, names3, 2, 0, &out, &e), 0);
    assert_false(out.complete);
    assert_string_equal(out.end_reason, "agent-lost");
    assert_false(out.agents[0].complete);
    result_free(&out);
    free_pair(in);
}

/* The merged result writes and reads back with its agents. */
static void test_merge_round_trip(void **state)
{
    (void)state;
    struct result in[2], out, back;
    struct err e = {0};
    char path[] = "/tmp/pgarena-merge-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    make_pair(in, START + 1000);
    assert_int_equal(result_merge(in, names3, 2, 0, &out, &e), 0);
    assert_int_equal(result_write(&out, path, &e), 0);
    assert_int_equal(result_read(path, &back, &e), 0);
    assert_int_equal(back.n_agents, 2);
    assert_string_equal(back.agents[1].host, "host1");
    assert_string_equal(back.agents[1].run_id, "r");
    assert_int_equal(back.agents[1].start_us, START + 1000);
    assert_true(fabs(back.merge.start_spread_us - 1000) < 1e-9);
    assert_int_equal(back.hist_sub_buckets, HIST_SUB_BUCKETS);
    assert_sparse_equal_tol(&back.histogram, &out.histogram, 1e-12);
    /* A merged file is not merged again. */
    struct result twice[2] = {back, in[0]};
    expect_refused(twice, 2, 1, "merged result already");
    unlink(path);
    result_free(&back);
    result_free(&out);
    free_pair(in);
}

static struct result_wait *waits_of(const char *a, uint64_t na, const char *b, uint64_t nb)
{
    struct result_wait *w = xcalloc(2, sizeof *w);
    w[0] = (struct result_wait){xstrdup(a), na};
    w[1] = (struct result_wait){xstrdup(b), nb};
    return w;
}

/* The samplers' figures: wait events summed by name over the agents (highest first), client
 * CPU summed over the load hosts and listed per agent. */
static void test_merge_sampling(void **state)
{
    (void)state;
    struct result in[2], out;
    struct err e = {0};
    make_pair(in, START);
    for (int k = 0; k < 2; k++) {
        in[k].waits.present = 1;
        in[k].waits.sample_ms = 100;
        in[k].waits.samples = 50;
        in[k].waits.n_events = 2;
        in[k].client_cpu = (struct result_client_cpu){1, 0.25 * (k + 1), 0.5, 0.3 + k};
    }
    in[0].waits.events = waits_of("CPU", 10, "Lock:tuple", 3);
    in[1].waits.events = waits_of("Lock:tuple", 30, "IO:DataFileRead", 1);
    in[1].intervals[0].n_waits = 1;
    in[1].intervals[0].waits = waits_of("Lock:tuple", 7, "x", 0);
    free(in[1].intervals[0].waits[1].name); /* one event in this interval */
    in[0].intervals[0].has_client_cpu = in[1].intervals[0].has_client_cpu = 1;
    in[0].intervals[0].cpu_user = 0.5;
    in[1].intervals[0].cpu_user = 0.25;
    assert_int_equal(result_merge(in, names3, 2, 0, &out, &e), 0);
    assert_true(out.waits.present);
    assert_int_equal(out.waits.samples, 100);
    assert_int_equal(out.waits.n_events, 3);
    assert_string_equal(out.waits.events[0].name, "Lock:tuple");
    assert_int_equal(out.waits.events[0].count, 33);
    assert_string_equal(out.waits.events[1].name, "CPU");
    assert_true(fabs(out.client_cpu.user - 0.75) < 1e-12);
    assert_true(fabs(out.client_cpu.system - 1.0) < 1e-12);
    assert_true(fabs(out.client_cpu.max_thread_core - 1.3) < 1e-12);
    assert_true(out.agents[1].has_cpu && fabs(out.agents[1].cpu_user - 0.5) < 1e-12);
    assert_int_equal(out.intervals[0].n_waits, 1);
    assert_int_equal(out.intervals[0].waits[0].count, 7);
    assert_true(fabs(out.intervals[0].cpu_user - 0.75) < 1e-12);
    result_free(&out);
    free_pair(in);
}

int main(void)
{
    workload_parts_register(); /* replay {}: read, merged, its fields */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_clients_and_rate), cmocka_unit_test(test_split_seeds),
        cmocka_unit_test(test_index_from_env),         cmocka_unit_test(test_merge_exact),
        cmocka_unit_test(test_merge_aligns_by_time),   cmocka_unit_test(test_merge_refusals),
        cmocka_unit_test(test_merge_incomplete),       cmocka_unit_test(test_merge_round_trip),
        cmocka_unit_test(test_merge_sampling),         cmocka_unit_test(test_merge_replay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
