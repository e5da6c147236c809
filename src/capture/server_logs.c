/* replay capture's csvlog files: which the server wrote during the capture, read through it
 * (capture/server_logs.h says how they are chosen and why). */
#include "capture/server_logs.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "pg/pg.h"

/* The start listing is searched by halves; the files that came later, one by one (a capture
 * sees few). */
static struct server_log_file *file_find(struct server_logs *l, const char *name)
{
    size_t lo = 0, hi = l->n_sorted < l->n ? l->n_sorted : l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(l->f[mid].name, name);
        if (cmp == 0)
            return &l->f[mid];
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = l->n_sorted; i < l->n; i++)
        if (strcmp(l->f[i].name, name) == 0)
            return &l->f[i];
    return NULL;
}

static struct server_log_file *file_add(struct server_logs *l, const char *name)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->f = xrealloc(l->f, l->cap * sizeof *l->f);
    }
    struct server_log_file *f = &l->f[l->n++];
    memset(f, 0, sizeof *f);
    snprintf(f->name, sizeof f->name, "%s", name);
    f->size0 = f->seen = f->size1 = -1;
    return f;
}

static struct server_log_file *file_of(struct server_logs *l, const char *name)
{
    struct server_log_file *f = file_find(l, name);
    return f ? f : file_add(l, name);
}

/* The csvlog files of the log directory: at the start their sizes (size0), at the end their
 * sizes and times (size1, mtime). */
static int list_dir(struct pg_conn *c, struct server_logs *l, int at_end, struct err *e)
{
    struct pg_result *r = pg_query(c,
                                   "SELECT name, size, extract(epoch FROM modification)::bigint "
                                   "FROM pg_ls_logdir() WHERE name LIKE '%.csv' "
                                   "ORDER BY name COLLATE \"C\"",
                                   0, NULL, e);
    if (!r)
        return -1;
    for (int i = 0; i < pg_result_rows(r); i++) {
        const char *name = pg_result_value(r, i, 0);
        struct server_log_file *f = at_end ? file_of(l, name) : file_add(l, name);
        long long size = atoll(pg_result_value(r, i, 1));
        if (at_end) {
            f->size1 = size;
            f->mtime = atoll(pg_result_value(r, i, 2));
        } else {
            f->size0 = size;
        }
    }
    if (!at_end)
        l->n_sorted = l->n;
    pg_result_free(r);
    return 0;
}

/* The current csvlog's name (its directory into l->dir) and length. 0, 1 when there is none,
 * -1 with e set. */
static int current(struct pg_conn *c, struct server_logs *l, char *name, size_t size,
                   long long *len, struct err *e)
{
    struct pg_result *r =
        pg_query(c,
                 "SELECT f, (pg_stat_file(f)).size FROM (SELECT pg_current_logfile('csvlog') f) x "
                 "WHERE f IS NOT NULL",
                 0, NULL, e);
    if (!r)
        return -1;
    int rows = pg_result_rows(r);
    if (rows == 1) {
        const char *path = pg_result_value(r, 0, 0), *slash = strrchr(path, '/');
        snprintf(l->dir, sizeof l->dir, "%.*s", slash ? (int)(slash - path) : 0, path);
        snprintf(name, size, "%s", slash ? slash + 1 : path);
        *len = atoll(pg_result_value(r, 0, 1));
    }
    pg_result_free(r);
    return rows == 1 ? 0 : 1;
}

int server_logs_start(struct pg_conn *c, struct server_logs *l, struct err *e)
{
    l->n = l->n_sorted = 0;
    /* Listed first: a rotation between the two then leaves no bytes of the new file unread. */
    if (list_dir(c, l, 0, e) < 0)
        return -1;
    int rc = current(c, l, l->start, sizeof l->start, &l->start_len, e);
    if (rc == 0)
        file_of(l, l->start)->seen = l->start_len;
    return rc;
}

int server_logs_poll(struct pg_conn *c, struct server_logs *l, struct err *e)
{
    char name[256];
    long long len;
    int rc = current(c, l, name, sizeof name, &len, e);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    struct server_log_file *f = file_of(l, name);
    if (len > f->seen)
        f->seen = len;
    return 0;
}

