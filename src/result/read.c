#include "result/result.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "os/os.h"
#include "result/journal.h"
#include "result/result_int.h"
#include "result/run_id.h"

/* Reading is strict about what later commands rely on (format, version, summary, intervals,
 * histogram) and lenient about the rest, which may be absent in files of other tools'
 * making or of a later minor extension. */

static const struct result_size_form *const *size_forms;

void result_sizes_register(const struct result_size_form *const *forms)
{
    size_forms = forms;
}

static char *dup_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? xstrdup(s) : NULL;
}

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static uint64_t count(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v > 0 ? (uint64_t)v : 0;
}

static void read_latency(const json_t *l, struct latency_summary *out)
{
    out->min = num(l, "min");
    out->mean = num(l, "mean");
    out->stddev = num(l, "stddev");
    out->p50 = num(l, "p50");
    out->p90 = num(l, "p90");
    out->p95 = num(l, "p95");
    out->p99 = num(l, "p99");
    out->p999 = num(l, "p999");
    out->max = num(l, "max");
}

void result_latency_from_json(const json_t *l, struct latency_summary *out)
{
    read_latency(l, out);
}

double result_part_num(const json_t *o, const char *key)
{
    return num(o, key);
}

uint64_t result_part_count(const json_t *o, const char *key)
{
    return count(o, key);
}

/* summary.scripts[]: absent in files written before it (then none). */
static int read_script_summaries(const json_t *a, struct result *r)
{
    if (!a)
        return 0;
    if (!json_is_array(a))
        return -1;
    r->summary.scripts = xcalloc(json_array_size(a), sizeof *r->summary.scripts);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *o = json_array_get(a, i);
        if (!json_is_object(o) || !json_is_string(json_object_get(o, "name")))
            return -1;
        struct result_script_figures *s = &r->summary.scripts[r->summary.n_scripts++];
        s->name = dup_str(o, "name");
        s->weight = (int)count(o, "weight");
        s->transactions = count(o, "transactions");
        s->failed = count(o, "failed");
        s->retried = count(o, "retried");
        s->skipped = count(o, "skipped");
        s->tps = num(o, "tps");
        read_latency(json_object_get(o, "latency_us"), &s->latency_us);
        json_t *h = json_object_get(o, "histogram");
        if (h && result_hist_from_json(h, &s->histogram) < 0)
            return -1;
    }
    return 0;
}

static int read_summary(const json_t *s, struct result *r)
{
    if (!json_is_object(s) || !json_is_integer(json_object_get(s, "transactions")) ||
        !(json_is_number(json_object_get(s, "tps")) || json_is_null(json_object_get(s, "tps"))) ||
        !json_is_object(json_object_get(s, "latency_us")))
        return -1;
    r->summary.duration_s = num(s, "duration_s");
    r->summary.transactions = count(s, "transactions");
    r->summary.failed = count(s, "failed");
    r->summary.retried = count(s, "retried");
    r->summary.tps = num(s, "tps");
    json_t *errors = json_object_get(s, "errors");
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        r->summary.errors[k] = count(errors, result_error_names[k]);
    read_latency(json_object_get(s, "latency_us"), &r->summary.latency_us);
    json_t *under = json_object_get(s, "under_ms");
    r->summary.under_100ms = num(under, "100");
    r->summary.under_1000ms = num(under, "1000");
    r->summary.under_5000ms = num(under, "5000");
    r->summary.skipped = count(s, "skipped");
    r->summary.latency_out_of_range = count(s, "latency_out_of_range");
    r->summary.late = count(s, "late");
    r->summary.retries = count(s, "retries");
    json_t *lag = json_object_get(s, "lag_us"), *conn = json_object_get(s, "connections");
    r->summary.lag_mean_us = num(lag, "mean");
    r->summary.lag_p99_us = num(lag, "p99");
    r->summary.lag_max_us = num(lag, "max");
    r->summary.connections = count(conn, "count");
    r->summary.connect_mean_us = num(conn, "mean_us");
    r->summary.tps_excluding_connect = num(conn, "tps_excluding_connect");
    result_sio_summary_read(s, r);
    return read_script_summaries(json_object_get(s, "scripts"), r);
}

