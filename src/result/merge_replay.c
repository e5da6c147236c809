/* merge: a replay's figures over the agents' results (replay {...}, summary.classes[]). */
#include "result/merge_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "stats/hist.h"

struct merged_class {
    const char *name; /* borrowed from an input */
    uint64_t count, failed;
    struct hist *h;
    double total_us;
};

static void add_counts(struct result_replay *d, const struct result_replay *s)
{
    d->sent += s->sent;
    d->skipped_read_only += s->skipped_read_only;
    d->failed_now += s->failed_now;
    d->succeeded_now += s->succeeded_now;
    d->sessions_failed += s->sessions_failed;
}

/* A lag (client: client_lag_us, else lag_us): the inputs' histograms merged, so its percentiles are
 * exact. An input written before replays kept one (a lag measured, no histogram) leaves only
 * bounds: the largest of the inputs' figures, and no histogram. */
static const struct result_lag *lag_of(const struct result *r, int client)
{
    return client ? &r->replay.client_lag : &r->replay.lag;
}

static void merge_lag(struct result *const *in, size_t n, int client, struct result_lag *d)
{
    int exact = 1;
    for (size_t k = 0; k < n; k++) {
        const struct result_lag *s = lag_of(in[k], client);
        exact &= s->hist.count > 0 || !(s->max_us > 0);
        /* An input written before client_lag_us (statements measured, no client lag): the
         * others' figures alone would pass for the whole; none then. */
        if (client && in[k]->replay.lag.hist.count > 0 && !result_lag_known(s))
            return;
    }
    if (!exact) {
        for (size_t k = 0; k < n; k++) {
            const struct result_lag *s = lag_of(in[k], client);
            d->p50_us = s->p50_us > d->p50_us ? s->p50_us : d->p50_us;
            d->p99_us = s->p99_us > d->p99_us ? s->p99_us : d->p99_us;
            d->max_us = s->max_us > d->max_us ? s->max_us : d->max_us;
        }
        return;
    }
    struct hist *h = hist_new();
    for (size_t k = 0; k < n; k++)
        if (lag_of(in[k], client)->hist.count > 0)
            hist_add_sparse(h, &lag_of(in[k], client)->hist);
    result_derive_lag(d, h);
    hist_free(h);
}

static int by_count_desc(const void *a, const void *b)
{
    const struct result_replay_reason *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->reason, y->reason);
}

/* Why outcomes differed: each input's reasons added up by text, the most frequent first, as
 * many as the longest input list. Each input names only its top reasons, so a reason beyond
 * an input's list is missing that input's count (exact when no input's list was full). */
static void merge_top(struct result *const *in, size_t n, struct result_replay *d)
{
    size_t cap = 0, keep = 0;
    for (size_t k = 0; k < n; k++) {
        cap += in[k]->replay.n_top;
        keep = in[k]->replay.n_top > keep ? in[k]->replay.n_top : keep;
    }
    struct result_replay_reason *all = xcalloc(cap + 1, sizeof *all);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < in[k]->replay.n_top; i++) {
            const struct result_replay_reason *s = &in[k]->replay.top[i];
            size_t j = 0;
            while (j < m && strcmp(all[j].reason, s->reason) != 0)
                j++;
            if (j == m)
                all[m++] = (struct result_replay_reason){s->reason, 0}; /* borrowed */
            all[j].count += s->count;
        }
    qsort(all, m, sizeof *all, by_count_desc);
    d->n_top = m < keep ? m : keep;
    d->top = xcalloc(d->n_top + 1, sizeof *d->top);
    for (size_t i = 0; i < d->n_top; i++)
        d->top[i] = (struct result_replay_reason){xstrdup(all[i].reason), all[i].count};
    free(all);
}

static int by_total_desc(const void *a, const void *b)
{
    const struct merged_class *x = a, *y = b;
    if (strcmp(x->name, "other") == 0 || strcmp(y->name, "other") == 0)
        return strcmp(x->name, "other") == 0 ? 1 : -1;
    return x->total_us < y->total_us ? 1 : x->total_us > y->total_us ? -1 : 0;
}

static void merge_classes(struct result *const *in, size_t n, struct result *out)
{
    size_t cap = 0, m = 0;
    for (size_t k = 0; k < n; k++)
        cap += in[k]->summary.n_classes;
    struct merged_class *c = xcalloc(cap + 1, sizeof *c);
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < in[k]->summary.n_classes; i++) {
            const struct result_script_figures *s = &in[k]->summary.classes[i];
            size_t j = 0;
            while (j < m && strcmp(c[j].name, s->name) != 0)
                j++;
            if (j == m)
                c[m++] = (struct merged_class){s->name, 0, 0, hist_new(), 0};
            c[j].count += s->transactions;
            c[j].failed += s->failed;
            hist_add_sparse(c[j].h, &s->histogram);
            c[j].total_us += s->histogram.sum_us;
        }
    }
    qsort(c, m, sizeof *c, by_total_desc);
    /* Beyond the top RESULT_MAX_CLASSES, the rest is "other" again. */
    size_t keep = m;
    if (m > RESULT_MAX_CLASSES + 1) {
        keep = RESULT_MAX_CLASSES + 1;
        struct merged_class *other = &c[RESULT_MAX_CLASSES];
        other->name = "other";
        for (size_t j = RESULT_MAX_CLASSES + 1; j < m; j++) {
            other->count += c[j].count;
            other->failed += c[j].failed;
            hist_add(other->h, c[j].h);
        }
    }
    out->summary.classes = xcalloc(keep + 1, sizeof *out->summary.classes);
    out->summary.n_classes = keep;
    for (size_t j = 0; j < keep; j++) {
        struct result_script_figures *f = &out->summary.classes[j];
        f->name = xstrdup(c[j].name);
        result_derive_class(f, c[j].count, c[j].failed, out->summary.duration_s, c[j].h);
    }
    for (size_t j = 0; j < m; j++)
        hist_free(c[j].h);
    free(c);
}

void merge_replay(struct result *const *in, size_t n, struct result *out)
{
    if (n == 0 || !in[0]->replay.present)
        return;
    struct result_replay *d = &out->replay;
    const struct result_replay *first = &in[0]->replay;
    /* The capture's own figures are the first's; what each agent replayed adds up. */
    *d = (struct result_replay){.present = 1,
                                .capture = first->capture ? xstrdup(first->capture) : NULL,
                                .speed = first->speed,
                                .sessions = first->sessions,
                                .statements = first->statements,
                                .transactions = first->transactions,
                                .skipped_copy = first->skipped_copy,
                                .skipped_unsupported = first->skipped_unsupported,
                                .skipped_secret = first->skipped_secret};
    for (size_t k = 0; k < n; k++)
        add_counts(d, &in[k]->replay);
    merge_lag(in, n, 0, &d->lag);
    merge_lag(in, n, 1, &d->client_lag);
    merge_top(in, n, d);
    merge_classes(in, n, out);
}
