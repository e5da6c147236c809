/* The JSON of what the server did underneath (result/server_io.h): an interval's server_io
 * with only its nonzero figures, the document's server_io_fields and events[], and the
 * summary's server_io_per_tx and events. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "result/result_int.h"

/* The object holding path's last part: o itself, or its sub-object named by the part before
 * the dot (made when make is set; NULL when absent). *leaf is the last part. */
static json_t *holder(json_t *o, const char *path, int make, const char **leaf)
{
    const char *dot = strchr(path, '.');
    if (!dot) {
        *leaf = path;
        return o;
    }
    char key[32];
    snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
    *leaf = dot + 1;
    json_t *sub = json_object_get(o, key);
    if (!sub && make) {
        sub = json_object();
        json_object_set_new(o, key, sub);
    }
    return json_is_object(sub) ? sub : NULL;
}

static void set_nonzero(json_t *o, const char *key, int64_t v)
{
    if (v != 0)
        json_object_set_new(o, key, json_integer((json_int_t)v));
}

json_t *result_sio_json(const struct result_sio *s)
{
    if (!s->have)
        return NULL;
    json_t *o = json_object();
    for (int f = 0; f < SIO_N_SCALARS; f++) {
        const char *leaf = NULL;
        if (((s->have >> f) & 1) && s->v[f] != 0) {
            json_t *h = holder(o, result_sio_paths[f], 1, &leaf);
            set_nonzero(h, leaf, s->v[f]);
        }
    }
    if (s->n_io > 0) {
        json_t *io = json_object();
        for (size_t i = 0; i < s->n_io; i++) {
            const struct result_sio_io *x = &s->io[i];
            if (!x->reads && !x->writes && !x->extends && !x->fsyncs)
                continue;
            json_t *t = json_object();
            set_nonzero(t, "reads", x->reads);
            set_nonzero(t, "writes", x->writes);
            set_nonzero(t, "extends", x->extends);
            set_nonzero(t, "fsyncs", x->fsyncs);
            set_nonzero(t, "read_bytes", x->read_bytes);
            set_nonzero(t, "write_bytes", x->write_bytes);
            set_nonzero(t, "extend_bytes", x->extend_bytes);
            json_object_set_new(io, x->backend_type, t);
        }
        if (json_object_size(io) > 0)
            json_object_set_new(o, "io", io);
        else
            json_decref(io);
    }
    if (s->n_lag > 0) {
        json_t *lag = json_object();
        for (size_t i = 0; i < s->n_lag; i++) {
            json_t *t = json_object();
            set_nonzero(t, "bytes", s->lag[i].bytes);
            if (s->lag[i].s != 0)
                json_object_set_new(t, "s", json_real((double)llround(s->lag[i].s * 1000) / 1000));
            json_object_set_new(lag, s->lag[i].name, t);
        }
        json_object_set_new(o, "repl_lag", lag);
    }
    return o;
}

static int64_t int_of(const json_t *o, const char *key, int *bad)
{
    const json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_integer(v)) {
        *bad = 1;
        return 0;
    }
    return (int64_t)json_integer_value(v);
}

int result_sio_from_json(const json_t *o, struct result_sio *s)
{
    memset(s, 0, sizeof *s);
    if (!o)
        return 0;
    if (!json_is_object(o))
        return -1;
    int bad = 0;
    s->have = SIO_HAVE_ANY;
    for (int f = 0; f < SIO_N_SCALARS; f++) {
        const char *leaf = NULL;
        json_t *h = holder((json_t *)o, result_sio_paths[f], 0, &leaf);
        if (h && json_object_get(h, leaf)) {
            s->v[f] = int_of(h, leaf, &bad);
            s->have |= 1u << f;
        }
    }
    const json_t *io = json_object_get(o, "io"), *lag = json_object_get(o, "repl_lag");
    const char *key;
    json_t *v;
    if (io) {
        s->have |= 1u << SIO_IO;
        bad |= !json_is_object(io);
        s->io = xcalloc(json_object_size(io) + 1, sizeof *s->io);
        json_object_foreach((json_t *)io, key, v)
        {
            s->io[s->n_io++] = (struct result_sio_io){xstrdup(key),
                                                      int_of(v, "reads", &bad),
                                                      int_of(v, "writes", &bad),
                                                      int_of(v, "extends", &bad),
                                                      int_of(v, "fsyncs", &bad),
                                                      int_of(v, "read_bytes", &bad),
                                                      int_of(v, "write_bytes", &bad),
                                                      int_of(v, "extend_bytes", &bad)};
            bad |= !json_is_object(v);
        }
    }
    if (lag) {
        s->have |= 1u << SIO_REPL_LAG;
        bad |= !json_is_object(lag);
        s->lag = xcalloc(json_object_size(lag) + 1, sizeof *s->lag);
        json_object_foreach((json_t *)lag, key, v)
        {
            const json_t *sec = json_object_get(v, "s");
            bad |= !json_is_object(v) || (sec && !json_is_number(sec));
            s->lag[s->n_lag++] = (struct result_sio_lag){xstrdup(key), int_of(v, "bytes", &bad),
                                                         json_number_value(sec)};
        }
    }
    if (bad) {
        result_sio_clear(s);
        return -1;
    }
    return 0;
}