/* tx_100ms: absent, or at most RESULT_INTERVAL_TENTHS counts. */
static int read_tenths(const json_t *a, struct result_interval *it)
{
    if (!a)
        return 0;
    if (!json_is_array(a) || json_array_size(a) > RESULT_INTERVAL_TENTHS)
        return -1;
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        it->tenths[i] = (uint64_t)json_integer_value(v);
    }
    it->n_tenths = json_array_size(a);
    return 0;
}

int result_interval_from_json(const json_t *o, struct result_interval *it)
{
    memset(it, 0, sizeof *it);
    if (!json_is_object(o) || !json_is_number(json_object_get(o, "t_s")))
        return -1;
    it->t_s = num(o, "t_s");
    it->duration_s = num(o, "duration_s");
    it->transactions = count(o, "transactions");
    it->failed = count(o, "failed");
    if (read_tenths(json_object_get(o, "tx_100ms"), it) < 0)
        return -1;
    it->tps = num(o, "tps");
    json_t *l = json_object_get(o, "latency_us");
    it->p50_us = num(l, "p50");
    it->p99_us = num(l, "p99");
    it->max_us = num(l, "max");
    json_t *h = json_object_get(o, "histogram");
    if (h && result_interval_hist_from_json(h, it) < 0)
        return -1;
    if (result_interval_sampling_read(o, it) < 0 ||
        result_sio_from_json(json_object_get(o, "server_io"), &it->sio) < 0) {
        result_interval_clear(it);
        return -1;
    }
    return 0;
}

static int read_intervals(const json_t *a, struct result *r)
{
    if (!json_is_array(a))
        return -1;
    r->n_intervals = json_array_size(a);
    r->intervals = xcalloc(r->n_intervals, sizeof *r->intervals);
    for (size_t i = 0; i < r->n_intervals; i++)
        if (result_interval_from_json(json_array_get(a, i), &r->intervals[i]) < 0)
            return -1;
    return 0;
}

static void read_statements(const json_t *a, struct result *r)
{
    r->n_statements = json_array_size(a);
    r->statements = xcalloc(r->n_statements, sizeof *r->statements);
    for (size_t i = 0; i < r->n_statements; i++) {
        const json_t *o = json_array_get(a, i);
        struct result_statement *st = &r->statements[i];
        st->script = dup_str(o, "script");
        st->line = (int)count(o, "line");
        st->sql = dup_str(o, "sql");
        st->count = count(o, "count");
        st->mean_us = num(json_object_get(o, "latency_us"), "mean");
        st->p99_us = num(json_object_get(o, "latency_us"), "p99");
    }
}

/* An integer that may be null or absent: -1 then. */
/* The registered sizes the workload object holds, in their registered order. */
static void read_sizes(const json_t *w, struct result *r)
{
    for (size_t i = 0; size_forms && size_forms[i]; i++) {
        int64_t v = (int64_t)count(w, size_forms[i]->key);
        if (v > 0 && r->workload.n_sizes < RESULT_MAX_SIZES)
            r->workload.sizes[r->workload.n_sizes++] = (struct result_size){size_forms[i], v};
    }
}

static int64_t known_int(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (int64_t)json_integer_value(v) : -1;
}

