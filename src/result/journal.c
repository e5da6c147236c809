#include "result/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/mem.h"
#include "result/result_int.h"
#include "stats/hist.h"
#include "os/os.h"

struct journal {
    int fd;
    char *path;
    size_t n_lines;
    time_ns last_sync_ns;
};

char *journal_path(const char *result_path)
{
    return xasprintf("%s.journal", result_path);
}

int journal_exists(const char *result_path)
{
    char *path = journal_path(result_path);
    int found = os_access(path, F_OK) == 0;
    free(path);
    return found;
}

int journal_discard_stale(const char *result_path, struct err *e)
{
    char *path = journal_path(result_path);
    int fd = os_open(path, O_RDONLY | OS_O_CLOEXEC, 0);
    int rc = 0;
    if (fd >= 0) {
        /* The writer holds an exclusive lock for as long as it lives. */
        if (os_lock(fd, 1) < 0) {
            rc = err_set(e, ERR_INPUT, "%s: a running pgarena is still writing it", path);
            close(fd);
        } else if (os_remove_open(path, fd) < 0) {
            rc = err_set(e, ERR_INPUT, "cannot remove %s: %s", path, strerror(errno));
        } else {
            rc = 1;
        }
    }
    free(path);
    return rc;
}

/* The journal's own format, in its header line after the result's keys: 1 (absent) interval
 * and snapshot lines; 2 events lines too, and a reader skips kinds of line it does not know.
 * A later version that an older reader cannot read whole raises it. */
#define JOURNAL_VERSION     2
#define JOURNAL_VERSION_KEY ",\"journal_version\":"

/* The header line: the result document as known before the run, and the journal's version. */
static char *header_line(const struct result *header)
{
    char *doc = result_header_dumps(header);
    char *end = doc ? strrchr(doc, '}') : NULL;
    if (!end) {
        free(doc);
        return NULL;
    }
    *end = '\0';
    char *text = xasprintf("%s" JOURNAL_VERSION_KEY "%d}", doc, JOURNAL_VERSION);
    free(doc);
    return text;
}

/* The version a header line says (1 without one); it is the line's last key. */
static long header_version(const char *line, size_t len)
{
    size_t tail = len < 64 ? len : 64;
    char last[65];
    memcpy(last, line + len - tail, tail);
    last[tail] = '\0';
    const char *k = strstr(last, JOURNAL_VERSION_KEY);
    return k ? strtol(k + strlen(JOURNAL_VERSION_KEY), NULL, 10) : 1;
}

struct journal *journal_create(const char *result_path, const struct result *header, struct err *e)
{
    char *path = journal_path(result_path);
    int fd = os_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | OS_O_CLOEXEC, 0644);
    char *text = NULL;
    if (fd < 0 || os_lock(fd, 1) < 0 || (text = header_line(header)) == NULL ||
        result_write_all(fd, text, strlen(text)) < 0 || result_write_all(fd, "\n", 1) < 0 ||
        os_fsync(fd) < 0) {
        err_set(e, ERR_RUNTIME, "cannot write the journal %s: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            os_unlink(path);
        }
        free(text);
        free(path);
        return NULL;
    }
    free(text);
    struct journal *j = xcalloc(1, sizeof *j);
    j->fd = fd;
    j->path = path;
    j->last_sync_ns = clock_now_ns();
    return j;
}

/* Append text (freed here) and a newline as one line. */
static int append_line(struct journal *j, char *text, struct err *e)
{
    size_t n = strlen(text);
    text = xrealloc(text, n + 2);
    text[n] = '\n';
    /* One write for the whole line: a crash leaves at most the last line torn. A write that
     * fails (a full disk) is undone, so the journal ends with the last line that fit. */
    off_t before = lseek(j->fd, 0, SEEK_END);
    int rc = result_write_all(j->fd, text, n + 1);
    free(text);
    if (rc < 0) {
        int why = errno;
        if (before >= 0 && ftruncate(j->fd, before) < 0)
            why = errno;
        return err_set(e, ERR_RUNTIME, "cannot write the journal %s: %s", j->path, strerror(why));
    }
    return 0;
}

