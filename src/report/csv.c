#include "report/csv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "report/sio.h"
#include "report/text.h"

void report_csv_field(FILE *out, const char *s)
{
    if (!s)
        return;
    if (!s[strcspn(s, ",\"\r\n")]) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* A numeric field: empty when unknown, else printf's %.*f. */
static void num(FILE *out, double v, int decimals)
{
    if (isfinite(v))
        fprintf(out, "%.*f", decimals, v);
}

/* A number of unknown scale (compare's values): enough digits to lose nothing that matters. */
static void num_g(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, "%.10g", v);
}

static void ms(FILE *out, double us)
{
    num(out, us / 1000.0, 3);
}

static void sep(FILE *out)
{
    fputc(',', out);
}

static void end_row(FILE *out)
{
    fputs("\r\n", out);
}

/* A wait event and its share (0..1), both empty without one. */
static void wait_fields(FILE *out, const struct result_wait *w, double share)
{
    sep(out);
    if (w)
        report_csv_field(out, w->name);
    sep(out);
    if (w)
        num(out, share, 4);
}

/* An interval's sampling: the client's CPU in cores, the host's busy share, the top wait. */
static void interval_sampling(FILE *out, const struct result_interval *it)
{
    sep(out);
    if (it->has_client_cpu)
        num(out, it->cpu_user + it->cpu_system, 3);
    sep(out);
    if (it->has_host)
        num(out, 100 * (1 - it->host.idle), 1);
    double share;
    const struct result_wait *w = report_interval_top_wait(it, &share);
    wait_fields(out, w, share);
}

/* A figure in ms that may be unknown (< 0): empty then. */
static void known_ms(FILE *out, double v)
{
    sep(out);
    if (v >= 0)
        num(out, v, 0);
}

/* An interval's client health: lateness (sum, max), run delay, CPU pressure, steal, and the
 * time lost with its cause when stalled; all empty without it. */
static void interval_health(FILE *out, const struct result_interval *it)
{
    const struct result_interval_health *h = &it->health;
    const double v[] = {h->late_ms, h->late_max_ms, h->run_delay_ms, h->psi_ms, h->steal_ms};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        known_ms(out, h->present ? v[i] : -1);
    known_ms(out, h->present && h->cause != RESULT_STALL_NONE ? h->stalled_ms : -1);
    sep(out);
    if (h->present && h->cause != RESULT_STALL_NONE)
        fputs(result_stall_cause_names[h->cause], out);
}

/* The run's top wait event over the measured part (NULL: not sampled, or none seen). */
static const struct result_wait *run_top_wait(const struct result *r, double *share)
{
    uint64_t total = report_waits_total(r->waits.events, r->waits.n_events);
    *share = total ? (double)r->waits.events[0].count / (double)total : 0;
    return total ? &r->waits.events[0] : NULL;
}

/* A server_io counter of an interval: empty when the server did not report it. */
static void sio_count(FILE *out, const struct result_sio *s, int field)
{
    sep(out);
    if ((s->have >> field) & 1)
        fprintf(out, "%lld", (long long)s->v[field]);
}

/* What the server did in an interval (show --intervals' columns, in raw units): WAL bytes, a
 * checkpoint at work (0/1), shared-buffer hits and reads with the hit %, temp bytes, and the
 * autovacuum/autoanalyze runs of the workload's tables at work; all empty without server_io. */
static void interval_server(FILE *out, const struct result *r, size_t i)
{
    const struct result_interval *it = &r->intervals[i];
    const struct result_sio *s = &it->sio;
    if (!s->have) {
        fputs(",,,,,,,", out);
        return;
    }
    double t0 = it->t_s - it->duration_s;
    sio_count(out, s, SIO_WAL_BYTES);
    fprintf(out, ",%d", report_sio_active(r, RESULT_EV_CHECKPOINT, t0, it->t_s) ? 1 : 0);
    sio_count(out, s, SIO_BLKS_HIT);
    sio_count(out, s, SIO_BLKS_READ);
    sep(out);
    double hit = report_sio_hit_ratio(s);
    if (hit >= 0)
        num(out, 100 * hit, 2);
    sio_count(out, s, SIO_TEMP_BYTES);
    fprintf(out, ",%d",
            report_sio_active(r, RESULT_EV_AUTOVACUUM, t0, it->t_s) +
                report_sio_active(r, RESULT_EV_AUTOANALYZE, t0, it->t_s));
}

