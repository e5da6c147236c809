#include "server/procstat.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "os/os.h"

/* Parsers of /proc's text, and readers of the live files. A reading that fails leaves the
 * caller without that figure, never without the run. */

int proc_parse_cpu(const char *text, struct proc_cpu *out)
{
    memset(out, 0, sizeof *out);
    const char *p = text;
    while (p && strncmp(p, "cpu ", 4) != 0) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return -1;
    unsigned long long v[8] = {0};
    int n = sscanf(p + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    if (n < 4) /* kernels before 2.6 had four fields: the rest stay 0 */
        return -1;
    *out = (struct proc_cpu){v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]};
    return 0;
}

/* after - before, 0 when a counter went backwards (a CPU taken offline drops its ticks). */
static double grew(uint64_t before, uint64_t after)
{
    return after > before ? (double)(after - before) : 0.0;
}

void proc_cpu_share(const struct proc_cpu *before, const struct proc_cpu *after,
                    struct proc_cpu_share *out)
{
    double user = grew(before->user, after->user) + grew(before->nice, after->nice);
    double system = grew(before->system, after->system) + grew(before->irq, after->irq) +
                    grew(before->softirq, after->softirq);
    double iowait = grew(before->iowait, after->iowait), idle = grew(before->idle, after->idle);
    double steal = grew(before->steal, after->steal);
    double total = user + system + iowait + idle + steal;
    memset(out, 0, sizeof *out);
    if (total <= 0)
        return;
    *out = (struct proc_cpu_share){user / total, system / total, iowait / total, idle / total,
                                   steal / total};
}

int proc_is_physical_disk(const char *name)
{
    static const char *const virtual[] = {"loop", "ram", "zram", "dm-", "md", "sr", "fd", "nbd"};
    for (size_t i = 0; i < sizeof virtual / sizeof virtual[0]; i++)
        if (strncmp(name, virtual[i], strlen(virtual[i])) == 0)
            return 0;
    return name[0] != '\0';
}

static int listed(const char *name, size_t len, const char *const *disks, size_t n_disks)
{
    for (size_t i = 0; i < n_disks; i++)
        if (strlen(disks[i]) == len && memcmp(disks[i], name, len) == 0)
            return 1;
    return 0;
}

int proc_parse_diskstats(const char *text, const char *const *disks, size_t n_disks,
                         struct proc_disk *out)
{
    memset(out, 0, sizeof *out);
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char name[64];
        unsigned major, minor;
        unsigned long long reads, rmerged, rsect, rms, writes, wmerged, wsect;
        if (len > 0) {
            char copy[512];
            snprintf(copy, sizeof copy, "%.*s", (int)(len < sizeof copy ? len : sizeof copy - 1),
                     line);
            if (sscanf(copy, "%u %u %63s %llu %llu %llu %llu %llu %llu %llu", &major, &minor, name,
                       &reads, &rmerged, &rsect, &rms, &writes, &wmerged, &wsect) != 10)
                return -1;
            if (listed(name, strlen(name), disks, n_disks)) {
                out->read_bytes += rsect * 512ULL;
                out->write_bytes += wsect * 512ULL;
            }
        }
        line = end ? end + 1 : NULL;
    }
    return 0;
}

int proc_parse_task_stat(const char *text, uint64_t *utime, uint64_t *stime)
{
    const char *p = strrchr(text, ')');
    if (!p)
        return -1;
    /* After the command: state (3), then fields 4..13, then utime (14) and stime (15). */
    p++;
    for (int field = 3; field <= 13; field++) {
        while (*p == ' ')
            p++;
        if (!*p)
            return -1;
        while (*p && *p != ' ')
            p++;
    }
    unsigned long long u, s;
    if (sscanf(p, " %llu %llu", &u, &s) != 2)
        return -1;
    *utime = u;
    *stime = s;
    return 0;
}

/* The start of a /proc file into b (at most limit bytes): 0, or -1 when unreadable. */
static int read_text(const char *path, struct buf *b, size_t limit)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    buf_reset(b);
    char chunk[4096];
    size_t n;
    while (b->len < limit && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_append(b, chunk, n);
    fclose(f);
    return 0;
}

int proc_read_cpu(struct proc_cpu *out)
{
    struct buf b;
    buf_init(&b);
    int rc = read_text("/proc/stat", &b, 4096);
    if (rc == 0)
        rc = proc_parse_cpu(b.data, out);
    buf_free(&b);
    return rc;
}

/* The physical disks /sys/block lists (whole disks, not partitions). */
static size_t list_disks(char ***out)
{
    *out = NULL;
    DIR *d = opendir("/sys/block");
    if (!d)
        return 0;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || !proc_is_physical_disk(de->d_name))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 8;
            *out = xrealloc(*out, cap * sizeof **out);
        }
        (*out)[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    return n;
}

int proc_read_disk(struct proc_disk *out)
{
    char **disks;
    size_t n = list_disks(&disks);
    struct buf b;
    buf_init(&b);
    int rc = read_text("/proc/diskstats", &b, 1 << 20);
    if (rc == 0)
        rc = proc_parse_diskstats(b.data, (const char *const *)disks, n, out);
    buf_free(&b);
    for (size_t i = 0; i < n; i++)
        free(disks[i]);
    free(disks);
    return rc;
}

int proc_read_tasks(struct proc_tasks *out)
{
    memset(out, 0, sizeof *out);
    if (os_threads_cpu(&out->n, &out->tid, &out->ticks) == 0)
        return 0;
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    size_t cap = 0;
    struct buf b;
    buf_init(&b);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char path[64];
        uint64_t u, s;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", de->d_name);
        if (read_text(path, &b, 4096) < 0 || proc_parse_task_stat(b.data, &u, &s) < 0)
            continue; /* the thread ended meanwhile */
        if (out->n == cap) {
            cap = cap ? 2 * cap : 16;
            out->tid = xrealloc(out->tid, cap * sizeof *out->tid);
            out->ticks = xrealloc(out->ticks, cap * sizeof *out->ticks);
        }
        out->tid[out->n] = atoi(de->d_name);
        out->ticks[out->n++] = u + s;
    }
    closedir(d);
    buf_free(&b);
    return 0;
}

void proc_tasks_free(struct proc_tasks *t)
{
    free(t->tid);
    free(t->ticks);
    memset(t, 0, sizeof *t);
}

double proc_tasks_max_core(const struct proc_tasks *before, const struct proc_tasks *after,
                           double seconds)
{
    long hz = os_clock_ticks();
    if (seconds <= 0 || hz <= 0)
        return 0;
    double max = 0;
    for (size_t i = 0; i < after->n; i++)
        for (size_t j = 0; j < before->n; j++)
            if (before->tid[j] == after->tid[i] && after->ticks[i] >= before->ticks[j]) {
                double core = (double)(after->ticks[i] - before->ticks[j]) / (double)hz / seconds;
                if (core > max)
                    max = core;
                break;
            }
    return max;
}