static int has_prefix(const char *line, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(line, prefix, n) == 0;
}

/* A snapshot line begins so; an interval line never does (its first key is t_s). */
#define SNAPSHOT_PREFIX "{\"snapshot\":"

int journal_line_is_snapshot(const char *line, size_t len)
{
    return has_prefix(line, len, SNAPSHOT_PREFIX);
}

/* root as one compact line (root is consumed); the bytes written, or -1 with e. */
static long append_object(struct journal *j, json_t *root, struct err *e)
{
    char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text)
        return err_set(e, ERR_RUNTIME, "cannot write the journal %s: out of memory", j->path);
    long n = (long)strlen(text) + 1;
    return append_line(j, text, e) < 0 ? -1 : n;
}

long journal_append_snapshot(struct journal *j, const struct result *r, double t_s, struct err *e)
{
    json_t *snap = json_object(), *summary = json_object(), *root = json_object();
    json_object_set_new(snap, "t_s", json_real(t_s));
    result_parts_json(r, RESULT_PART_ROOT, snap, summary);
    result_parts_json(r, RESULT_PART_SUMMARY, summary, summary);
    result_classes_json(r, summary);
    json_object_set_new(snap, "summary", summary);
    json_object_set_new(root, "snapshot", snap);
    return append_object(j, root, e);
}

/* An events line begins so. */
#define EVENTS_PREFIX "{\"events\":"
/* An interval line begins so (result_interval_dumps writes t_s first). */
#define INTERVAL_PREFIX "{\"t_s\":"

int journal_line_is_interval(const char *line, size_t len)
{
    return has_prefix(line, len, INTERVAL_PREFIX);
}

/* Append {"kind": o} as a line (o is taken). */
static int append_side_line(struct journal *j, const char *kind, json_t *o, struct err *e)
{
    json_t *root = json_object();
    json_object_set_new(root, kind, o);
    char *text = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text)
        return err_set(e, ERR_RUNTIME, "cannot write the journal %s: out of memory", j->path);
    return append_line(j, text, e);
}

int journal_append_events(struct journal *j, const char *measured_start_at,
                          const struct result_event *ev, size_t n, double t_s, struct err *e)
{
    json_t *o = json_object();
    json_object_set_new(o, "t_s", json_real(t_s));
    if (measured_start_at && measured_start_at[0])
        json_object_set_new(o, "measured_start_at", json_string(measured_start_at));
    json_object_set_new(o, "events", result_events_array_json(ev, n));
    return append_side_line(j, "events", o, e);
}

/* A sampler line begins so. */
#define SAMPLER_PREFIX "{\"sampler\":"

static const char *visibility_name(int sees_all)
{
    return sees_all < 0 ? NULL : sees_all ? "all" : "own-user";
}

int journal_append_sampler(struct journal *j, const struct journal_sampler *s, double t_s,
                           struct err *e)
{
    json_t *o = json_object();
    const char *v = visibility_name(s->sees_all);
    json_object_set_new(o, "t_s", json_real(t_s));
    json_object_set_new(o, "max_thread", json_real(s->max_thread_core));
    json_object_set_new(o, "visibility", v ? json_string(v) : json_null());
    return append_side_line(j, "sampler", o, e);
}

/* A sampler line into *s; -1 when it does not read. */
static int read_sampler_line(const char *line, size_t len, struct journal_sampler *s)
{
    json_t *root = json_loadb(line, len, 0, NULL);
    const json_t *o = json_object_get(root, "sampler");
    const json_t *max = json_object_get(o, "max_thread"), *v = json_object_get(o, "visibility");
    int rc = json_is_number(max) && (json_is_null(v) || json_is_string(v)) ? 0 : -1;
    if (rc == 0)
        *s = (struct journal_sampler){1, json_number_value(max),
                                      json_is_null(v)                            ? -1
                                      : strcmp(json_string_value(v), "all") == 0 ? 1
                                                                                 : 0};
    json_decref(root);
    return rc;
}

