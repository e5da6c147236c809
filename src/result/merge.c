#include "result/merge_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "result/result_int.h"
#include "result/run_id.h"

static int str_differ(const char *a, const char *b)
{
    return (a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0);
}

const char *result_options_differ(const struct result *a, const struct result *b)
{
    if (str_differ(a->workload.name, b->workload.name))
        return "-w";
    if (a->workload.scale != b->workload.scale)
        return "-s";
    if (a->workload.n_scripts != b->workload.n_scripts)
        return "-f/-b";
    for (size_t i = 0; i < a->workload.n_scripts; i++)
        if (str_differ(a->workload.scripts[i].name, b->workload.scripts[i].name) ||
            str_differ(a->workload.scripts[i].text, b->workload.scripts[i].text) ||
            a->workload.scripts[i].weight != b->workload.scripts[i].weight)
            return "-f/-b";
    if (a->options.duration_s != b->options.duration_s)
        return "-T";
    if (a->options.transactions_per_client != b->options.transactions_per_client)
        return "-t";
    if (str_differ(a->options.protocol, b->options.protocol))
        return "-M";
    if (a->options.warmup_s != b->options.warmup_s)
        return "--warmup";
    if (a->options.latency_limit_ms != b->options.latency_limit_ms)
        return "--latency-limit";
    if (a->options.connect_per_tx != b->options.connect_per_tx)
        return "-C";
    if (a->options.seed != b->options.seed)
        return "--seed";
    return NULL;
}

/* The order of the inputs by agent index (inputs without one keep their place after). */
static size_t *agent_order(const struct result *in, size_t n)
{
    size_t *order = xcalloc(n, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = 1; i < n; i++) { /* insertion sort: a handful of agents */
        size_t k = order[i], j = i;
        while (j > 0 && in[order[j - 1]].has_agent && in[k].has_agent &&
               in[order[j - 1]].agent.index > in[k].agent.index) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    return order;
}

/* Whether the inputs are one run's agents; what force may override is refused otherwise. */
static int check_inputs(const struct result *in, const char *const *names, const size_t *order,
                        size_t n, int force, struct err *e)
{
    const struct result *first = &in[order[0]];
    for (size_t k = 0; k < n; k++) {
        const struct result *r = &in[order[k]];
        const char *name = names[order[k]];
        if ((r->hist_unit && strcmp(r->hist_unit, "us") != 0) ||
            r->hist_sub_buckets != HIST_SUB_BUCKETS)
            return err_set(e, ERR_INPUT,
                           "merge: %s: its histograms have other parameters (unit %s, %d "
                           "sub-buckets; this pgarena adds us, %d)",
                           name, r->hist_unit ? r->hist_unit : "us", r->hist_sub_buckets,
                           HIST_SUB_BUCKETS);
        if (r->n_agents > 0)
            return err_set(e, ERR_INPUT, "merge: %s is a merged result already", name);
        if (k > 0 && r->has_agent && in[order[k - 1]].has_agent &&
            r->agent.index == in[order[k - 1]].agent.index &&
            !str_differ(r->agent.run_id, in[order[k - 1]].agent.run_id))
            return err_set(e, ERR_INPUT, "merge: %s and %s are both agent %d of run %s",
                           names[order[k - 1]], name, r->agent.index,
                           r->agent.run_id ? r->agent.run_id : "(none)");
        if (force)
            continue;
        if (!r->has_agent)
            return err_set(e, ERR_INPUT,
                           "merge: %s is not an agent's result (run --agents); --force merges "
                           "it anyway",
                           name);
        if (str_differ(r->agent.run_id, first->agent.run_id))
            return err_set(e, ERR_INPUT,
                           "merge: %s is of run %s, %s of run %s; --force merges them anyway",
                           names[order[0]], first->agent.run_id, name, r->agent.run_id);
        const char *opt = result_options_differ(first, r);
        if (opt)
            return err_set(e, ERR_INPUT,
                           "merge: %s and %s differ in %s; --force merges them anyway",
                           names[order[0]], name, opt);
    }
    if (!force && (size_t)first->agent.count != n) {
        size_t k = 0;
        int missing = 0;
        while (k < n && in[order[k]].agent.index == missing) {
            k++;
            missing++;
        }
        return err_set(e, ERR_INPUT,
                       "merge: run %s has %d agents, %zu files given (agent %d is missing); "
                       "--force merges them anyway",
                       first->agent.run_id, first->agent.count, n, missing);
    }
    return 0;
}

/* dst += src through a dense histogram: -1 when src's bins are not this histogram's. */
static int add_sparse(struct hist *acc, const struct hist_sparse *src)
{
    return hist_add_sparse(acc, src);
}

/* The merged run on the server's clock: each input's measured start, and where the merged
 * one starts. Inputs without a known start align by interval index. */
static int64_t input_start_us(const struct result *r)
{
    return r->has_agent && r->agent.start_us > 0 ? r->agent.start_us : 0;
}

struct merge_ctx {
    struct result *in;
    const char *const *names;
    const size_t *order;
    size_t n;
    int64_t t0_us;     /* the earliest measured start (0: aligned by index) */
    double interval_s; /* the intervals' length */
    double duration_s; /* from the earliest start to the latest end */
    struct hist *h;    /* scratch */
};

/* -R's lag and -C's connection time: a file holds their figures, not what they came from, so
 * the agents' figures combine (the p99 and max as upper bounds: merge.h). */
static void combine_lag_connect(struct merge_ctx *m, struct result *out)
{
    double lag_sum = 0, conn_sum = 0;
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[m->order[k]];
        lag_sum += r->summary.lag_mean_us * (double)r->summary.transactions;
        if (r->summary.lag_p99_us > out->summary.lag_p99_us)
            out->summary.lag_p99_us = r->summary.lag_p99_us;
        if (r->summary.lag_max_us > out->summary.lag_max_us)
            out->summary.lag_max_us = r->summary.lag_max_us;
        out->summary.connections += r->summary.connections;
        conn_sum += r->summary.connect_mean_us * (double)r->summary.connections;
        out->summary.tps_excluding_connect += r->summary.tps_excluding_connect;
    }
    out->summary.lag_mean_us =
        out->summary.transactions ? lag_sum / (double)out->summary.transactions : 0;
    out->summary.connect_mean_us =
        out->summary.connections ? conn_sum / (double)out->summary.connections : 0;
}