static double known_num(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

static void read_settings(const json_t *s, const json_t *changed, struct result *r)
{
    const char *name;
    json_t *v;
    r->server.settings = xcalloc(json_object_size(s), sizeof *r->server.settings);
    json_object_foreach((json_t *)s, name, v)
    {
        struct result_setting *st = &r->server.settings[r->server.n_settings++];
        st->name = xstrdup(name);
        st->value = json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
        for (size_t i = 0; i < json_array_size(changed); i++) {
            const char *c = json_string_value(json_array_get(changed, i));
            if (c && strcmp(c, name) == 0)
                st->non_default = 1;
        }
    }
}

static void read_server(const json_t *root, struct result *r)
{
    json_t *s = json_object_get(root, "server"), *a;
    r->server.version = dup_str(s, "version");
    read_settings(json_object_get(s, "settings"), json_object_get(s, "non_default_settings"), r);
    r->server.database_size_bytes = known_int(s, "database_size_bytes");
    r->server.dataset_bytes = known_int(s, "dataset_bytes");
    a = json_object_get(s, "tables");
    r->server.tables = xcalloc(json_array_size(a), sizeof *r->server.tables);
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *t = json_array_get(a, i);
        r->server.tables[r->server.n_tables++] = (struct result_table){
            dup_str(t, "name"), known_int(t, "bytes"), known_int(t, "index_bytes")};
    }
    r->server.location = dup_str(s, "location");
    json_t *ssl = json_object_get(s, "ssl");
    r->server.ssl = json_is_boolean(ssl) ? json_is_true(ssl) : -1;
    r->server.rtt_us = known_num(s, "rtt_us");
    r->server.capture_ms = known_num(s, "capture_ms");
    a = json_object_get(s, "warnings");
    r->server.warnings = xcalloc(json_array_size(a), sizeof *r->server.warnings);
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *w = json_array_get(a, i);
        r->server.warnings[r->server.n_warnings++] = (struct result_warning){
            dup_str(w, "setting"), dup_str(w, "value"), dup_str(w, "message")};
    }
}

/* Every integer or null member is a counter; cache_hit_ratio is the one fraction. */
static void read_server_stats(const json_t *s, struct result *r)
{
    const char *name;
    json_t *v;
    r->cache_hit_ratio = known_num(s, "cache_hit_ratio");
    r->server_stats = xcalloc(json_object_size(s), sizeof *r->server_stats);
    json_object_foreach((json_t *)s, name, v)
    {
        if (strcmp(name, "cache_hit_ratio") == 0 || !(json_is_integer(v) || json_is_null(v)))
            continue;
        r->server_stats[r->n_server_stats++] = (struct result_stat){
            xstrdup(name), json_is_integer(v) ? (int64_t)json_integer_value(v) : 0,
            json_is_integer(v)};
    }
}

/* What the machine and the server were: client details, server, server_stats. */
static void read_environment(const json_t *root, struct result *r)
{
    json_t *c = json_object_get(root, "client");
    r->client.kernel = dup_str(c, "kernel");
    r->client.cpu_model = dup_str(c, "cpu_model");
    r->client.distribution = dup_str(c, "distribution");
    read_server(root, r);
    read_server_stats(json_object_get(root, "server_stats"), r);
}

/* duet {}: only in a duet's halves; a malformed one is left out (the file reads as solo). */
static void read_duet(const json_t *d, struct result *r)
{
    const char *id = json_string_value(json_object_get(d, "id"));
    const char *partner = json_string_value(json_object_get(d, "partner"));
    const char *role = json_string_value(json_object_get(d, "role"));
    if (!id || !partner || !role || strlen(id) > RUN_ID_LEN || strlen(partner) > RUN_ID_LEN ||
        (strcmp(role, "a") != 0 && strcmp(role, "b") != 0))
        return;
    r->has_duet = 1;
    snprintf(r->duet.id, sizeof r->duet.id, "%s", id);
    snprintf(r->duet.partner, sizeof r->duet.partner, "%s", partner);
    r->duet.role = role[0];
}

/* run_id and meta {}: absent in files written before them (meta's non-string values are
 * skipped: only text is recorded). */