void report_csv_intervals(FILE *out, const struct result *r)
{
    fputs("t_s,duration_s,transactions,failed,tps,latency_p50_ms,latency_p99_ms,latency_max_ms,"
          "client_cpu_cores,host_busy_pct,top_wait,top_wait_share,wal_bytes,checkpoint,"
          "blks_hit,blks_read,hit_pct,temp_bytes,autovacuum,late_ms,late_max_ms,run_delay_ms,"
          "psi_ms,steal_ms,stalled_ms,stall_cause",
          out);
    end_row(out);
    for (size_t i = 0; i < r->n_intervals; i++) {
        const struct result_interval *it = &r->intervals[i];
        num(out, it->t_s, 3);
        sep(out);
        num(out, it->duration_s, 3);
        fprintf(out, ",%llu,%llu,", (unsigned long long)it->transactions,
                (unsigned long long)it->failed);
        num(out, it->tps, 3);
        sep(out);
        ms(out, it->p50_us);
        sep(out);
        ms(out, it->p99_us);
        sep(out);
        ms(out, it->max_us);
        interval_sampling(out, it);
        interval_server(out, r, i);
        interval_health(out, it);
        end_row(out);
    }
}

/* The summary's sampling (period, rounds, top wait, client CPU) and agent columns (this file's
 * share, or a merged file's agents and their spread); empty where the file has none. */
static void summary_sampling_agents(FILE *out, const struct result *r)
{
    const struct result_waits *w = &r->waits;
    sep(out);
    if (w->present)
        fprintf(out, "%d,%llu", w->sample_ms, (unsigned long long)w->samples);
    else
        sep(out);
    double share;
    const struct result_wait *top = run_top_wait(r, &share);
    wait_fields(out, top, share);
    const struct result_client_cpu *c = &r->client_cpu;
    const double cpu[] = {c->user, c->system, c->max_thread_core};
    for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++) {
        sep(out);
        if (c->present)
            num(out, cpu[i], 3);
    }
    sep(out);
    if (r->has_agent)
        fprintf(out, "%d,%d", r->agent.index, r->agent.count);
    else
        sep(out);
    fprintf(out, ",%zu,", r->n_agents);
    if (r->n_agents)
        num(out, r->merge.start_spread_us, 0);
    sep(out);
    if (r->n_agents)
        num(out, r->merge.clock_uncertainty_us, 0);
}

/* summary.client_health: all empty without it, the worst's columns empty with no stall. */
static void summary_health(FILE *out, const struct result *r)
{
    const struct result_client_health *h = &r->client_health;
    int worst = h->present && h->intervals_stalled > 0;
    sep(out);
    if (h->present)
        fprintf(out, "%llu,%llu", (unsigned long long)h->intervals,
                (unsigned long long)h->intervals_stalled);
    else
        sep(out);
    known_ms(out, h->present ? h->stalled_ms : -1);
    sep(out);
    if (worst)
        num(out, h->worst_t_s, 3);
    known_ms(out, worst ? h->worst_ms : -1);
    sep(out);
    if (worst)
        fputs(result_stall_cause_names[h->worst_cause], out);
    sep(out);
    if (h->present && h->steal_share >= 0)
        num(out, h->steal_share, 4);
    known_ms(out, h->present ? h->run_delay_ms : -1);
}

void report_csv_summary(FILE *out, const struct result *r)
{
    const struct latency_summary *l = &r->summary.latency_us;
    fputs("label,workload,scale,clients,threads,protocol,rate,complete,end_reason,duration_s,"
          "transactions,failed,retried,tps",
          out);
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        fprintf(out, ",errors_%s", result_error_names[k]);
    fputs(",latency_min_ms,latency_mean_ms,latency_stddev_ms,latency_p50_ms,latency_p90_ms,"
          "latency_p95_ms,latency_p99_ms,latency_p999_ms,latency_max_ms,"
          "sample_ms,samples,top_wait,top_wait_share,client_cpu_user,client_cpu_system,"
          "client_max_thread_core,agent_index,agent_count,agents,agents_start_spread_us,"
          "agents_clock_uncertainty_us,client_intervals,client_intervals_stalled,"
          "client_stalled_ms,client_worst_t_s,client_worst_ms,client_worst_cause,"
          "client_steal_share,client_run_delay_ms",
          out);
    end_row(out);
    report_csv_field(out, r->label);
    sep(out);
    report_csv_field(out, r->workload.name);
    fprintf(out, ",%lld,%d,%d,", (long long)r->workload.scale, r->options.clients,
            r->options.threads);
    report_csv_field(out, r->options.protocol);
    sep(out);
    num(out, r->options.rate, 3);
    fprintf(out, ",%s,", r->complete ? "true" : "false");
    report_csv_field(out, r->end_reason);
    sep(out);
    num(out, r->summary.duration_s, 3);
    fprintf(out, ",%llu,%llu,%llu,", (unsigned long long)r->summary.transactions,
            (unsigned long long)r->summary.failed, (unsigned long long)r->summary.retried);
    num(out, r->summary.tps, 3);
    for (int k = 0; k < RESULT_N_ERRORS; k++)
        fprintf(out, ",%llu", (unsigned long long)r->summary.errors[k]);
    const double lat[] = {l->min, l->mean, l->stddev, l->p50, l->p90,
                          l->p95, l->p99,  l->p999,   l->max};
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        sep(out);
        ms(out, lat[i]);
    }
    summary_sampling_agents(out, r);
    summary_health(out, r);
    end_row(out);
}