/* The summary: what the agents measured added up (their counts, their histograms), its figures
 * derived from that sum. */
static int merge_summary(struct merge_ctx *m, struct result *out, struct err *e)
{
    struct result_measured sum = {.duration_s = m->duration_s, .latency = m->h};
    hist_reset(m->h);
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[m->order[k]];
        if (add_sparse(m->h, &r->histogram) < 0)
            return err_set(e, ERR_INPUT,
                           "merge: %s: its histogram's bins are not this pgarena's (other "
                           "histogram parameters)",
                           m->names[m->order[k]]);
        sum.transactions += r->summary.transactions;
        sum.failed += r->summary.failed;
        sum.retried += r->summary.retried;
        sum.skipped += r->summary.skipped;
        sum.late += r->summary.late;
        sum.latency_out_of_range += r->summary.latency_out_of_range;
        sum.retries += r->summary.retries;
        for (int x = 0; x < RESULT_N_ERRORS; x++)
            sum.errors[x] += r->summary.errors[x];
        out->options.clients += r->options.clients;
        out->options.threads += r->options.threads;
        out->options.rate += r->options.rate;
    }
    result_derive_summary(out, &sum);
    combine_lag_connect(m, out);
    return 0;
}

static struct result_script_figures *find_script(struct result *out, const char *name)
{
    for (size_t i = 0; i < out->summary.n_scripts; i++)
        if (!str_differ(out->summary.scripts[i].name, name))
            return &out->summary.scripts[i];
    return NULL;
}

