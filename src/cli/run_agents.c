#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "cli/args.h"
#include "cli/run_int.h"
#include "coord/coord.h"
#include "report/text.h"
#include "result/merge.h"

/* run --agents: one agent's share of a run split over several processes (DESIGN.md "Several
 * load hosts"). The options, the split, the coordination around the engine, and agent 0's
 * merge of everyone's results. */

int run_agents_option(int opt, const char *arg, struct run_opts *o, struct err *e)
{
    struct run_agents *a = &o->agents;
    switch (opt) {
    case RUN_OPT_AGENTS:
        return args_int("--agents", arg, 1, 10000, &a->count, e) < 0 ? -1 : 1;
    case RUN_OPT_AGENT_INDEX:
        a->index_given = 1;
        return args_int("--agent-index", arg, INT32_MIN, INT32_MAX, &a->index, e) < 0 ? -1 : 1;
    case RUN_OPT_RUN_ID:
        a->run_id = arg;
        return 1;
    case RUN_OPT_COORD:
        a->coord = arg;
        return 1;
    case RUN_OPT_MERGED:
        a->merged = arg;
        return 1;
    case RUN_OPT_AGENT_WAIT:
        return args_int("--agent-wait", arg, 1, 86400, &a->wait_s, e) < 0 ? -1 : 1;
    default:
        return 0;
    }
}

/* A seed every agent derives alike when --seed is not given: from the run id (FNV-1a). */
static int64_t seed_of(const char *run_id)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = run_id; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return (int64_t)(h & 0x7fffffff);
}

int run_agents_check(struct run_opts *o, struct err *e)
{
    struct run_agents *a = &o->agents;
    if (a->count == 0) {
        if (a->index_given || a->run_id || a->coord || a->merged || a->wait_s)
            return err_set(e, ERR_INPUT,
                           "run: --agent-index, --run-id, --coord, --merged and "
                           "--agent-wait need --agents N");
        return 0;
    }
    if (!a->index_given) {
        int from_env = coord_index_from_env();
        if (from_env == -2)
            return err_set(e, ERR_INPUT,
                           "run: JOB_COMPLETION_INDEX or SLURM_PROCID is not an "
                           "agent index");
        if (from_env < 0)
            return err_set(e, ERR_INPUT,
                           "run: --agents needs --agent-index (or "
                           "JOB_COMPLETION_INDEX, SLURM_PROCID)");
        a->index = from_env;
    }
    if (a->index < 0 || a->index >= a->count)
        return err_set(e, ERR_INPUT, "run: --agent-index %lld is outside 0..%lld",
                       (long long)a->index, (long long)a->count - 1);
    if (!a->run_id || !*a->run_id)
        return err_set(e, ERR_INPUT, "run: --agents needs --run-id ID (the same for every agent)");
    if (o->local)
        return err_set(e, ERR_INPUT, "run: --agents cannot be combined with --local");
    if (o->clients < a->count)
        return err_set(e, ERR_INPUT, "run: -c %lld gives no client to some of --agents %lld",
                       (long long)o->clients, (long long)a->count);
    if (!a->wait_s)
        a->wait_s = 60;
    /* The split: this agent's clients and rate; the seed stays the run's (recorded as such)
     * and each agent draws from its own derived one. */
    a->clients_all = o->clients;
    a->rate_all = o->rate;
    o->clients = coord_split_clients(a->clients_all, (int)a->count, (int)a->index);
    o->rate = coord_split_rate(a->rate_all, a->clients_all, o->clients);
    if (!o->seed_given) {
        o->seed = seed_of(a->run_id);
        o->seed_given = 1;
    }
    return 0;
}

/* What must agree across the run's agents, one "name=value" line each. */
static char *options_text(const struct run_opts *o)
{
    struct buf b;
    buf_init(&b);
    buf_printf(&b, "-w=%s\n", o->workload_name ? o->workload_name : "");
    for (int i = 0; i < o->n_specs; i++)
        buf_printf(&b, "-%c=%s\n", o->specs[i].kind, o->specs[i].arg);
    for (int i = 0; i < o->n_defines; i++)
        buf_printf(&b, "-D=%s\n", o->defines[i]);
    buf_printf(&b, "-s=%lld\n-c=%lld\n-R=%g\n-T=%lld\n-t=%lld\n-M=%s\n", (long long)o->scale,
               (long long)o->agents.clients_all, o->agents.rate_all, (long long)o->duration_s,
               (long long)o->tx_per_client, run_protocol_names[o->protocol]);
    buf_printf(&b, "--warmup=%lld\n--latency-limit=%g\n--max-tries=%lld\n--timeout=%lld\n",
               (long long)o->warmup_s, o->latency_limit_ms, (long long)o->max_tries,
               (long long)o->timeout_ms);
    buf_printf(&b, "-C=%d\n--seed=%lld\n", o->connect_per_tx, (long long)o->seed);
    char *text = xstrdup(b.data ? b.data : "");
    buf_free(&b);
    return text;
}

static void stop_engine(void)
{
    engine_request_stop();
}

