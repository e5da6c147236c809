#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "bench/bench_int.h"

/* The environment around a run, read on connections of pgarena's own, never the benchmark
 * clients': settings and sizes before the run, statistics at the start of the measured part
 * and after it. Nothing is read while the measured part runs. A failure to read costs the
 * result some fields and a line on stderr, never the run. */

static void note(const struct bench *b, const char *what, const struct err *e)
{
    bench_warn(b, "could not read %s: %s", what, e->msg);
}

/* A failure that says the server stopped answering (a deadline of pg_connect_aux ran out),
 * not that it refused or broke. */
static int no_answer(const struct err *e)
{
    return pg_connect_failure_of(e->msg) == PG_CONNECT_NO_ANSWER;
}

/* 1 when the server did not answer in time. */
static int read_stats(struct pg_conn *c, const struct bench *b, struct srv_stats *out)
{
    struct err e = {0};
    int version = b->env.have_env ? b->env.env.version_num : pg_server_version(c);
    if (srv_stats_read(c, version, out, &e) > 0) {
        note(b, "server statistics", &e);
        return no_answer(&e);
    }
    return 0;
}

void bench_env_before(struct bench *b, struct pg_conn *c)
{
    time_ns start = clock_now_ns();
    struct err e = {0};
    if (srv_env_capture(c, &b->env.env, &e) < 0)
        note(b, "server settings", &e);
    b->env.have_env = 1;
    if (b->p.warmup_s == 0) {
        srv_stats_flush_own(c, b->env.env.version_num);
        bench_sampling_measure_start(b, c);
        read_stats(c, b, &b->env.before);
        b->env.have_before = 1;
    }
    b->env.capture_ns += clock_now_ns() - start;
}

void bench_env_measure_start(void *arg)
{
    struct bench *b = arg;
    bench_workload_measure_start(b);
    time_ns start = clock_now_ns();
    struct err e = {0};
    struct pg_conn *c = pg_connect_aux(&b->p.conn, PG_AUX_TIMEOUT_MS, &e);
    if (!c) {
        note(b, "server statistics", &e);
        return;
    }
    bench_sampling_measure_start(b, c);
    read_stats(c, b, &b->env.before);
    b->env.have_before = 1;
    pg_finish(c);
    b->env.capture_ns += clock_now_ns() - start;
}

/* The reading after the run, into after; 0 when there is none. */
static int stats_after(struct bench *b, const struct engine_result *er, struct srv_stats *after,
                       struct result *r)
{
    if (!b->env.have_before || er->end_reason == END_SERVER_LOST)
        return 0;
    struct err e = {0};
    struct pg_conn *c = pg_connect_aux(&b->p.conn, PG_AUX_TIMEOUT_MS, &e);
    if (!c) {
        note(b, "server statistics", &e);
        b->env.silent_after = no_answer(&e);
        return 0;
    }
    /* A backend adds its last counts when it exits, just after its client disconnected. */
    if (b->env.env.n_other_backends >= 0)
        srv_wait_backends(c, b->env.env.n_other_backends, NS_PER_S);
    b->env.silent_after = read_stats(c, b, after);
    bench_sampling_statements(b, c, r);
    pg_finish(c);
    return 1;
}

static void fill_machine(struct result *r)
{
    struct srv_machine m;
    srv_machine_read(&m);
    r->client.kernel = m.kernel;
    r->client.cpu_model = m.cpu_model;
    r->client.distribution = m.distribution;
}

static void fill_server(const struct srv_env *env, struct result *r)
{
    static const char *const locations[] = {NULL, "local", "remote"};
    r->server.settings = xcalloc(env->n_settings, sizeof *r->server.settings);
    r->server.n_settings = env->n_settings;
    for (size_t i = 0; i < env->n_settings; i++) {
        const struct srv_setting *s = &env->settings[i];
        r->server.settings[i] = (struct result_setting){
            xstrdup(s->name), s->value ? xstrdup(s->value) : NULL, s->non_default};
    }
    r->server.tables = xcalloc(env->n_tables, sizeof *r->server.tables);
    r->server.n_tables = env->n_tables;
    for (size_t i = 0; i < env->n_tables; i++)
        r->server.tables[i] =
            (struct result_table){xstrdup(env->tables[i].name ? env->tables[i].name : "?"),
                                  env->tables[i].bytes, env->tables[i].index_bytes};
    r->server.database_size_bytes = env->database_size_bytes;
    r->server.dataset_bytes = env->dataset_bytes;
    r->server.location = locations[env->location] ? xstrdup(locations[env->location]) : NULL;
    r->server.ssl = env->ssl;
    r->server.rtt_us = env->rtt_us;
}

static void fill_stats(const struct srv_stats *d, struct result *r)
{
    r->n_server_stats = SRV_N_STATS;
    r->server_stats = xcalloc(SRV_N_STATS, sizeof *r->server_stats);
    for (int i = 0; i < SRV_N_STATS; i++)
        r->server_stats[i] =
            (struct result_stat){xstrdup(srv_stat_names[i]), d->v[i], d->v[i] >= 0};
    r->cache_hit_ratio = srv_cache_hit_ratio(d);
}

static void fill_warnings(const struct bench *b, const struct srv_stats *delta, struct result *r)
{
    const struct srv_env *env = &b->env.env;
    int writes = 0;
    if (delta)
        for (int k = SRV_TUP_INSERTED; k <= SRV_TUP_DELETED; k++)
            writes |= delta->v[k] > 0;
    struct srv_run_facts facts = {(int)b->p.clients,  r->summary.duration_s, writes,
                                  env->dataset_bytes, env->location,         env->host};
    struct srv_warning *w;
    size_t n = srv_lint(env->settings, env->n_settings, &facts, &w);
    r->server.warnings = xcalloc(n, sizeof *r->server.warnings);
    r->server.n_warnings = n;
    for (size_t i = 0; i < n; i++) /* the strings move to the result */
        r->server.warnings[i] = (struct result_warning){w[i].setting, w[i].value, w[i].message};
    free(w);
}

void bench_env_after(struct bench *b, const struct engine_result *er, struct result *r)
{
    time_ns start = clock_now_ns();
    struct srv_stats after, delta;
    int have_after = stats_after(b, er, &after, r);
    b->env.capture_ns += clock_now_ns() - start;
    fill_machine(r);
    fill_server(&b->env.env, r);
    r->server.capture_ms = (double)b->env.capture_ns / NS_PER_MS;
    r->cache_hit_ratio = -1;
    if (have_after) {
        srv_stats_delta(&b->env.before, &after, &delta);
        fill_stats(&delta, r);
    }
    fill_warnings(b, have_after ? &delta : NULL, r);
    /* The clients ended on their own (--timeout) but the server no longer answers: what was
     * measured is kept, and the run says it lost its server, as a run cut short by it does. */
    if (b->env.silent_after && r->complete) {
        r->complete = 0;
        free(r->end_reason);
        r->end_reason = xstrdup("server-lost");
        bench_warn(b, "the server stopped answering during the run: the result is incomplete");
    }
}

void bench_env_header(struct bench *b, struct result *r)
{
    fill_machine(r);
    fill_server(&b->env.env, r);
    r->server.capture_ms = (double)b->env.capture_ns / NS_PER_MS;
    r->cache_hit_ratio = -1;
    fill_warnings(b, NULL, r);
}

void bench_env_free(struct bench_env *env)
{
    srv_env_free(&env->env);
}