static void read_identity(const json_t *root, struct result *r)
{
    r->run_id = dup_str(root, "run_id");
    json_t *m = json_object_get(root, "meta"), *v;
    const char *key;
    r->meta = xcalloc(json_object_size(m) + 1, sizeof *r->meta);
    json_object_foreach(m, key, v)
    {
        if (json_is_string(v))
            r->meta[r->n_meta++] =
                (struct result_meta){xstrdup(key), xstrdup(json_string_value(v))};
    }
    read_duet(json_object_get(root, "duet"), r);
}

static void read_context(const json_t *root, struct result *r)
{
    read_identity(root, r);
    r->label = dup_str(root, "label");
    r->started_at = dup_str(root, "started_at");
    r->finished_at = dup_str(root, "finished_at");
    r->command = dup_str(root, "command");
    r->complete = json_is_true(json_object_get(root, "complete"));
    r->end_reason = dup_str(root, "end_reason");
    json_t *asof = json_object_get(root, "counters_as_of_s");
    r->counters_as_of_s = json_is_number(asof) ? json_number_value(asof) : 0;
    json_t *c = json_object_get(root, "client");
    r->client.hostname = dup_str(c, "hostname");
    r->client.os = dup_str(c, "os");
    r->client.pgarena_version = dup_str(c, "pgarena_version");
    r->client.libpq_version = dup_str(c, "libpq_version");
    r->client.cpus = (int)count(c, "cpus");
    r->client.memory_bytes = (int64_t)count(c, "memory_bytes");
    read_environment(root, r);
    json_t *w = json_object_get(root, "workload");
    r->workload.name = dup_str(w, "name");
    r->workload.scale = (int64_t)count(w, "scale");
    read_sizes(w, r);
    json_t *scripts = json_object_get(w, "scripts");
    r->workload.n_scripts = json_array_size(scripts);
    r->workload.scripts = xcalloc(r->workload.n_scripts, sizeof *r->workload.scripts);
    for (size_t i = 0; i < r->workload.n_scripts; i++) {
        json_t *s = json_array_get(scripts, i);
        r->workload.scripts[i].name = dup_str(s, "name");
        r->workload.scripts[i].weight = (int)count(s, "weight");
        r->workload.scripts[i].text = dup_str(s, "text");
    }
    json_t *o = json_object_get(root, "options");
    r->options.clients = (int)count(o, "clients");
    r->options.threads = (int)count(o, "threads");
    r->options.duration_s = num(o, "duration_s");
    r->options.transactions_per_client = (int64_t)count(o, "transactions_per_client");
    r->options.rate = num(o, "rate");
    r->options.latency_limit_ms = num(o, "latency_limit_ms");
    r->options.connect_per_tx = json_is_true(json_object_get(o, "connect_per_tx"));
    r->options.protocol = dup_str(o, "protocol");
    r->options.warmup_s = num(o, "warmup_s");
    r->options.seed = count(o, "seed");
    json_t *clients = json_object_get(root, "clients");
    r->n_clients = json_array_size(clients);
    r->clients = xcalloc(r->n_clients, sizeof *r->clients);
    for (size_t i = 0; i < r->n_clients; i++) {
        r->clients[i].transactions = count(json_array_get(clients, i), "transactions");
        r->clients[i].failed = count(json_array_get(clients, i), "failed");
    }
    read_statements(json_object_get(root, "statements"), r);
}

static void read_agent(const json_t *o, struct result_agent *a)
{
    json_t *u = json_object_get(o, "clock_uncertainty_us");
    a->index = (int)count(o, "index");
    a->count = (int)count(o, "count");
    a->run_id = dup_str(o, "run_id");
    a->clock_offset_us = num(o, "clock_offset_us");
    a->clock_uncertainty_us = json_is_number(u) ? json_number_value(u) : -1;
    a->start_us = (int64_t)count(o, "start_us");
    a->start_local_us = (int64_t)count(o, "start_local_us");
    a->host = dup_str(o, "host");
    a->clients = (int)count(o, "clients");
    a->rate = num(o, "rate");
    a->transactions = count(o, "transactions");
    a->tps = num(o, "tps");
    a->p99_us = num(o, "p99");
    a->complete = json_is_true(json_object_get(o, "complete"));
    a->end_reason = dup_str(o, "end_reason");
    json_t *cpu = json_object_get(o, "client_cpu");
    if (json_is_object(cpu)) {
        a->has_cpu = 1;
        a->cpu_user = num(cpu, "user");
        a->cpu_system = num(cpu, "system");
    }
}

