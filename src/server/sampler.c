#include "server/sampler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "server/server_io.h"
#include "os/os.h"

/* Every backend of the run, counted by what it is doing. An idle backend waiting for its
 * client's next statement shows as Client:ClientRead: the server waits on the client then.
 * The comment marks the statement as pgarena's own in pg_stat_statements (after the first
 * word: 18 drops a leading comment from the statement's text). */
static const char sample_sql[] =
    "SELECT /* pgarena:sampler */ coalesce(wait_event_type || ':' || wait_event, 'CPU'), "
    "count(*) FROM pg_stat_activity WHERE pid = ANY($1::int[]) "
    "AND (wait_event IS NOT NULL OR state = 'active') GROUP BY 1";

static const char sees_all_sql[] =
    "SELECT /* pgarena:sampler */ rolsuper OR pg_has_role(current_user, 'pg_read_all_stats', "
    "'MEMBER') FROM pg_roles WHERE rolname = current_user";

/* After a failed connection or query, the sampler tries again this much later. */
#define RETRY_NS (1000 * NS_PER_MS)

/* One interval's counts, by event name ID. */
struct bucket {
    size_t n, cap;
    uint32_t *ev;
    uint64_t *count;
    uint64_t samples;
    int have_cpu, have_host;
    double cpu_user, cpu_system;
    double cpu_s; /* the span the CPU figures cover */
    struct proc_cpu_share host;
    struct proc_disk disk;
    struct result_sio sio;
};

/* Counters read at an interval boundary. */
struct snapshot {
    time_ns at;
    double user_s, system_s;
    int have_host;
    struct proc_cpu cpu;
    struct proc_disk disk;
};

struct sampler {
    struct sampler_config cfg;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, exited;
    time_ns progress_ns; /* samples before this time are all counted */
    char **names;        /* event names, by ID */
    size_t n_names, cap_names;
    struct bucket *b; /* b[i] is interval first + i */
    size_t first, n_b, cap_b;
    size_t snap_idx; /* the interval that began at the last snapshot */
    struct snapshot snap;
    struct proc_tasks tasks0; /* threads' CPU at the measured start */
    time_ns tasks0_ns;
    double max_thread_core;
    struct sample_totals tot; /* of the intervals taken; waits counted in tot_count */
    uint64_t *tot_count;      /* by event name ID */
    size_t cap_tot;
    double cpu_elapsed_s, cpu_user_s, cpu_system_s;
    /* server_io (server/server_io.h): read in the sampler's thread at the first round of each
     * interval; the delta goes to the interval that ended, events wait for the next take. */
    struct srvio *io;
    size_t io_idx; /* the interval of the last read */
    int io_tries;  /* reads failed in a row: after a few, none more */
    size_t n_events;
    struct result_event *events;
};

static uint32_t intern(struct sampler *s, const char *name)
{
    for (size_t i = 0; i < s->n_names; i++)
        if (strcmp(s->names[i], name) == 0)
            return (uint32_t)i;
    if (s->n_names == s->cap_names) {
        s->cap_names = s->cap_names ? 2 * s->cap_names : 16;
        s->names = xrealloc(s->names, s->cap_names * sizeof *s->names);
    }
    s->names[s->n_names] = xstrdup(name);
    return (uint32_t)s->n_names++;
}

/* Interval idx's bucket, NULL when it was taken already. */
static struct bucket *bucket_at(struct sampler *s, size_t idx)
{
    if (idx < s->first)
        return NULL;
    size_t i = idx - s->first;
    if (i >= s->cap_b) {
        size_t cap = s->cap_b ? s->cap_b : 4;
        while (cap <= i)
            cap *= 2;
        s->b = xrealloc(s->b, cap * sizeof *s->b);
        memset(s->b + s->cap_b, 0, (cap - s->cap_b) * sizeof *s->b);
        s->cap_b = cap;
    }
    if (i >= s->n_b)
        s->n_b = i + 1;
    return &s->b[i];
}

static void bucket_add(struct bucket *b, uint32_t ev, uint64_t n)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->ev[i] == ev) {
            b->count[i] += n;
            return;
        }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 8;
        b->ev = xrealloc(b->ev, b->cap * sizeof *b->ev);
        b->count = xrealloc(b->count, b->cap * sizeof *b->count);
    }
    b->ev[b->n] = ev;
    b->count[b->n++] = n;
}

static void read_snapshot(const struct sampler *s, time_ns now, struct snapshot *out)
{
    memset(out, 0, sizeof *out);
    out->at = now;
    if (os_process_cpu(&out->user_s, &out->system_s) < 0)
        out->user_s = out->system_s = 0;
    out->have_host =
        s->cfg.host && proc_read_cpu(&out->cpu) == 0 && proc_read_disk(&out->disk) == 0;
}

