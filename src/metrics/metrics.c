/* The metrics registry: each run's figures as last published, and their text. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "metrics/metrics_int.h"

static const char *const wait_classes[METRICS_N_WAITS] = {
    "CPU", "Activity", "BufferPin", "Client", "Extension", "InjectionPoint",
    "IO",  "IPC",      "Lock",      "LWLock", "Timeout",
};

static const char *const phases[] = {"starting", "warmup", "measuring", "done"};

int metrics_wait_class(const char *event)
{
    size_t n = strcspn(event, ":");
    for (int i = 0; i < METRICS_N_WAITS; i++)
        if (strlen(wait_classes[i]) == n && strncmp(event, wait_classes[i], n) == 0)
            return i;
    return -1;
}

int64_t metrics_bound_us(int i)
{
    /* 32, 48, 64, 96, ...: even i a power of two, odd i one and a half times the one before */
    int64_t p = (int64_t)32 << (i / 2);
    return i % 2 ? p + p / 2 : p;
}

static int bucket_of(int64_t us)
{
    int lo = 0, hi = METRICS_N_BOUNDS; /* the first bound above us, or METRICS_N_BOUNDS */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (us < metrics_bound_us(mid))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void metrics_hist_add_sparse(struct metrics_hist *h, const struct hist_sparse *s)
{
    for (size_t i = 0; i < s->n_bins; i++)
        h->bucket[bucket_of(s->bins[i].value_us)] += s->bins[i].count;
    h->count += s->count;
    h->sum_s += s->sum_us / 1e6;
}

void metrics_hist_set(struct metrics_hist *h, const struct hist *src)
{
    struct hist_sparse s;
    hist_to_sparse(src, &s);
    memset(h, 0, sizeof *h);
    metrics_hist_add_sparse(h, &s);
    hist_sparse_free(&s);
}

/* A label value, escaped as both formats want (backslash, double quote, newline). */
static void put_escaped(struct buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            buf_putc(b, '\\');
        if (*s == '\n') {
            buf_puts(b, "\\n");
            continue;
        }
        buf_putc(b, *s);
    }
}

struct metrics_run *metrics_run_add(struct metrics *m, const char *run_id, const char *label,
                                    const char *workload, const char *const *kinds, int n_kinds,
                                    const char *const *scripts, int n_scripts)
{
    struct metrics_run *r = xcalloc(1, sizeof *r);
    r->m = m;
    r->run_id = xstrdup(run_id);
    r->label = label && *label ? xstrdup(label) : NULL;
    r->workload = xstrdup(workload ? workload : "");
    r->kinds = kinds;
    struct buf l; /* the run's labels, escaped once */
    buf_init(&l);
    buf_puts(&l, "run_id=\"");
    put_escaped(&l, r->run_id);
    if (r->label) {
        buf_puts(&l, "\",label=\"");
        put_escaped(&l, r->label);
    }
    buf_puts(&l, "\",workload=\"");
    put_escaped(&l, r->workload);
    buf_putc(&l, '"');
    r->labels = l.data;
    r->n_kinds = n_kinds < METRICS_MAX_KINDS ? n_kinds : METRICS_MAX_KINDS;
    /* Before the run is listed: a scrape never sees it without its scripts. */
    for (int i = 0; i < n_scripts && r->n_scripts < METRICS_MAX_SCRIPTS; i++) {
        struct buf b;
        buf_init(&b);
        put_escaped(&b, scripts[i]);
        r->scripts[r->n_scripts++] = b.data;
    }
    pthread_mutex_lock(&m->mu);
    if (m->n_runs == m->cap_runs) {
        m->cap_runs = m->cap_runs ? 2 * m->cap_runs : 4;
        m->runs = xrealloc(m->runs, m->cap_runs * sizeof *m->runs);
    }
    m->runs[m->n_runs++] = r;
    pthread_mutex_unlock(&m->mu);
    evwake_raise(&m->wake); /* requests waiting for a first run */
    return r;
}

void metrics_run_publish(struct metrics_run *r, const struct metrics_figures *f)
{
    pthread_mutex_lock(&r->m->mu);
    r->f = *f;
    pthread_mutex_unlock(&r->m->mu);
}