/* A counters line begins so. */
#define COUNTERS_PREFIX "{\"counters\":"

static json_t *pair(uint64_t a, uint64_t b)
{
    return json_pack("[II]", (json_int_t)a, (json_int_t)b);
}

long journal_append_counters(struct journal *j, const struct journal_counters *c, struct err *e)
{
    json_t *o = json_object(), *errors = json_array(), *scripts = json_array(),
           *clients = json_array(), *stmts = json_array();
    json_object_set_new(o, "t_s", json_real(c->t_s));
    json_object_set_new(o, "retried", json_integer((json_int_t)c->retried));
    json_object_set_new(o, "retries", json_integer((json_int_t)c->retries));
    json_object_set_new(o, "skipped", json_integer((json_int_t)c->skipped));
    json_object_set_new(o, "late", json_integer((json_int_t)c->late));
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        json_array_append_new(errors, json_integer((json_int_t)c->errors[k]));
    json_object_set_new(o, "errors", errors);
    json_object_set_new(o, "lag", result_hist_to_json_compact(&c->lag));
    for (size_t i = 0; i < c->n_scripts; i++) {
        json_t *p = pair(c->scripts[i].transactions, c->scripts[i].failed);
        json_array_append_new(p, result_hist_to_json_compact(&c->scripts[i].latency));
        json_array_append_new(p, json_integer((json_int_t)c->scripts[i].retried));
        json_array_append_new(p, json_integer((json_int_t)c->scripts[i].skipped));
        json_array_append_new(scripts, p);
    }
    json_object_set_new(o, "scripts", scripts);
    for (size_t i = 0; i < c->n_clients; i++)
        json_array_append_new(clients, pair(c->clients[i].transactions, c->clients[i].failed));
    json_object_set_new(o, "clients", clients);
    for (size_t i = 0; i < c->n_statements; i++) {
        const struct result_statement *st = &c->statements[i];
        json_array_append_new(stmts,
                              json_pack("[Iff]", (json_int_t)st->count, st->mean_us, st->p99_us));
    }
    json_object_set_new(o, "statements", stmts);
    json_t *root = json_object();
    json_object_set_new(root, "counters", o);
    return append_object(j, root, e);
}

