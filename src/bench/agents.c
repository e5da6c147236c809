#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "bench/bench_int.h"
#include "coord/coord.h"
#include "result/merge.h"

/* run --agents: one agent's share of a run split over several processes. The options, the split,
 * the coordination around the engine, and agent 0's merge of everyone's results. */

/* What must agree across the run's agents, one "name=value" line each. */
static char *options_text(const struct bench *b)
{
    struct buf t;
    buf_init(&t);
    buf_printf(&t, "-w=%s\n", b->workload_name ? b->workload_name : "");
    for (int i = 0; i < b->p.n_specs; i++)
        buf_printf(&t, "-%c=%s\n", b->p.specs[i].kind, b->p.specs[i].arg);
    for (int i = 0; i < b->p.n_defines; i++)
        buf_printf(&t, "-D=%s\n", b->p.defines[i]);
    buf_printf(&t, "-s=%lld\n-c=%lld\n-R=%g\n-T=%lld\n-t=%lld\n-M=%s\n", (long long)b->p.scale,
               (long long)b->p.agents.clients_all, b->p.agents.rate_all, (long long)b->p.duration_s,
               (long long)b->p.tx_per_client, bench_protocol_names[b->p.protocol]);
    buf_printf(&t, "--warmup=%lld\n--latency-limit=%g\n--max-tries=%lld\n--timeout=%lld\n",
               (long long)b->p.warmup_s, b->p.latency_limit_ms, (long long)b->p.max_tries,
               (long long)b->p.timeout_ms);
    buf_printf(&t, "-C=%d\n--seed=%lld\n", b->p.connect_per_tx, (long long)b->p.seed);
    char *text = xstrdup(t.data ? t.data : "");
    buf_free(&t);
    return text;
}

/* The run was lost by another agent: the clients stop, and a start this interrupts fails
 * naming the run's cause (error), as the barrier would. */
static void stop_engine(const char *error, void *arg)
{
    (void)arg;
    engine_request_stop_because(error);
}

int bench_agents_open(struct bench *b, struct err *e)
{
    struct bench_agents *a = &b->agents;
    const struct bench_agents_opts *ao = &b->p.agents;
    if (ao->count == 0)
        return 0;
    struct pg_connopts coord = {0};
    const struct pg_connopts *conn = &b->p.conn;
    if (ao->coord) {
        coord.dbname = xstrdup(ao->coord);
        conn = &coord;
    }
    struct srv_client me;
    srv_client_read(&me);
    char *options = options_text(b);
    struct coord_agent ca = {(int)ao->index, (int)ao->count, ao->run_id,
                             options,        me.hostname,    (double)ao->wait_s};
    a->coord_h = coord_open(conn, &ca, e);
    free(options);
    srv_client_free(&me);
    pg_connopts_free(&coord);
    if (!a->coord_h)
        return -1;
    coord_on_lost(a->coord_h, stop_engine, NULL);
    if (coord_measure_clock(a->coord_h, &a->offset_us, &a->uncertainty_us, e) < 0) {
        coord_close(a->coord_h, 0);
        a->coord_h = NULL;
        return -1;
    }
    return 0;
}

/* The engine's barrier callback (arg: struct bench). */
static int barrier(void *arg, time_ns *go_ns, struct err *e)
{
    struct bench *b = arg;
    struct bench_agents *a = &b->agents;
    int64_t start_us;
    if (coord_barrier(a->coord_h, go_ns, &start_us, e) < 0)
        return -1;
    a->start_server_us = start_us + b->p.warmup_s * 1000000; /* as planned */
    a->start_local_us = a->start_server_us - (int64_t)a->offset_us;
    return 0;
}

void bench_agents_config(struct bench *b, struct engine_config *cfg)
{
    if (b->p.agents.count == 0)
        return;
    cfg->seed = coord_split_seed((uint64_t)b->p.seed, (int)b->p.agents.index);
    cfg->barrier = barrier;
    cfg->barrier_arg = b;
}