/* agent (one agent's file), agents[] and merge (a merged file), and the histogram's
 * parameters. */
static void read_agents(const json_t *root, struct result *r)
{
    json_t *h = json_object_get(root, "histogram"), *sub = json_object_get(h, "sub_buckets");
    r->hist_unit = dup_str(h, "unit");
    r->hist_sub_buckets = json_is_integer(sub) ? (int)json_integer_value(sub) : HIST_SUB_BUCKETS;
    json_t *a = json_object_get(root, "agent");
    if (json_is_object(a)) {
        r->has_agent = 1;
        read_agent(a, &r->agent);
    }
    json_t *list = json_object_get(root, "agents"), *m = json_object_get(root, "merge");
    r->agents = xcalloc(json_array_size(list) + 1, sizeof *r->agents);
    for (size_t i = 0; i < json_array_size(list); i++)
        read_agent(json_array_get(list, i), &r->agents[r->n_agents++]);
    r->merge.start_spread_us = known_num(m, "start_spread_us");
    r->merge.clock_uncertainty_us = known_num(m, "clock_uncertainty_us");
    r->merge.server_xact_commit = known_int(m, "server_xact_commit");
    r->merge.transactions = count(m, "transactions");
    const char *by = json_string_value(json_object_get(m, "intervals_aligned_by"));
    r->merge.aligned = by && strcmp(by, "time") == 0;
}

/* Version 3 writes a lone script's histogram once, as the document's. */
static void share_lone_script_hist(const json_t *summary, struct result *r)
{
    const json_t *s0 = json_array_get(json_object_get(summary, "scripts"), 0);
    if (r->summary.n_scripts != 1 || json_object_get(s0, "histogram"))
        return;
    struct hist_sparse *h = &r->summary.scripts[0].histogram;
    *h = r->histogram;
    h->bins = xcalloc(h->n_bins ? h->n_bins : 1, sizeof *h->bins);
    if (h->n_bins)
        memcpy(h->bins, r->histogram.bins, h->n_bins * sizeof *h->bins);
}

/* skip_intervals: the caller reads them (read_fast). */
static int read_root(const json_t *root, const char *path, struct result *r, struct err *e,
                     int skip_intervals)
{
    const char *format = json_string_value(json_object_get(root, "format"));
    json_t *version = json_object_get(root, "version");
    if (!json_is_object(root) || !format || strcmp(format, RESULT_FORMAT) != 0)
        return err_set(e, ERR_INPUT, "%s: not a pgarena result file (format is not \"%s\")", path,
                       RESULT_FORMAT);
    if (!json_is_integer(version) || json_integer_value(version) < 1)
        return err_set(e, ERR_INPUT, "%s: missing or invalid version", path);
    if (json_integer_value(version) > RESULT_VERSION)
        return err_set(e, ERR_INPUT,
                       "%s: result file version %lld is newer than this pgarena reads (%d)", path,
                       (long long)json_integer_value(version), RESULT_VERSION);
    read_context(root, r);
    read_agents(root, r);
    result_env_read(root, r);
    if (read_summary(json_object_get(root, "summary"), r) < 0)
        return err_set(e, ERR_INPUT, "%s: missing or invalid summary", path);
    result_classes_read(json_object_get(root, "summary"), r);
    const char *what = NULL;
    if (result_parts_read(root, r, &what) < 0)
        return err_set(e, ERR_INPUT, "%s: invalid %s", path, what);
    if (!skip_intervals && read_intervals(json_object_get(root, "intervals"), r) < 0)
        return err_set(e, ERR_INPUT, "%s: invalid intervals", path);
    if (result_hist_from_json(json_object_get(root, "histogram"), &r->histogram) < 0)
        return err_set(e, ERR_INPUT, "%s: missing or invalid histogram", path);
    share_lone_script_hist(json_object_get(root, "summary"), r);
    if (result_sampling_read(root, r) < 0)
        return err_set(e, ERR_INPUT, "%s: invalid waits or statements_server", path);
    if (result_events_read(root, r) < 0)
        return err_set(e, ERR_INPUT, "%s: invalid events", path);
    return 0;
}