static int read_count(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int read_pair(const json_t *a, uint64_t *x, uint64_t *y)
{
    return json_is_array(a) && read_count(json_array_get(a, 0), x) == 0 &&
                   read_count(json_array_get(a, 1), y) == 0
               ? 0
               : -1;
}

void journal_counters_free(struct journal_counters *c)
{
    hist_sparse_free(&c->lag);
    for (size_t i = 0; i < c->n_scripts; i++)
        hist_sparse_free(&c->scripts[i].latency);
    free(c->scripts);
    free(c->clients);
    free(c->statements);
    memset(c, 0, sizeof *c);
}

/* A counters line into *c (freed first); -1 when it does not read (c is then empty). */
static int read_counters_line(const char *line, size_t len, struct journal_counters *c)
{
    journal_counters_free(c);
    json_t *root = json_loadb(line, len, 0, NULL);
    const json_t *o = json_object_get(root, "counters");
    const json_t *errors = json_object_get(o, "errors"), *scripts = json_object_get(o, "scripts"),
                 *clients = json_object_get(o, "clients"),
                 *stmts = json_object_get(o, "statements");
    int rc = json_is_number(json_object_get(o, "t_s")) && json_is_array(errors) &&
                     json_array_size(errors) == RESULT_N_ERRORS && json_is_array(scripts) &&
                     json_is_array(clients) && json_is_array(stmts) &&
                     read_count(json_object_get(o, "retried"), &c->retried) == 0 &&
                     read_count(json_object_get(o, "retries"), &c->retries) == 0 &&
                     read_count(json_object_get(o, "skipped"), &c->skipped) == 0 &&
                     read_count(json_object_get(o, "late"), &c->late) == 0 &&
                     result_hist_from_json(json_object_get(o, "lag"), &c->lag) == 0
                 ? 0
                 : -1;
    if (rc == 0) {
        c->t_s = json_number_value(json_object_get(o, "t_s"));
        for (int k = 0; k < RESULT_N_ERRORS && rc == 0; k++)
            rc = read_count(json_array_get(errors, (size_t)k), &c->errors[k]);
        c->scripts = xcalloc(json_array_size(scripts) + 1, sizeof *c->scripts);
        for (size_t i = 0; i < json_array_size(scripts) && rc == 0; i++, c->n_scripts++) {
            const json_t *s = json_array_get(scripts, i);
            struct journal_script_counts *sc = &c->scripts[i];
            rc = read_pair(s, &sc->transactions, &sc->failed) == 0 &&
                         result_hist_from_json(json_array_get(s, 2), &sc->latency) == 0
                     ? 0
                     : -1;
            /* retried and skipped came later: a journal without them has none */
            if (rc == 0 && json_array_size(s) >= 5)
                rc = read_count(json_array_get(s, 3), &sc->retried) == 0 &&
                             read_count(json_array_get(s, 4), &sc->skipped) == 0
                         ? 0
                         : -1;
        }
        c->clients = xcalloc(json_array_size(clients) + 1, sizeof *c->clients);
        for (size_t i = 0; i < json_array_size(clients) && rc == 0; i++, c->n_clients++)
            rc = read_pair(json_array_get(clients, i), &c->clients[i].transactions,
                           &c->clients[i].failed);
        c->statements = xcalloc(json_array_size(stmts) + 1, sizeof *c->statements);
        for (size_t i = 0; i < json_array_size(stmts) && rc == 0; i++, c->n_statements++) {
            const json_t *s = json_array_get(stmts, i);
            struct result_statement *st = &c->statements[i];
            rc = read_count(json_array_get(s, 0), &st->count) == 0 &&
                         json_is_number(json_array_get(s, 1)) &&
                         json_is_number(json_array_get(s, 2))
                     ? 0
                     : -1;
            st->mean_us = json_number_value(json_array_get(s, 1));
            st->p99_us = json_number_value(json_array_get(s, 2));
        }
    }
    json_decref(root);
    if (rc < 0)
        journal_counters_free(c);
    return rc;
}

int journal_append(struct journal *j, const struct result_interval *it, struct err *e)
{
    if (append_line(j, result_interval_dumps(it), e) < 0)
        return -1;
    j->n_lines++;
    /* fsync at most once a second: the journal is for crashes, not a second I/O load. */
    time_ns now = clock_now_ns();
    if (now - j->last_sync_ns >= NS_PER_S) {
        os_datasync(j->fd);
        j->last_sync_ns = now;
    }
    return 0;
}

size_t journal_count(const struct journal *j)
{
    return j->n_lines;
}

const char *journal_file(const struct journal *j)
{
    return j->path;
}

void journal_close(struct journal *j, int remove)
{
    if (!j)
        return;
    if (remove) {
        os_remove_open(j->path, j->fd);
    } else {
        os_datasync(j->fd);
        close(j->fd);
    }
    free(j->path);
    free(j);
}

/* The totals of the whole-line interval lines after the header; *n_lines counts them. */
struct totals {
    size_t n_lines;
    uint64_t transactions, failed;
    double end_s;
    struct hist *latency;
    size_t n_waits; /* the intervals' wait events, summed by name */
    struct result_wait *waits;
    uint32_t sio_fields;   /* the fields the intervals' server_io has (theirs list nonzero ones) */
    struct result_sio sio; /* their sum */
    struct result_cpu_measured cpu;     /* the client's CPU over the intervals that have it */
    struct result_client_health health; /* summary.client_health of the intervals' */
};

static int add_line(const char *line, size_t len, struct totals *t)
{
    json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
    struct result_interval it;
    int rc = o ? result_interval_from_json(o, &it) : -1;
    json_decref(o);
    if (rc < 0)
        return -1;
    if (result_interval_add(t->latency, &it) < 0)
        rc = -1;
    else
        result_waits_add(&t->waits, &t->n_waits, it.waits, it.n_waits);
    result_health_add(&t->health, it.t_s, it.duration_s, &it.health);
    if (it.sio.have)
        it.sio.have |= t->sio_fields;
    result_sio_add(&t->sio, &it.sio);
    result_interval_clear(&it);
    if (rc < 0)
        return -1;
    if (it.has_client_cpu) {
        t->cpu.elapsed_s += it.duration_s;
        t->cpu.user_s += it.cpu_user * it.duration_s;
        t->cpu.system_s += it.cpu_system * it.duration_s;
    }
    t->transactions += it.transactions;
    t->failed += it.failed;
    if (it.t_s > t->end_s)
        t->end_s = it.t_s;
    t->n_lines++;
    return 0;
}

/* The scripts' figures of the counters, when they are the workload's: their tps over the
 * counters' time. */
static int counted_scripts(const struct journal_counters *c, struct result *r)
{
    if (!c || c->n_scripts == 0 || c->n_scripts != r->workload.n_scripts)
        return 0;
    r->summary.scripts = xcalloc(c->n_scripts, sizeof *r->summary.scripts);
    for (size_t i = 0; i < c->n_scripts; i++) {
        struct result_script_figures *s = &r->summary.scripts[i];
        struct hist *h = hist_new();
        hist_add_sparse(h, &c->scripts[i].latency);
        s->name = xstrdup(r->workload.scripts[i].name ? r->workload.scripts[i].name : "");
        s->weight = r->workload.scripts[i].weight;
        result_derive_script(s, c->scripts[i].transactions, c->scripts[i].failed, c->t_s, h);
        s->retried = c->scripts[i].retried;
        s->skipped = c->scripts[i].skipped;
        hist_free(h);
    }
    r->summary.n_scripts = c->n_scripts;
    return 1;
}

/* clients[] and statements[] of the counters (the header lists the statements, none counted):
 * none without them, as a journal of a pgarena before counters lines has. */
static void counted_clients(const struct journal_counters *c, struct result *r)
{
    int stmts = c && c->n_statements == r->n_statements;
    for (size_t i = 0; i < r->n_statements; i++) {
        r->statements[i].count = stmts ? c->statements[i].count : 0;
        r->statements[i].mean_us = stmts ? c->statements[i].mean_us : 0;
        r->statements[i].p99_us = stmts ? c->statements[i].p99_us : 0;
        if (!stmts) {
            free(r->statements[i].script);
            free(r->statements[i].sql);
        }
    }
    if (!stmts) {
        free(r->statements);
        r->statements = NULL;
        r->n_statements = 0;
    }
    free(r->clients);
    r->clients = NULL;
    r->n_clients = c ? c->n_clients : 0;
    if (c) {
        r->clients = xcalloc(c->n_clients + 1, sizeof *r->clients);
        memcpy(r->clients, c->clients, c->n_clients * sizeof *c->clients);
    }
}

static void rebuild_summary(const struct totals *t, const struct journal_counters *c,
                            struct result *r)
{
    /* Without counters lines the journal carries no per-script figures: a recovered file has
     * them only when the run had one script. */
    int one = r->workload.n_scripts == 1 && r->workload.scripts[0].name;
    for (size_t i = 0; i < r->summary.n_scripts; i++) {
        free(r->summary.scripts[i].name);
        hist_sparse_free(&r->summary.scripts[i].histogram);
    }
    free(r->summary.scripts);
    int has_classes = r->summary.has_classes;
    result_classes_free(r); /* the header's (none counted yet) */
    memset(&r->summary, 0, sizeof r->summary);
    r->summary.has_classes = has_classes;
    struct result_measured m = {.duration_s = t->end_s,
                                .transactions = t->transactions,
                                .failed = t->failed,
                                .latency = t->latency};
    /* The summary's counts, tps and latency are every interval's; the counts by client,
     * statement, script and failure class, and retries, skips, late ones and the lag, are the
     * last counters line's, as of its time (counters_as_of_s), which the intervals may pass.
     * So summary.errors[] is that line's breakdown, which adds up with clients[] and
     * summary.scripts[] failed (the consistent choice), and summary.failed (every interval's)
     * may be larger: no class is made up for the failures after it. */
    struct hist *lag = NULL;
    r->counters_as_of_s = c ? c->t_s : 0;
    if (c) {
        m.retried = c->retried;
        m.retries = c->retries;
        m.skipped = c->skipped;
        m.late = c->late;
        memcpy(m.errors, c->errors, sizeof m.errors);
        lag = hist_new();
        hist_add_sparse(lag, &c->lag);
        m.lag = lag;
    }
    result_derive_summary(r, &m);
    hist_free(lag);
    counted_clients(c, r);
    /* A run of one script: its figures are the run's, over every interval. */
    if (!one) {
        counted_scripts(c, r);
        return;
    }
    struct result_script_figures lone = {.name = xstrdup(r->workload.scripts[0].name),
                                         .weight = r->workload.scripts[0].weight};
    result_derive_script(&lone, t->transactions, t->failed, t->end_s, t->latency);
    r->summary.scripts = xcalloc(1, sizeof *r->summary.scripts);
    r->summary.scripts[0] = lone;
    r->summary.n_scripts = 1;
}

/* The whole run's waits, when the header says the run was sampled: the sum of the intervals'
 * events (each interval kept its top ones only, so the rarest are missing, as the note says),
 * and the sampling rounds its period gives over the intervals' span. */
static void rebuild_waits(struct totals *t, struct result *r)
{
    struct result_waits *w = &r->waits;
    if (!w->present || w->sample_ms <= 0) {
        for (size_t i = 0; i < t->n_waits; i++)
            free(t->waits[i].name);
        free(t->waits);
        return;
    }
    for (size_t i = 0; i < w->n_events; i++)
        free(w->events[i].name);
    free(w->events);
    result_waits_sort(t->waits, &t->n_waits, t->n_waits);
    w->events = t->waits;
    w->n_events = t->n_waits;
    w->samples = (uint64_t)llround(t->end_s * 1000 / w->sample_ms);
    free(w->note);
    w->note = xasprintf("rebuilt by recover from the journal's intervals: each kept its top %d "
                        "events, so rarer ones are missing; samples is estimated from the "
                        "period over %.0f s",
                        RESULT_INTERVAL_WAITS, t->end_s);
    t->waits = NULL;
    t->n_waits = 0;
}

/* A sampled run's client_cpu and waits.visibility, when its journal has sampler lines: the
 * client's CPU of the intervals over their lengths, and the last line's busiest thread and
 * visibility (a journal of a pgarena before sampler lines has neither). */
static void rebuild_client(struct totals *t, const struct journal_sampler *s, struct result *r)
{
    if (!s->present || !r->waits.present)
        return;
    t->cpu.max_thread_core = s->max_thread_core;
    result_derive_client_cpu(&r->client_cpu, &t->cpu);
    const char *v = visibility_name(s->sees_all);
    free(r->waits.visibility);
    r->waits.visibility = v ? xstrdup(v) : NULL;
}

/* The journal's last write, as the run's end. */
static char *mtime_iso8601(int fd)
{
    struct stat st;
    struct tm tm;
    char out[40];
    if (fstat(fd, &st) < 0)
        return NULL;
    int64_t ns = os_mtime_ns(&st);
    time_t s = (time_t)(ns / 1000000000);
    if (!gmtime_r(&s, &tm))
        return NULL;
    size_t n = strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, sizeof out - n, ".%03ldZ", (long)(ns % 1000000000 / 1000000));
    return xstrdup(out);
}

