/* Environments side by side, and the warnings that say how far to trust the numbers. */
#include "report/html_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "report/fmt.h"

static void push(struct report_env *env, size_t *cap, const char *path, char *value)
{
    if (env->n == *cap) {
        *cap = *cap ? 2 * *cap : 32;
        env->items = xrealloc(env->items, *cap * sizeof *env->items);
    }
    env->items[env->n].path = xstrdup(path);
    env->items[env->n].value = value;
    env->n++;
}

static void push_str(struct report_env *env, size_t *cap, const char *path, const char *s)
{
    if (s)
        push(env, cap, path, xstrdup(s));
}

static void push_int(struct report_env *env, size_t *cap, const char *path, int64_t v)
{
    push(env, cap, path, xasprintf("%" PRId64, v));
}

static void push_num(struct report_env *env, size_t *cap, const char *path, double v)
{
    push(env, cap, path, xasprintf("%g", v));
}

/* The model's environment, in the order and under the paths of the result file. */
static void env_from_model(const struct result *r, struct report_env *env, size_t *cap)
{
    push_str(env, cap, "client.hostname", r->client.hostname);
    push_str(env, cap, "client.os", r->client.os);
    push_int(env, cap, "client.cpus", r->client.cpus);
    push_int(env, cap, "client.memory_bytes", r->client.memory_bytes);
    push_str(env, cap, "client.pgarena_version", r->client.pgarena_version);
    push_str(env, cap, "client.libpq_version", r->client.libpq_version);
    push_str(env, cap, "server.version", r->server.version);
    push_str(env, cap, "workload.name", r->workload.name);
    push_int(env, cap, "workload.scale", r->workload.scale);
    for (size_t i = 0; i < r->workload.n_scripts; i++) {
        push_str(env, cap, "workload.scripts.name", r->workload.scripts[i].name);
        push_int(env, cap, "workload.scripts.weight", r->workload.scripts[i].weight);
    }
    push_int(env, cap, "options.clients", r->options.clients);
    push_int(env, cap, "options.threads", r->options.threads);
    push_num(env, cap, "options.duration_s", r->options.duration_s);
    push_int(env, cap, "options.transactions_per_client", r->options.transactions_per_client);
    push_num(env, cap, "options.rate", r->options.rate);
    push_num(env, cap, "options.latency_limit_ms", r->options.latency_limit_ms);
    push_str(env, cap, "options.connect_per_tx", r->options.connect_per_tx ? "true" : "false");
    push_str(env, cap, "options.protocol", r->options.protocol);
    push_num(env, cap, "options.warmup_s", r->options.warmup_s);
    push_int(env, cap, "options.seed", (int64_t)r->options.seed);
}

void report_env_of(const struct result *r, struct report_env *out)
{
    size_t cap = 0;
    memset(out, 0, sizeof *out);
    /* SEAM(issue 7): the environment result_read flattened, when there is one. */
    env_from_model(r, out, &cap);
}

void report_env_free(struct report_env *env)
{
    for (size_t i = 0; i < env->n; i++) {
        free(env->items[i].path);
        free(env->items[i].value);
    }
    free(env->items);
    memset(env, 0, sizeof *env);
}

/* Shown elsewhere in the report (warnings, scripts). */
static int shown_elsewhere(const char *path)
{
    return strncmp(path, "server.warnings", 15) == 0 || strcmp(path, "workload.scripts.text") == 0;
}

/* Differ between any two runs without meaning anything, as compare sees it. */
static int expected_to_differ(const char *path)
{
    static const char *const noise[] = {"options.seed", "server.database_size_bytes", NULL};
    for (const char *const *p = noise; *p; p++)
        if (strcmp(*p, path) == 0)
            return 1;
    return 0;
}

/* One row of the table: a path and its value in each run (NULL: absent). */
struct env_row {
    const char *path; /* borrowed from an env */
    char **values;    /* per run; several values of an array joined by ", " */
};

struct env_table {
    size_t n, cap, n_runs;
    struct env_row *rows;
};

