#include "result/result.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "result/result_int.h"

const char *const result_error_names[RESULT_N_ERRORS] = {"serialization", "deadlock",
                                                         "connection", "timeout", "other"};

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *latency_json(const struct latency_summary *l)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "min", l->min, "mean",
                     l->mean, "stddev", l->stddev, "p50", l->p50, "p90", l->p90, "p95", l->p95,
                     "p99", l->p99, "p999", l->p999, "max", l->max);
}

static json_t *summary_json(const struct result *r)
{
    json_t *errors = json_object();
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        json_object_set_new(errors, result_error_names[k],
                            json_integer((json_int_t)r->summary.errors[k]));
    return json_pack("{s:f, s:I, s:I, s:I, s:f, s:o, s:o, s:{s:f, s:f, s:f}}", "duration_s",
                     r->summary.duration_s, "transactions", (json_int_t)r->summary.transactions,
                     "failed", (json_int_t)r->summary.failed, "retried",
                     (json_int_t)r->summary.retried, "tps", r->summary.tps, "errors", errors,
                     "latency_us", latency_json(&r->summary.latency_us), "under_ms", "100",
                     r->summary.under_100ms, "1000", r->summary.under_1000ms, "5000",
                     r->summary.under_5000ms);
}

static json_t *workload_json(const struct result *r)
{
    json_t *scripts = json_array();
    for (size_t i = 0; i < r->workload.n_scripts; i++) {
        const struct result_script *s = &r->workload.scripts[i];
        json_array_append_new(scripts, json_pack("{s:o, s:i, s:o}", "name", str_or_null(s->name),
                                                 "weight", s->weight, "text",
                                                 str_or_null(s->text)));
    }
    return json_pack("{s:o, s:I, s:o}", "name", str_or_null(r->workload.name), "scale",
                     (json_int_t)r->workload.scale, "scripts", scripts);
}

static json_t *options_json(const struct result *r)
{
    return json_pack("{s:i, s:i, s:f, s:I, s:f, s:f, s:b, s:o, s:f, s:I}", "clients",
                     r->options.clients, "threads", r->options.threads, "duration_s",
                     r->options.duration_s, "transactions_per_client",
                     (json_int_t)r->options.transactions_per_client, "rate", r->options.rate,
                     "latency_limit_ms", r->options.latency_limit_ms, "connect_per_tx",
                     r->options.connect_per_tx, "protocol", str_or_null(r->options.protocol),
                     "warmup_s", r->options.warmup_s, "seed", (json_int_t)r->options.seed);
}

static json_t *intervals_json(const struct result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n_intervals; i++) {
        const struct result_interval *it = &r->intervals[i];
        json_array_append_new(
            a, json_pack("{s:f, s:f, s:I, s:I, s:f, s:{s:f, s:f, s:f}, s:o}", "t_s", it->t_s,
                         "duration_s", it->duration_s, "transactions",
                         (json_int_t)it->transactions, "failed", (json_int_t)it->failed, "tps",
                         it->tps, "latency_us", "p50", it->p50_us, "p99", it->p99_us, "max",
                         it->max_us, "histogram", result_hist_to_json(&it->histogram)));
    }
    return a;
}

static json_t *clients_json(const struct result *r)
{
    json_t *a = json_array();
    for (size_t i = 0; i < r->n_clients; i++)
        json_array_append_new(a, json_pack("{s:I, s:I}", "transactions",
                                           (json_int_t)r->clients[i].transactions, "failed",
                                           (json_int_t)r->clients[i].failed));
    return a;
}

static json_t *result_json(const struct result *r)
{
    json_t *root = json_pack(
        "{s:s, s:i, s:o, s:o, s:o, s:o, s:b, s:o}", "format", RESULT_FORMAT, "version",
        RESULT_VERSION, "label", str_or_null(r->label), "started_at", str_or_null(r->started_at),
        "finished_at", str_or_null(r->finished_at), "command", str_or_null(r->command), "complete",
        r->complete, "end_reason", str_or_null(r->end_reason));
    json_object_set_new(
        root, "client",
        json_pack("{s:o, s:o, s:i, s:I, s:o, s:o}", "hostname", str_or_null(r->client.hostname),
                  "os", str_or_null(r->client.os), "cpus", r->client.cpus, "memory_bytes",
                  (json_int_t)r->client.memory_bytes, "pgarena_version",
                  str_or_null(r->client.pgarena_version), "libpq_version",
                  str_or_null(r->client.libpq_version)));
    json_object_set_new(root, "server", json_pack("{s:o}", "version", str_or_null(r->server.version)));
    json_object_set_new(root, "workload", workload_json(r));
    json_object_set_new(root, "options", options_json(r));
    json_object_set_new(root, "summary", summary_json(r));
    json_object_set_new(root, "intervals", intervals_json(r));
    json_object_set_new(root, "histogram", result_hist_to_json(&r->histogram));
    json_object_set_new(root, "clients", clients_json(r));
    return root;
}

static int write_all(int fd, const char *s, size_t n)
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

/* fsync the directory so the rename itself survives a crash. */
static void sync_dir(const char *path)
{
    char *copy = xstrdup(path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(copy);
}

int result_write(const struct result *r, const char *path, struct err *e)
{
    json_t *root = result_json(r);
    char *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text)
        return err_set(e, ERR_RUNTIME, "could not build the result document");
    char *tmp = xasprintf("%s.tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = -1;
    if (fd < 0) {
        err_set(e, ERR_RUNTIME, "cannot write result file %s: %s", path, strerror(errno));
    } else if (write_all(fd, text, strlen(text)) < 0 || write_all(fd, "\n", 1) < 0 ||
               fsync(fd) < 0) {
        err_set(e, ERR_RUNTIME, "cannot write result file %s: %s", path, strerror(errno));
    } else {
        int closed = close(fd);
        fd = -1;
        if (closed < 0 || rename(tmp, path) < 0) {
            err_set(e, ERR_RUNTIME, "cannot write result file %s: %s", path, strerror(errno));
        } else {
            rc = 0;
            sync_dir(path);
        }
    }
    if (rc < 0) {
        if (fd >= 0)
            close(fd);
        unlink(tmp);
    }
    free(tmp);
    free(text);
    return rc;
}
