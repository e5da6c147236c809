#include "report/text.h"

#include <math.h>
#include <string.h>

#include "report/fmt.h"
#include "report/part_out.h"
#include "report/sio.h"

/* Latencies print in milliseconds with three decimals, as pgbench prints them. */
static double ms(double us)
{
    return us / 1000.0;
}

static void print_spread(FILE *out, const struct result *r)
{
    if (r->n_clients == 0)
        return;
    uint64_t lo = UINT64_MAX, hi = 0;
    double sum = 0, sumsq = 0;
    for (size_t i = 0; i < r->n_clients; i++) {
        uint64_t n = r->clients[i].transactions;
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
        sum += (double)n;
        sumsq += (double)n * (double)n;
    }
    double mean = sum / (double)r->n_clients;
    double var = sumsq / (double)r->n_clients - mean * mean;
    fprintf(out, "per client:          min %llu, max %llu, stddev %.1f transactions\n",
            (unsigned long long)lo, (unsigned long long)hi, var > 0 ? sqrt(var) : 0.0);
}

/* The short form of the environment: version and location, the settings changed from
 * PostgreSQL's defaults, and the run's server statistics in one line. */
static void print_server(FILE *out, const struct result *r)
{
    if (!r->server.version)
        return;
    fprintf(out, "server:              PostgreSQL %s", r->server.version);
    if (r->server.location)
        fprintf(out, ", %s", r->server.location);
    if (r->server.rtt_us > 0)
        fprintf(out, ", round trip %.3f ms", ms(r->server.rtt_us));
    fputc('\n', out);
    if (r->server.n_settings > 0) {
        const char *sep = "";
        fputs("settings changed:    ", out);
        for (size_t i = 0; i < r->server.n_settings; i++) {
            const struct result_setting *st = &r->server.settings[i];
            if (!st->non_default)
                continue;
            fprintf(out, "%s%s=%s", sep, st->name, st->value ? st->value : "");
            sep = ", ";
        }
        fputs(*sep ? "\n" : "none (PostgreSQL's defaults)\n", out);
    }
}

static int64_t stat_value(const struct result *r, const char *name)
{
    for (size_t i = 0; i < r->n_server_stats; i++)
        if (r->server_stats[i].known && strcmp(r->server_stats[i].name, name) == 0)
            return r->server_stats[i].value;
    return -1;
}

static void print_server_stats(FILE *out, const struct result *r)
{
    if (r->n_server_stats == 0)
        return;
    int64_t commits = stat_value(r, "xact_commit"), wal = stat_value(r, "wal_bytes");
    int64_t checkpoints = stat_value(r, "checkpoints");
    fputs("server stats:        ", out);
    if (commits >= 0)
        fprintf(out, "%lld commits", (long long)commits);
    else
        fputs("? commits", out);
    if (wal >= 0)
        fprintf(out, ", WAL %.1f MB", (double)wal / (1024.0 * 1024.0));
    if (checkpoints >= 0)
        fprintf(out, ", %lld checkpoints", (long long)checkpoints);
    if (r->cache_hit_ratio >= 0)
        fprintf(out, ", cache hit %.2f %%", 100 * r->cache_hit_ratio);
    fputc('\n', out);
}