static void count_missing(struct server_logs *l, long long bytes)
{
    l->missing_files++;
    l->missing_bytes += bytes > 0 ? (uint64_t)bytes : 0;
}

/* What of f to read (f->from, to f->size1) and what of it is known to be lost. 1 when some of
 * it is to be read. */
static int plan_file(struct server_logs *l, struct server_log_file *f)
{
    int is_start = strcmp(f->name, l->start) == 0;
    long long base = is_start ? l->start_len : f->size0 > 0 ? f->size0 : 0;
    long long known = f->seen > f->size0 ? f->seen : f->size0;
    if (f->size1 < 0) {
        /* Gone: lost when it was written during the capture (an old file removed is not). */
        if (is_start || f->seen >= 0)
            count_missing(l, known - base);
        return 0;
    }
    if (f->size1 < known || f->size1 < base) {
        /* Truncated meanwhile: what it holds now was written since; what it held is lost. */
        count_missing(l, known - base);
        f->from = 0;
        return f->size1 > 0;
    }
    f->from = base;
    return f->size1 > base;
}

static int by_order(const void *a, const void *b)
{
    const struct server_log_file *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->mtime != y->mtime)
        return x->mtime < y->mtime ? -1 : 1;
    return strcmp(x->name, y->name);
}

int server_logs_end(struct pg_conn *c, struct server_logs *l, struct err *e)
{
    long long len;
    int rc = current(c, l, l->end, sizeof l->end, &len, e);
    if (rc != 0)
        return rc < 0 ? -1
                      : err_set(e, ERR_RUNTIME, "replay capture: the server writes no csvlog now");
    if (list_dir(c, l, 1, e) < 0)
        return -1;
    /* Keep the files to read, in order; the others are done with. */
    size_t kept = 0;
    for (size_t i = 0; i < l->n; i++) {
        struct server_log_file *f = &l->f[i];
        f->rank = strcmp(f->name, l->end) == 0;
        if (plan_file(l, f))
            l->f[kept++] = *f;
    }
    l->n = kept;
    l->n_sorted = 0;
    qsort(l->f, l->n, sizeof *l->f, by_order);
    return 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Copy bytes [from, to) of the server's file path into out; *got: how many there were (fewer
 * when it is shorter now, none when it is gone). */
static int fetch(struct pg_conn *c, const char *path, long long from, long long to, FILE *out,
                 long long *got, struct err *e)
{
    const long long step = 8 << 20;
    *got = 0;
    for (long long at = from; at < to; at += step) {
        char off[32], len[32];
        snprintf(off, sizeof off, "%lld", at);
        snprintf(len, sizeof len, "%lld", to - at < step ? to - at : step);
        const char *vals[] = {path, off, len};
        struct pg_result *r =
            pg_query(c, "SELECT pg_read_binary_file($1, $2, $3, true)", 3, vals, e);
        if (!r)
            return -1;
        const char *hex = pg_result_rows(r) == 1 ? pg_result_value(r, 0, 0) : "";
        if (strncmp(hex, "\\x", 2) == 0)
            hex += 2;
        for (; hex[0] && hex[1]; hex += 2, ++*got) {
            int hi = hexval(hex[0]), lo = hexval(hex[1]);
            if (hi < 0 || lo < 0)
                break;
            putc(hi << 4 | lo, out);
        }
        pg_result_free(r);
        if (*got < at - from + (to - at < step ? to - at : step))
            break; /* shorter than listed: the rest is not there */
    }
    return ferror(out) ? err_set(e, ERR_RUNTIME, "replay capture: writing the log copy failed") : 0;
}

int server_logs_read(struct pg_conn *c, struct server_logs *l, FILE *out, struct err *e)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct server_log_file *f = &l->f[i];
        char *path = *l->dir ? xasprintf("%s/%s", l->dir, f->name) : xstrdup(f->name);
        long long got;
        int rc = fetch(c, path, f->from, f->size1, out, &got, e);
        free(path);
        if (rc < 0)
            return -1;
        if (got < f->size1 - f->from)
            count_missing(l, f->size1 - f->from - got);
    }
    return 0;
}

void server_logs_free(struct server_logs *l)
{
    free(l->f);
    l->f = NULL;
    l->n = l->cap = 0;
}