/* The major version of server.version ("15.4 (Debian...)", "9.6.1") as PG_VERSION_NUM. */
static int version_num_of(const char *v)
{
    if (!v)
        return 0;
    int major = atoi(v), minor = 0;
    const char *dot = strchr(v, '.');
    if (major < 10 && dot)
        minor = atoi(dot + 1);
    return major * 10000 + minor * 100;
}

uint32_t result_sio_fields_known(const struct result *r)
{
    return r->sio_fields ? r->sio_fields
                         : result_sio_fields_for_version(version_num_of(r->server.version));
}

void result_sio_fixup(struct result *r)
{
    uint32_t fields = result_sio_fields_known(r);
    for (size_t i = 0; i < r->n_intervals; i++)
        if (r->intervals[i].sio.have)
            r->intervals[i].sio.have |= fields;
}

static json_t *event_json(const struct result_event *ev)
{
    json_t *o = json_object();
    json_object_set_new(o, "t_s", json_real((double)llround(ev->t_s * 1000) / 1000));
    json_object_set_new(o, "kind", json_string(result_event_kinds[ev->kind]));
    json_object_set_new(o, "phase", json_string(ev->start ? "start" : "end"));
    json_object_set_new(o, "detail", ev->detail ? json_string(ev->detail) : json_null());
    return o;
}

void result_events_json(const struct result *r, json_t *root)
{
    if (r->measured_start_at)
        json_object_set_new(root, "measured_start_at", json_string(r->measured_start_at));
    if (!r->sio_fields)
        return;
    json_t *fields = json_array();
    for (int f = 0; f < SIO_N_FIELDS; f++)
        if ((r->sio_fields >> f) & 1)
            json_array_append_new(fields, json_string(result_sio_paths[f]));
    json_object_set_new(root, "server_io_fields", fields);
    json_object_set_new(root, "events", result_events_array_json(r->events, r->n_events));
}

json_t *result_events_array_json(const struct result_event *ev, size_t n)
{
    json_t *events = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(events, event_json(&ev[i]));
    return events;
}

int result_events_array_read(const json_t *events, struct result *r)
{
    if (!json_is_array(events))
        return -1;
    r->events =
        xrealloc(r->events, (r->n_events + json_array_size(events) + 1) * sizeof *r->events);
    for (size_t i = 0; i < json_array_size(events); i++) {
        const json_t *o = json_array_get(events, i);
        const char *kind = json_string_value(json_object_get(o, "kind"));
        const char *phase = json_string_value(json_object_get(o, "phase"));
        const char *detail = json_string_value(json_object_get(o, "detail"));
        int k = kind ? result_event_kind_of(kind) : -1;
        if (k < 0 || !phase || !json_is_number(json_object_get(o, "t_s")))
            return -1;
        r->events[r->n_events++] =
            (struct result_event){json_number_value(json_object_get(o, "t_s")), k,
                                  strcmp(phase, "start") == 0, detail ? xstrdup(detail) : NULL};
    }
    return 0;
}

int result_events_read(const json_t *root, struct result *r)
{
    const json_t *fields = json_object_get(root, "server_io_fields");
    const json_t *events = json_object_get(root, "events");
    const char *start = json_string_value(json_object_get(root, "measured_start_at"));
    r->measured_start_at = start ? xstrdup(start) : NULL;
    for (size_t i = 0; i < json_array_size(fields); i++) {
        const char *p = json_string_value(json_array_get(fields, i));
        int f = p ? result_sio_field_of(p) : -1;
        if (f >= 0)
            r->sio_fields |= 1u << f;
    }
    if (!events)
        return 0;
    return result_events_array_read(events, r);
}

static void set_figure(json_t *o, const char *key, double v)
{
    json_object_set_new(o, key, v >= 0 && isfinite(v) ? json_real(v) : json_null());
}

void result_sio_summary_json(const struct result *r, json_t *summary)
{
    if (!r->sio_per_tx.present)
        return;
    const struct result_sio_per_tx *p = &r->sio_per_tx;
    json_t *o = json_object(), *ev = json_object();
    set_figure(o, "wal_bytes", p->wal_bytes);
    set_figure(o, "fpi_share", p->fpi_share);
    set_figure(o, "buffers_written", p->buffers_written);
    set_figure(o, "temp_bytes", p->temp_bytes);
    json_object_set_new(summary, "server_io_per_tx", o);
    for (int k = 0; k < RESULT_N_EVENT_KINDS; k++)
        json_object_set_new(ev, result_event_kinds[k],
                            json_integer((json_int_t)r->event_counts[k]));
    json_object_set_new(summary, "events", ev);
}

static double figure(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

void result_sio_summary_read(const json_t *summary, struct result *r)
{
    const json_t *o = json_object_get(summary, "server_io_per_tx");
    const json_t *ev = json_object_get(summary, "events");
    if (json_is_object(o))
        r->sio_per_tx =
            (struct result_sio_per_tx){1, figure(o, "wal_bytes"), figure(o, "fpi_share"),
                                       figure(o, "buffers_written"), figure(o, "temp_bytes")};
    for (int k = 0; k < RESULT_N_EVENT_KINDS; k++) {
        json_int_t n = json_integer_value(json_object_get(ev, result_event_kinds[k]));
        r->event_counts[k] = n > 0 ? (uint64_t)n : 0;
    }
}

void result_events_free(struct result *r)
{
    for (size_t i = 0; i < r->n_events; i++)
        free(r->events[i].detail);
    free(r->events);
    r->events = NULL;
    r->n_events = 0;
    free(r->measured_start_at);
    r->measured_start_at = NULL;
}