void metrics_registry_init(struct metrics *m)
{
    pthread_mutex_init(&m->mu, NULL);
}

void metrics_registry_free(struct metrics *m)
{
    for (size_t i = 0; i < m->n_runs; i++) {
        free(m->runs[i]->run_id);
        free(m->runs[i]->label);
        free(m->runs[i]->labels);
        for (int k = 0; k < m->runs[i]->n_scripts; k++)
            free(m->runs[i]->scripts[k]);
        free(m->runs[i]->workload);
        free(m->runs[i]);
    }
    free(m->runs);
    pthread_mutex_destroy(&m->mu);
}

/* The bounds in seconds, as the le labels say them ("0.000032"), made once. */
static char le_text[METRICS_N_BOUNDS][24];
static pthread_once_t le_once = PTHREAD_ONCE_INIT;

static void le_make(void)
{
    for (int i = 0; i < METRICS_N_BOUNDS; i++) {
        int64_t us = metrics_bound_us(i);
        char *t = le_text[i];
        snprintf(t, sizeof le_text[i], "%lld.%06lld", (long long)(us / 1000000),
                 (long long)(us % 1000000));
        size_t len = strlen(t);
        while (t[len - 1] == '0')
            t[--len] = '\0';
    }
}

/* name{run labels[,extra="value"]}: extra's values are pgarena's own words (kinds, phases,
 * classes, bounds) or escaped already (scripts), written as they are. */
static void sample_start(struct buf *b, const char *name, const struct metrics_run *r,
                         const char *extra, const char *value)
{
    buf_puts(b, name);
    buf_putc(b, '{');
    buf_puts(b, r->labels);
    if (extra) {
        buf_putc(b, ',');
        buf_puts(b, extra);
        buf_puts(b, "=\"");
        buf_puts(b, value);
        buf_putc(b, '"');
    }
}

static void put_u64(struct buf *b, const char *name, const struct metrics_run *r, const char *extra,
                    const char *value, uint64_t v)
{
    sample_start(b, name, r, extra, value);
    buf_printf(b, "} %llu\n", (unsigned long long)v);
}

static void put_double(struct buf *b, const char *name, const struct metrics_run *r,
                       const char *extra, const char *value, double v)
{
    sample_start(b, name, r, extra, value);
    buf_printf(b, "} %.9g\n", v);
}

/* The family's metadata: OpenMetrics names a counter without its _total, 0.0.4 with it. */
static void family(struct buf *b, int om, const char *name, const char *type, const char *help)
{
    const char *suffix = !om && strcmp(type, "counter") == 0 ? "_total" : "";
    buf_printf(b, "# TYPE %s%s %s\n# HELP %s%s %s\n", name, suffix, type, name, suffix, help);
}

static void put_hist(struct buf *b, const char *name, const struct metrics_run *r,
                     const struct metrics_hist *h)
{
    char n[96];
    snprintf(n, sizeof n, "%s_bucket", name);
    uint64_t below = 0;
    for (int i = 0; i < METRICS_N_BOUNDS; i++) {
        below += h->bucket[i];
        put_u64(b, n, r, "le", le_text[i], below);
    }
    put_u64(b, n, r, "le", "+Inf", h->count);
    snprintf(n, sizeof n, "%s_count", name);
    put_u64(b, n, r, NULL, NULL, h->count);
    snprintf(n, sizeof n, "%s_sum", name);
    put_double(b, n, r, NULL, NULL, h->sum_s);
}

/* A family of one uint64_t counter a run (the figure at offset off in struct metrics_figures). */
static void counter(struct buf *b, int om, struct metrics_run *const *rs, size_t n,
                    const char *name, const char *help, size_t off)
{
    char total[96];
    snprintf(total, sizeof total, "%s_total", name);
    family(b, om, name, "counter", help);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, (const char *)&rs[i]->f + off, sizeof v);
        put_u64(b, total, rs[i], NULL, NULL, v);
    }
}

#define FIELD(f) offsetof(struct metrics_figures, f)

