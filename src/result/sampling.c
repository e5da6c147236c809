#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "result/result.h"
#include "result/result_int.h"

/* The JSON of what the sampler saw: waits, client_cpu
 * and statements_server in the document, waits, client_cpu and host in each interval. Every
 * path is optional: files written with --no-sampling, or before sampling existed, have none. */

/* Rounded to 4 decimals: shares and cores carry no more meaning than that, and intervals stay
 * small. */
static json_t *frac(double v)
{
    return json_real((double)llround(v * 10000.0) / 10000.0);
}

static json_t *waits_object(const struct result_wait *w, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; i < n; i++)
        json_object_set_new(o, w[i].name, json_integer((json_int_t)w[i].count));
    return o;
}

static int cmp_wait(const void *a, const void *b)
{
    const struct result_wait *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* {NAME: count} into a sorted array (highest first); -1 when malformed. */
static int read_waits(const json_t *o, struct result_wait **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (!o)
        return 0;
    if (!json_is_object(o))
        return -1;
    *out = xcalloc(json_object_size(o) ? json_object_size(o) : 1, sizeof **out);
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)o, key, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return -1;
        (*out)[(*n_out)++] = (struct result_wait){xstrdup(key), (uint64_t)json_integer_value(v)};
    }
    qsort(*out, *n_out, sizeof **out, cmp_wait);
    return 0;
}

static void free_waits(struct result_wait *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(w[i].name);
    free(w);
}

/* A share or a count of cores in ten-thousandths: version 3's integer form of frac. */
static json_t *frac_int(double v)
{
    return json_integer((json_int_t)llround(v * 10000.0));
}

void result_round_shares(const double *share, size_t n, int64_t total, int64_t *out)
{
    double sum = 0, rest[RESULT_SHARES_MAX];
    for (size_t i = 0; i < n; i++)
        sum += share[i] > 0 ? share[i] : 0;
    int64_t given = 0;
    for (size_t i = 0; i < n; i++) {
        double exact = sum > 0 && share[i] > 0 ? share[i] / sum * (double)total : 0;
        out[i] = (int64_t)floor(exact);
        rest[i] = exact - (double)out[i];
        given += out[i];
    }
    /* Floors lose less than one unit each, so fewer than n units are left to give. */
    for (; sum > 0 && given < total; given++) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (rest[i] > rest[best])
                best = i;
        out[best]++;
        rest[best] = -1;
    }
}

/* The host's CPU: five shares that sum to exactly 10000; a host read from a file of four
 * shares is written back as it was read. */
static json_t *host_cpu_json(const struct result_host *h)
{
    if (!h->has_steal)
        return json_pack("[o, o, o, o]", frac_int(h->user), frac_int(h->system),
                         frac_int(h->iowait), frac_int(h->idle));
    const double share[5] = {h->user, h->system, h->iowait, h->idle, h->steal};
    int64_t v[5];
    result_round_shares(share, 5, 10000, v);
    return json_pack("[I, I, I, I, I]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2],
                     (json_int_t)v[3], (json_int_t)v[4]);
}

void result_interval_sampling_json(const struct result_interval *it, json_t *o)
{
    if (it->n_waits > 0)
        json_object_set_new(o, "waits", waits_object(it->waits, it->n_waits));
    /* Version 3: [user, system] and {cpu: [user, system, iowait, idle, steal], disk: [read,
     * write]}, shares in ten-thousandths (version 2 wrote objects of decimals, twice the bytes;
     * files before steal have four shares). */
    if (it->has_client_cpu)
        json_object_set_new(o, "client_cpu",
                            json_pack("[o, o]", frac_int(it->cpu_user), frac_int(it->cpu_system)));
    if (it->has_host)
        json_object_set_new(o, "host",
                            json_pack("{s:o, s:[I, I]}", "cpu", host_cpu_json(&it->host), "disk",
                                      (json_int_t)it->host.read_bytes,
                                      (json_int_t)it->host.write_bytes));
    result_interval_health_json(it, o);
}

static double num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

/* Element i of a version-3 array of ten-thousandths. */
static double frac_at(const json_t *a, size_t i)
{
    return json_number_value(json_array_get(a, i)) / 10000.0;
}

static int64_t int_at(const json_t *a, size_t i)
{
    return (int64_t)json_integer_value(json_array_get(a, i));
}