int run_agents_open(struct run_opts *o, struct err *e)
{
    struct run_agents *a = &o->agents;
    if (a->count == 0)
        return 0;
    struct pg_connopts coord = {0};
    const struct pg_connopts *conn = &o->conn;
    if (a->coord) {
        coord.dbname = xstrdup(a->coord);
        conn = &coord;
    }
    struct srv_client me;
    srv_client_read(&me);
    char *options = options_text(o);
    struct coord_agent ca = {(int)a->index, (int)a->count, a->run_id,
                             options,       me.hostname,   (double)a->wait_s};
    a->coord_h = coord_open(conn, &ca, e);
    free(options);
    srv_client_free(&me);
    pg_connopts_free(&coord);
    if (!a->coord_h)
        return -1;
    coord_on_lost(a->coord_h, stop_engine);
    if (coord_measure_clock(a->coord_h, &a->offset_us, &a->uncertainty_us, e) < 0) {
        coord_close(a->coord_h, 0);
        a->coord_h = NULL;
        return -1;
    }
    return 0;
}

/* The engine's barrier callback (arg: struct run_opts). */
static int barrier(void *arg, time_ns *go_ns, struct err *e)
{
    struct run_opts *o = arg;
    struct run_agents *a = &o->agents;
    int64_t start_us;
    if (coord_barrier(a->coord_h, go_ns, &start_us, e) < 0)
        return -1;
    a->start_server_us = start_us + o->warmup_s * 1000000; /* as planned */
    a->start_local_us = a->start_server_us - (int64_t)a->offset_us;
    return 0;
}

void run_agents_config(struct run_opts *o, struct engine_config *cfg)
{
    if (o->agents.count == 0)
        return;
    cfg->seed = coord_split_seed((uint64_t)o->seed, (int)o->agents.index);
    cfg->barrier = barrier;
    cfg->barrier_arg = o;
}

void run_agents_result(struct run_opts *o, const struct engine_result *er, struct result *r)
{
    struct run_agents *a = &o->agents;
    if (a->count == 0)
        return;
    /* The start as it happened, on this host's clock and on the server's by the offset: the
     * spread of the latter across agents is the start skew the merge reports. */
    if (er && er->start_wall_us > 0) {
        a->start_local_us = er->start_wall_us + o->warmup_s * 1000000;
        a->start_server_us = a->start_local_us + (int64_t)a->offset_us;
    }
    r->has_agent = 1;
    r->agent = (struct result_agent){
        .index = (int)a->index,
        .count = (int)a->count,
        .run_id = xstrdup(a->run_id),
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
static char *merged_path(const struct run_opts *o)
{
    if (o->agents.merged)
        return xstrdup(o->agents.merged);
    size_t n = strlen(o->output);
    if (n > 5 && strcmp(o->output + n - 5, ".json") == 0)
        n -= 5;
    return xasprintf("%.*s.merged.json", (int)n, o->output);
}

/* Agent 0: everyone's results (its own from its file), merged into --merged. */
static int merge_all(struct run_opts *o, char **texts, struct err *e)
{
    struct run_agents *a = &o->agents;
    size_t n = 0;
    struct result *in = xcalloc((size_t)a->count, sizeof *in);
    char **names = xcalloc((size_t)a->count, sizeof *names);
    int rc = 0, missing = 0;
    for (int i = 0; i < a->count && rc == 0; i++) {
        names[n] = xasprintf("agent %d's result", i);
        if (i == a->index)
            rc = result_read(o->output, &in[n], e);
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
    char *path = merged_path(o);
    rc = result_write(&out, path, e);
    if (rc == 0 && !o->embedded) {
        printf("merged result of %zu agents:\n", out.n_agents);
        report_text_summary(stdout, &out);
        printf("merged:              %s\n", path);
    }
    free(path);
    result_free(&out);
    return rc;
}

int run_agents_finish(struct run_opts *o, int written, struct err *e)
{
    struct run_agents *a = &o->agents;
    if (a->count == 0 || !a->coord_h)
        return 0;
    char *text = NULL;
    int rc = written ? cli_read_file(o->output, &text, e) : -1;
    if (rc == 0)
        rc = coord_store_result(a->coord_h, text, !a->lost_why[0], e);
    free(text);
    if (rc == 0 && a->index == 0) {
        char **texts = NULL;
        /* The others end within a few seconds of this one; more when one is lost. */
        rc = coord_collect(a->coord_h, 3.0 * COORD_SILENT_S + 30, &texts, e);
        if (rc == 0)
            rc = merge_all(o, texts, e);
        for (int i = 0; texts && i < a->count; i++)
            free(texts[i]);
        free(texts);
    }
    if (a->lost_why[0] && !o->embedded)
        fprintf(stderr, "pgarena: run %s lost an agent: %s\n", a->run_id, a->lost_why);
    coord_close(a->coord_h, rc == 0);
    a->coord_h = NULL;
    return rc;
}

void run_agents_close(struct run_opts *o)
{
    coord_close(o->agents.coord_h, 0);
    o->agents.coord_h = NULL;
}
