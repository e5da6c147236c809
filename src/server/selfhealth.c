#include "server/selfhealth.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

int self_parse_schedstat(const char *text, uint64_t *run_delay_ns)
{
    unsigned long long runtime, delay;
    if (!text || sscanf(text, "%llu %llu", &runtime, &delay) != 2)
        return -1;
    *run_delay_ns = delay;
    return 0;
}

int self_parse_psi_some(const char *text, uint64_t *total_us)
{
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, "some ", 5) != 0)
            continue;
        const char *eol = strchr(p, '\n'), *t = strstr(p, " total=");
        unsigned long long v;
        if (!t || (eol && t > eol) || sscanf(t + 7, "%llu", &v) != 1)
            return -1;
        *total_us = v;
        return 0;
    }
    return -1;
}

/* A small /proc file's text into buf (NUL-terminated): 0, or -1 when unreadable. */
static int read_small(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, size - 1, f);
    fclose(f);
    buf[n] = '\0';
    return n > 0 ? 0 : -1;
}

/* Threads that ended: their run delay as they last read it (self_health_thread_ended). */
static pthread_mutex_t ended_mu = PTHREAD_MUTEX_INITIALIZER;
static size_t n_ended, cap_ended;
static int *ended_tid;
static uint64_t *ended_delay;

static void push_delay(int **tid, uint64_t **delay, size_t *n, size_t *cap, int t, uint64_t v)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *tid = xrealloc(*tid, *cap * sizeof **tid);
        *delay = xrealloc(*delay, *cap * sizeof **delay);
    }
    (*tid)[*n] = t;
    (*delay)[(*n)++] = v;
}

/* The live threads' delays, then the ended threads' not among them. */
static void add_ended(int **tid, uint64_t **delay, size_t *n, size_t *cap)
{
    size_t live = *n;
    pthread_mutex_lock(&ended_mu);
    for (size_t i = 0; i < n_ended; i++) {
        size_t k = 0;
        while (k < live && (*tid)[k] != ended_tid[i])
            k++;
        if (k == live)
            push_delay(tid, delay, n, cap, ended_tid[i], ended_delay[i]);
    }
    pthread_mutex_unlock(&ended_mu);
}

/* Every thread's run delay now: tids and delays (the caller frees), their number, or -1. */
static long read_delays(int **tid, uint64_t **delay)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    size_t n = 0, cap = 0;
    *tid = NULL;
    *delay = NULL;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char path[64], text[256];
        uint64_t v;
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/schedstat", de->d_name);
        if (read_small(path, text, sizeof text) < 0 || self_parse_schedstat(text, &v) < 0)
            continue; /* the thread ended meanwhile, or no schedstat */
        push_delay(tid, delay, &n, &cap, atoi(de->d_name), v);
    }
    closedir(d);
    if (n > 0)
        add_ended(tid, delay, &n, &cap);
    return n > 0 ? (long)n : -1;
}

void self_health_thread_ended(void)
{
    char text[256];
    int tid;
    uint64_t v;
    /* stat's first field is the thread's ID */
    if (read_small("/proc/thread-self/stat", text, sizeof text) < 0 ||
        sscanf(text, "%d", &tid) != 1 ||
        read_small("/proc/thread-self/schedstat", text, sizeof text) < 0 ||
        self_parse_schedstat(text, &v) < 0)
        return;
    pthread_mutex_lock(&ended_mu);
    push_delay(&ended_tid, &ended_delay, &n_ended, &cap_ended, tid, v);
    pthread_mutex_unlock(&ended_mu);
}

void self_health_forget_ended(void)
{
    pthread_mutex_lock(&ended_mu);
    free(ended_tid);
    free(ended_delay);
    ended_tid = NULL;
    ended_delay = NULL;
    n_ended = cap_ended = 0;
    pthread_mutex_unlock(&ended_mu);
}

static int read_psi(uint64_t *us)
{
    char text[512];
    return read_small("/proc/pressure/cpu", text, sizeof text) < 0 ? -1
                                                                   : self_parse_psi_some(text, us);
}

void self_health_read(struct self_health *h)
{
    memset(h, 0, sizeof *h);
    h->read_ns = clock_now_ns();
    long n = read_delays(&h->tid, &h->delay_ns);
    h->have_tasks = n >= 0;
    h->n = n >= 0 ? (size_t)n : 0;
    h->have_psi = read_psi(&h->psi_us) == 0;
    h->have_cpu = proc_read_cpu(&h->cpu) == 0;
}

static double grown_ms(uint64_t before, uint64_t after, double unit_ms)
{
    return after > before ? (double)(after - before) * unit_ms : 0;
}

void self_health_diff(const struct self_health *before, const struct self_health *after,
                      struct self_health_delta *out)
{
    *out = (struct self_health_delta){-1, -1, -1, -1};
    if (before->have_tasks && after->have_tasks) {
        out->run_delay_ms = out->run_delay_max_ms = 0;
        for (size_t i = 0; i < after->n; i++) {
            uint64_t was = 0;
            for (size_t k = 0; k < before->n; k++)
                if (before->tid[k] == after->tid[i])
                    was = before->delay_ns[k];
            double d = grown_ms(was, after->delay_ns[i], 1e-6);
            out->run_delay_ms += d;
            if (d > out->run_delay_max_ms)
                out->run_delay_max_ms = d;
        }
    }
    if (before->have_psi && after->have_psi)
        out->psi_ms = grown_ms(before->psi_us, after->psi_us, 1e-3);
    if (before->have_cpu && after->have_cpu) {
        struct proc_cpu_share share;
        proc_cpu_share(&before->cpu, &after->cpu, &share);
        out->steal_share = share.steal;
    }
}

void self_health_free(struct self_health *h)
{
    free(h->tid);
    free(h->delay_ns);
    memset(h, 0, sizeof *h);
}

void self_edges_start(struct self_edges *r, struct self_health *first)
{
    self_health_free(&r->base);
    r->base = *first;
    memset(first, 0, sizeof *first);
}

void self_edges_put(struct self_edges *r, size_t k, struct self_health *reading)
{
    size_t slot = k % SELF_EDGES;
    self_health_free(&r->at[slot]);
    r->at[slot] = *reading;
    r->k[slot] = k;
    r->have[slot] = 1;
    memset(reading, 0, sizeof *reading);
}

/* Edge k's reading taken out of the ring when it is there and read at or after the base's
 * (0), else -1 (and an edge older than the base is dropped). */
static int edge_out(struct self_edges *r, size_t k, struct self_health *out)
{
    size_t slot = k % SELF_EDGES;
    if (!r->have[slot] || r->k[slot] != k)
        return -1;
    r->have[slot] = 0;
    if (r->at[slot].read_ns < r->base.read_ns) {
        self_health_free(&r->at[slot]);
        return -1;
    }
    *out = r->at[slot];
    memset(&r->at[slot], 0, sizeof r->at[slot]);
    return 0;
}

void self_edges_take(struct self_edges *r, size_t idx, void (*read)(struct self_health *),
                     struct self_health_delta *out)
{
    struct self_health from, to;
    if (edge_out(r, idx, &from) == 0)
        self_edges_start(r, &from);
    if (edge_out(r, idx + 1, &to) < 0)
        read(&to);
    self_health_diff(&r->base, &to, out);
    self_edges_start(r, &to);
}

void self_edges_free(struct self_edges *r)
{
    self_health_free(&r->base);
    for (size_t i = 0; i < SELF_EDGES; i++)
        self_health_free(&r->at[i]);
    memset(r, 0, sizeof *r);
}
