/* Why B differs from A inside the server: the per-transaction figures and the events of
 * server_io (result/server_io.h) that changed most. */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const cmp_internal_names[CMP_N_INTERNALS] = {
    "wal_bytes_per_tx",  "fpi_share",  "buffers_written_per_tx",
    "temp_bytes_per_tx", "hit_ratio",  "checkpoints",
    "autovacuum",        "autoanalyze"};

/* A relative change below this is not listed (counts of events: any change is). */
#define MIN_CHANGE_PCT 5.0

/* The shared-buffer hit ratio over the run's intervals; < 0 unknown. */
static double hit_ratio(const struct result *r)
{
    int64_t hit = 0, read = 0;
    for (size_t i = 0; i < r->n_intervals; i++) {
        const struct result_sio *s = &r->intervals[i].sio;
        hit += s->v[SIO_BLKS_HIT];
        read += s->v[SIO_BLKS_READ];
    }
    return hit + read > 0 ? (double)hit / (double)(hit + read) : -1;
}

static double figure(const struct result *r, enum cmp_internal_id id)
{
    const struct result_sio_per_tx *p = &r->sio_per_tx;
    switch (id) {
    case CMP_IN_WAL_PER_TX:
        return p->wal_bytes;
    case CMP_IN_FPI_SHARE:
        return p->fpi_share;
    case CMP_IN_BUFFERS_PER_TX:
        return p->buffers_written;
    case CMP_IN_TEMP_PER_TX:
        return p->temp_bytes;
    case CMP_IN_HIT_RATIO:
        return hit_ratio(r);
    case CMP_IN_CHECKPOINTS:
        return (double)r->event_counts[RESULT_EV_CHECKPOINT];
    case CMP_IN_AUTOVACUUM:
        return (double)r->event_counts[RESULT_EV_AUTOVACUUM];
    case CMP_IN_AUTOANALYZE:
        return (double)r->event_counts[RESULT_EV_AUTOANALYZE];
    default:
        return -1;
    }
}

/* The mean over a side's trials; < 0 when a trial lacks it. */
static double side_mean(const struct cmp_side *s, enum cmp_internal_id id)
{
    double sum = 0;
    for (size_t i = 0; i < s->n_trials; i++) {
        double v = figure(s->runs[i], id);
        if (v < 0)
            return -1;
        sum += v;
    }
    return s->n_trials ? sum / (double)s->n_trials : -1;
}

static int sampled(const struct cmp_side *s)
{
    for (size_t i = 0; i < s->n_trials; i++)
        if (!s->runs[i]->sio_per_tx.present)
            return 0;
    return s->n_trials > 0;
}

/* Largest relative change first; a change from zero is the largest. */
static int by_change(const void *x, const void *y)
{
    const struct cmp_internal_change *a = x, *b = y;
    double da = fabs(a->change_pct), db = fabs(b->change_pct);
    if (da != db)
        return da < db ? 1 : -1;
    return (int)a->id - (int)b->id;
}

void cmp_internals(const struct cmp_report *rep, size_t side, struct cmp_outcome *o)
{
    const struct cmp_side *a = &rep->sides[0], *b = &rep->sides[side];
    o->internals_sampled = sampled(a) && sampled(b);
    if (!o->internals_sampled)
        return;
    for (int k = 0; k < CMP_N_INTERNALS; k++) {
        double va = side_mean(a, (enum cmp_internal_id)k),
               vb = side_mean(b, (enum cmp_internal_id)k);
        if (va < 0 || vb < 0 || va == vb)
            continue;
        double pct = va > 0 ? 100 * (vb - va) / va : INFINITY;
        int count = k >= CMP_IN_CHECKPOINTS;
        if (!count && fabs(pct) < MIN_CHANGE_PCT)
            continue;
        o->internals[o->n_internals++] =
            (struct cmp_internal_change){(enum cmp_internal_id)k, va, vb, pct};
    }
    qsort(o->internals, o->n_internals, sizeof *o->internals, by_change);
}