/* The busiest thread since the measured start, as of now. */
static void update_threads(struct sampler *s, time_ns now)
{
    struct proc_tasks t;
    if (!s->tasks0_ns || proc_read_tasks(&t) < 0)
        return;
    double seconds = (double)(now - s->tasks0_ns) / NS_PER_S;
    if (seconds >= 0.5) /* a clock tick is 10 ms: shorter spans say little */
        s->max_thread_core = proc_tasks_max_core(&s->tasks0, &t, seconds);
    proc_tasks_free(&t);
}

/* Close the interval that began at the last snapshot: its CPU and disk figures are the
 * counters' growth from then to now. Called with the lock held, at the first moment the
 * sampler (or a taker) finds the interval over; idx is the interval now is in. */
static void close_interval(struct sampler *s, size_t idx, time_ns now)
{
    if (idx <= s->snap_idx)
        return;
    struct snapshot cur;
    read_snapshot(s, now, &cur);
    struct bucket *b = bucket_at(s, s->snap_idx);
    double dt = (double)(now - s->snap.at) / NS_PER_S;
    if (b && dt > 0) {
        b->have_cpu = 1;
        b->cpu_s = dt;
        b->cpu_user = (cur.user_s - s->snap.user_s) / dt;
        b->cpu_system = (cur.system_s - s->snap.system_s) / dt;
        if (cur.have_host && s->snap.have_host) {
            b->have_host = 1;
            proc_cpu_share(&s->snap.cpu, &cur.cpu, &b->host);
            b->disk.read_bytes = cur.disk.read_bytes - s->snap.disk.read_bytes;
            b->disk.write_bytes = cur.disk.write_bytes - s->snap.disk.write_bytes;
        }
    }
    s->snap = cur;
    s->snap_idx = idx;
    update_threads(s, now);
}

static size_t interval_of(const struct sampler *s, time_ns t)
{
    return t <= s->cfg.start_ns ? 0 : (size_t)((t - s->cfg.start_ns) / (s->cfg.interval_us * 1000));
}

/* "{pid,pid,...}" of the clients that have a backend now; 0 when none has. */
static int pid_array(const struct sampler *s, struct buf *b)
{
    int n = 0;
    buf_reset(b);
    buf_putc(b, '{');
    for (int i = 0; i < s->cfg.n_pids; i++) {
        int pid = atomic_load_explicit(&s->cfg.pids[i], memory_order_relaxed);
        if (pid > 0)
            buf_printf(b, n++ ? ",%d" : "%d", pid);
    }
    buf_putc(b, '}');
    return n;
}

/* One sampling round at t: -1 when the query failed. */
static int sample_once(struct sampler *s, struct pg_conn *c, time_ns t, struct buf *pids)
{
    struct pg_result *r = NULL;
    struct err e = {0};
    if (pid_array(s, pids) > 0) {
        const char *values[1] = {pids->data};
        r = pg_query_prepared(c, "pgarena_sample", 1, values, &e);
        if (!r) {
            pthread_mutex_lock(&s->mu);
            snprintf(s->tot.note, sizeof s->tot.note, "sampling failed: %.200s", e.msg);
            pthread_mutex_unlock(&s->mu);
            return -1;
        }
    }
    pthread_mutex_lock(&s->mu);
    struct bucket *b = t >= s->cfg.start_ns ? bucket_at(s, interval_of(s, t)) : NULL;
    if (b) {
        b->samples++;
        for (int i = 0; r && i < pg_result_rows(r); i++)
            bucket_add(b, intern(s, pg_result_value(r, i, 0)),
                       strtoull(pg_result_value(r, i, 1), NULL, 10));
    }
    pthread_mutex_unlock(&s->mu);
    pg_result_free(r);
    return 0;
}

static struct pg_conn *sampler_connect(struct sampler *s)
{
    struct err e = {0};
    struct pg_conn *c = pg_connect_aux(s->cfg.conn, PG_AUX_TIMEOUT_MS, &e);
    char v[16] = "";
    int sees_all = -1;
    if (c && pg_query_value(c, sees_all_sql, v, sizeof v, &e) == 0)
        sees_all = v[0] == 't';
    /* Prepared once: planning the query on the pg_stat_activity view costs some 30 times
     * more than running it (about 2 ms against 0.07 ms here). */
    if (c && pg_prepare(c, "pgarena_sample", sample_sql, 1, &e) < 0) {
        pg_finish(c);
        c = NULL;
    }
    pthread_mutex_lock(&s->mu);
    if (!c)
        snprintf(s->tot.note, sizeof s->tot.note, "the sampler could not start: %.200s", e.msg);
    else if (s->tot.sees_all < 0)
        s->tot.sees_all = sees_all;
    pthread_mutex_unlock(&s->mu);
    return c;
}