/* With several scripts, a row for each (as pgbench prints per-script statistics). */
static void print_scripts(FILE *out, const struct result *r)
{
    if (r->summary.n_scripts < 2)
        return;
    int width = 6;
    for (size_t i = 0; i < r->summary.n_scripts; i++) {
        const char *name = r->summary.scripts[i].name;
        if (name && (int)strlen(name) > width)
            width = (int)strlen(name);
    }
    uint64_t all = r->summary.transactions;
    /* failed, retried and skipped per script, as pgbench 18 prints them */
    fprintf(out, "per script:\n  %-*s %6s %12s %6s %8s %8s %8s %10s %9s %9s %9s %9s %9s\n", width,
            "script", "weight", "transactions", "share", "failed", "retried", "skipped", "tps",
            "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms");
    for (size_t i = 0; i < r->summary.n_scripts; i++) {
        const struct result_script_figures *s = &r->summary.scripts[i];
        const struct latency_summary *l = &s->latency_us;
        fprintf(out,
                "  %-*s %6d %12llu %5.1f%% %8llu %8llu %8llu %10.2f %9.3f %9.3f %9.3f %9.3f "
                "%9.3f\n",
                width, s->name ? s->name : "?", s->weight, (unsigned long long)s->transactions,
                all > 0 ? 100.0 * (double)s->transactions / (double)all : 0.0,
                (unsigned long long)s->failed, (unsigned long long)s->retried,
                (unsigned long long)s->skipped, s->tps, ms(l->mean), ms(l->p50), ms(l->p95),
                ms(l->p99), ms(l->max));
    }
}

static void print_warnings(FILE *out, const struct result *r)
{
    for (size_t i = 0; i < r->server.n_warnings; i++) {
        const struct result_warning *w = &r->server.warnings[i];
        fprintf(out, "warning:             %s=%s: %s\n", w->setting ? w->setting : "?",
                w->value ? w->value : "", w->message ? w->message : "");
    }
}

/* An agent's own file: which share it is. A merged file: each agent's figures and their
 * spread, so that an overloaded agent shows (its tps lower, its p99 higher than the rest). */
static void print_agents(FILE *out, const struct result *r)
{
    if (r->has_agent)
        fprintf(out, "agent:               %d of %d, run %s, clock offset %.0f us +/- %.0f us\n",
                r->agent.index, r->agent.count, r->agent.run_id ? r->agent.run_id : "?",
                r->agent.clock_offset_us, r->agent.clock_uncertainty_us);
    if (r->n_agents == 0)
        return;
    fprintf(out, "agents:              %zu, intervals aligned by %s", r->n_agents,
            r->merge.aligned ? "time" : "index");
    if (r->merge.start_spread_us >= 0)
        fprintf(out, ", starts within %.3f ms", ms(r->merge.start_spread_us));
    if (r->merge.clock_uncertainty_us >= 0)
        fprintf(out, ", clocks +/- %.3f ms", ms(r->merge.clock_uncertainty_us));
    fputc('\n', out);
    fprintf(out, "  %5s %-20s %7s %10s %12s %10s %9s %6s  %s\n", "agent", "host", "clients", "rate",
            "transactions", "tps", "p99_ms", "cpu", "end");
    double lo_tps = INFINITY, hi_tps = 0, lo_p99 = INFINITY, hi_p99 = 0;
    for (size_t i = 0; i < r->n_agents; i++) {
        const struct result_agent *a = &r->agents[i];
        char host[21];
        char cpu[16] = "-";
        if (a->has_cpu)
            snprintf(cpu, sizeof cpu, "%.2f", a->cpu_user + a->cpu_system);
        fprintf(out, "  %5d %-20s %7d %10.1f %12llu %10.2f %9.3f %6s  %s\n", a->index,
                report_fmt_cut(host, sizeof host, a->host ? a->host : "?"), a->clients, a->rate,
                (unsigned long long)a->transactions, a->tps, ms(a->p99_us), cpu,
                a->end_reason ? a->end_reason : "?");
        lo_tps = a->tps < lo_tps ? a->tps : lo_tps;
        hi_tps = a->tps > hi_tps ? a->tps : hi_tps;
        lo_p99 = a->p99_us < lo_p99 ? a->p99_us : lo_p99;
        hi_p99 = a->p99_us > hi_p99 ? a->p99_us : hi_p99;
    }
    fprintf(out, "agent spread:        tps %.2f .. %.2f, p99 %.3f .. %.3f ms\n", lo_tps, hi_tps,
            ms(lo_p99), ms(hi_p99));
    if (r->merge.server_xact_commit >= 0)
        fprintf(out, "commits:             %llu summed over the agents, %lld on the server\n",
                (unsigned long long)r->merge.transactions, (long long)r->merge.server_xact_commit);
}

