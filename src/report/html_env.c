/* Environments side by side, and the warnings that say how far to trust the numbers. */
#include "report/html_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compare/compare.h"
#include "report/fmt.h"

static int same_text(const char *a, const char *b)
{
    return (a == NULL) == (b == NULL) && (!a || strcmp(a, b) == 0);
}

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

/* Unknown sizes and times are below zero in the model and absent here. */
static void push_known(struct report_env *env, size_t *cap, const char *path, double v)
{
    if (v >= 0)
        push_num(env, cap, path, v);
}

static void push_known_int(struct report_env *env, size_t *cap, const char *path, int64_t v)
{
    if (v >= 0)
        push_int(env, cap, path, v);
}

static void server_from_model(const struct result *r, struct report_env *env, size_t *cap)
{
    char path[300];
    push_str(env, cap, "server.version", r->server.version);
    for (size_t i = 0; i < r->server.n_settings; i++) {
        snprintf(path, sizeof path, "server.settings.%s", r->server.settings[i].name);
        push_str(env, cap, path, r->server.settings[i].value);
    }
    for (size_t i = 0; i < r->server.n_settings; i++)
        if (r->server.settings[i].non_default)
            push_str(env, cap, "server.non_default_settings", r->server.settings[i].name);
    push_known_int(env, cap, "server.database_size_bytes", r->server.database_size_bytes);
    push_known_int(env, cap, "server.dataset_bytes", r->server.dataset_bytes);
    push_str(env, cap, "server.location", r->server.location);
    if (r->server.ssl >= 0)
        push_str(env, cap, "server.ssl", r->server.ssl ? "true" : "false");
    push_known(env, cap, "server.rtt_us", r->server.rtt_us);
    push_known(env, cap, "server.capture_ms", r->server.capture_ms);
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
    push_str(env, cap, "client.kernel", r->client.kernel);
    push_str(env, cap, "client.cpu_model", r->client.cpu_model);
    push_str(env, cap, "client.distribution", r->client.distribution);
    server_from_model(r, env, cap);
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
    if (r->n_env == 0) { /* not read from a file: a run's own result */
        env_from_model(r, out, &cap);
        return;
    }
    for (size_t i = 0; i < r->n_env; i++)
        push_str(out, &cap, r->env[i].path, r->env[i].value);
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

static int in_list(const char *const *list, const char *path)
{
    for (; *list; list++)
        if (strcmp(*list, path) == 0)
            return 1;
    return 0;
}

/* Shown elsewhere in the report (warnings, scripts), or detail that the table does not need
 * (each table's size: dataset_bytes sums them). */
static int left_out(const char *path)
{
    static const char *const paths[] = {"server.warnings.setting",   "server.warnings.value",
                                        "server.warnings.message",   "workload.scripts.text",
                                        "server.tables.name",        "server.tables.bytes",
                                        "server.tables.index_bytes", NULL};
    return in_list(paths, path);
}

/* Differ between any two runs without meaning anything: the seed, sizes that grow as a
 * benchmark writes, the capture's own times, other sessions (as compare sees them). */
static int expected_to_differ(const char *path)
{
    static const char *const noise[] = {"options.seed",
                                        "server.database_size_bytes",
                                        "server.dataset_bytes",
                                        "server.rtt_us",
                                        "server.capture_ms",
                                        "server.other_backends",
                                        NULL};
    return in_list(noise, path);
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
            if (left_out(it->path))
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
    for (size_t r = 1; r < n_runs; r++)
        if (!same_text(row->values[0], row->values[r]))
            return 1;
    return 0;
}

/* A byte count also in binary units, for a reader who does not count digits. */
static void put_value(struct report_doc *d, const char *path, const char *v)
{
    size_t len = strlen(path);
    char *end;
    long long bytes = strtoll(v, &end, 10);
    if (strcmp(v, "null") == 0) { /* the file's way of saying it could not be read */
        buf_puts(d->out, "<span class=\"meta\">unknown</span>");
        return;
    }
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

/* Whether compare found that a difference at path makes the comparison not like for like. */
static int unfair(const struct report_doc *d, const char *path)
{
    const struct cmp_report *cmp = d->in->cmp;
    for (size_t i = 0; cmp && i < cmp->n_diffs; i++)
        if (cmp->diffs[i].unfair && strcmp(cmp->diffs[i].path, path) == 0)
            return 1;
    return 0;
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
        if (unfair(d, row->path))
            buf_puts(d->out, " <span class=\"verdict v-worse\">not like for like</span>");
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
    for (size_t i = 0; i < a->workload.n_scripts; i++)
        if (!same_text(a->workload.scripts[i].text, b->workload.scripts[i].text))
            return 0;
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
            const struct result_script_text *s = &run->workload.scripts[i];
            buf_puts(d->out, "<pre>-- ");
            report_escape(d->out, s->name ? s->name : "script");
            buf_printf(d->out, " (weight %d)\n", s->weight);
            report_escape(d->out, s->text ? s->text : "");
            buf_puts(d->out, "</pre>\n");
        }
        buf_puts(d->out, "</details>\n");
    }
}

/* The run's statistic of that name, or NULL. */
static const struct result_stat *stat_of(const struct result *r, const char *name)
{
    for (size_t i = 0; i < r->n_server_stats; i++)
        if (strcmp(r->server_stats[i].name, name) == 0)
            return &r->server_stats[i];
    return NULL;
}