/* A compared side's sampling and agents over its trials: the top wait event of their summed
 * counts, the client's mean CPU in cores, and the most agents a trial was merged from. */
struct side_sampling {
    const char *top_wait; /* NULL: not sampled */
    double top_share, cpu_cores;
    size_t agents;
};

void report_csv_scripts(FILE *out, const struct result *r)
{
    fputs("script,weight,transactions,failed,retried,skipped,tps,latency_min_ms,latency_mean_ms,"
          "latency_p50_ms,latency_p90_ms,latency_p95_ms,latency_p99_ms,latency_max_ms",
          out);
    end_row(out);
    for (size_t i = 0; i < r->summary.n_scripts; i++) {
        const struct result_script_figures *s = &r->summary.scripts[i];
        const struct latency_summary *l = &s->latency_us;
        report_csv_field(out, s->name);
        fprintf(out, ",%d,%llu,%llu,%llu,%llu,", s->weight, (unsigned long long)s->transactions,
                (unsigned long long)s->failed, (unsigned long long)s->retried,
                (unsigned long long)s->skipped);
        num(out, s->tps, 3);
        const double lat[] = {l->min, l->mean, l->p50, l->p90, l->p95, l->p99, l->max};
        for (size_t k = 0; k < sizeof lat / sizeof lat[0]; k++) {
            sep(out);
            ms(out, lat[k]);
        }
        end_row(out);
    }
}

static void side_sampling(const struct cmp_side *s, struct side_sampling *out)
{
    *out = (struct side_sampling){NULL, NAN, NAN, 0};
    double cpu = 0;
    int n_cpu = 0;
    for (size_t t = 0; t < s->n_trials; t++) {
        const struct result *r = s->runs[t];
        if (r->client_cpu.present) {
            cpu += r->client_cpu.user + r->client_cpu.system;
            n_cpu++;
        }
        if (r->n_agents > out->agents)
            out->agents = r->n_agents;
    }
    if (n_cpu)
        out->cpu_cores = cpu / n_cpu;
    /* The event whose counts, summed over the trials, are highest. */
    uint64_t total = 0, best = 0;
    for (size_t t = 0; t < s->n_trials; t++) {
        const struct result_waits *w = &s->runs[t]->waits;
        total += report_waits_total(w->events, w->n_events);
        for (size_t i = 0; i < w->n_events; i++) {
            uint64_t sum = 0;
            for (size_t u = 0; u < s->n_trials; u++) {
                const struct result_waits *v = &s->runs[u]->waits;
                for (size_t k = 0; k < v->n_events; k++)
                    if (strcmp(v->events[k].name, w->events[i].name) == 0)
                        sum += v->events[k].count;
            }
            if (sum > best) {
                best = sum;
                out->top_wait = w->events[i].name;
            }
        }
    }
    if (out->top_wait)
        out->top_share = (double)best / (double)total;
}

static void compare_sampling_agents(FILE *out, const struct side_sampling *a,
                                    const struct side_sampling *b)
{
    const struct side_sampling *sides[] = {a, b};
    for (int i = 0; i < 2; i++) {
        sep(out);
        report_csv_field(out, sides[i]->top_wait);
        sep(out);
        num(out, sides[i]->top_share, 4);
    }
    for (int i = 0; i < 2; i++) {
        sep(out);
        num(out, sides[i]->cpu_cores, 3);
    }
    fprintf(out, ",%zu,%zu", a->agents, b->agents);
}

void report_csv_compare(FILE *out, const struct cmp_report *rep)
{
    fputs("name,a_label,b_label,a,b,change_pct,ci_low_pct,ci_high_pct,verdict,detail,"
          "a_top_wait,a_top_wait_share,b_top_wait,b_top_wait_share,a_client_cpu_cores,"
          "b_client_cpu_cores,a_agents,b_agents",
          out);
    end_row(out);
    struct side_sampling *ss = xcalloc(rep->n_sides ? rep->n_sides : 1, sizeof *ss);
    for (size_t i = 0; i < rep->n_sides; i++)
        side_sampling(&rep->sides[i], &ss[i]);
    for (size_t i = 0; i < rep->n_outcomes; i++) {
        const struct cmp_outcome *o = &rep->outcomes[i];
        for (int k = 0; k < CMP_N_METRICS; k++) {
            const struct cmp_metric *m = &o->metrics[k];
            report_csv_field(out, cmp_metric_names[k]);
            sep(out);
            report_csv_field(out, rep->sides[0].label);
            sep(out);
            report_csv_field(out, rep->sides[o->side].label);
            const double v[] = {m->a, m->b, m->change_pct, m->ci_low_pct, m->ci_high_pct};
            for (size_t j = 0; j < sizeof v / sizeof v[0]; j++) {
                sep(out);
                num_g(out, v[j]);
            }
            sep(out);
            report_csv_field(out, cmp_verdict_names[m->verdict]);
            sep(out);
            report_csv_field(out, m->detail);
            compare_sampling_agents(out, &ss[0], &ss[o->side]);
            end_row(out);
        }
    }
    free(ss);
}
