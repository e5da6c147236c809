/* history DIR: every result file under a directory, and the runs --accept made baselines. */
#include "history/history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "os/os.h"

struct found {
    char **paths;
    size_t n, cap;
};

/* Whether the file's first bytes name the result format (a sweep.json, a capture, any other
 * JSON is skipped without reading it whole). */
static int looks_like_result(const char *path)
{
    FILE *f = os_fopen(path, "r");
    if (!f)
        return 0;
    char head[512];
    size_t n = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[n] = '\0';
    return strstr(head, "\"" RESULT_FORMAT "\"") != NULL;
}

int history_is_dir(const char *arg)
{
    struct stat st;
    return os_stat(arg, &st) == 0 && S_ISDIR(st.st_mode);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int walk(const char *dir, struct found *f, struct err *e)
{
    struct os_dir *d = os_opendir(dir);
    if (!d)
        return err_set(e, ERR_INPUT, "history: cannot read directory %s: %s", dir, strerror(errno));
    const char *name;
    int rc = 0;
    while (rc == 0 && (name = os_readdir(d)) != NULL) {
        if (name[0] == '.')
            continue;
        char *path = xasprintf("%s/%s", dir, name);
        struct stat st;
        if (os_stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = walk(path, f, e);
        } else if (ends_with(name, ".json") && S_ISREG(st.st_mode) && looks_like_result(path)) {
            if (f->n == f->cap) {
                f->cap = f->cap ? 2 * f->cap : 64;
                f->paths = xrealloc(f->paths, f->cap * sizeof *f->paths);
            }
            f->paths[f->n++] = path;
            path = NULL;
        }
        free(path);
    }
    os_closedir(d);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int history_load_dir(const char *dir, struct result **runs, char ***paths, size_t *n, struct err *e)
{
    struct found f = {0};
    *runs = NULL;
    *paths = NULL;
    *n = 0;
    int rc = walk(dir, &f, e);
    if (f.n)
        qsort(f.paths, f.n, sizeof *f.paths, by_name);
    struct result *r = xcalloc(f.n + 1, sizeof *r);
    size_t k = 0;
    for (size_t i = 0; rc == 0 && i < f.n; i++, k++)
        rc = result_read(f.paths[i], &r[i], e);
    if (rc < 0) {
        for (size_t i = 0; i + 1 < k; i++)
            result_free(&r[i]);
        for (size_t i = 0; i < f.n; i++)
            free(f.paths[i]);
        free(f.paths);
        free(r);
        return -1;
    }
    *runs = r;
    *paths = f.paths;
    *n = f.n;
    return 0;
}

static char *accepted_path(const char *dir)
{
    return xasprintf("%s/.pgarena-accepted", dir);
}

void history_dir_accepted(const char *dir, struct history_opts *o)
{
    char *path = accepted_path(dir);
    FILE *f = os_fopen(path, "r");
    free(path);
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0])
            continue;
        o->accepted = xrealloc(o->accepted, (o->n_accepted + 1) * sizeof *o->accepted);
        o->accepted[o->n_accepted++] = xstrdup(line);
    }
    fclose(f);
}

int history_dir_accept(const char *dir, const char *run_id, struct err *e)
{
    char *path = accepted_path(dir);
    FILE *f = os_fopen(path, "a");
    int rc = 0;
    if (!f || fprintf(f, "%s\n", run_id) < 0)
        rc = err_set(e, ERR_RUNTIME, "history: cannot record --accept in %s: %s", path,
                     strerror(errno));
    if (f && fclose(f) != 0 && rc == 0)
        rc = err_set(e, ERR_RUNTIME, "history: cannot record --accept in %s: %s", path,
                     strerror(errno));
    free(path);
    return rc;
}