void bench_agents_result(struct bench *b, const struct engine_result *er, struct result *r)
{
    struct bench_agents *a = &b->agents;
    const struct bench_agents_opts *ao = &b->p.agents;
    if (ao->count == 0)
        return;
    /* The start as it happened, on this host's clock and on the server's by the offset: the
     * spread of the latter across agents is the start skew the merge reports. */
    if (er && er->start_wall_us > 0) {
        a->start_local_us = er->start_wall_us + b->p.warmup_s * 1000000;
        a->start_server_us = a->start_local_us + (int64_t)a->offset_us;
    }
    r->has_agent = 1;
    r->agent = (struct result_agent){
        .index = (int)ao->index,
        .count = (int)ao->count,
        .run_id = xstrdup(ao->run_id),
        .clock_offset_us = a->offset_us,
        .clock_uncertainty_us = a->uncertainty_us,
        .start_us = a->start_server_us,
        .start_local_us = a->start_local_us,
    };
    char why[256];
    if (er && a->coord_h && coord_lost(a->coord_h, why, sizeof why)) {
        r->complete = 0;
        free(r->end_reason);
        r->end_reason = xstrdup("agent-lost");
        snprintf(a->lost_why, sizeof a->lost_why, "%s", why);
    }
}

/* --merged: given, or OUTPUT.json -> OUTPUT.merged.json. */
static char *merged_path(const struct bench *b)
{
    if (b->p.agents.merged)
        return xstrdup(b->p.agents.merged);
    size_t n = strlen(b->p.output);
    if (n > 5 && strcmp(b->p.output + n - 5, ".json") == 0)
        n -= 5;
    return xasprintf("%.*s.merged.json", (int)n, b->p.output);
}

/* Agent 0: everyone's results (its own from its file), merged into --merged. */
static int merge_all(struct bench *b, char **texts, struct err *e)
{
    struct bench_agents *a = &b->agents;
    const struct bench_agents_opts *ao = &b->p.agents;
    size_t n = 0;
    struct result *in = xcalloc((size_t)ao->count, sizeof *in);
    char **names = xcalloc((size_t)ao->count, sizeof *names);
    int rc = 0, missing = 0;
    for (int i = 0; i < ao->count && rc == 0; i++) {
        names[n] = xasprintf("agent %d's result", i);
        if (i == ao->index)
            rc = result_read(b->p.output, &in[n], e);
        else if (texts[i])
            rc = result_read_text(texts[i], strlen(texts[i]), names[n], &in[n], e);
        else {
            missing = 1;
            free(names[n]);
            continue;
        }
        n++;
    }
    struct result out;
    if (rc == 0)
        rc = result_merge(in, (const char *const *)names, n, missing, &out, e);
    for (size_t i = 0; i < n; i++) {
        result_free(&in[i]);
        free(names[i]);
    }
    free(in);
    free(names);
    if (rc < 0)
        return -1;
    if (missing || a->lost_why[0]) {
        out.complete = 0;
        free(out.end_reason);
        out.end_reason = xstrdup("agent-lost");
    }
    char *path = merged_path(b);
    rc = result_write(&out, path, e);
    if (rc == 0 && b->hooks && b->hooks->merged)
        b->hooks->merged(&out, path, b->hooks->arg);
    free(path);
    result_free(&out);
    return rc;
}

int bench_agents_finish(struct bench *b, int written, struct err *e)
{
    struct bench_agents *a = &b->agents;
    const struct bench_agents_opts *ao = &b->p.agents;
    if (ao->count == 0 || !a->coord_h)
        return 0;
    char *text = NULL;
    int rc = written ? bench_read_file(b->p.output, &text, e) : -1;
    if (rc == 0)
        rc = coord_store_result(a->coord_h, text, !a->lost_why[0], e);
    free(text);
    if (rc == 0 && ao->index == 0) {
        char **texts = NULL;
        /* The others end within a few seconds of this one; more when one is lost. */
        rc = coord_collect(a->coord_h, 3.0 * COORD_SILENT_S + 30, &texts, e);
        if (rc == 0)
            rc = merge_all(b, texts, e);
        for (int i = 0; texts && i < ao->count; i++)
            free(texts[i]);
        free(texts);
    }
    if (a->lost_why[0])
        bench_warn(b, "run %s lost an agent: %s", ao->run_id, a->lost_why);
    coord_close(a->coord_h, rc == 0);
    a->coord_h = NULL;
    return rc;
}

void bench_agents_abandon(struct bench *b, const char *why)
{
    coord_abandon(b->agents.coord_h, why);
}

int bench_agents_lost(const struct bench *b)
{
    char why[8];
    return b->agents.coord_h && coord_lost(b->agents.coord_h, why, sizeof why);
}

void bench_agents_close(struct bench *b)
{
    coord_close(b->agents.coord_h, 0);
    b->agents.coord_h = NULL;
}
