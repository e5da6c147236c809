#include "server/selfhealth.h"

#include <dirent.h>
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
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            *tid = xrealloc(*tid, cap * sizeof **tid);
            *delay = xrealloc(*delay, cap * sizeof **delay);
        }
        (*tid)[n] = atoi(de->d_name);
        (*delay)[n++] = v;
    }
    closedir(d);
    return n > 0 ? (long)n : -1;
}

static int read_psi(uint64_t *us)
{
    char text[512];
    return read_small("/proc/pressure/cpu", text, sizeof text) < 0 ? -1
                                                                   : self_parse_psi_some(text, us);
}

void self_health_start(struct self_health *h)
{
    struct self_health_delta ignored;
    memset(h, 0, sizeof *h);
    self_health_take(h, &ignored);
}

static double grown_ms(uint64_t before, uint64_t after, double unit_ms)
{
    return after > before ? (double)(after - before) * unit_ms : 0;
}

void self_health_take(struct self_health *h, struct self_health_delta *out)
{
    *out = (struct self_health_delta){-1, -1, -1, -1};
    int *tid;
    uint64_t *delay;
    long n = read_delays(&tid, &delay);
    if (n >= 0 && h->have_tasks) {
        out->run_delay_ms = out->run_delay_max_ms = 0;
        for (long i = 0; i < n; i++) {
            uint64_t was = 0;
            for (size_t k = 0; k < h->n; k++)
                if (h->tid[k] == tid[i])
                    was = h->delay_ns[k];
            double d = grown_ms(was, delay[i], 1e-6);
            out->run_delay_ms += d;
            if (d > out->run_delay_max_ms)
                out->run_delay_max_ms = d;
        }
    }
    free(h->tid);
    free(h->delay_ns);
    h->tid = n >= 0 ? tid : NULL;
    h->delay_ns = n >= 0 ? delay : NULL;
    h->n = n >= 0 ? (size_t)n : 0;
    h->have_tasks = n >= 0;

    uint64_t psi;
    int have_psi = read_psi(&psi) == 0;
    if (have_psi && h->have_psi)
        out->psi_ms = grown_ms(h->psi_us, psi, 1e-3);
    h->have_psi = have_psi;
    h->psi_us = have_psi ? psi : 0;

    struct proc_cpu cpu;
    int have_cpu = proc_read_cpu(&cpu) == 0;
    if (have_cpu && h->have_cpu) {
        struct proc_cpu_share share;
        proc_cpu_share(&h->cpu, &cpu, &share);
        out->steal_share = share.steal;
    }
    h->have_cpu = have_cpu;
    if (have_cpu)
        h->cpu = cpu;
}

void self_health_free(struct self_health *h)
{
    free(h->tid);
    free(h->delay_ns);
    memset(h, 0, sizeof *h);
}
