/* merge: a replay's replay {...} over the agents' results. */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "stats/hist.h"
#include "workload/replay/replay_result.h"

static void add_counts(struct replay_result *d, const struct replay_result *s)
{
    d->sent += s->sent;
    d->skipped_read_only += s->skipped_read_only;
    d->failed_now += s->failed_now;
    d->succeeded_now += s->succeeded_now;
    d->sessions_failed += s->sessions_failed;
    d->secrets_replaced += s->secrets_replaced;
    d->copy_loaded += s->copy_loaded;
    d->copy_recorded += s->copy_recorded;
    d->values_mapped += s->values_mapped;
    d->copy_empty += s->copy_empty;
    d->prepared += s->prepared;
    d->pipelined += s->pipelined;
    d->order_waits += s->order_waits;
    d->order_wait_ms += s->order_wait_ms;
    d->order_given_way += s->order_given_way;
}

/* A lag (client: client_lag_us, else lag_us): the inputs' histograms merged, so its
 * percentiles are exact. An input written before replays kept one (a lag measured, no
 * histogram) leaves only bounds: the largest of the inputs' figures, and no histogram. An
 * input without replay {} counts as one that measured nothing. */
static const struct result_lag *lag_of(const struct replay_result *p, int client)
{
    static const struct result_lag none;
    return !p ? &none : client ? &p->client_lag : &p->lag;
}

static void merge_lag(struct replay_result *const *in, size_t n, int client, struct result_lag *d)
{
    int exact = 1;
    for (size_t k = 0; k < n; k++) {
        const struct result_lag *s = lag_of(in[k], client);
        exact &= s->hist.count > 0 || !(s->max_us > 0);
        /* An input written before client_lag_us (statements measured, no client lag): the
         * others' figures alone would pass for the whole; none then. */
        if (client && lag_of(in[k], 0)->hist.count > 0 && !result_lag_known(s))
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
    const struct replay_result_reason *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->reason, y->reason);
}

/* Why outcomes differed: each input's reasons added up by text, the most frequent first, as
 * many as the longest input list. Each input names only its top reasons, so a reason beyond
 * an input's list is missing that input's count (exact when no input's list was full). */
static void merge_top(struct replay_result *const *in, size_t n, struct replay_result *d)
{
    size_t cap = 0, keep = 0;
    for (size_t k = 0; k < n; k++) {
        size_t nk = in[k] ? in[k]->n_top : 0;
        cap += nk;
        keep = nk > keep ? nk : keep;
    }
    struct replay_result_reason *all = xcalloc(cap + 1, sizeof *all);
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; in[k] && i < in[k]->n_top; i++) {
            const struct replay_result_reason *s = &in[k]->top[i];
            size_t j = 0;
            while (j < m && strcmp(all[j].reason, s->reason) != 0)
                j++;
            if (j == m)
                all[m++] = (struct replay_result_reason){s->reason, 0}; /* borrowed */
            all[j].count += s->count;
        }
    qsort(all, m, sizeof *all, by_count_desc);
    d->n_top = m < keep ? m : keep;
    d->top = xcalloc(d->n_top + 1, sizeof *d->top);
    for (size_t i = 0; i < d->n_top; i++)
        d->top[i] = (struct replay_result_reason){xstrdup(all[i].reason), all[i].count};
    free(all);
}

void *replay_result_merge(void *const *parts, size_t n)
{
    struct replay_result *const *in = (struct replay_result *const *)parts;
    if (n == 0 || !in[0])
        return NULL;
    struct replay_result *d = xcalloc(1, sizeof *d);
    const struct replay_result *first = in[0];
    /* The capture's own figures are the first's; what each agent replayed adds up. */
    *d = (struct replay_result){.capture = first->capture ? xstrdup(first->capture) : NULL,
                                .speed = first->speed,
                                .sessions = first->sessions,
                                .statements = first->statements,
                                .transactions = first->transactions,
                                .skipped_copy = first->skipped_copy,
                                .skipped_unsupported = first->skipped_unsupported,
                                .skipped_secret = first->skipped_secret,
                                .portal_fetches = first->portal_fetches,
                                .order = first->order,
                                .copy_from = first->copy_from};
    memcpy(d->unsupported, first->unsupported, sizeof d->unsupported);
    d->session_set = xcalloc(first->n_session_set + 1, sizeof *d->session_set);
    for (size_t i = 0; i < first->n_session_set; i++)
        d->session_set[d->n_session_set++] = xstrdup(first->session_set[i]);
    for (size_t k = 0; k < n; k++)
        if (in[k])
            add_counts(d, in[k]);
    d->captured_s = first->captured_s;
    for (size_t k = 0; k < n; k++) /* the agents replay side by side: the longest */
        if (in[k] && in[k]->replayed_s > d->replayed_s)
            d->replayed_s = in[k]->replayed_s;
    merge_lag(in, n, 0, &d->lag);
    merge_lag(in, n, 1, &d->client_lag);
    merge_top(in, n, d);
    return d;
}
