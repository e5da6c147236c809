/* The fairness check: what differs between the environments of two sides ; listed by compare, and a
 * warning when it makes the comparison not like for like. */
#include "compare/cmp_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"

/* Paths that differ between any two runs without meaning anything. */
static const char *const ignored[] = {
    "options.seed",        "server.database_size_bytes", "server.dataset_bytes",
    "server.tables.bytes", "server.tables.index_bytes",  "server.rtt_us",
    "server.capture_ms",   "server.other_backends",      NULL};

/* Paths that make a comparison not like for like when they differ: the load offered and the
 * data it runs on. Server version and settings are what people compare, so they are listed
 * but not warned about. */
static const char *const unfair[] = {"workload.name",
                                     "workload.scale",
                                     "workload.scripts.text",
                                     "workload.scripts.weight",
                                     "options.clients",
                                     "options.threads",
                                     "options.rate",
                                     "options.latency_limit_ms",
                                     "options.connect_per_tx",
                                     "options.transactions_per_client",
                                     NULL};

#define WARNINGS_PATH        "server.warnings.message"
#define WARNING_SETTING_PATH "server.warnings.setting"
#define ABSENT               "(absent)"

static int in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return 1;
    return 0;
}

/* Distinct values of path over the side's runs. */
struct values {
    size_t n;
    const char **v; /* borrowed from the results, sorted */
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void side_values(const struct cmp_side *side, const char *path, struct values *out)
{
    size_t cap = 8, n = 0;
    const char **v = xmalloc(cap * sizeof *v);
    for (size_t t = 0; t < side->n_trials; t++) {
        const struct result *r = side->runs[t];
        size_t before = n;
        for (size_t i = 0; i <= r->n_env; i++) {
            const char *value = NULL;
            if (i < r->n_env && strcmp(r->env[i].path, path) == 0)
                value = r->env[i].value;
            else if (i == r->n_env && n == before)
                value = ABSENT; /* the run has no such path */
            if (!value)
                continue;
            if (n == cap)
                v = xrealloc(v, (cap *= 2) * sizeof *v);
            v[n++] = value;
        }
    }
    qsort(v, n, sizeof *v, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || strcmp(v[k - 1], v[i]) != 0)
            v[k++] = v[i];
    out->n = k;
    out->v = v;
}

static char *joined(const struct values *vs)
{
    struct buf b;
    buf_init(&b);
    for (size_t i = 0; i < vs->n; i++) {
        if (i > 0)
            buf_puts(&b, ", ");
        buf_puts(&b, vs->v[i]);
    }
    return b.data;
}

/* Every path of the two sides' runs, once, in file order. Caller frees the array. */
static size_t all_paths(const struct cmp_side *const *sides, int n_sides, const char ***out)
{
    size_t n = 0, cap = 64;
    const char **p = xmalloc(cap * sizeof *p);
    for (int s = 0; s < n_sides; s++) {
        for (size_t t = 0; t < sides[s]->n_trials; t++) {
            const struct result *r = sides[s]->runs[t];
            for (size_t i = 0; i < r->n_env; i++) {
                size_t k = 0;
                while (k < n && strcmp(p[k], r->env[i].path) != 0)
                    k++;
                if (k < n)
                    continue;
                if (n == cap)
                    p = xrealloc(p, (cap *= 2) * sizeof *p);
                p[n++] = r->env[i].path;
            }
        }
    }
    *out = p;
    return n;
}

/* A side's server warnings: what each is about (its setting, else its message) and its
 * message. The flattened environment gives a warning's setting before its message. */
struct side_warnings {
    size_t n;
    const char **key, **message; /* borrowed from the results */
};

static void warnings_of(const struct cmp_side *side, struct side_warnings *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof *out);
    for (size_t t = 0; t < side->n_trials; t++) {
        const struct result *r = side->runs[t];
        const char *setting = NULL;
        for (size_t i = 0; i < r->n_env; i++) {
            if (strcmp(r->env[i].path, WARNING_SETTING_PATH) == 0) {
                setting = r->env[i].value;
                continue;
            }
            if (strcmp(r->env[i].path, WARNINGS_PATH) != 0)
                continue;
            if (out->n == cap) {
                cap = cap ? 2 * cap : 8;
                out->key = xrealloc(out->key, cap * sizeof *out->key);
                out->message = xrealloc(out->message, cap * sizeof *out->message);
            }
            out->key[out->n] = setting ? setting : r->env[i].value;
            out->message[out->n++] = r->env[i].value;
            setting = NULL;
        }
    }
}