/*
 * result_write's own layout, read fast: the document up to ",\n \"intervals\": [", then one
 * interval per line. A 24-hour file holds 86,400 intervals; one jansson tree of them all
 * takes several times the file's size in memory, while one line at a time takes a few KB.
 * Returns 1 when read, 0 when the text is not in that layout or anything in it does not read
 * (the caller then reads it whole, which also gives the precise error), -1 with e set when
 * the document was read and is refused.
 */
static const char intervals_marker[] = ",\n \"intervals\": [";

static int count_lines(const char *p, const char *end, size_t *n)
{
    *n = 0;
    for (;;) {
        if (end - p >= 5 && memcmp(p, "\n ]\n}", 5) == 0)
            return end - p == 5 || (end - p == 6 && p[5] == '\n') ? 0 : -1;
        if (end - p < 3 || memcmp(p, "\n  ", 3) != 0)
            return -1;
        const char *nl = memchr(p + 3, '\n', (size_t)(end - p - 3));
        if (!nl || nl == p + 3)
            return -1;
        (*n)++;
        p = nl;
    }
}

static int read_lines(const char *p, const char *end, size_t n, struct result *r)
{
    r->intervals = xcalloc(n, sizeof *r->intervals);
    for (size_t i = 0; i < n; i++) {
        const char *line = p + 3, *nl = memchr(line, '\n', (size_t)(end - line));
        size_t len = (size_t)(nl - line) - (i + 1 < n); /* the comma between lines */
        json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
        int rc = o ? result_interval_from_json(o, &r->intervals[i]) : -1;
        json_decref(o);
        if (rc < 0)
            return -1;
        r->n_intervals = i + 1;
        p = nl;
    }
    return 0;
}

static int read_fast(const char *text, size_t len, const char *name, struct result *r,
                     struct err *e)
{
    const char *m = memmem(text, len, intervals_marker, sizeof intervals_marker - 1);
    size_t n;
    if (!m || text[len - 1] != '\n' ||
        count_lines(m + sizeof intervals_marker - 1, text + len, &n) < 0)
        return 0;
    size_t head_len = (size_t)(m - text);
    char *head = xmalloc(head_len + 2);
    memcpy(head, text, head_len);
    memcpy(head + head_len, "}", 2);
    json_t *root = json_loadb(head, head_len + 1, JSON_REJECT_DUPLICATES, NULL);
    free(head);
    if (!root)
        return 0;
    if (json_object_get(root, "intervals")) {
        json_decref(root);
        return 0;
    }
    int rc = read_root(root, name, r, e, 1);
    json_decref(root);
    if (rc < 0)
        return -1;
    if (read_lines(m + sizeof intervals_marker - 1, text + len, n, r) < 0) {
        result_free(r);
        return 0;
    }
    return 1;
}

/* A file written before run_id: the hash of its bytes names it. */
static void derive_run_id(const char *text, size_t len, struct result *r)
{
    if (r->run_id)
        return;
    struct run_id_hash h;
    char id[RUN_ID_LEN + 1];
    run_id_hash_init(&h);
    run_id_hash_add(&h, text, len);
    run_id_hash_uuid(&h, id);
    r->run_id = xstrdup(id);
}