static int merge_scripts(struct merge_ctx *m, struct result *out, struct err *e)
{
    size_t cap = 0;
    for (size_t k = 0; k < m->n; k++)
        cap += m->in[k].summary.n_scripts;
    out->summary.scripts = xcalloc(cap + 1, sizeof *out->summary.scripts);
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[m->order[k]];
        for (size_t i = 0; i < r->summary.n_scripts; i++) {
            const struct result_script_figures *s = &r->summary.scripts[i];
            struct result_script_figures *d = find_script(out, s->name);
            if (!d) {
                d = &out->summary.scripts[out->summary.n_scripts++];
                d->name = s->name ? xstrdup(s->name) : NULL;
                d->weight = s->weight;
            }
            d->transactions += s->transactions;
            d->failed += s->failed;
            d->retried += s->retried;
            d->skipped += s->skipped;
            hist_reset(m->h);
            if (add_sparse(m->h, &d->histogram) < 0 || add_sparse(m->h, &s->histogram) < 0)
                return err_set(e, ERR_INPUT,
                               "merge: %s: script %s's histogram bins are not this pgarena's",
                               m->names[m->order[k]], s->name ? s->name : "?");
            hist_sparse_free(&d->histogram);
            hist_to_sparse(m->h, &d->histogram);
        }
    }
    for (size_t i = 0; i < out->summary.n_scripts; i++) {
        struct result_script_figures *d = &out->summary.scripts[i];
        hist_reset(m->h);
        hist_add_sparse(m->h, &d->histogram);
        result_derive_script(d, d->transactions, d->failed, m->duration_s, m->h);
    }
    return 0;
}

/* Which merged interval an input's interval falls in: by the absolute time of its start. */
static size_t interval_slot(const struct merge_ctx *m, const struct result *r,
                            const struct result_interval *it, size_t j)
{
    if (m->t0_us == 0)
        return j;
    double len = it->duration_s > 0 ? it->duration_s : m->interval_s;
    double start_s = (double)(input_start_us(r) - m->t0_us) / 1e6 + it->t_s - len;
    double slot = floor(start_s / m->interval_s + 0.5);
    return slot > 0 ? (size_t)slot : 0;
}

static int merge_intervals(struct merge_ctx *m, struct result *out, struct err *e)
{
    size_t n_out = 0;
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[m->order[k]];
        if (r->n_intervals > 0) {
            size_t last =
                interval_slot(m, r, &r->intervals[r->n_intervals - 1], r->n_intervals - 1);
            if (last + 1 > n_out)
                n_out = last + 1;
        }
    }
    out->n_intervals = n_out;
    out->intervals = xcalloc(n_out + 1, sizeof *out->intervals);
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[m->order[k]];
        for (size_t j = 0; j < r->n_intervals; j++) {
            const struct result_interval *it = &r->intervals[j];
            struct result_interval *d = &out->intervals[interval_slot(m, r, it, j)];
            d->transactions += it->transactions;
            d->failed += it->failed;
            if (it->duration_s > d->duration_s)
                d->duration_s = it->duration_s;
            hist_reset(m->h);
            if (add_sparse(m->h, &d->histogram) < 0 || result_interval_add(m->h, it) < 0)
                return err_set(e, ERR_INPUT,
                               "merge: %s: interval %zu's histogram is not this pgarena's",
                               m->names[m->order[k]], j + 1);
            hist_sparse_free(&d->histogram);
            hist_to_sparse(m->h, &d->histogram);
            merge_interval_sampling(d, it);
        }
    }
    for (size_t i = 0; i < n_out; i++) {
        struct result_interval *d = &out->intervals[i];
        merge_interval_sampling_end(d);
        if (d->duration_s <= 0)
            d->duration_s = m->interval_s;
        d->t_s = (double)i * m->interval_s + d->duration_s;
        hist_reset(m->h);
        hist_add_sparse(m->h, &d->histogram);
        result_derive_interval(d, d->transactions, d->failed, d->duration_s, m->h);
    }
    return 0;
}

static struct result_statement *find_statement(struct result *out, const char *script, int line)
{
    for (size_t i = 0; i < out->n_statements; i++)
        if (!str_differ(out->statements[i].script, script) && out->statements[i].line == line)
            return &out->statements[i];
    return NULL;
}

