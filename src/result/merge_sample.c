#include "result/merge_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* What the agents' samplers saw, merged: wait events counted over all agents' backends, the
 * clients' CPU summed (cores on every load host together), the server's own figures (host
 * CPU, pg_stat_statements) from the first agent, which saw the same server. */

static int cmp_wait(const void *a, const void *b)
{
    const struct result_wait *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

void result_waits_add(struct result_wait **dst, size_t *n, const struct result_wait *src,
                      size_t n_src)
{
    if (n_src == 0)
        return;
    *dst = xrealloc(*dst, (*n + n_src) * sizeof **dst);
    for (size_t i = 0; i < n_src; i++) {
        size_t k = 0;
        while (k < *n && strcmp((*dst)[k].name, src[i].name) != 0)
            k++;
        if (k == *n)
            (*dst)[(*n)++] = (struct result_wait){xstrdup(src[i].name), 0};
        (*dst)[k].count += src[i].count;
    }
}

void result_waits_sort(struct result_wait *w, size_t *n, size_t keep)
{
    if (*n == 0)
        return;
    qsort(w, *n, sizeof *w, cmp_wait);
    for (size_t i = keep; i < *n; i++)
        free(w[i].name);
    if (*n > keep)
        *n = keep;
}

/* An interval's client health over the agents (each its own process, maybe its own host):
 * lateness and run delay summed (run delay unknown when one agent's is), the largest one's
 * lateness, CPU pressure and steal, and the stall of the agent that lost the most. */
static void merge_interval_health(struct result_interval_health *d,
                                  const struct result_interval_health *h)
{
    if (!h->present)
        return;
    if (!d->present) {
        *d = *h;
        return;
    }
    d->late_ms += h->late_ms;
    if (h->late_max_ms > d->late_max_ms)
        d->late_max_ms = h->late_max_ms;
    d->run_delay_ms =
        d->run_delay_ms >= 0 && h->run_delay_ms >= 0 ? d->run_delay_ms + h->run_delay_ms : -1;
    if (h->psi_ms > d->psi_ms)
        d->psi_ms = h->psi_ms;
    if (h->steal_ms > d->steal_ms)
        d->steal_ms = h->steal_ms;
    if (h->cause != RESULT_STALL_NONE && h->stalled_ms > d->stalled_ms) {
        d->stalled_ms = h->stalled_ms;
        d->cause = h->cause;
    }
}

void merge_interval_sampling(struct result_interval *d, const struct result_interval *it)
{
    result_waits_add(&d->waits, &d->n_waits, it->waits, it->n_waits);
    if (it->has_client_cpu) {
        d->has_client_cpu = 1;
        d->cpu_user += it->cpu_user;
        d->cpu_system += it->cpu_system;
    }
    if (it->has_host && !d->has_host) {
        d->has_host = 1;
        d->host = it->host;
    }
    merge_interval_health(&d->health, &it->health);
    /* The server's own figures: every agent read the same server, the first one's stand. */
    if (it->sio.have && !d->sio.have)
        result_sio_add(&d->sio, &it->sio);
}

void merge_interval_sampling_end(struct result_interval *d)
{
    /* Each agent kept only its interval's top events: the merged top ones are exact for
     * events every agent kept, a lower bound for the others. */
    result_waits_sort(d->waits, &d->n_waits, RESULT_INTERVAL_WAITS);
}

/* Inside the server: the first agent's events and fields move over; the per-transaction
 * figures are the merged intervals' over every agent's transactions. */
static void merge_server_io(struct result *first, struct result *out)
{
    out->sio_fields = first->sio_fields;
    out->n_events = first->n_events;
    out->events = first->events;
    first->n_events = 0;
    first->events = NULL;
    memcpy(out->event_counts, first->event_counts, sizeof out->event_counts);
    out->measured_start_at = first->measured_start_at;
    first->measured_start_at = NULL;
    struct result_sio total = {0};
    for (size_t i = 0; i < out->n_intervals; i++)
        result_sio_add(&total, &out->intervals[i].sio);
    result_sio_per_tx(&total, out->summary.transactions, &out->sio_per_tx);
    result_sio_clear(&total);
}

void merge_sampling(struct result *const *in, size_t n, struct result *out)
{
    for (size_t k = 0; k < n; k++) {
        struct result *r = in[k];
        if (r->waits.present) {
            if (!out->waits.present) {
                out->waits.present = 1;
                out->waits.sample_ms = r->waits.sample_ms;
                out->waits.visibility = r->waits.visibility ? xstrdup(r->waits.visibility) : NULL;
                out->waits.note = r->waits.note ? xstrdup(r->waits.note) : NULL;
            }
            out->waits.samples += r->waits.samples;
            result_waits_add(&out->waits.events, &out->waits.n_events, r->waits.events,
                             r->waits.n_events);
        }
        if (r->client_cpu.present) {
            out->client_cpu.present = 1;
            out->client_cpu.user += r->client_cpu.user;
            out->client_cpu.system += r->client_cpu.system;
            if (r->client_cpu.max_thread_core > out->client_cpu.max_thread_core)
                out->client_cpu.max_thread_core = r->client_cpu.max_thread_core;
        }
    }
    if (out->waits.n_events > 0)
        result_waits_sort(out->waits.events, &out->waits.n_events, out->waits.n_events);
    /* pg_stat_statements is the server's: the first agent's view moves over. */
    struct result *first = in[0];
    out->n_statements_server = first->n_statements_server;
    out->statements_server = first->statements_server;
    out->statements_server_note = first->statements_server_note;
    first->n_statements_server = 0;
    first->statements_server = NULL;
    first->statements_server_note = NULL;
    merge_server_io(first, out);
}