/* Once per interval, at its first round: the server's statistics, whose growth since the
 * previous read goes to the interval that just ended. */
static void server_io_round(struct sampler *s, struct pg_conn *c, time_ns t)
{
    size_t idx = interval_of(s, t);
    if ((s->io && idx <= s->io_idx) || s->io_tries >= 3)
        return;
    if (!s->io)
        s->io = srvio_new(pg_server_version(c));
    struct result_sio d;
    struct result_event *ev = NULL;
    size_t n_ev = 0;
    struct err e = {0};
    int got = srvio_read(s->io, c, (double)(t - s->cfg.start_ns) / NS_PER_S, &d, &ev, &n_ev, &e);
    s->io_tries = got < 0 ? s->io_tries + 1 : 0;
    s->io_idx = idx;
    pthread_mutex_lock(&s->mu);
    struct bucket *b = got > 0 && idx > 0 ? bucket_at(s, idx - 1) : NULL;
    if (b && !b->sio.have)
        b->sio = d;
    else
        result_sio_clear(&d);
    if (n_ev > 0) {
        s->events = xrealloc(s->events, (s->n_events + n_ev) * sizeof *s->events);
        memcpy(s->events + s->n_events, ev, n_ev * sizeof *ev);
        s->n_events += n_ev;
    }
    pthread_mutex_unlock(&s->mu);
    free(ev);
}

/* Sleep until t or a stop: 1 when stopped. Called with the lock held. */
static int wait_until(struct sampler *s, time_ns t)
{
    while (!s->stop && clock_now_ns() < t)
        os_cond_wait_until(&s->cv, &s->mu, t);
    return s->stop;
}

static void *sampler_main(void *arg)
{
    struct sampler *s = arg;
    time_ns period = (time_ns)s->cfg.sample_ms * NS_PER_MS, next = s->cfg.start_ns;
    time_ns retry_at = 0;
    struct pg_conn *c = NULL;
    struct buf pids;
    buf_init(&pids);
    pthread_mutex_lock(&s->mu);
    while (!wait_until(s, next)) {
        time_ns t = clock_now_ns();
        if (t >= s->cfg.start_ns)
            close_interval(s, interval_of(s, t), t);
        pthread_mutex_unlock(&s->mu);
        if (!c && t >= retry_at && !(c = sampler_connect(s)))
            retry_at = t + RETRY_NS;
        if (c && sample_once(s, c, t, &pids) < 0) {
            pg_finish(c);
            c = NULL;
            retry_at = t + RETRY_NS;
        }
        if (c && s->cfg.server_io && t >= s->cfg.start_ns)
            server_io_round(s, c, t);
        pthread_mutex_lock(&s->mu);
        s->progress_ns = t;
        pthread_cond_broadcast(&s->cv);
        /* A round that overran its period skips the rounds it missed: samples stay evenly
         * spaced on the start's grid. */
        time_ns now = clock_now_ns();
        next += period;
        if (next <= now)
            next += ((now - next) / period + 1) * period;
    }
    s->exited = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pg_finish(c);
    buf_free(&pids);
    return NULL;
}

struct sampler *sampler_start(const struct sampler_config *cfg)
{
    struct sampler *s = xcalloc(1, sizeof *s);
    s->cfg = *cfg;
    s->tot.sample_ms = cfg->sample_ms;
    s->tot.sees_all = -1;
    pthread_mutex_init(&s->mu, NULL);
    os_cond_init(&s->cv);
    time_ns now = clock_now_ns();
    read_snapshot(s, now > cfg->start_ns ? now : cfg->start_ns, &s->snap);
    if (proc_read_tasks(&s->tasks0) == 0)
        s->tasks0_ns = now;
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        proc_tasks_free(&s->tasks0);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        free(s);
        return NULL;
    }
    return s;
}