/* A server warning (fsync=off, ...) on one side only makes the sides unlike. Warnings are
 * matched by their setting: their messages carry measured sizes that differ run to run. */
static void warn_one_sided(struct cmp_report *rep, const struct cmp_side *x,
                           const struct cmp_side *y)
{
    struct side_warnings wx, wy;
    warnings_of(x, &wx);
    warnings_of(y, &wy);
    for (size_t i = 0; i < wx.n; i++) {
        size_t k = 0;
        while (k < wy.n && strcmp(wy.key[k], wx.key[i]) != 0)
            k++;
        if (k == wy.n)
            cmp_warn(rep, "not like for like: a server warning on %s only: %s", x->label,
                     wx.message[i]);
    }
    free(wx.key);
    free(wx.message);
    free(wy.key);
    free(wy.message);
}

static void add_diff(struct cmp_report *rep, size_t side, const char *path, char *a, char *b)
{
    rep->diffs = xrealloc(rep->diffs, (rep->n_diffs + 1) * sizeof *rep->diffs);
    struct cmp_diff *d = &rep->diffs[rep->n_diffs++];
    *d = (struct cmp_diff){side, xstrdup(path), a, b, in_list(unfair, path)};
    if (!d->unfair)
        return;
    if (strlen(a) + strlen(b) > 80) /* script texts: the listing shows enough */
        cmp_warn(rep, "not like for like: %s differs between %s and %s", path, rep->sides[0].label,
                 rep->sides[side].label);
    else
        cmp_warn(rep, "not like for like: %s differs (%s: %s; %s: %s)", path, rep->sides[0].label,
                 a, rep->sides[side].label, b);
}

void cmp_env_diff(struct cmp_report *rep, size_t side)
{
    const struct cmp_side *pair[2] = {&rep->sides[0], &rep->sides[side]};
    const char **paths;
    size_t n = all_paths(pair, 2, &paths);
    for (size_t i = 0; i < n; i++) {
        if (in_list(ignored, paths[i]) || strncmp(paths[i], "server.warnings.", 16) == 0)
            continue;
        struct values va, vb;
        side_values(pair[0], paths[i], &va);
        side_values(pair[1], paths[i], &vb);
        char *a = joined(&va), *b = joined(&vb);
        if (strcmp(a, b) != 0) {
            add_diff(rep, side, paths[i], a, b);
        } else {
            free(a);
            free(b);
        }
        free(va.v);
        free(vb.v);
    }
    free(paths);
    warn_one_sided(rep, pair[0], pair[1]);
    warn_one_sided(rep, pair[1], pair[0]);
}

void cmp_env_check_side(struct cmp_report *rep, size_t side)
{
    const struct cmp_side *s = &rep->sides[side];
    if (s->n_trials < 2)
        return;
    for (const char *const *path = unfair; *path; path++) {
        struct values v;
        side_values(s, *path, &v);
        if (v.n > 1) {
            char *text = joined(&v);
            if (strlen(text) > 80)
                cmp_warn(rep, "the trials of %s differ in %s", s->label, *path);
            else
                cmp_warn(rep, "the trials of %s differ in %s (%s)", s->label, *path, text);
            free(text);
        }
        free(v.v);
    }
}
