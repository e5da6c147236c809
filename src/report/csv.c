#include "report/csv.h"

#include <math.h>
#include <string.h>

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

void report_csv_intervals(FILE *out, const struct result *r)
{
    fputs("t_s,duration_s,transactions,failed,tps,latency_p50_ms,latency_p99_ms,latency_max_ms",
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
        end_row(out);
    }
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
          "latency_p95_ms,latency_p99_ms,latency_p999_ms,latency_max_ms",
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
    end_row(out);
}

void report_csv_compare(FILE *out, const struct cmp_report *rep)
{
    fputs("name,a_label,b_label,a,b,change_pct,ci_low_pct,ci_high_pct,verdict,detail", out);
    end_row(out);
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
            end_row(out);
        }
    }
}