static struct env_row *row_for(struct env_table *t, const char *path)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].path, path) == 0)
            return &t->rows[i];
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->rows = xrealloc(t->rows, t->cap * sizeof *t->rows);
    }
    struct env_row *row = &t->rows[t->n++];
    row->path = path;
    row->values = xcalloc(t->n_runs, sizeof *row->values);
    return row;
}

static void table_build(struct env_table *t, const struct report_env *envs, size_t n_runs)
{
    memset(t, 0, sizeof *t);
    t->n_runs = n_runs;
    for (size_t r = 0; r < n_runs; r++) {
        for (size_t i = 0; i < envs[r].n; i++) {
            const struct report_env_item *it = &envs[r].items[i];
            if (shown_elsewhere(it->path))
                continue;
            struct env_row *row = row_for(t, it->path);
            char *old = row->values[r];
            row->values[r] = old ? xasprintf("%s, %s", old, it->value) : xstrdup(it->value);
            free(old);
        }
    }
}

static void table_free(struct env_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        for (size_t r = 0; r < t->n_runs; r++)
            free(t->rows[i].values[r]);
        free(t->rows[i].values);
    }
    free(t->rows);
}

static int row_differs(const struct env_row *row, size_t n_runs)
{
    if (expected_to_differ(row->path))
        return 0;
    for (size_t r = 1; r < n_runs; r++) {
        const char *a = row->values[0], *b = row->values[r];
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
            return 1;
    }
    return 0;
}

/* A byte count also in binary units, for a reader who does not count digits. */
static void put_value(struct report_doc *d, const char *path, const char *v)
{
    size_t len = strlen(path);
    char *end;
    long long bytes = strtoll(v, &end, 10);
    report_escape(d->out, v);
    if (len > 6 && strcmp(path + len - 6, "_bytes") == 0 && *end == '\0' && bytes >= 1024) {
        static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
        double x = (double)bytes / 1024;
        int u = 0;
        while (x >= 1024 && u < 3) {
            x /= 1024;
            u++;
        }
        char n[32];
        buf_printf(d->out, " (%s %s)", report_fmt_sig(n, sizeof n, x, 3), units[u]);
    }
}

static void table_html(struct report_doc *d, const struct env_table *t)
{
    buf_puts(d->out, "<div class=\"scroll\"><table class=\"env\"><thead><tr><th>entry</th>");
    for (size_t r = 0; r < d->in->n; r++) {
        buf_puts(d->out, "<th>");
        report_swatch(d, d->side_of[r]);
        report_escape(d->out, report_run_label(d, r));
        if (d->sides[d->side_of[r]].n > 1) {
            buf_puts(d->out, "<br><span class=\"meta\">");
            report_escape(d->out, d->in->paths[r]);
            buf_puts(d->out, "</span>");
        }
        buf_puts(d->out, "</th>");
    }
    buf_puts(d->out, "</tr></thead><tbody>\n");
    for (size_t i = 0; i < t->n; i++) {
        const struct env_row *row = &t->rows[i];
        buf_printf(d->out, "<tr%s><th>", row_differs(row, t->n_runs) ? " class=\"diff\"" : "");
        report_escape(d->out, row->path);
        buf_puts(d->out, "</th>");
        for (size_t r = 0; r < t->n_runs; r++) {
            buf_puts(d->out, "<td>");
            if (row->values[r])
                put_value(d, row->path, row->values[r]);
            else
                buf_puts(d->out, "<span class=\"meta\">(absent)</span>");
            buf_puts(d->out, "</td>");
        }
        buf_puts(d->out, "</tr>\n");
    }
    buf_puts(d->out, "</tbody></table></div>\n");
}

