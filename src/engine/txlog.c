#include "engine/txlog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "os/os.h"

struct txlog {
    FILE *f;
    char *path;
    struct txlog_opts o;
    struct rng rng; /* sampling */
    struct txlog_agg agg;
    int failed; /* the errno of the first failed write, 0 while none failed */
};

static const char *status_word(const struct txlog_opts *o, enum txlog_status s)
{
    switch (s) {
    case TXLOG_SKIPPED:
        return "skipped";
    case TXLOG_SERIALIZATION:
        return o->failures_detailed ? "serialization" : "failed";
    case TXLOG_DEADLOCK:
        return o->failures_detailed ? "deadlock" : "failed";
    default:
        return "failed";
    }
}

size_t txlog_format_tx(char *buf, size_t size, const struct txlog_opts *o, const struct txlog_tx *t)
{
    int n;
    if (t->status == TXLOG_OK)
        n = snprintf(buf, size, "%d %llu %lld %d %lld %lld", t->client,
                     (unsigned long long)t->number, (long long)t->latency_us, t->script,
                     (long long)(t->end_epoch_us / 1000000),
                     (long long)(t->end_epoch_us % 1000000));
    else
        n = snprintf(buf, size, "%d %llu %s %d %lld %lld", t->client, (unsigned long long)t->number,
                     status_word(o, t->status), t->script, (long long)(t->end_epoch_us / 1000000),
                     (long long)(t->end_epoch_us % 1000000));
    if (o->rate)
        n += snprintf(buf + n, size - (size_t)n, " %lld",
                      (long long)(t->status == TXLOG_OK ? t->lag_us : 0));
    if (o->max_tries != 1)
        n += snprintf(buf + n, size - (size_t)n, " %d", t->tries > 0 ? t->tries - 1 : 0);
    n += snprintf(buf + n, size - (size_t)n, "\n");
    return (size_t)n;
}

size_t txlog_format_agg(char *buf, size_t size, const struct txlog_opts *o,
                        const struct txlog_agg *a)
{
    int lag = o->rate, skipped = o->latency_limit, retries = o->max_tries != 1;
    int n = snprintf(buf, size, "%lld %llu %.0f %.0f %.0f %.0f",
                     (long long)(a->start_epoch_us / 1000000), (unsigned long long)a->count, a->sum,
                     a->sum2, a->min, a->max);
    n += snprintf(buf + n, size - (size_t)n, " %.0f %.0f %.0f %.0f", lag ? a->lag_sum : 0.0,
                  lag ? a->lag_sum2 : 0.0, lag ? a->lag_min : 0.0, lag ? a->lag_max : 0.0);
    n += snprintf(buf + n, size - (size_t)n, " %llu %llu %llu %llu %llu\n",
                  (unsigned long long)(skipped ? a->skipped : 0),
                  (unsigned long long)(retries ? a->retried : 0),
                  (unsigned long long)(retries ? a->retries : 0),
                  (unsigned long long)(o->failures_detailed ? a->serialization : 0),
                  (unsigned long long)(o->failures_detailed ? a->deadlock : 0));
    return (size_t)n;
}

static void add_stat(double v, uint64_t count, double *sum, double *sum2, double *min, double *max)
{
    if (count == 0 || v < *min)
        *min = v;
    if (count == 0 || v > *max)
        *max = v;
    *sum += v;
    *sum2 += v * v;
}

void txlog_agg_add(struct txlog_agg *a, const struct txlog_opts *o, const struct txlog_tx *t)
{
    if (t->status == TXLOG_SKIPPED) {
        a->skipped++;
        return;
    }
    if (t->tries > 1) {
        a->retried++;
        a->retries += (uint64_t)(t->tries - 1);
    }
    switch (t->status) {
    case TXLOG_OK:
        add_stat((double)t->latency_us, a->count, &a->sum, &a->sum2, &a->min, &a->max);
        /* the lag has its own count in pgbench, equal to this one when -R is on */
        if (o->rate)
            add_stat((double)t->lag_us, a->count, &a->lag_sum, &a->lag_sum2, &a->lag_min,
                     &a->lag_max);
        a->count++;
        break;
    case TXLOG_SERIALIZATION:
        a->serialization++;
        break;
    case TXLOG_DEADLOCK:
        a->deadlock++;
        break;
    default:
        break; /* other failures: pgbench 15 has no column for them */
    }
}

struct txlog *txlog_open(const char *path, const struct txlog_opts *o, uint64_t seed, struct err *e)
{
    FILE *f = os_fopen(path, "w");
    if (!f) {
        err_set(e, ERR_INPUT, "could not open the transaction log %s: %s", path, strerror(errno));
        return NULL;
    }
    struct txlog *l = xcalloc(1, sizeof *l);
    l->f = f;
    l->path = xstrdup(path);
    l->o = *o;
    rng_seed(&l->rng, seed);
    return l;
}

void txlog_start(struct txlog *l, int64_t start_epoch_us)
{
    l->agg.start_epoch_us = start_epoch_us;
}

static void put(struct txlog *l, const char *line, size_t n)
{
    if (fwrite(line, 1, n, l->f) != n && !l->failed)
        l->failed = errno ? errno : EIO; /* the first error is the one to name */
}

/* Write every interval that ends by now (empty ones too), moving the aggregate on. */
static void flush_intervals(struct txlog *l, int64_t now_epoch_us)
{
    int64_t len_us = l->o.aggregate_s * 1000000;
    char line[256];
    while (l->agg.start_epoch_us + len_us <= now_epoch_us) {
        put(l, line, txlog_format_agg(line, sizeof line, &l->o, &l->agg));
        int64_t next = l->agg.start_epoch_us + len_us;
        memset(&l->agg, 0, sizeof l->agg);
        l->agg.start_epoch_us = next;
    }
}

void txlog_record(struct txlog *l, const struct txlog_tx *t)
{
    if (l->o.sampling_rate > 0 && l->o.sampling_rate < 1 &&
        rng_double(&l->rng) > l->o.sampling_rate)
        return;
    if (l->o.aggregate_s > 0) {
        flush_intervals(l, t->end_epoch_us);
        txlog_agg_add(&l->agg, &l->o, t);
        return;
    }
    char line[256];
    put(l, line, txlog_format_tx(line, sizeof line, &l->o, t));
}

int txlog_close(struct txlog *l, int64_t end_epoch_us, struct err *e)
{
    if (l->o.aggregate_s > 0)
        flush_intervals(l, end_epoch_us);
    int rc = 0;
    errno = 0;
    if (fclose(l->f) != 0 && !l->failed)
        l->failed = errno ? errno : EIO;
    if (l->failed)
        rc = err_set(e, ERR_RUNTIME, "could not write the transaction log %s: %s", l->path,
                     strerror(l->failed));
    free(l->path);
    free(l);
    return rc;
}
