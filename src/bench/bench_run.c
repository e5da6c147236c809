/* bench_run: a plan carried out, from the server's preparation to the written result. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "bench/bench_int.h"
#include "bench/files.h"
#include "os/os.h"

void bench_warn(const struct bench *b, const char *fmt, ...)
{
    if (!b->hooks || !b->hooks->warning)
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char line[1100];
    snprintf(line, sizeof line, "pgarena: %s\n", text);
    b->hooks->warning(line, b->hooks->arg);
}

/* The setup connection gives up as the clients' connects do (engine/client_conn.c), unless
 * the conninfo sets its own connect_timeout: a server that accepts the connection and never
 * answers fails the run instead of hanging it before it starts. */
#define SETUP_CONNECT_TIMEOUT_S 10

/* Read what the run needs from the server before it starts: the workload's sizes and the
 * version, and the environment the result records. */
static int prepare_server(struct bench *b, struct err *e)
{
    bench_workload_own_dbname(b);
    struct pg_conn *c = pg_connect_within(&b->p.conn, SETUP_CONNECT_TIMEOUT_S, e);
    if (!c)
        return -1;
    const char *v = pg_parameter(c, "server_version");
    snprintf(b->server_version, sizeof b->server_version, "%s", v ? v : "");
    int rc = bench_workload_detect(c, b, e);
    if (rc == 0) {
        struct err ignored = {0};
        if (pg_query_value(c, "SHOW max_connections", b->max_connections, sizeof b->max_connections,
                           &ignored) < 0)
            b->max_connections[0] = '\0';
        bench_env_before(b, c);
    }
    pg_finish(c);
    return rc;
}

/* The analytic streams a workload asks for, besides -c's clients. */
static int64_t cfg_streams(const struct bench *b)
{
    return b->wl.stream_scripts > 0 ? b->p.stream_clients : 0;
}

