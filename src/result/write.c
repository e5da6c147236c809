#include "result/result.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "result/journal.h"
#include "result/result_int.h"
#include "os/os.h"

const char *const result_error_names[RESULT_N_ERRORS] = {"serialization", "deadlock", "connection",
                                                         "timeout", "other"};

/* Builders that never fail: jansson refuses NaN, infinities and invalid UTF-8, and a
 * refused value must not silently drop a field from a result someone paid for. */

static json_t *str_or_null(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = xstrdup(s); /* not UTF-8: keep the ASCII, mark the rest */
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j ? j : json_null();
}

static json_t *real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static void set(json_t *o, const char *key, json_t *v)
{
    json_object_set_new(o, key, v ? v : json_null());
}

static void set_num(json_t *o, const char *key, double v)
{
    set(o, key, real(v));
}

static void set_int(json_t *o, const char *key, int64_t v)
{
    set(o, key, json_integer((json_int_t)v));
}

static void set_str(json_t *o, const char *key, const char *s)
{
    set(o, key, str_or_null(s));
}

static json_t *latency_json(const struct latency_summary *l)
{
    json_t *o = json_object();
    set_num(o, "min", l->min);
    set_num(o, "mean", l->mean);
    set_num(o, "stddev", l->stddev);
    set_num(o, "p50", l->p50);
    set_num(o, "p90", l->p90);
    set_num(o, "p95", l->p95);
    set_num(o, "p99", l->p99);
    set_num(o, "p999", l->p999);
    set_num(o, "max", l->max);
    return o;
}

json_t *result_part_real(double v)
{
    return real(v);
}

json_t *result_part_str(const char *s)
{
    return str_or_null(s);
}

static int same_hist(const struct hist_sparse *a, const struct hist_sparse *b)
{
    return a->count == b->count && a->n_bins == b->n_bins && a->min_us == b->min_us &&
           a->max_us == b->max_us && a->sum_us == b->sum_us && a->sumsq_us == b->sumsq_us &&
           (a->n_bins == 0 || memcmp(a->bins, b->bins, a->n_bins * sizeof *a->bins) == 0);
}

json_t *result_part_latency_json(const struct latency_summary *s)
{
    json_t *l = json_object();
    set_num(l, "min", s->min);
    set_num(l, "mean", s->mean);
    set_num(l, "p50", s->p50);
    set_num(l, "p90", s->p90);
    set_num(l, "p95", s->p95);
    set_num(l, "p99", s->p99);
    set_num(l, "max", s->max);
    return l;
}

/* summary.scripts[]: each script's latency, without stddev and p999 (its keys are
 * docs/result.schema.json's). */