/* Statements and clients: the clients of every agent in agent order (fairness across all). */
static void merge_statements_clients(struct merge_ctx *m, struct result *out)
{
    size_t n_st = 0, n_cl = 0;
    for (size_t k = 0; k < m->n; k++) {
        n_st += m->in[k].n_statements;
        n_cl += m->in[k].n_clients;
    }
    out->statements = xcalloc(n_st + 1, sizeof *out->statements);
    out->clients = xcalloc(n_cl + 1, sizeof *out->clients);
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[m->order[k]];
        for (size_t i = 0; i < r->n_clients; i++)
            out->clients[out->n_clients++] = r->clients[i];
        for (size_t i = 0; i < r->n_statements; i++) {
            const struct result_statement *s = &r->statements[i];
            struct result_statement *d = find_statement(out, s->script, s->line);
            if (!d) {
                d = &out->statements[out->n_statements++];
                d->script = s->script ? xstrdup(s->script) : NULL;
                d->line = s->line;
                d->sql = s->sql ? xstrdup(s->sql) : NULL;
            }
            uint64_t total = d->count + s->count;
            if (total > 0)
                d->mean_us =
                    (d->mean_us * (double)d->count + s->mean_us * (double)s->count) / (double)total;
            d->count = total;
            if (s->p99_us > d->p99_us)
                d->p99_us = s->p99_us; /* an upper bound: see merge.h */
        }
    }
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

/* agents[]: each input's agent object with its host and figures (before the first's
 * environment moves); then the merge check. */
static void list_agents(struct merge_ctx *m, struct result *out)
{
    out->agents = xcalloc(m->n, sizeof *out->agents);
    out->n_agents = m->n;
    int64_t lo = 0, hi = 0;
    out->merge.clock_uncertainty_us = -1;
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[m->order[k]];
        struct result_agent *a = &out->agents[k];
        *a = r->agent;
        if (!r->has_agent) {
            memset(a, 0, sizeof *a);
            a->index = (int)k;
            a->count = (int)m->n;
            a->clock_uncertainty_us = -1;
        }
        a->run_id = dup_or_null(r->has_agent ? r->agent.run_id : NULL);
        a->host = dup_or_null(r->client.hostname);
        a->clients = r->options.clients;
        a->rate = r->options.rate;
        a->transactions = r->summary.transactions;
        a->tps = r->summary.tps;
        a->p99_us = r->summary.latency_us.p99;
        a->complete = r->complete;
        a->end_reason = dup_or_null(r->end_reason);
        result_health_merge(&out->client_health, &r->client_health);
        a->has_cpu = r->client_cpu.present;
        a->cpu_user = r->client_cpu.user;
        a->cpu_system = r->client_cpu.system;
        if (a->clock_uncertainty_us > out->merge.clock_uncertainty_us)
            out->merge.clock_uncertainty_us = a->clock_uncertainty_us;
        int64_t s = input_start_us(r);
        if (s > 0 && (lo == 0 || s < lo))
            lo = s;
        if (s > hi)
            hi = s;
    }
    out->merge.start_spread_us = m->t0_us ? (double)(hi - lo) : -1;
    out->merge.aligned = m->t0_us != 0;
}

static void check_commits(struct result *out)
{
    out->merge.transactions = out->summary.transactions;
    out->merge.server_xact_commit = -1;
    for (size_t i = 0; i < out->n_server_stats; i++)
        if (out->server_stats[i].known && strcmp(out->server_stats[i].name, "xact_commit") == 0)
            out->merge.server_xact_commit = out->server_stats[i].value;
}

/* The context of the merged run: its start, interval length and duration. */
static void plan(struct merge_ctx *m)
{
    m->interval_s = 0;
    m->t0_us = 0;
    int all_known = 1;
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[k];
        int64_t s = input_start_us(r);
        all_known &= s > 0;
        if (s > 0 && (m->t0_us == 0 || s < m->t0_us))
            m->t0_us = s;
        if (r->n_intervals > 0 && r->intervals[0].duration_s > m->interval_s)
            m->interval_s = r->intervals[0].duration_s;
    }
    if (!all_known)
        m->t0_us = 0;
    if (m->interval_s <= 0)
        m->interval_s = 1;
    m->duration_s = 0;
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[k];
        double end = r->summary.duration_s;
        if (m->t0_us)
            end += (double)(input_start_us(r) - m->t0_us) / 1e6;
        if (end > m->duration_s)
            m->duration_s = end;
    }
}