static int measure(struct bench *b, struct script_set *scripts, struct result *r, struct err *e)
{
    const struct bench_hooks *hooks = b->hooks;
    int64_t clients = b->p.clients + cfg_streams(b);
    struct engine_config cfg = {
        .conn = &b->p.conn,
        .scripts = scripts,
        .scale = b->p.scale,
        .clients = (int)clients,
        .threads = (int)b->p.threads,
        .duration_s = b->p.duration_s,
        .tx_per_client = b->p.tx_per_client,
        .protocol = b->p.protocol,
        .interval_us = (int64_t)BENCH_INTERVAL_MS * 1000,
        .progress_s = hooks && hooks->progress ? (double)b->p.progress_s : 0,
        .seed = (uint64_t)b->p.seed,
        .rate = b->p.rate,
        .latency_limit_us = (int64_t)(b->p.latency_limit_ms * 1000),
        .warmup_s = b->p.warmup_s,
        .max_tries = (int)b->p.max_tries,
        .timeout_us = b->p.timeout_ms * 1000,
        .connect_per_tx = b->p.connect_per_tx,
        .exit_on_abort = b->p.exit_on_abort,
        .debug = b->p.debug,
        .sleep_is_terminal_time = b->wl.sleep_is_terminal_time,
        .progress = hooks ? hooks->progress : NULL,
        .progress_arg = hooks ? hooks->arg : NULL,
        .measure_start = bench_env_measure_start,
        .measure_start_arg = b,
        .interval_done = bench_sink_interval,
        .stream_clients = (int)(clients - b->p.clients),
        .stream_scripts = b->wl.stream_scripts,
        /* One stream and no terminal: the power test, the queries in order. */
        .stream_in_order = b->p.clients == 0 && cfg_streams(b) == 1,
        .feed = bench_workload_feed(b),
    };
    /* Checked before anything is opened or allocated for the run. A socket per client, plus what
     * the threads, -l, the sampler, the coordination and the capture keep open: the common soft
     * limit of 1024 files would refuse a thousand clients. */
    struct bench_files need;
    bench_files_needed(&b->p, &need);
    /* The analytic streams are clients too: a socket each. */
    need.clients += (long)(clients - b->p.clients);
    need.total += (long)(clients - b->p.clients);
    long files = os_fdlimit_ensure(need.total);
    if (files >= 0 && files < need.total)
        return err_set(e, ERR_RUNTIME,
                       "%lld clients need %ld open files (%ld besides their sockets: threads, -l "
                       "files, sampler, coordination, capture), the limit is %ld (ulimit -Hn)",
                       (long long)clients, need.total, need.besides, files);
    bench_metrics_register(b, scripts);
    bench_log_config(b, &cfg);
    bench_agents_config(b, &cfg);
    if (b->p.duet) { /* sweep --duet: both halves start at one instant */
        cfg.barrier = b->p.duet->barrier;
        cfg.barrier_arg = b->p.duet->barrier_arg;
    }
    bench_sampling_configure(b, &cfg);
    struct engine_result er;
    struct bench_sink sink;
    clock_wall_iso8601(b->started_at, sizeof b->started_at);
    bench_sink_open(&sink, b, scripts);
    cfg.interval_arg = &sink;
    bench_health_configure(&sink, &cfg);
    cfg.counters = sink.journal != NULL; /* its counters lines */
    bench_metrics_configure(b, &cfg);
    if (engine_run(&cfg, &er, e) < 0) {
        bench_sink_close(&sink, 1, 0); /* nothing ran: nothing to keep */
        /* A run lost by another agent fails with that agent's cause: not this one's to
         * explain by its own clients. */
        int lost_elsewhere = bench_agents_lost(b);
        bench_agents_abandon(b, e->msg);
        bench_agents_close(b);
        bench_sampling_finish(b, NULL);
        if (!lost_elsewhere && b->max_connections[0] &&
            pg_connect_failure_of(e->msg) == PG_CONNECT_TOO_MANY_CLIENTS)
            err_set(e, ERR_RUNTIME,
                    "the server refused connections: %lld clients, max_connections = %s (%s)",
                    (long long)clients, b->max_connections, "too many clients already");
        return -1;
    }
    bench_metrics_end(b, &er);
    if (er.end_note[0])
        bench_warn(b, "%s", er.end_note);
    bench_build_result(b, scripts, &er, r);
    bench_sampling_finish(b, r);
    bench_workload_result(b, r);
    bench_agents_result(b, &er, r);
    bench_sink_attach(&sink, r);
    bench_env_after(b, &er, r);
    if (hooks && hooks->measured)
        hooks->measured(r, r->summary.failed > 0 ? er.first_error : "", hooks->arg);
    if (er.n_latency_out_of_range > 0)
        bench_warn(b,
                   "%llu transactions took longer than the latency histogram holds "
                   "(%lld s) and are missing from the latency figures "
                   "(summary.latency_out_of_range)",
                   (unsigned long long)er.n_latency_out_of_range,
                   (long long)(HIST_MAX_US / 1000000));
    int rc = r->complete ? 0 : 1;
    if (er.log_error[0]) { /* the run is measured and kept, but the log the user asked is not */
        bench_warn(b, "%s", er.log_error);
        rc = 1;
    }
    engine_result_free(&er);
    int written = result_write(r, b->p.output, e) == 0;
    bench_sink_close(&sink, written, 1);
    if (!written)
        rc = -1;
    else if (hooks && hooks->written)
        hooks->written(b->p.output, hooks->arg);
    if (rc >= 0 && bench_agents_finish(b, written, e) < 0)
        rc = -1;
    return rc;
}

int bench_run(const struct bench_plan *plan, const struct bench_hooks *hooks, struct result *r,
              struct err *e)
{
    memset(r, 0, sizeof *r);
    struct bench *b = xcalloc(1, sizeof *b);
    b->p = *plan;
    b->hooks = hooks;
    bench_run_id(b);
    if (!b->p.seed_given)
        b->p.seed = (int64_t)(clock_now_ns() & 0x7fffffff);
    struct script_set scripts;
    script_set_init(&scripts);
    int rc = -1;
    /* Scripts made from the tables come once the tables are known. */
    if (bench_build_scripts(b, &scripts, 1, e) == 0 && prepare_server(b, e) == 0 &&
        bench_workload_scripts(b, &scripts, e) == 0 && bench_agents_open(b, e) == 0)
        rc = measure(b, &scripts, r, e);
    bench_metrics_end(b, NULL); /* a run that never ran is done too */
    bench_agents_close(b);
    script_set_free(&scripts);
    bench_workload_free(b);
    bench_env_free(&b->env);
    srv_statements_free(&b->sampling.pgss);
    free(b);
    return rc;
}

int bench_plan_check_scripts(const struct bench_plan *plan, int read_files, int *needs_dataset,
                             struct err *e)
{
    struct bench b = {.p = *plan};
    struct script_set scripts;
    script_set_init(&scripts);
    int rc = bench_build_scripts(&b, &scripts, read_files, e);
    if (needs_dataset) /* custom scripts bring their own tables */
        *needs_dataset = b.tables_of != NULL;
    script_set_free(&scripts);
    return rc;
}

void bench_request_stop(void)
{
    engine_request_stop();
}