int result_read_text(const char *text, size_t len, const char *name, struct result *r,
                     struct err *e)
{
    memset(r, 0, sizeof *r);
    if (len > 0) {
        int fast = read_fast(text, len, name, r, e);
        if (fast != 0) {
            if (fast < 0)
                result_free(r);
            else {
                derive_run_id(text, len, r);
                result_sio_fixup(r);
            }
            return fast > 0 ? 0 : -1;
        }
        memset(r, 0, sizeof *r);
    }
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return err_set(e, ERR_INPUT, "%s:%d:%d: invalid JSON: %s", name, je.line, je.column,
                       je.text);
    int rc = read_root(root, name, r, e, 0);
    json_decref(root);
    if (rc < 0)
        result_free(r);
    else {
        derive_run_id(text, len, r);
        result_sio_fixup(r);
    }
    return rc;
}

/* One interval line of the stream ("  {...}," or the last one "  {...}"): 1 read, 2 the
 * line closing the array, 0 not an interval line. */
static int stream_interval(const char *line, size_t len, struct result *r, size_t *cap)
{
    if (len == 3 && memcmp(line, " ]\n", 3) == 0)
        return 2;
    if (len < 5 || memcmp(line, "  {", 3) != 0 || line[len - 1] != '\n')
        return 0;
    len -= 1 + (line[len - 2] == ',');
    if (r->n_intervals == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        r->intervals = xrealloc(r->intervals, *cap * sizeof *r->intervals);
    }
    json_t *o = json_loadb(line + 2, len - 2, JSON_REJECT_DUPLICATES, NULL);
    int rc = o ? result_interval_from_json(o, &r->intervals[r->n_intervals]) : -1;
    json_decref(o);
    if (rc < 0)
        return 0;
    r->n_intervals++;
    return 1;
}

/*
 * result_write's own layout read from f a line at a time, as read_fast does from memory, so
 * that a 24-hour file (tens of MB) is never held whole: the head up to the line
 * ` "intervals": [`, then one interval per line, then ` ]` and `}`. Returns as read_fast; on
 * 0, r is empty and the caller reads f again from its start.
 */
static int read_stream(FILE *f, const char *name, struct result *r, struct err *e)
{
    struct buf head;
    buf_init(&head);
    char *line = NULL;
    size_t line_cap = 0, cap = 0;
    ssize_t len;
    int rc = 0, in_head = 1, closed = 0, ended = 0;
    while ((len = getline(&line, &line_cap, f)) > 0) {
        if (in_head && strcmp(line, " \"intervals\": [\n") == 0) {
            /* The head ends with ",\n": close the object there. */
            if (head.len < 2 || memcmp(head.data + head.len - 2, ",\n", 2) != 0)
                break;
            head.len -= 2;
            buf_puts(&head, "}");
            json_t *root = json_loadb(head.data, head.len, JSON_REJECT_DUPLICATES, NULL);
            if (!root || json_object_get(root, "intervals")) {
                json_decref(root);
                break;
            }
            rc = read_root(root, name, r, e, 1);
            json_decref(root);
            if (rc < 0)
                break;
            in_head = 0;
        } else if (in_head) {
            buf_append(&head, line, (size_t)len);
        } else if (!closed) {
            int k = stream_interval(line, (size_t)len, r, &cap);
            if (k == 0)
                break;
            closed = k == 2;
        } else if (!ended && (strcmp(line, "}\n") == 0 || strcmp(line, "}") == 0)) {
            ended = 1;
        } else {
            ended = 0; /* anything after the closing brace */
            break;
        }
    }
    free(line);
    buf_free(&head);
    if (rc < 0) {
        result_free(r);
        return -1;
    }
    if (!ended || ferror(f)) {
        result_free(r);
        memset(r, 0, sizeof *r);
        return 0;
    }
    return 1;
}