/* An events line's events and measured start into r; -1 when it does not read. */
static int add_events_line(const char *line, size_t len, struct result *r)
{
    json_t *root = json_loadb(line, len, 0, NULL);
    const json_t *o = json_object_get(root, "events");
    const char *start = json_string_value(json_object_get(o, "measured_start_at"));
    int rc = json_is_object(o) ? result_events_array_read(json_object_get(o, "events"), r) : -1;
    if (rc == 0 && start) {
        free(r->measured_start_at);
        r->measured_start_at = xstrdup(start);
    }
    json_decref(root);
    return rc;
}

/* server_stats by name, and the server_io field that gives it over the measured part (the
 * intervals' sum): -1 for those it does not hold (commits, the database's tuples: server_io
 * counts the workload's tables only), which read null. */
static const struct {
    const char *name;
    int field;
} recovered_stats[] = {
    {"xact_commit", -1},
    {"xact_rollback", -1},
    {"blks_hit", SIO_BLKS_HIT},
    {"blks_read", SIO_BLKS_READ},
    {"tup_returned", -1},
    {"tup_fetched", -1},
    {"tup_inserted", -1},
    {"tup_updated", -1},
    {"tup_deleted", -1},
    {"deadlocks", SIO_DEADLOCKS},
    {"conflicts", -1},
    {"temp_files", SIO_TEMP_FILES},
    {"temp_bytes", SIO_TEMP_BYTES},
    {"wal_bytes", SIO_WAL_BYTES},
    {"checkpoints", SIO_CKPT_TIMED}, /* with SIO_CKPT_REQ */
    {"checkpoints_timed", SIO_CKPT_TIMED},
    {"checkpoints_requested", SIO_CKPT_REQ},
    {"buffers_checkpoint", SIO_BUF_CHECKPOINTER},
    {"buffers_clean", SIO_BUF_BGWRITER},
    {"buffers_backend", SIO_BUF_BACKEND},
};

