/* The text of what the server did underneath a run: show --intervals' columns and the
 * summary's lines (report/sio.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/sio.h"

#define MB (1024.0 * 1024.0)

int report_sio_any(const struct result *r)
{
    for (size_t i = 0; i < r->n_intervals; i++)
        if (r->intervals[i].sio.have)
            return 1;
    return 0;
}

double report_event_end(const struct result *r, size_t i)
{
    const struct result_event *ev = &r->events[i];
    for (size_t j = i + 1; j < r->n_events; j++) {
        const struct result_event *x = &r->events[j];
        if (x->kind == ev->kind && !x->start &&
            (ev->kind == RESULT_EV_CHECKPOINT ||
             (x->detail && ev->detail && strcmp(x->detail, ev->detail) == 0)))
            return x->t_s;
    }
    return r->n_intervals ? r->intervals[r->n_intervals - 1].t_s : ev->t_s;
}

int report_sio_active(const struct result *r, int kind, double t0_s, double t1_s)
{
    int n = 0;
    for (size_t i = 0; i < r->n_events; i++) {
        const struct result_event *ev = &r->events[i];
        if (ev->kind == kind && ev->start && ev->t_s <= t1_s && report_event_end(r, i) > t0_s)
            n++;
    }
    return n;
}

static const char *const internal_labels[CMP_N_INTERNALS] = {
    "WAL per transaction",     "full-page images (of WAL records)",
    "buffers written per tx",  "temp bytes per transaction",
    "shared-buffer hit ratio", "checkpoints",
    "autovacuum runs",         "autoanalyze runs"};

const char *report_internal_label(enum cmp_internal_id id)
{
    return internal_labels[id];
}

char *report_internal_value(char *buf, size_t size, enum cmp_internal_id id, double v)
{
    if (id == CMP_IN_FPI_SHARE || id == CMP_IN_HIT_RATIO)
        snprintf(buf, size, "%.1f %%", 100 * v);
    else if (id == CMP_IN_BUFFERS_PER_TX || id >= CMP_IN_CHECKPOINTS)
        snprintf(buf, size, "%.4g", v);
    else if (v >= MB)
        snprintf(buf, size, "%.2f MB", v / MB);
    else if (v >= 1024)
        snprintf(buf, size, "%.1f KB", v / 1024.0);
    else
        snprintf(buf, size, "%.0f B", v);
    return buf;
}

static int has(const struct result_sio *s, int f)
{
    return (s->have >> f) & 1;
}

double report_sio_hit_ratio(const struct result_sio *s)
{
    if (!has(s, SIO_BLKS_HIT) || !has(s, SIO_BLKS_READ))
        return -1;
    return result_hit_ratio(s->v[SIO_BLKS_HIT], s->v[SIO_BLKS_READ]);
}

void report_text_sio_header(FILE *out)
{
    fprintf(out, " %8s %4s %6s %8s %3s", "wal_MB", "ckpt", "hit_%", "temp_MB", "av");
}

void report_text_sio_row(FILE *out, const struct result *r, size_t i)
{
    const struct result_interval *it = &r->intervals[i];
    const struct result_sio *s = &it->sio;
    if (!s->have) {
        fprintf(out, " %8s %4s %6s %8s %3s", "-", "-", "-", "-", "-");
        return;
    }
    double t0 = it->t_s - it->duration_s;
    if (has(s, SIO_WAL_BYTES))
        fprintf(out, " %8.2f", (double)s->v[SIO_WAL_BYTES] / MB);
    else
        fprintf(out, " %8s", "-");
    int ckpt = report_sio_active(r, RESULT_EV_CHECKPOINT, t0, it->t_s);
    fprintf(out, " %4s", ckpt ? "yes" : "-");
    double hit = report_sio_hit_ratio(s);
    if (hit >= 0)
        fprintf(out, " %6.2f", 100 * hit);
    else
        fprintf(out, " %6s", "-");
    if (has(s, SIO_TEMP_BYTES))
        fprintf(out, " %8.2f", (double)s->v[SIO_TEMP_BYTES] / MB);
    else
        fprintf(out, " %8s", "-");
    int av = report_sio_active(r, RESULT_EV_AUTOVACUUM, t0, it->t_s) +
             report_sio_active(r, RESULT_EV_AUTOANALYZE, t0, it->t_s);
    if (av)
        fprintf(out, " %3d", av);
    else
        fprintf(out, " %3s", "-");
}

static void per_tx_bytes(FILE *out, const char *what, double v)
{
    if (v < 0)
        return;
    if (v >= 1024 * 1024)
        fprintf(out, "%s %.2f MB", what, v / MB);
    else if (v >= 1024)
        fprintf(out, "%s %.1f KB", what, v / 1024);
    else
        fprintf(out, "%s %.0f B", what, v);
}

/* The events other than checkpoints, once per kind and detail (a table autovacuumed every
 * second of a long run is one line): how many, and the first and last start. */
#define EVENT_LINES 8

static void print_event_tables(FILE *out, const struct result *r)
{
    int lines = 0;
    for (size_t i = 0; i < r->n_events; i++) {
        const struct result_event *ev = &r->events[i];
        if (ev->kind == RESULT_EV_CHECKPOINT || !ev->start)
            continue;
        int seen = 0, n = 0;
        double last = ev->t_s;
        for (size_t j = 0; j < r->n_events && !seen; j++) {
            const struct result_event *x = &r->events[j];
            int same = x->start && x->kind == ev->kind &&
                       strcmp(x->detail ? x->detail : "", ev->detail ? ev->detail : "") == 0;
            if (same && j < i)
                seen = 1;
            else if (same) {
                n++;
                last = x->t_s;
            }
        }
        if (seen)
            continue;
        if (lines++ == EVENT_LINES) {
            fputs("                     ...\n", out);
            return;
        }
        fprintf(out, "                     %s %s: %d, at %.1f s", result_event_kinds[ev->kind],
                ev->detail ? ev->detail : "", n, ev->t_s);
        if (n > 1)
            fprintf(out, " to %.1f s", last);
        fputc('\n', out);
    }
}

void report_text_sio_summary(FILE *out, const struct result *r)
{
    if (!r->sio_per_tx.present)
        return;
    const struct result_sio_per_tx *p = &r->sio_per_tx;
    fputs("server per tx:       ", out);
    per_tx_bytes(out, "WAL", p->wal_bytes);
    if (p->fpi_share >= 0)
        fprintf(out, ", full-page images %.1f %% of records", 100 * p->fpi_share);
    if (p->buffers_written >= 0)
        fprintf(out, ", buffers written %.2f", p->buffers_written);
    per_tx_bytes(out, ", temp", p->temp_bytes);
    fputc('\n', out);
    fprintf(out,
            "server events:       %llu checkpoints, %llu autovacuum, %llu autoanalyze, "
            "%llu standby lag > 1 s\n",
            (unsigned long long)r->event_counts[RESULT_EV_CHECKPOINT],
            (unsigned long long)r->event_counts[RESULT_EV_AUTOVACUUM],
            (unsigned long long)r->event_counts[RESULT_EV_AUTOANALYZE],
            (unsigned long long)r->event_counts[RESULT_EV_STANDBY_LAG]);
    print_event_tables(out, r);
}