int result_interval_sampling_read(const json_t *o, struct result_interval *it)
{
    if (read_waits(json_object_get(o, "waits"), &it->waits, &it->n_waits) < 0 ||
        result_interval_health_read(o, it) < 0)
        return -1;
    const json_t *cpu = json_object_get(o, "client_cpu"), *host = json_object_get(o, "host");
    if (json_is_array(cpu)) {
        it->has_client_cpu = 1;
        it->cpu_user = frac_at(cpu, 0);
        it->cpu_system = frac_at(cpu, 1);
    } else if (json_is_object(cpu)) {
        it->has_client_cpu = 1;
        it->cpu_user = num(cpu, "user");
        it->cpu_system = num(cpu, "system");
    }
    if (json_is_object(host)) {
        const json_t *c = json_object_get(host, "cpu"), *d = json_object_get(host, "disk");
        it->has_host = 1;
        if (json_is_array(c) && json_is_array(d))
            it->host = (struct result_host){frac_at(c, 0), frac_at(c, 1),         frac_at(c, 2),
                                            frac_at(c, 3), int_at(d, 0),          int_at(d, 1),
                                            frac_at(c, 4), json_array_size(c) > 4};
        else
            it->host = (struct result_host){
                num(c, "user"),
                num(c, "system"),
                num(c, "iowait"),
                num(c, "idle"),
                (int64_t)json_integer_value(json_object_get(d, "read_bytes")),
                (int64_t)json_integer_value(json_object_get(d, "write_bytes")),
                0,
                0,
            };
    }
    return 0;
}

void result_interval_clear(struct result_interval *it)
{
    hist_sparse_free(&it->histogram);
    free(it->compact);
    it->compact = NULL;
    it->compact_len = 0;
    free_waits(it->waits, it->n_waits);
    it->waits = NULL;
    it->n_waits = 0;
    result_sio_clear(&it->sio);
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

void result_sampling_json(const struct result *r, json_t *root)
{
    result_health_summary_json(r, json_object_get(root, "summary"));
    if (r->waits.present)
        json_object_set_new(root, "waits",
                            json_pack("{s:i, s:I, s:o, s:o, s:o}", "sample_ms", r->waits.sample_ms,
                                      "samples", (json_int_t)r->waits.samples, "events",
                                      waits_object(r->waits.events, r->waits.n_events),
                                      "visibility", str_or_null(r->waits.visibility), "note",
                                      str_or_null(r->waits.note)));
    if (r->client_cpu.present)
        json_object_set_new(root, "client_cpu",
                            json_pack("{s:o, s:o, s:o}", "user", frac(r->client_cpu.user), "system",
                                      frac(r->client_cpu.system), "max_thread",
                                      frac(r->client_cpu.max_thread_core)));
    if (r->n_statements_server > 0 || r->statements_server_note) {
        json_t *a = json_array();
        for (size_t i = 0; i < r->n_statements_server; i++) {
            const struct result_server_statement *st = &r->statements_server[i];
            json_array_append_new(a, json_pack("{s:s?, s:I, s:f, s:f, s:I}", "query", st->query,
                                               "calls", (json_int_t)st->calls, "total_ms",
                                               st->total_ms, "mean_ms", st->mean_ms, "rows",
                                               (json_int_t)st->rows));
        }
        json_object_set_new(root, "statements_server", a);
        if (r->statements_server_note)
            json_object_set_new(root, "statements_server_note",
                                json_string(r->statements_server_note));
    }
}

static char *dup_str(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? xstrdup(s) : NULL;
}

static uint64_t count(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v > 0 ? (uint64_t)v : 0;
}

static int read_statements_server(const json_t *a, struct result *r)
{
    if (!a)
        return 0;
    if (!json_is_array(a))
        return -1;
    r->statements_server = xcalloc(json_array_size(a) + 1, sizeof *r->statements_server);
    for (size_t i = 0; i < json_array_size(a); i++) {
        const json_t *o = json_array_get(a, i);
        if (!json_is_object(o))
            return -1;
        r->statements_server[r->n_statements_server++] = (struct result_server_statement){
            dup_str(o, "query"), count(o, "calls"), num(o, "total_ms"), num(o, "mean_ms"),
            count(o, "rows")};
    }
    return 0;
}

int result_sampling_read(const json_t *root, struct result *r)
{
    const json_t *w = json_object_get(root, "waits"), *cpu = json_object_get(root, "client_cpu");
    if (w) {
        if (!json_is_object(w))
            return -1;
        r->waits.present = 1;
        r->waits.sample_ms = (int)count(w, "sample_ms");
        r->waits.samples = count(w, "samples");
        r->waits.visibility = dup_str(w, "visibility");
        r->waits.note = dup_str(w, "note");
        if (read_waits(json_object_get(w, "events"), &r->waits.events, &r->waits.n_events) < 0)
            return -1;
    }
    if (json_is_object(cpu)) {
        r->client_cpu.present = 1;
        r->client_cpu.user = num(cpu, "user");
        r->client_cpu.system = num(cpu, "system");
        r->client_cpu.max_thread_core = num(cpu, "max_thread");
    }
    if (result_health_summary_read(json_object_get(root, "summary"), r) < 0)
        return -1;
    r->statements_server_note = dup_str(root, "statements_server_note");
    return read_statements_server(json_object_get(root, "statements_server"), r);
}

void result_sampling_free(struct result *r)
{
    free_waits(r->waits.events, r->waits.n_events);
    free(r->waits.visibility);
    free(r->waits.note);
    for (size_t i = 0; i < r->n_statements_server; i++)
        free(r->statements_server[i].query);
    free(r->statements_server);
    free(r->statements_server_note);
}