/* The run's server_stats (read at its end, so not in the journal) from the intervals'
 * server_io sum, where the header has none. */
static void rebuild_server_stats(const struct result_sio *sum, struct result *r)
{
    if (r->n_server_stats > 0)
        return;
    size_t n = sizeof recovered_stats / sizeof recovered_stats[0];
    free(r->server_stats); /* the header's, empty */
    r->server_stats = xcalloc(n, sizeof *r->server_stats);
    r->n_server_stats = n;
    for (size_t i = 0; i < n; i++) {
        int f = recovered_stats[i].field;
        struct result_stat *st = &r->server_stats[i];
        st->name = xstrdup(recovered_stats[i].name);
        st->known = f >= 0 && ((sum->have >> f) & 1);
        st->value = st->known ? sum->v[f] : 0;
        if (st->known && strcmp(st->name, "checkpoints") == 0)
            st->value += sum->v[SIO_CKPT_REQ];
    }
    int64_t hit = sum->v[SIO_BLKS_HIT], read = sum->v[SIO_BLKS_READ];
    int have_blks = ((sum->have >> SIO_BLKS_HIT) & 1) && ((sum->have >> SIO_BLKS_READ) & 1);
    r->cache_hit_ratio = have_blks ? result_hit_ratio(hit, read) : -1;
}

