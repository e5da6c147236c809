#include "server/server.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* The settings lint: pure functions of pg_settings rows and run facts, so every rule is
 * unit-tested without a server. */

const struct srv_setting *srv_setting_find(const struct srv_setting *s, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s[i].name, name) == 0)
            return &s[i];
    return NULL;
}

/* The unit as a multiplier and a base unit: "8kB" -> 8192 "B"; "min" -> 60 "s". */
static double unit_scale(const char *unit, const char **base)
{
    static const struct {
        const char *suffix, *base;
        double scale;
    } units[] = {{"B", "B", 1},
                 {"kB", "B", 1024},
                 {"MB", "B", 1048576},
                 {"GB", "B", 1073741824},
                 {"TB", "B", 1099511627776.0},
                 {"us", "s", 1e-6},
                 {"ms", "s", 1e-3},
                 {"s", "s", 1},
                 {"min", "s", 60},
                 {"h", "s", 3600},
                 {"d", "s", 86400}};
    char *end;
    double factor = strtod(unit, &end); /* "8kB", "16MB": a block size */
    if (end == unit)
        factor = 1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            *base = units[i].base;
            return factor * units[i].scale;
        }
    }
    return 0;
}

/* raw in unit, converted to want ("B" or "s"); -1 when it is not such an amount. */
static double in_base(const struct srv_setting *s, const char *want)
{
    const char *base = NULL;
    if (!s || !s->unit || !s->raw)
        return -1;
    double scale = unit_scale(s->unit, &base);
    char *end;
    double v = strtod(s->raw, &end);
    if (scale <= 0 || strcmp(base, want) != 0 || end == s->raw || *end || v < 0)
        return -1;
    return v * scale;
}

int64_t srv_setting_bytes(const struct srv_setting *s)
{
    double b = in_base(s, "B");
    return b < 0 ? -1 : (int64_t)b;
}

double srv_setting_seconds(const struct srv_setting *s)
{
    return in_base(s, "s");
}

int srv_setting_is_changed(const char *raw, const char *boot_val, const char *source)
{
    if (!source || strcmp(source, "default") == 0)
        return 0;
    if (!boot_val || !raw)
        return 1;
    if (strcmp(boot_val, "-1") == 0 && strcmp(source, "override") == 0)
        return 0; /* auto-tuned, as wal_buffers */
    return strcmp(raw, boot_val) != 0;
}

/* "3.2 MB": sizes in messages are for people. */
static char *human_bytes(int64_t n)
{
    static const char *const units[] = {"bytes", "kB", "MB", "GB", "TB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    return u == 0 ? xasprintf("%lld bytes", (long long)n) : xasprintf("%.1f %s", v, units[u]);
}

struct lint {
    const struct srv_setting *settings;
    size_t n_settings;
    struct srv_warning *w;
    size_t n;
};

/* Add a warning; takes message. */
static void warn(struct lint *l, const char *setting, const char *value, char *message)
{
    l->w = xrealloc(l->w, (l->n + 1) * sizeof *l->w);
    l->w[l->n++] = (struct srv_warning){xstrdup(setting), xstrdup(value ? value : ""), message};
}

static const struct srv_setting *get(const struct lint *l, const char *name)
{
    return srv_setting_find(l->settings, l->n_settings, name);
}

static int is_off(const struct srv_setting *s)
{
    return s && s->value && strcmp(s->value, "off") == 0;
}

/* Settings that give up durability or maintenance when off: the numbers hold for no real
 * server. */
static void lint_durability(struct lint *l)
{
    static const struct {
        const char *name, *why;
    } rules[] = {
        {"fsync", "the server does not flush writes to disk: a crash can corrupt the database, "
                  "and the results are not valid for a durable setup"},
        {"full_page_writes", "pages torn by a crash cannot be repaired, so data is at risk, and "
                             "writes cost less than in a durable setup"},
        {"synchronous_commit", "commits return before their WAL is on disk: a crash loses recent "
                               "transactions, and commit latency is lower than in a durable "
                               "setup"},
        {"autovacuum", "dead rows are never cleaned up, so tables and indexes bloat and longer "
                       "runs slow down in a way a maintained server does not"},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
        const struct srv_setting *s = get(l, rules[i].name);
        if (is_off(s))
            warn(l, s->name, s->value, xstrdup(rules[i].why));
    }
}

/* Connections an ordinary user may open: max_connections minus the reserved ones. */
static void lint_connections(struct lint *l, const struct srv_run_facts *f)
{
    const struct srv_setting *max = get(l, "max_connections");
    const struct srv_setting *su = get(l, "superuser_reserved_connections");
    const struct srv_setting *res = get(l, "reserved_connections"); /* PostgreSQL 16+ */
    if (!max || !max->raw)
        return;
    long reserved = (su && su->raw ? atol(su->raw) : 0) + (res && res->raw ? atol(res->raw) : 0);
    long available = atol(max->raw) - reserved;
    if (f->clients > available)
        warn(l, max->name, max->value,
             xasprintf("%d clients are more than the %ld connections left to ordinary users "
                       "(%ld reserved), so clients may be refused or take reserved slots",
                       f->clients, available < 0 ? 0 : available, reserved));
}

/* Facts of the run that make it unrepresentative of a longer or disk-bound one. */
static void lint_run(struct lint *l, const struct srv_run_facts *f)
{
    const struct srv_setting *s = get(l, "checkpoint_timeout");
    double timeout_s = srv_setting_seconds(s);
    if (f->writes && timeout_s > 0 && f->duration_s < timeout_s)
        warn(l, s->name, s->value,
             xasprintf("the measured part (%.0f s) is shorter than checkpoint_timeout and the "
                       "workload writes, so the cost of checkpoints is probably not represented",
                       f->duration_s));
    s = get(l, "shared_buffers");
    int64_t shared = srv_setting_bytes(s);
    if (f->dataset_bytes > 0 && shared > 0 && f->dataset_bytes <= shared) {
        char *size = human_bytes(f->dataset_bytes);
        warn(l, s->name, s->value,
             xasprintf("the dataset (%s) fits in shared_buffers: this is an in-memory test, and "
                       "reads from disk are not measured",
                       size));
        free(size);
    }
    if (f->location == SRV_LOCATION_LOCAL)
        warn(l, "host", f->host ? f->host : "localhost",
             xstrdup("the server runs on the same host as the client: they compete for CPU and "
                     "memory, which lowers and distorts the numbers"));
}

size_t srv_lint(const struct srv_setting *settings, size_t n, const struct srv_run_facts *facts,
                struct srv_warning **out)
{
    struct lint l = {settings, n, NULL, 0};
    lint_durability(&l);
    lint_connections(&l, facts);
    lint_run(&l, facts);
    *out = l.w;
    return l.n;
}

void srv_warnings_free(struct srv_warning *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(w[i].setting);
        free(w[i].value);
        free(w[i].message);
    }
    free(w);
}