static void lead(struct report_doc *d, const struct env_table *t)
{
    size_t n_diff = 0;
    for (size_t i = 0; i < t->n; i++)
        n_diff += row_differs(&t->rows[i], t->n_runs);
    if (d->in->n == 1) {
        buf_puts(d->out, "<p>Where and how the run was measured, as its result file records "
                         "it.</p>\n");
        return;
    }
    if (n_diff == 0) {
        buf_puts(d->out, "<p>Every recorded entry is the same in all runs (the random seed "
                         "aside).</p>\n");
        return;
    }
    buf_printf(d->out, "<p>%zu entr%s differ between the runs (highlighted, &#8800;): ", n_diff,
               n_diff == 1 ? "y" : "ies");
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (!row_differs(&t->rows[i], t->n_runs))
            continue;
        buf_puts(d->out, k++ ? ", <code>" : "<code>");
        report_escape(d->out, t->rows[i].path);
        buf_puts(d->out, "</code>");
    }
    buf_puts(d->out, ".</p>\n");
}

static int same_scripts(const struct result *a, const struct result *b)
{
    if (a->workload.n_scripts != b->workload.n_scripts)
        return 0;
    for (size_t i = 0; i < a->workload.n_scripts; i++) {
        const char *x = a->workload.scripts[i].text, *y = b->workload.scripts[i].text;
        if ((x == NULL) != (y == NULL) || (x && strcmp(x, y) != 0))
            return 0;
    }
    return 1;
}

/* The transaction scripts, once for runs that ran the same ones. */
static void scripts(struct report_doc *d)
{
    for (size_t r = 0; r < d->in->n; r++) {
        const struct result *run = &d->in->runs[r];
        size_t prev = 0;
        while (prev < r && !same_scripts(&d->in->runs[prev], run))
            prev++;
        if (prev < r || run->workload.n_scripts == 0)
            continue;
        buf_puts(d->out, "<details><summary>Scripts of ");
        report_escape(d->out, report_run_label(d, r));
        buf_puts(d->out, "</summary>\n");
        for (size_t i = 0; i < run->workload.n_scripts; i++) {
            const struct result_script *s = &run->workload.scripts[i];
            buf_puts(d->out, "<pre>-- ");
            report_escape(d->out, s->name ? s->name : "script");
            buf_printf(d->out, " (weight %d)\n", s->weight);
            report_escape(d->out, s->text ? s->text : "");
            buf_puts(d->out, "</pre>\n");
        }
        buf_puts(d->out, "</details>\n");
    }
}

void report_html_environment(struct report_doc *d)
{
    struct report_env *envs = xcalloc(d->in->n, sizeof *envs);
    for (size_t r = 0; r < d->in->n; r++)
        report_env_of(&d->in->runs[r], &envs[r]);
    struct env_table t;
    table_build(&t, envs, d->in->n);
    report_section_begin(d, "environment", "Environment");
    lead(d, &t);
    table_html(d, &t);
    scripts(d);
    report_section_end(d);
    table_free(&t);
    for (size_t r = 0; r < d->in->n; r++)
        report_env_free(&envs[r]);
    free(envs);
}

/* Warnings about the runs themselves, as <li> items; returns how many. */
static size_t run_warnings(struct report_doc *d)
{
    size_t n = 0;
    for (size_t r = 0; r < d->in->n; r++) {
        const struct result *run = &d->in->runs[r];
        if (run->complete)
            continue;
        buf_puts(d->out, "<li>");
        report_escape(d->out, report_run_label(d, r));
        buf_puts(d->out, " (");
        report_escape(d->out, d->in->paths[r]);
        buf_puts(d->out, "): the run was cut short (");
        report_escape(d->out, run->end_reason ? run->end_reason : "incomplete");
        buf_puts(d->out, "); its numbers cover only what was measured.</li>\n");
        n++;
    }
    /* SEAM(issue 6): the server's warnings about its settings (server.warnings[]). */
    return n;
}

void report_html_warnings(struct report_doc *d)
{
    struct buf items, *out = d->out;
    buf_init(&items);
    d->out = &items; /* gathered first: an empty list would say nothing */
    size_t n = run_warnings(d);
    n += report_cmp_warnings(d);
    d->out = out;
    report_section_begin(d, "warnings", "Warnings");
    if (n > 0)
        buf_printf(d->out, "<ul class=\"warn\">\n%s</ul>\n", items.data);
    else
        buf_puts(d->out, "<p>None: every run finished, and nothing about the servers or the "
                         "comparison called for a warning.</p>\n");
    report_section_end(d);
    buf_free(&items);
}
