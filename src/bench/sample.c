/* run's sampling: the wait-event sampler with the
 * client's and the host's CPU per interval, and pg_stat_statements around the measured part.
 * --no-sampling turns all of it off, and the result then has none of its paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "bench/bench_int.h"

/* The statements kept in statements_server[]. */
#define TOP_STATEMENTS 10

static void started(time_ns measured_start_ns, void *arg)
{
    struct bench *b = arg;
    struct sampler_config cfg = {
        .conn = &b->p.conn,
        .sample_ms = (int)b->p.sampling.sample_ms,
        .interval_us = (int64_t)BENCH_INTERVAL_MS * 1000,
        .start_ns = measured_start_ns,
        .pids = b->sampling.pids,
        .n_pids = b->sampling.n_pids,
        .host = b->env.have_env && b->env.env.location == SRV_LOCATION_LOCAL,
        .server_io = 1,
    };
    b->sampling.start_ns = measured_start_ns;
    bench_server_io_started(b, measured_start_ns);
    b->sampling.sampler = sampler_start(&cfg);
    if (!b->sampling.sampler)
        bench_warn(b, "warning: could not start the sampler; the run goes on without it");
}

void bench_sampling_configure(struct bench *b, struct engine_config *cfg)
{
    if (b->p.sampling.off)
        return;
    b->sampling.n_pids = cfg->clients;
    b->sampling.pids = xcalloc((size_t)cfg->clients, sizeof *b->sampling.pids);
    cfg->backend_pids = b->sampling.pids;
    cfg->started = started;
    cfg->started_arg = b;
}

void bench_sampling_interval(struct bench *b, size_t idx, double t_s, struct result_interval *it)
{
    if (!b->sampling.sampler)
        return;
    struct sample_interval si;
    sampler_take(b->sampling.sampler, idx, b->sampling.start_ns + (time_ns)(t_s * NS_PER_S), &si);
    bench_metrics_waits(b, &si); /* every event, before the interval keeps its top ones */
    size_t n = si.n_waits < RESULT_INTERVAL_WAITS ? si.n_waits : RESULT_INTERVAL_WAITS;
    it->waits = xcalloc(n ? n : 1, sizeof *it->waits);
    for (size_t i = 0; i < n; i++) {
        it->waits[i] = (struct result_wait){si.waits[i].name, si.waits[i].count};
        si.waits[i].name = NULL; /* moved */
    }
    it->n_waits = n;
    it->has_client_cpu = si.have_cpu;
    it->cpu_user = si.cpu_user;
    it->cpu_system = si.cpu_system;
    it->has_host = si.have_host;
    it->host = (struct result_host){si.host.user,
                                    si.host.system,
                                    si.host.iowait,
                                    si.host.idle,
                                    (int64_t)si.disk.read_bytes,
                                    (int64_t)si.disk.write_bytes,
                                    si.host.steal,
                                    1};
    bench_server_io_interval(b, &si, it);
    b->sampling.so_far = (struct journal_sampler){1, si.max_thread_core, si.sees_all};
    sample_interval_free(&si);
}

void bench_sampling_finish(struct bench *b, struct result *r)
{
    if (b->sampling.sampler && !r) {
        struct sample_totals t;
        sampler_stop(b->sampling.sampler, &t);
        sample_totals_free(&t);
        b->sampling.sampler = NULL;
        bench_server_io_free(b);
    }
    if (b->sampling.sampler) {
        struct sample_totals t;
        sampler_stop(b->sampling.sampler, &t);
        b->sampling.sampler = NULL;
        r->waits.present = 1;
        r->waits.sample_ms = t.sample_ms;
        r->waits.samples = t.samples;
        r->waits.n_events = t.n_waits;
        r->waits.events = xcalloc(t.n_waits ? t.n_waits : 1, sizeof *r->waits.events);
        for (size_t i = 0; i < t.n_waits; i++) {
            r->waits.events[i] = (struct result_wait){t.waits[i].name, t.waits[i].count};
            t.waits[i].name = NULL;
        }
        r->waits.visibility = t.sees_all < 0 ? NULL : xstrdup(t.sees_all ? "all" : "own-user");
        r->waits.note = t.note[0] ? xstrdup(t.note) : NULL;
        result_derive_client_cpu(&r->client_cpu, &t.cpu);
        bench_server_io_finish(b, &t, r);
        sample_totals_free(&t);
    }
    free(b->sampling.pids);
    b->sampling.pids = NULL;
}

void bench_sampling_measure_start(struct bench *b, struct pg_conn *c)
{
    if (b->p.sampling.off)
        return;
    srv_statements_free(&b->sampling.pgss);
    srv_statements_read(c, &b->sampling.pgss);
}

void bench_sampling_statements(struct bench *b, struct pg_conn *c, struct result *r)
{
    struct srv_statements *before = &b->sampling.pgss;
    if (b->p.sampling.off)
        return;
    if (!before->read) {
        r->statements_server_note =
            xstrdup(before->note[0] ? before->note : "pg_stat_statements was not read");
        return;
    }
    struct srv_statements after;
    if (srv_statements_read(c, &after) < 0) {
        r->statements_server_note = xstrdup(after.note);
    } else {
        struct srv_statement *d;
        size_t n = srv_statements_delta(before, &after, TOP_STATEMENTS, &d);
        r->statements_server = xcalloc(n ? n : 1, sizeof *r->statements_server);
        for (size_t i = 0; i < n; i++) {
            r->statements_server[i] = (struct result_server_statement){
                d[i].query, d[i].calls, d[i].total_ms,
                d[i].calls ? d[i].total_ms / (double)d[i].calls : 0, d[i].rows};
            d[i].query = NULL;
        }
        r->n_statements_server = n;
        srv_statements_delta_free(d, n);
    }
    srv_statements_free(&after);
    srv_statements_free(before);
}