void report_text_summary(FILE *out, const struct result *r)
{
    const struct latency_summary *l = &r->summary.latency_us;
    char size[96];
    const char *unit = result_parts_unit(r); /* NULL: the transaction */
    if (!report_parts_text(r, RESULT_PLACE_SHOW_WORKLOAD, out))
        fprintf(out, "workload:            %s (%s)\n", r->workload.name ? r->workload.name : "?",
                report_fmt_dataset(size, sizeof size, r));
    if (r->label)
        fprintf(out, "label:               %s\n", r->label);
    print_server(out, r);
    fprintf(out, "clients:             %d (threads %d), protocol %s\n", r->options.clients,
            r->options.threads, r->options.protocol ? r->options.protocol : "?");
    if (!report_parts_text(r, RESULT_PLACE_SHOW_MODE, out)) {
        if (r->options.rate > 0)
            fprintf(out,
                    "mode:                open loop at %.1f tps; latency from the scheduled "
                    "start\n",
                    r->options.rate);
        else
            fprintf(out, "mode:                closed loop (latency excludes queueing: use -R "
                         "for open loop)\n");
    }
    fprintf(out, "duration:            %.1f s%s\n", r->summary.duration_s,
            r->complete ? "" : "  (INCOMPLETE: run was cut short)");
    char label[32];
    snprintf(label, sizeof label, "%ss:", unit ? unit : "transaction");
    fprintf(out, "%-21s%llu\n", label, (unsigned long long)r->summary.transactions);
    fprintf(out, "failed:              %llu", (unsigned long long)r->summary.failed);
    uint64_t total = r->summary.transactions + r->summary.failed;
    if (total > 0)
        fprintf(out, " (%.3f %%)", 100.0 * (double)r->summary.failed / (double)total);
    if (r->summary.failed > 0) {
        const char *sep = " [";
        for (int k = 0; k < RESULT_N_ERRORS; k++) {
            if (!r->summary.errors[k])
                continue;
            fprintf(out, "%s%s %llu", sep, result_error_names[k],
                    (unsigned long long)r->summary.errors[k]);
            sep = ", ";
        }
        if (sep[0] == ',') /* a recovered run has no error kinds */
            fputs("]", out);
    }
    fputc('\n', out);
    if (r->summary.retried > 0)
        fprintf(out, "retried:             %llu transactions (%llu retries)\n",
                (unsigned long long)r->summary.retried, (unsigned long long)r->summary.retries);
    if (r->options.latency_limit_ms > 0)
        fprintf(out, "over %.1f ms:        %llu, skipped: %llu\n", r->options.latency_limit_ms,
                (unsigned long long)r->summary.late, (unsigned long long)r->summary.skipped);
    snprintf(label, sizeof label, "%s%s", unit ? unit : "tps:", unit ? "s/s:" : "");
    fprintf(out, "%-21s%.2f\n", label, r->summary.tps);
    report_parts_text(r, RESULT_PLACE_SHOW_RATE, out);
    if (r->options.connect_per_tx)
        fprintf(out, "connections:         %llu, mean %.3f ms; tps without connecting %.2f\n",
                (unsigned long long)r->summary.connections, ms(r->summary.connect_mean_us),
                r->summary.tps_excluding_connect);
    fprintf(out,
            "latency (ms):        min %.3f  mean %.3f  stddev %.3f\n"
            "                     p50 %.3f  p90 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  max %.3f\n",
            ms(l->min), ms(l->mean), ms(l->stddev), ms(l->p50), ms(l->p90), ms(l->p95), ms(l->p99),
            ms(l->p999), ms(l->max));
    if (r->summary.latency_out_of_range > 0)
        fprintf(out,
                "out of range:        %llu transactions slower than the histogram holds, "
                "not in the latency figures\n",
                (unsigned long long)r->summary.latency_out_of_range);
    if (r->options.rate > 0)
        fprintf(out, "schedule lag (ms):   mean %.3f  p99 %.3f  max %.3f\n",
                ms(r->summary.lag_mean_us), ms(r->summary.lag_p99_us), ms(r->summary.lag_max_us));
    fprintf(out, "under 100 ms / 1 s / 5 s: %.2f %% / %.2f %% / %.2f %%\n",
            100 * r->summary.under_100ms, 100 * r->summary.under_1000ms,
            100 * r->summary.under_5000ms);
    report_parts_text(r, RESULT_PLACE_SHOW_FIGURES, out);
    report_text_classes(out, r);
    print_scripts(out, r);
    print_spread(out, r);
    print_agents(out, r);
    print_server_stats(out, r);
    report_text_sio_summary(out, r);
    report_text_waits(out, r);
    print_warnings(out, r);
}