static json_t *scripts_summary_json(const struct result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->summary.n_scripts; i++) {
        const struct result_script_figures *s = &r->summary.scripts[i];
        json_t *o = json_object();
        set_str(o, "name", s->name);
        set_int(o, "weight", s->weight);
        set_int(o, "transactions", (int64_t)s->transactions);
        set_int(o, "failed", (int64_t)s->failed);
        set_int(o, "retried", (int64_t)s->retried);
        set_int(o, "skipped", (int64_t)s->skipped);
        set_num(o, "tps", s->tps);
        set(o, "latency_us", result_part_latency_json(&s->latency_us));
        /* Version 3: a lone script's histogram is the document's; written once. */
        if (!(r->summary.n_scripts == 1 && same_hist(&s->histogram, &r->histogram)))
            set(o, "histogram", result_hist_to_json(&s->histogram));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *summary_json(const struct result *r)
{
    json_t *o = json_object(), *errors = json_object(), *under = json_object();
    set_num(o, "duration_s", r->summary.duration_s);
    set_int(o, "transactions", (int64_t)r->summary.transactions);
    set_int(o, "failed", (int64_t)r->summary.failed);
    set_int(o, "retried", (int64_t)r->summary.retried);
    set_num(o, "tps", r->summary.tps);
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        set_int(errors, result_error_names[k], (int64_t)r->summary.errors[k]);
    set(o, "errors", errors);
    set(o, "latency_us", latency_json(&r->summary.latency_us));
    set_num(under, "100", r->summary.under_100ms);
    set_num(under, "1000", r->summary.under_1000ms);
    set_num(under, "5000", r->summary.under_5000ms);
    set(o, "under_ms", under);
    set_int(o, "skipped", (int64_t)r->summary.skipped);
    set_int(o, "late", (int64_t)r->summary.late);
    set_int(o, "latency_out_of_range", (int64_t)r->summary.latency_out_of_range);
    set_int(o, "retries", (int64_t)r->summary.retries);
    json_t *lag = json_object(), *conn = json_object();
    set_num(lag, "mean", r->summary.lag_mean_us);
    set_num(lag, "p99", r->summary.lag_p99_us);
    set_num(lag, "max", r->summary.lag_max_us);
    set(o, "lag_us", lag);
    set_int(conn, "count", (int64_t)r->summary.connections);
    set_num(conn, "mean_us", r->summary.connect_mean_us);
    set_num(conn, "tps_excluding_connect", r->summary.tps_excluding_connect);
    set(o, "connections", conn);
    result_parts_json(r, RESULT_PART_SUMMARY, o, o);
    set(o, "scripts", scripts_summary_json(r));
    result_sio_summary_json(r, o);
    result_classes_json(r, o);
    return o;
}

static json_t *workload_json(const struct result *r)
{
    json_t *o = json_object(), *scripts = json_array();
    for (size_t i = 0; i < r->workload.n_scripts; i++) {
        const struct result_script_text *s = &r->workload.scripts[i];
        json_t *js = json_object();
        set_str(js, "name", s->name);
        set_int(js, "weight", s->weight);
        set_str(js, "text", s->text);
        json_array_append_new(scripts, js);
    }
    set_str(o, "name", r->workload.name);
    set_int(o, "scale", r->workload.scale);
    set(o, "scripts", scripts);
    for (size_t i = 0; i < r->workload.n_sizes; i++)
        set_int(o, r->workload.sizes[i].form->key, r->workload.sizes[i].value);
    return o;
}

static json_t *options_json(const struct result *r)
{
    json_t *o = json_object();
    set_int(o, "clients", r->options.clients);
    set_int(o, "threads", r->options.threads);
    set_num(o, "duration_s", r->options.duration_s);
    set_int(o, "transactions_per_client", r->options.transactions_per_client);
    set_num(o, "rate", r->options.rate);
    set_num(o, "latency_limit_ms", r->options.latency_limit_ms);
    set(o, "connect_per_tx", json_boolean(r->options.connect_per_tx));
    set_str(o, "protocol", r->options.protocol);
    set_num(o, "warmup_s", r->options.warmup_s);
    set_int(o, "seed", (int64_t)r->options.seed);
    return o;
}

static json_t *interval_json(const struct result_interval *it)
{
    json_t *o = json_object(), *lat = json_object();
    set_num(o, "t_s", it->t_s);
    set_num(o, "duration_s", it->duration_s);
    set_int(o, "transactions", (int64_t)it->transactions);
    set_int(o, "failed", (int64_t)it->failed);
    if (it->n_tenths > 0) {
        json_t *tenths = json_array();
        for (size_t i = 0; i < it->n_tenths; i++)
            json_array_append_new(tenths, json_integer((json_int_t)it->tenths[i]));
        set(o, "tx_100ms", tenths);
    }
    set_num(o, "tps", it->tps);
    set_num(lat, "p50", it->p50_us);
    set_num(lat, "p99", it->p99_us);
    set_num(lat, "max", it->max_us);
    set(o, "latency_us", lat);
    set(o, "histogram", result_interval_hist_json(it));
    result_interval_sampling_json(it, o);
    json_t *sio = result_sio_json(&it->sio);
    if (sio)
        set(o, "server_io", sio);
    return o;
}

char *result_interval_dumps(const struct result_interval *it)
{
    json_t *o = interval_json(it);
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!text)
        abort(); /* jansson fails only when out of memory */
    return text;
}