int result_read(const char *path, struct result *r, struct err *e)
{
    memset(r, 0, sizeof *r);
    FILE *f = os_fopen(path, "r");
    if (!f && errno == ENOENT) {
        if (journal_exists(path))
            return err_set(e, ERR_INPUT,
                           "%s: no such file, but %s.journal holds a run that did not end: "
                           "run `pgarena recover %s` to make the result from it",
                           path, path, path);
        errno = ENOENT;
    }
    if (!f)
        return err_set(e, ERR_INPUT, "%s: unable to open %s: %s", path, path, strerror(errno));
    int fast = read_stream(f, path, r, e);
    if (fast != 0) {
        fclose(f);
        char id[RUN_ID_LEN + 1];
        if (fast > 0 && !r->run_id && run_id_of_file(path, id) == 0)
            r->run_id = xstrdup(id);
        if (fast > 0)
            result_sio_fixup(r);
        return fast > 0 ? 0 : -1;
    }
    /* Not in result_write's layout (or refused by a line): the whole document, which also
     * gives the precise error. */
    rewind(f);
    struct buf b;
    buf_init(&b);
    int failed = buf_read_all(&b, f);
    fclose(f);
    int rc = failed ? err_set(e, ERR_INPUT, "%s: cannot read: %s", path, strerror(failed))
                    : result_read_text(b.data, b.len, path, r, e);
    buf_free(&b);
    return rc;
}

static void result_server_free(struct result *r)
{
    free(r->server.version);
    for (size_t i = 0; i < r->server.n_settings; i++) {
        free(r->server.settings[i].name);
        free(r->server.settings[i].value);
    }
    free(r->server.settings);
    for (size_t i = 0; i < r->server.n_tables; i++)
        free(r->server.tables[i].name);
    free(r->server.tables);
    free(r->server.location);
    for (size_t i = 0; i < r->server.n_warnings; i++) {
        free(r->server.warnings[i].setting);
        free(r->server.warnings[i].value);
        free(r->server.warnings[i].message);
    }
    free(r->server.warnings);
    for (size_t i = 0; i < r->n_server_stats; i++)
        free(r->server_stats[i].name);
    free(r->server_stats);
}

void result_agent_free(struct result_agent *a)
{
    free(a->run_id);
    free(a->host);
    free(a->end_reason);
    memset(a, 0, sizeof *a);
}

void result_free(struct result *r)
{
    free(r->hist_unit);
    result_agent_free(&r->agent);
    for (size_t i = 0; i < r->n_agents; i++)
        result_agent_free(&r->agents[i]);
    free(r->agents);
    free(r->label);
    free(r->started_at);
    free(r->finished_at);
    free(r->command);
    free(r->end_reason);
    free(r->client.hostname);
    free(r->client.os);
    free(r->client.pgarena_version);
    free(r->client.libpq_version);
    free(r->client.kernel);
    free(r->client.cpu_model);
    free(r->client.distribution);
    result_server_free(r);
    free(r->workload.name);
    for (size_t i = 0; i < r->workload.n_scripts; i++) {
        free(r->workload.scripts[i].name);
        free(r->workload.scripts[i].text);
    }
    free(r->workload.scripts);
    free(r->options.protocol);
    for (size_t i = 0; i < r->summary.n_scripts; i++) {
        free(r->summary.scripts[i].name);
        hist_sparse_free(&r->summary.scripts[i].histogram);
    }
    free(r->summary.scripts);
    result_classes_free(r);
    result_parts_free(r);
    for (size_t i = 0; i < r->n_intervals; i++)
        result_interval_clear(&r->intervals[i]);
    free(r->intervals);
    result_sampling_free(r);
    result_events_free(r);
    free(r->journal);
    hist_sparse_free(&r->histogram);
    free(r->clients);
    for (size_t i = 0; i < r->n_statements; i++) {
        free(r->statements[i].script);
        free(r->statements[i].sql);
    }
    free(r->statements);
    result_env_free(r);
    free(r->run_id);
    for (size_t i = 0; i < r->n_meta; i++) {
        free(r->meta[i].key);
        free(r->meta[i].value);
    }
    free(r->meta);
    memset(r, 0, sizeof *r);
}