static void stat_cell(struct report_doc *d, const struct result *r, const struct result_stat *st)
{
    char n[48], per[48];
    if (!st || !st->known) {
        buf_puts(d->out, "<td><span class=\"meta\">unknown</span></td>");
        return;
    }
    buf_printf(d->out, "<td>%s", report_fmt_count(n, sizeof n, (uint64_t)st->value));
    if (r->summary.transactions > 0 && st->value > 0)
        buf_printf(d->out, " <span class=\"meta\">(%s/tx)</span>",
                   report_fmt_num(per, sizeof per,
                                  (double)st->value / (double)r->summary.transactions, 3));
    buf_puts(d->out, "</td>");
}

/* What the server did during the measured part (server_stats), per run. */
static void server_activity(struct report_doc *d)
{
    size_t first = d->in->n;
    for (size_t r = d->in->n; r-- > 0;)
        if (d->in->runs[r].n_server_stats > 0)
            first = r;
    if (first == d->in->n)
        return;
    buf_puts(d->out, "<h3>Server activity during the measured part</h3>\n<div class=\"scroll\">"
                     "<table class=\"num\"><thead><tr><th>statistic</th>");
    for (size_t r = 0; r < d->in->n; r++) {
        buf_puts(d->out, "<th>");
        report_swatch(d, d->side_of[r]);
        report_escape(d->out, report_run_label(d, r));
        buf_puts(d->out, "</th>");
    }
    buf_puts(d->out, "</tr></thead><tbody>\n");
    const struct result *model = &d->in->runs[first];
    for (size_t i = 0; i < model->n_server_stats; i++) {
        buf_puts(d->out, "<tr><th>");
        report_escape(d->out, model->server_stats[i].name);
        buf_puts(d->out, "</th>");
        for (size_t r = 0; r < d->in->n; r++)
            stat_cell(d, &d->in->runs[r], stat_of(&d->in->runs[r], model->server_stats[i].name));
        buf_puts(d->out, "</tr>\n");
    }
    buf_puts(d->out, "<tr><th>cache hit ratio</th>");
    for (size_t r = 0; r < d->in->n; r++) {
        char n[32];
        double ratio = d->in->runs[r].cache_hit_ratio;
        if (ratio >= 0)
            buf_printf(d->out, "<td>%s%%</td>", report_fmt_sig(n, sizeof n, 100 * ratio, 4));
        else
            buf_puts(d->out, "<td>-</td>");
    }
    buf_puts(d->out, "</tr>\n</tbody></table></div>\n");
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
    server_activity(d);
    report_section_end(d);
    table_free(&t);
    for (size_t r = 0; r < d->in->n; r++)
        report_env_free(&envs[r]);
    free(envs);
}

/* Whether an earlier trial of the same setup raised a warning on the same setting and value:
 * say it once (its message may differ in a measured number, a size). */
static int said_before(const struct report_doc *d, size_t r, const struct result_warning *w)
{
    for (size_t p = 0; p < r; p++) {
        const struct result *run = &d->in->runs[p];
        for (size_t k = 0; d->side_of[p] == d->side_of[r] && k < run->server.n_warnings; k++) {
            const struct result_warning *o = &run->server.warnings[k];
            if (same_text(o->setting, w->setting) && same_text(o->value, w->value) &&
                (o->setting || same_text(o->message, w->message)))
                return 1;
        }
    }
    return 0;
}

/* Warnings about the runs and their servers, as <li> items; returns how many. */
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
    for (size_t r = 0; r < d->in->n; r++) {
        const struct result *run = &d->in->runs[r];
        for (size_t k = 0; k < run->server.n_warnings; k++) {
            const struct result_warning *w = &run->server.warnings[k];
            if (said_before(d, r, w))
                continue;
            n++;
            buf_puts(d->out, "<li>");
            report_escape(d->out, report_run_label(d, r));
            if (w->setting) {
                buf_puts(d->out, " (<code>");
                report_escape(d->out, w->setting);
                buf_puts(d->out, w->value ? " = " : "");
                report_escape(d->out, w->value);
                buf_puts(d->out, "</code>)");
            }
            buf_puts(d->out, ": ");
            report_escape(d->out, w->message);
            buf_puts(d->out, "</li>\n");
        }
    }
    return n;
}

void report_html_warnings(struct report_doc *d)
{
    struct buf runs, cmp, *out = d->out;
    buf_init(&runs);
    buf_init(&cmp);
    d->out = &runs; /* gathered first: an empty list would say nothing */
    size_t n_runs = run_warnings(d);
    d->out = &cmp;
    size_t n_cmp = report_cmp_warnings(d);
    d->out = out;
    report_section_begin(d, "warnings", "Warnings");
    if (n_runs > 0)
        buf_printf(d->out, "<h3>The runs and their servers</h3>\n<ul class=\"warn\">\n%s</ul>\n",
                   runs.data);
    if (n_cmp > 0)
        buf_printf(d->out, "<h3>The comparison</h3>\n<ul class=\"warn\">\n%s</ul>\n", cmp.data);
    if (n_runs + n_cmp == 0)
        buf_puts(d->out, "<p>None: every run finished, and nothing about the servers or the "
                         "comparison called for a warning.</p>\n");
    report_section_end(d);
    buf_free(&runs);
    buf_free(&cmp);
}