static json_t *clients_json(const struct result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n_clients; i++) {
        json_t *o = json_object();
        set_int(o, "transactions", (int64_t)r->clients[i].transactions);
        set_int(o, "failed", (int64_t)r->clients[i].failed);
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *statements_json(const struct result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n_statements; i++) {
        const struct result_statement *st = &r->statements[i];
        json_t *o = json_object(), *lat = json_object();
        set_str(o, "script", st->script);
        set_int(o, "line", st->line);
        set_str(o, "sql", st->sql);
        set_int(o, "count", (int64_t)st->count);
        set_num(lat, "mean", st->mean_us);
        set_num(lat, "p99", st->p99_us);
        set(o, "latency_us", lat);
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *client_json(const struct result *r)
{
    json_t *o = json_object();
    set_str(o, "hostname", r->client.hostname);
    set_str(o, "os", r->client.os);
    set_int(o, "cpus", r->client.cpus);
    set_int(o, "memory_bytes", r->client.memory_bytes);
    set_str(o, "pgarena_version", r->client.pgarena_version);
    set_str(o, "libpq_version", r->client.libpq_version);
    set_str(o, "kernel", r->client.kernel);
    set_str(o, "cpu_model", r->client.cpu_model);
    set_str(o, "distribution", r->client.distribution);
    return o;
}

/* Sizes, times and counts below zero mean "unknown" and are written as null. */
static void set_known_int(json_t *o, const char *key, int64_t v)
{
    set(o, key, v >= 0 ? json_integer((json_int_t)v) : json_null());
}

static void set_known_num(json_t *o, const char *key, double v)
{
    set(o, key, v >= 0 ? real(v) : json_null());
}

static json_t *server_json(const struct result *r)
{
    json_t *o = json_object(), *settings = json_object(), *changed = json_array();
    json_t *tables = json_array(), *warnings = json_array();
    set_str(o, "version", r->server.version);
    for (size_t i = 0; i < r->server.n_settings; i++) {
        const struct result_setting *st = &r->server.settings[i];
        set_str(settings, st->name, st->value);
        if (st->non_default)
            json_array_append_new(changed, str_or_null(st->name));
    }
    set(o, "settings", settings);
    set(o, "non_default_settings", changed);
    set_known_int(o, "database_size_bytes", r->server.database_size_bytes);
    set_known_int(o, "dataset_bytes", r->server.dataset_bytes);
    for (size_t i = 0; i < r->server.n_tables; i++) {
        json_t *t = json_object();
        set_str(t, "name", r->server.tables[i].name);
        set_known_int(t, "bytes", r->server.tables[i].bytes);
        set_known_int(t, "index_bytes", r->server.tables[i].index_bytes);
        json_array_append_new(tables, t);
    }
    set(o, "tables", tables);
    set_str(o, "location", r->server.location);
    set(o, "ssl", r->server.ssl < 0 ? json_null() : json_boolean(r->server.ssl));
    set_known_num(o, "rtt_us", r->server.rtt_us);
    set_known_num(o, "capture_ms", r->server.capture_ms);
    for (size_t i = 0; i < r->server.n_warnings; i++) {
        json_t *w = json_object();
        set_str(w, "setting", r->server.warnings[i].setting);
        set_str(w, "value", r->server.warnings[i].value);
        set_str(w, "message", r->server.warnings[i].message);
        json_array_append_new(warnings, w);
    }
    set(o, "warnings", warnings);
    return o;
}

/* null when no statistics were read at all. */
static json_t *server_stats_json(const struct result *r)
{
    if (r->n_server_stats == 0)
        return json_null();
    json_t *o = json_object();
    for (size_t i = 0; i < r->n_server_stats; i++) {
        const struct result_stat *st = &r->server_stats[i];
        set(o, st->name, st->known ? json_integer((json_int_t)st->value) : json_null());
    }
    set_known_num(o, "cache_hit_ratio", r->cache_hit_ratio);
    return o;
}

/* The agent object: what identifies an agent's share and its clock; with figures set, also
 * the host and figures that agents[] lists. */
static json_t *agent_json(const struct result_agent *a, int figures)
{
    json_t *o = json_object();
    set_int(o, "index", a->index);
    set_int(o, "count", a->count);
    set_str(o, "run_id", a->run_id);
    set_num(o, "clock_offset_us", a->clock_offset_us);
    set_known_num(o, "clock_uncertainty_us", a->clock_uncertainty_us);
    set(o, "start_us", a->start_us > 0 ? json_integer((json_int_t)a->start_us) : json_null());
    set(o, "start_local_us",
        a->start_local_us > 0 ? json_integer((json_int_t)a->start_local_us) : json_null());
    if (!figures)
        return o;
    set_str(o, "host", a->host);
    set_int(o, "clients", a->clients);
    set_num(o, "rate", a->rate);
    set_int(o, "transactions", (int64_t)a->transactions);
    set_num(o, "tps", a->tps);
    set_num(o, "p99", a->p99_us);
    set(o, "complete", json_boolean(a->complete));
    set_str(o, "end_reason", a->end_reason);
    if (a->has_cpu) {
        json_t *cpu = json_object();
        set_num(cpu, "user", a->cpu_user);
        set_num(cpu, "system", a->cpu_system);
        set(o, "client_cpu", cpu);
    }
    return o;
}

static void agents_json(json_t *root, const struct result *r)
{
    if (r->has_agent)
        set(root, "agent", agent_json(&r->agent, 0));
    if (r->n_agents == 0)
        return;
    json_t *a = json_array(), *m = json_object();
    for (size_t i = 0; i < r->n_agents; i++)
        json_array_append_new(a, agent_json(&r->agents[i], 1));
    set(root, "agents", a);
    set_int(m, "agents", (int64_t)r->n_agents);
    set_known_num(m, "start_spread_us", r->merge.start_spread_us);
    set_known_num(m, "clock_uncertainty_us", r->merge.clock_uncertainty_us);
    set_known_int(m, "server_xact_commit", r->merge.server_xact_commit);
    set_int(m, "transactions", (int64_t)r->merge.transactions);
    set_str(m, "intervals_aligned_by", r->merge.aligned ? "time" : "index");
    set(root, "merge", m);
}

static json_t *meta_json(const struct result *r)
{
    json_t *o = json_object();
    for (size_t i = 0; i < r->n_meta; i++)
        set_str(o, r->meta[i].key, r->meta[i].value);
    return o;
}

static json_t *result_json(const struct result *r)
{
    json_t *root = json_object();
    set_str(root, "format", RESULT_FORMAT);
    set_int(root, "version", RESULT_VERSION);
    set_str(root, "label", r->label);
    if (r->run_id)
        set_str(root, "run_id", r->run_id);
    set(root, "meta", meta_json(r));
    if (r->has_duet) {
        json_t *d = json_object();
        set_str(d, "id", r->duet.id);
        set_str(d, "partner", r->duet.partner);
        set_str(d, "role", r->duet.role == 'b' ? "b" : "a");
        set(root, "duet", d);
    }
    set_str(root, "started_at", r->started_at);
    set_str(root, "finished_at", r->finished_at);
    set_str(root, "command", r->command);
    set(root, "complete", json_boolean(r->complete));
    set_str(root, "end_reason", r->end_reason);
    if (r->counters_as_of_s > 0)
        set(root, "counters_as_of_s", real(r->counters_as_of_s));
    set(root, "client", client_json(r));
    set(root, "server", server_json(r));
    set(root, "server_stats", server_stats_json(r));
    set(root, "workload", workload_json(r));
    set(root, "options", options_json(r));
    set(root, "summary", summary_json(r));
    result_parts_json(r, RESULT_PART_ROOT, root, json_object_get(root, "summary"));
    set(root, "histogram", result_hist_to_json(&r->histogram));
    set(root, "clients", clients_json(r));
    set(root, "statements", statements_json(r));
    agents_json(root, r);
    result_sampling_json(r, root);
    result_events_json(r, root);
    return root;
}

char *result_header_dumps(const struct result *r)
{
    json_t *root = result_json(r);
    set(root, "intervals", json_array());
    char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    return text;
}

int result_write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

void result_sync_dir(const char *path)
{
    os_sync_dir(path);
}

static int write_str(int fd, const char *s)
{
    return result_write_all(fd, s, strlen(s));
}

/* The first n interval lines of a journal (after its header line), as they are. Returns 0, or
 * -1 with errno set (EINVAL: the journal holds fewer). */
static int copy_journal(int fd, const char *path, size_t n)
{
    FILE *f = os_fopen(path, "r");
    if (!f)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, f); /* the header */
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n;) {
        len = getline(&line, &cap, f);
        if (len <= 1 || line[len - 1] != '\n') {
            errno = EINVAL;
            rc = -1;
            break;
        }
        if (!journal_line_is_interval(line, (size_t)len)) /* a snapshot or events line */
            continue;
        rc = write_str(fd, i++ ? ",\n  " : "\n  ");
        if (rc == 0)
            rc = result_write_all(fd, line, (size_t)len - 1);
    }
    free(line);
    fclose(f);
    return rc;
}

