#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "bench/bench_int.h"
#include "result/run_id.h"

static char *maybe_dup(const char *s)
{
    return s && *s ? xstrdup(s) : NULL;
}

static void client_info(struct result *r)
{
    struct srv_client c;
    srv_client_read(&c); /* r takes its strings */
    r->client.hostname = c.hostname;
    r->client.os = c.os;
    r->client.cpus = c.cpus;
    r->client.memory_bytes = c.memory_bytes;
    r->client.pgarena_version = c.pgarena_version;
    r->client.libpq_version = c.libpq_version;
}

void bench_error_counts(const struct engine_result *er, uint64_t out[RESULT_N_ERRORS])
{
    static const enum pg_failure map[RESULT_N_ERRORS] = {PGF_SERIALIZATION, PGF_DEADLOCK,
                                                         PGF_CONNECTION, PGF_TIMEOUT, PGF_OTHER};
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        out[k] = er->errors[map[k]];
}

/* What the engine measured, for the one place that derives the summary's figures. */
static void fill_summary(const struct engine_result *er, struct result *r)
{
    struct result_measured m = {
        .duration_s = (double)er->duration_ns / NS_PER_S,
        .transactions = er->n_tx,
        .failed = er->n_failed,
        .retried = er->n_retried,
        .retries = er->n_retries,
        .skipped = er->n_skipped,
        .late = er->n_late,
        .latency_out_of_range = er->n_latency_out_of_range,
        .latency = er->latency,
        .lag = er->lag,
        .connections = er->n_connects,
        .connect_s = (double)er->connect_time_ns / NS_PER_S,
        .clients = er->n_clients,
    };
    bench_error_counts(er, m.errors);
    result_derive_summary(r, &m);
}

static void fill_statements(const struct script_set *scripts, const struct engine_result *er,
                            struct result *r)
{
    r->n_statements = (size_t)er->n_statements;
    r->statements = xcalloc(r->n_statements, sizeof *r->statements);
    for (size_t i = 0; i < r->n_statements; i++) {
        const struct statement_result *src = &er->statements[i];
        const struct script *sc = &scripts->scripts[src->script];
        const struct script_command *cmd = &sc->cmds[src->command];
        r->statements[i] =
            (struct result_statement){xstrdup(sc->name), cmd->line,    xstrdup(cmd->text),
                                      src->count,        src->mean_us, (double)src->p99_us};
    }
}

static void fill_script_summaries(const struct script_set *scripts, const struct engine_result *er,
                                  struct result *r)
{
    r->summary.n_scripts = (size_t)er->n_scripts;
    r->summary.scripts = xcalloc(r->summary.n_scripts, sizeof *r->summary.scripts);
    for (int i = 0; i < er->n_scripts; i++) {
        const struct engine_script_figures *src = &er->scripts[i];
        struct result_script_figures *s = &r->summary.scripts[i];
        s->name = xstrdup(scripts->scripts[i].name);
        s->weight = scripts->scripts[i].weight;
        result_derive_script(s, src->n_tx, src->n_failed, r->summary.duration_s, src->latency);
        s->retried = src->n_retried;
        s->skipped = src->n_skipped;
    }
}

static const char *end_reason_name(enum end_reason why)
{
    switch (why) {
    case END_FINISHED:
        return "finished";
    case END_INTERRUPTED:
        return "interrupted";
    case END_SERVER_LOST:
        return "server-lost";
    default:
        return "error";
    }
}

/* run_id (bench_run_id's); a duet half's duet {}; meta from --meta. */
static void identity(const struct bench *b, struct result *r)
{
    r->run_id = xstrdup(b->run_id);
    if (b->p.duet) {
        r->has_duet = 1;
        snprintf(r->duet.id, sizeof r->duet.id, "%s", b->p.duet->id);
        snprintf(r->duet.partner, sizeof r->duet.partner, "%s", b->p.duet->partner);
        r->duet.role = b->p.duet->role;
    }
    r->meta = xcalloc((size_t)b->p.n_meta + 1, sizeof *r->meta);
    for (int i = 0; i < b->p.n_meta; i++) {
        const char *eq = strchr(b->p.meta[i], '=');
        r->meta[r->n_meta++] = (struct result_meta){
            xstrndup(b->p.meta[i], (size_t)(eq - b->p.meta[i])), xstrdup(eq + 1)};
    }
}

/* Random, or for an agent derived from --run-id and its index, or a duet half's as its
 * partner knows it. */
void bench_run_id(struct bench *b)
{
    if (b->p.duet)
        snprintf(b->run_id, sizeof b->run_id, "%s", b->p.duet->run_id);
    else if (b->p.agents.count > 0 && b->p.agents.run_id)
        run_id_derived("agent", b->p.agents.run_id, (long)b->p.agents.index, b->run_id);
    else
        run_id_random(b->run_id);
}

void bench_build_result(const struct bench *b, const struct script_set *scripts,
                        const struct engine_result *er, struct result *r)
{
    char now[40];
    memset(r, 0, sizeof *r);
    r->label = maybe_dup(b->p.label);
    identity(b, r);
    r->started_at = xstrdup(b->started_at);
    clock_wall_iso8601(now, sizeof now);
    r->finished_at = xstrdup(now);
    r->command = xstrdup(b->p.command);
    r->complete = er->end_reason == END_FINISHED;
    r->end_reason = xstrdup(end_reason_name(er->end_reason));
    client_info(r);
    r->server.version = maybe_dup(b->server_version);
    r->workload.name = xstrdup(b->workload_name);
    r->workload.scale = b->p.scale;
    r->workload.n_sizes = b->wl.n_sizes; /* what was loaded, beside a scale */
    memcpy(r->workload.sizes, b->wl.sizes, sizeof r->workload.sizes);
    r->workload.n_scripts = (size_t)scripts->n_scripts;
    r->workload.scripts = xcalloc(r->workload.n_scripts, sizeof *r->workload.scripts);
    for (int i = 0; i < scripts->n_scripts; i++) {
        r->workload.scripts[i].name = xstrdup(scripts->scripts[i].name);
        r->workload.scripts[i].weight = scripts->scripts[i].weight;
        r->workload.scripts[i].text = xstrdup(scripts->scripts[i].source);
    }
    r->options.clients = (int)b->p.clients;
    int64_t all = er->n_clients; /* -c's and any analytic streams */
    r->options.threads = (int)(b->p.threads < all ? b->p.threads : all);
    r->options.duration_s = (double)b->p.duration_s;
    r->options.transactions_per_client = b->p.tx_per_client;
    r->options.protocol = xstrdup(bench_protocol_names[b->p.protocol]);
    r->options.seed = (uint64_t)b->p.seed;
    r->options.rate = b->p.rate;
    r->options.latency_limit_ms = b->p.latency_limit_ms;
    r->options.connect_per_tx = b->p.connect_per_tx;
    r->options.warmup_s = (double)b->p.warmup_s;
    fill_summary(er, r);
    fill_script_summaries(scripts, er, r);
    fill_statements(scripts, er, r);
    /* The terminals only: analytic streams come after them (none before the run: bench_journal.c).
     */
    r->n_clients = (size_t)(b->p.clients < er->n_clients ? b->p.clients : er->n_clients);
    r->clients = xcalloc(r->n_clients, sizeof *r->clients);
    for (size_t i = 0; i < r->n_clients; i++)
        r->clients[i] = (struct result_client){er->clients[i].n_tx, er->clients[i].n_failed};
}