void report_text_duet(FILE *out, const struct result *r, const char *partner_file)
{
    if (!r->has_duet)
        return;
    fprintf(out,
            "duet:                one half (role %c) of duet %s, run at once with run %s%s%s\n",
            r->duet.role, r->duet.id, r->duet.partner, partner_file ? ", " : "",
            partner_file ? partner_file : "");
}

void report_text_statements(FILE *out, const struct result *r)
{
    fprintf(out, "statement latencies (ms):\n%10s %10s %10s  %s\n", "count", "mean", "p99", "sql");
    for (size_t i = 0; i < r->n_statements; i++) {
        const struct result_statement *st = &r->statements[i];
        char sql[100 - 34 + 1]; /* the row fits 100 columns */
        fprintf(out, "%10llu %10.3f %10.3f  %s\n", (unsigned long long)st->count, ms(st->mean_us),
                ms(st->p99_us), report_fmt_cut(sql, sizeof sql, st->sql ? st->sql : ""));
    }
}

/* The sampling columns of one interval: client CPU (cores), host CPU busy, top wait event. */
static void print_interval_sampling(FILE *out, const struct result_interval *it, int host)
{
    if (it->has_client_cpu)
        fprintf(out, " %6.2f", it->cpu_user + it->cpu_system);
    else
        fprintf(out, " %6s", "-");
    if (host && it->has_host)
        fprintf(out, " %8.0f%%", 100 * (1 - it->host.idle));
    else if (host)
        fprintf(out, " %9s", "-");
    double share;
    const struct result_wait *w = report_interval_top_wait(it, &share);
    if (w)
        fprintf(out, "  %s %.0f %%", w->name, 100 * share);
    else
        fputs("  -", out);
}

void report_text_intervals(FILE *out, const struct result *r)
{
    int sampled = 0, host = 0;
    for (size_t i = 0; i < r->n_intervals; i++) {
        sampled |= r->intervals[i].has_client_cpu || r->intervals[i].n_waits > 0;
        host |= r->intervals[i].has_host;
    }
    fprintf(out, "%8s %10s %8s %10s %10s %10s", "t_s", "tps", "failed", "p50_ms", "p99_ms",
            "max_ms");
    int sio = report_sio_any(r);
    if (sio)
        report_text_sio_header(out);
    if (sampled)
        fprintf(out, " %6s%s  %s", "cpu", host ? " host_busy" : "", "top_wait");
    fputc('\n', out);
    for (size_t i = 0; i < r->n_intervals; i++) {
        const struct result_interval *it = &r->intervals[i];
        fprintf(out, "%8.1f %10.1f %8llu %10.3f %10.3f %10.3f", it->t_s, it->tps,
                (unsigned long long)it->failed, ms(it->p50_us), ms(it->p99_us), ms(it->max_us));
        if (sio)
            report_text_sio_row(out, r, i);
        if (sampled)
            print_interval_sampling(out, it, host);
        fputc('\n', out);
    }
}