/* The document without its intervals, then the intervals one at a time: a long run has
 * thousands of interval histograms, and a jansson tree of them all costs ~17 times the memory
 * the run itself kept for them. Returns 0, or -1 with errno set. */
static int write_document(int fd, const struct result *r)
{
    json_t *root = result_json(r);
    char *head = root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    char *close_brace = head ? strrchr(head, '}') : NULL;
    if (!close_brace) {
        free(head);
        errno = ENOMEM;
        return -1;
    }
    int rc = result_write_all(fd, head, (size_t)(close_brace - head));
    free(head);
    if (rc == 0)
        rc = write_str(fd, ",\n \"intervals\": [");
    if (rc == 0 && r->journal)
        rc = copy_journal(fd, r->journal, r->n_journal);
    for (size_t i = 0; rc == 0 && i < r->n_intervals; i++) {
        char *text = result_interval_dumps(&r->intervals[i]);
        rc = write_str(fd, i + r->n_journal ? ",\n  " : "\n  ");
        if (rc == 0)
            rc = result_write_all(fd, text, strlen(text));
        free(text);
    }
    if (rc == 0)
        rc = write_str(fd, "\n ]\n}\n");
    return rc;
}

int result_write(const struct result *r, const char *path, struct err *e)
{
    char *tmp = xasprintf("%s.tmp-%ld", path, (long)getpid());
    int fd = os_open(tmp, O_WRONLY | O_CREAT | O_TRUNC | OS_O_CLOEXEC, 0644);
    int rc = -1;
    if (fd < 0) {
        err_set(e, ERR_RUNTIME, "cannot write result file %s: %s", path, strerror(errno));
    } else if (write_document(fd, r) < 0 || os_fsync(fd) < 0) {
        err_set(e, ERR_RUNTIME, "cannot write result file %s: %s", path, strerror(errno));
    } else {
        int closed = close(fd);
        fd = -1;
        if (closed < 0 || os_replace(tmp, path) < 0) {
            err_set(e, ERR_RUNTIME, "cannot write result file %s: %s", path, strerror(errno));
        } else {
            rc = 0;
            result_sync_dir(path);
        }
    }
    if (rc < 0) {
        if (fd >= 0)
            close(fd);
        os_unlink(tmp);
    }
    free(tmp);
    return rc;
}