/* The environment of the first agent moves into out; the rest is made anew. */
static void take_environment(struct result *first, struct result *out)
{
    out->label = first->label;
    out->started_at = first->started_at;
    out->command = first->command;
    out->client = first->client;
    out->server = first->server;
    out->n_server_stats = first->n_server_stats;
    out->server_stats = first->server_stats;
    out->cache_hit_ratio = first->cache_hit_ratio;
    out->workload = first->workload;
    out->options = first->options;
    out->n_meta = first->n_meta;
    out->meta = first->meta;
    first->n_meta = 0;
    first->meta = NULL;
    first->label = first->started_at = first->command = NULL;
    memset(&first->client, 0, sizeof first->client);
    memset(&first->server, 0, sizeof first->server);
    first->n_server_stats = 0;
    first->server_stats = NULL;
    memset(&first->workload, 0, sizeof first->workload);
    first->options.protocol = NULL;
    out->options.clients = out->options.threads = 0;
    out->options.rate = 0;
}

static void merge_ends(struct merge_ctx *m, struct result *out)
{
    out->complete = 1;
    const char *why = "finished", *finished = NULL;
    for (size_t k = 0; k < m->n; k++) {
        const struct result *r = &m->in[m->order[k]];
        if (!r->complete) {
            out->complete = 0;
            if (strcmp(why, "agent-lost") != 0 && r->end_reason)
                why = r->end_reason;
        }
        if (r->finished_at && (!finished || strcmp(r->finished_at, finished) > 0))
            finished = r->finished_at;
    }
    out->end_reason = xstrdup(out->complete ? "finished" : why);
    out->finished_at = dup_or_null(finished);
}

/* From --run-id alone, so that merging the same agents anywhere gives the same id; inputs
 * that are not one run's agents (--force) get one from their own ids. */
static void merged_run_id(const struct merge_ctx *m, struct result *out)
{
    const struct result *first = &m->in[m->order[0]];
    char id[RUN_ID_LEN + 1];
    if (first->has_agent && first->agent.run_id) {
        run_id_derived("merged", first->agent.run_id, -1, id);
    } else {
        struct run_id_hash h;
        run_id_hash_init(&h);
        for (size_t k = 0; k < m->n; k++) {
            const char *r = m->in[m->order[k]].run_id;
            run_id_hash_add(&h, r ? r : "", r ? strlen(r) + 1 : 1);
        }
        run_id_hash_uuid(&h, id);
    }
    out->run_id = xstrdup(id);
}

int result_merge(struct result *in, const char *const *names, size_t n, int force,
                 struct result *out, struct err *e)
{
    memset(out, 0, sizeof *out);
    if (n < 1)
        return err_set(e, ERR_INPUT, "merge: no result to merge");
    size_t *order = agent_order(in, n);
    struct merge_ctx m = {in, names, order, n, 0, 1, 0, hist_new()};
    int rc = check_inputs(in, names, order, n, force, e);
    if (rc == 0) {
        plan(&m);
        list_agents(&m, out);
        take_environment(&in[order[0]], out);
        out->hist_sub_buckets = HIST_SUB_BUCKETS;
        rc = merge_summary(&m, out, e);
    }
    if (rc == 0)
        rc = merge_scripts(&m, out, e);
    if (rc == 0)
        rc = merge_intervals(&m, out, e);
    if (rc == 0) {
        merge_statements_clients(&m, out);
        struct result **ordered = xcalloc(n, sizeof *ordered);
        for (size_t k = 0; k < n; k++)
            ordered[k] = &in[order[k]];
        merge_sampling(ordered, n, out);
        merge_classes(ordered, n, out);
        result_parts_merge(ordered, n, out);
        free(ordered);
        merge_ends(&m, out);
        merged_run_id(&m, out);
        check_commits(out);
    }
    hist_free(m.h);
    free(order);
    if (rc < 0)
        result_free(out);
    return rc;
}