char *metrics_render(struct metrics *m, int om, size_t *len)
{
    pthread_once(&le_once, le_make);
    struct buf b;
    buf_init(&b);
    pthread_mutex_lock(&m->mu);
    size_t n = m->n_runs;
    struct metrics_run **rs = m->runs;
    counter(&b, om, rs, n, "pgarena_transactions",
            "Successful transactions of the measured part (the warmup left out).",
            FIELD(transactions));
    counter(&b, om, rs, n, "pgarena_statements",
            "Statements executed successfully (replays: the transactions' statements).",
            FIELD(statements));
    family(&b, om, "pgarena_failures", "counter", "Failed transactions by kind.");
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < rs[i]->n_kinds; k++)
            put_u64(&b, "pgarena_failures_total", rs[i], "kind", rs[i]->kinds[k],
                    rs[i]->f.failures[k]);
    family(&b, om, "pgarena_script_transactions", "counter",
           "Successful transactions by script (the warmup left out).");
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < rs[i]->n_scripts; k++)
            put_u64(&b, "pgarena_script_transactions_total", rs[i], "script", rs[i]->scripts[k],
                    rs[i]->f.script_tx[k]);
    counter(&b, om, rs, n, "pgarena_retries",
            "Tries beyond the first (serialization failures and deadlocks retried).",
            FIELD(retries));
    family(&b, om, "pgarena_latency_seconds", "histogram",
           "Latency of the successful transactions (a bucket counts those below its bound).");
    for (size_t i = 0; i < n; i++)
        put_hist(&b, "pgarena_latency_seconds", rs[i], &rs[i]->f.latency);
    family(&b, om, "pgarena_schedule_lag_seconds", "histogram",
           "Start delay behind the schedule (-R and replays).");
    for (size_t i = 0; i < n; i++)
        put_hist(&b, "pgarena_schedule_lag_seconds", rs[i], &rs[i]->f.lag);
    family(&b, om, "pgarena_clients_connected", "gauge", "Clients with a connection.");
    for (size_t i = 0; i < n; i++)
        put_u64(&b, "pgarena_clients_connected", rs[i], NULL, NULL,
                (uint64_t)rs[i]->f.clients_connected);
    family(&b, om, "pgarena_phase", "gauge", "The run's phase: 1 for the current one.");
    for (size_t i = 0; i < n; i++)
        for (int p = 0; p < 4; p++)
            put_u64(&b, "pgarena_phase", rs[i], "phase", phases[p], (int)rs[i]->f.phase == p);
    family(&b, om, "pgarena_client_stalled_seconds", "counter",
           "Time the client lost in stalled intervals (summary.client_health).");
    for (size_t i = 0; i < n; i++)
        put_double(&b, "pgarena_client_stalled_seconds_total", rs[i], NULL, NULL,
                   rs[i]->f.stalled_s);
    family(&b, om, "pgarena_client_cpu_seconds", "counter", "The client process's CPU time.");
    for (size_t i = 0; i < n; i++) {
        put_double(&b, "pgarena_client_cpu_seconds_total", rs[i], "mode", "user",
                   rs[i]->f.cpu_user_s);
        put_double(&b, "pgarena_client_cpu_seconds_total", rs[i], "mode", "system",
                   rs[i]->f.cpu_system_s);
    }
    family(&b, om, "pgarena_server_wait_samples", "counter",
           "The sampler's samples of the run's backends by wait event class (CPU: none).");
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < METRICS_N_WAITS; c++)
            put_u64(&b, "pgarena_server_wait_samples_total", rs[i], "class", wait_classes[c],
                    rs[i]->f.waits[c]);
    counter(&b, om, rs, n, "pgarena_server_wal_bytes", "WAL the server wrote.", FIELD(wal_bytes));
    counter(&b, om, rs, n, "pgarena_server_checkpoints", "Checkpoints, timed and requested.",
            FIELD(checkpoints));
    pthread_mutex_unlock(&m->mu);
    if (om)
        buf_puts(&b, "# EOF\n");
    *len = b.len;
    return b.data;
}