/* A sampled run's server internals, when it wrote events lines: the fields of its server
 * version, events in time order with their counts, and the per-transaction figures and
 * server_stats of the intervals' sum. */
static void rebuild_server_io(struct totals *t, int saw_events, struct result *r)
{
    if (saw_events && t->sio.have) {
        r->sio_fields = t->sio_fields;
        result_events_order(r->events, r->n_events, r->event_counts);
        result_sio_per_tx(&t->sio, r->summary.transactions, &r->sio_per_tx);
        rebuild_server_stats(&t->sio, r);
    } else {
        result_events_free(r); /* frees measured_start_at too: none without events lines */
        r->sio_fields = 0;
    }
    result_sio_clear(&t->sio);
}

static int read_journal(FILE *f, const char *path, struct result *r, struct err *e)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len = getline(&line, &cap, f);
    if (len <= 0 || line[len - 1] != '\n' || result_read_text(line, (size_t)len, path, r, e) < 0) {
        free(line);
        return err_set(e, ERR_INPUT, "%s: not a pgarena journal (its first line is not a result)",
                       path);
    }
    long version = header_version(line, (size_t)len);
    if (version > JOURNAL_VERSION) {
        free(line);
        result_free(r);
        return err_set(e, ERR_INPUT,
                       "%s: journal version %ld is newer than this pgarena reads (%d)", path,
                       version, JOURNAL_VERSION);
    }
    struct totals t = {.latency = hist_new(), .sio_fields = result_sio_fields_known(r)};
    struct journal_counters counters = {0}, next = {0}; /* the last that reads, the one read */
    int counted = 0;
    json_t *snap = NULL; /* the last whole snapshot line's */
    struct journal_sampler sampler = {0};
    int saw_events = 0;
    result_events_free(r); /* the header's: none */
    /* Lines are whole or the last one is torn: stop at the first that does not read. */
    while ((len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') {
        if (journal_line_is_snapshot(line, (size_t)len)) {
            json_t *o = json_loadb(line, (size_t)len, 0, NULL);
            if (!json_is_object(json_object_get(o, "snapshot"))) {
                json_decref(o);
                break;
            }
            json_decref(snap);
            snap = o;
        } else if (has_prefix(line, (size_t)len, EVENTS_PREFIX)) {
            if (add_events_line(line, (size_t)len, r) < 0)
                break;
            saw_events = 1;
        } else if (has_prefix(line, (size_t)len, SAMPLER_PREFIX)) {
            if (read_sampler_line(line, (size_t)len, &sampler) < 0)
                break;
        } else if (has_prefix(line, (size_t)len, COUNTERS_PREFIX)) {
            /* Every interval is kept past it: the counts say how far they go. */
            if (read_counters_line(line, (size_t)len, &next) < 0)
                break;
            journal_counters_free(&counters);
            counters = next;
            memset(&next, 0, sizeof next);
            counted = 1;
        } else if (!journal_line_is_interval(line, (size_t)len)) {
            continue; /* a kind of line of a later pgarena */
        } else if (add_line(line, (size_t)len, &t) < 0) {
            break;
        }
    }
    free(line);
    rebuild_summary(&t, counted ? &counters : NULL, r);
    journal_counters_free(&counters);
    if (snap) {
        const json_t *s = json_object_get(snap, "snapshot");
        result_classes_read(json_object_get(s, "summary"), r);
        result_parts_read_snapshot(s, r);
        json_decref(snap);
    }
    rebuild_waits(&t, r);
    rebuild_client(&t, &sampler, r);
    rebuild_server_io(&t, saw_events, r);
    r->client_health = t.health;
    result_health_finish(&r->client_health);
    hist_free(t.latency);
    free(r->finished_at);
    r->finished_at = mtime_iso8601(fileno(f));
    r->complete = 0;
    free(r->end_reason);
    r->end_reason = xstrdup("killed");
    r->journal = xstrdup(path);
    r->n_journal = t.n_lines;
    return 0;
}

int journal_recover(const char *result_path, struct result *r, struct err *e)
{
    memset(r, 0, sizeof *r);
    char *path = journal_path(result_path);
    FILE *f = os_fopen(path, "r");
    int rc;
    if (!f) {
        rc = err_set(e, ERR_INPUT, "%s: no journal to recover from: %s", path, strerror(errno));
    } else if (os_lock(fileno(f), 0) < 0) {
        rc = err_set(e, ERR_INPUT, "%s: a running pgarena is still writing it", path);
    } else {
        rc = read_journal(f, path, r, e);
    }
    if (f)
        fclose(f);
    free(path);
    return rc;
}