static int by_count(const void *a, const void *b)
{
    const struct sample_wait *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Events with their counts, as a sorted array of named copies. */
static struct sample_wait *named(const struct sampler *s, const uint32_t *ev, const uint64_t *count,
                                 size_t n, size_t *n_out)
{
    struct sample_wait *w = xcalloc(n ? n : 1, sizeof *w);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (count[i] > 0)
            w[k++] = (struct sample_wait){xstrdup(s->names[ev ? ev[i] : i]), count[i]};
    qsort(w, k, sizeof *w, by_count);
    *n_out = k;
    return w;
}

static void add_to_totals(struct sampler *s, const struct bucket *b)
{
    if (s->n_names > s->cap_tot) {
        s->tot_count = xrealloc(s->tot_count, s->n_names * sizeof *s->tot_count);
        memset(s->tot_count + s->cap_tot, 0, (s->n_names - s->cap_tot) * sizeof *s->tot_count);
        s->cap_tot = s->n_names;
    }
    s->tot.samples += b->samples;
    for (size_t i = 0; i < b->n; i++)
        s->tot_count[b->ev[i]] += b->count[i];
}

void sampler_take(struct sampler *s, size_t idx, time_ns end_ns, struct sample_interval *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&s->mu);
    time_ns give_up = clock_now_ns() + 3 * (time_ns)s->cfg.sample_ms * NS_PER_MS + 500 * NS_PER_MS;
    while (!s->exited && s->progress_ns < end_ns && clock_now_ns() < give_up)
        os_cond_wait_until(&s->cv, &s->mu, give_up);
    time_ns now = clock_now_ns();
    close_interval(s, idx + 1 > interval_of(s, now) ? idx + 1 : interval_of(s, now), now);
    out->events = s->events;
    out->n_events = s->n_events;
    out->max_thread_core = s->max_thread_core;
    out->sees_all = s->tot.sees_all;
    s->events = NULL;
    s->n_events = 0;
    struct bucket *b = bucket_at(s, idx);
    if (b) {
        out->samples = b->samples;
        out->waits = named(s, b->ev, b->count, b->n, &out->n_waits);
        out->have_cpu = b->have_cpu;
        out->cpu_user = b->cpu_user;
        out->cpu_system = b->cpu_system;
        out->have_host = b->have_host;
        out->host = b->host;
        out->disk = b->disk;
        out->sio = b->sio; /* moved: the bucket is dropped below */
        add_to_totals(s, b);
        if (b->have_cpu) {
            s->cpu_elapsed_s += b->cpu_s;
            s->cpu_user_s += b->cpu_user * b->cpu_s;
            s->cpu_system_s += b->cpu_system * b->cpu_s;
        }
        /* Drop this bucket and any before it. */
        size_t drop = idx - s->first + 1;
        for (size_t i = 0; i < drop; i++) {
            free(s->b[i].ev);
            free(s->b[i].count);
            if (i + 1 < drop)
                result_sio_clear(&s->b[i].sio);
        }
        memmove(s->b, s->b + drop, (s->cap_b - drop) * sizeof *s->b);
        memset(s->b + s->cap_b - drop, 0, drop * sizeof *s->b);
        s->n_b = s->n_b > drop ? s->n_b - drop : 0;
        s->first = idx + 1;
    }
    pthread_mutex_unlock(&s->mu);
}

void sampler_stop(struct sampler *s, struct sample_totals *out)
{
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    *out = s->tot;
    out->waits = named(s, NULL, s->tot_count, s->cap_tot, &out->n_waits);
    out->cpu = (struct result_cpu_measured){s->cpu_elapsed_s, s->cpu_user_s, s->cpu_system_s,
                                            s->max_thread_core};
    if (out->samples > 0 && out->n_waits > 0)
        out->note[0] = '\0'; /* an early failure the sampler recovered from */
    for (size_t i = 0; i < s->n_b; i++) {
        free(s->b[i].ev);
        free(s->b[i].count);
        result_sio_clear(&s->b[i].sio);
    }
    free(s->b);
    out->sio_fields = s->io ? srvio_fields(s->io) : 0;
    srvio_free(s->io);
    for (size_t i = 0; i < s->n_events; i++)
        free(s->events[i].detail);
    free(s->events);
    for (size_t i = 0; i < s->n_names; i++)
        free(s->names[i]);
    free(s->names);
    free(s->tot_count);
    proc_tasks_free(&s->tasks0);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

void sample_interval_free(struct sample_interval *iv)
{
    for (size_t i = 0; i < iv->n_waits; i++)
        free(iv->waits[i].name);
    free(iv->waits);
    result_sio_clear(&iv->sio);
    for (size_t i = 0; i < iv->n_events; i++)
        free(iv->events[i].detail);
    free(iv->events);
    memset(iv, 0, sizeof *iv);
}

void sample_totals_free(struct sample_totals *t)
{
    for (size_t i = 0; i < t->n_waits; i++)
        free(t->waits[i].name);
    free(t->waits);
    t->waits = NULL;
    t->n_waits = 0;
}
