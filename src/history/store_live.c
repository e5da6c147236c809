/* --store: a run's intervals into the results store as they close, on a thread of its own. */
#include "history/store_live.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "history/store.h"

/* The bound of each connect and statement (an auxiliary connection's), the gap between two
 * tries of a store that failed, how long the end waits for what is queued, and how many
 * intervals wait at most (ten minutes of a run's). */
#define LIVE_TIMEOUT_MS 5000
#define LIVE_RETRY_NS   (5 * (time_ns)1000000000)
#define LIVE_DRAIN_NS   (5 * (time_ns)1000000000)
#define LIVE_QUEUE      600

struct live_entry {
    double t_s;
    char *figures;
};

struct store_live {
    char *conninfo, *run_id;
    char **row; /* the row's values, from the header */
    store_live_warn_fn warn;
    void *warn_arg;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* under mu */
    struct live_entry queue[LIVE_QUEUE];
    size_t head, n;
    size_t pushed, dropped_full;
    int stop, discard;
    time_ns drain_until;
    /* the thread's own */
    struct store *s;
    time_ns tried_ns;
    int tried, warned;
    size_t dropped;
};

/* Warn with line (freed). */
static void say(struct store_live *l, char *line)
{
    l->warn(line, l->warn_arg);
    free(line);
}

/* The store failed (or could not be reached): one warning for the run, then a new try later. */
static void failed(struct store_live *l, const struct err *e)
{
    if (!l->warned)
        say(l, xasprintf("warning: the results store does not take the run's intervals as they "
                         "close (%s); the run goes on",
                         e->msg));
    l->warned = 1;
    store_close(l->s);
    l->s = NULL;
}

/* Connected, the run's row written: 1; else 0 (a try at most every LIVE_RETRY_NS). */
static int connected(struct store_live *l)
{
    if (l->s)
        return 1;
    time_ns now = clock_now_ns();
    if (l->tried && now - l->tried_ns < LIVE_RETRY_NS)
        return 0;
    l->tried = 1;
    l->tried_ns = now;
    struct err e = {0};
    l->s = store_open_within(l->conninfo, 1, LIVE_TIMEOUT_MS, &e);
    if (!l->s || store_begin_run(l->s, l->row, &e) < 0) {
        failed(l, &e);
        return 0;
    }
    return 1;
}

static void *live_main(void *arg)
{
    struct store_live *l = arg;
    connected(l); /* the run's row, at its start */
    for (;;) {
        pthread_mutex_lock(&l->mu);
        while (!l->stop && l->n == 0)
            pthread_cond_wait(&l->cv, &l->mu);
        if (l->n == 0) {
            pthread_mutex_unlock(&l->mu);
            break;
        }
        struct live_entry en = l->queue[l->head];
        l->head = (l->head + 1) % LIVE_QUEUE;
        l->n--;
        int late = l->stop && clock_now_ns() > l->drain_until;
        pthread_mutex_unlock(&l->mu);
        struct err e = {0};
        if (late || !connected(l) ||
            store_put_interval(l->s, l->run_id, en.t_s, en.figures, &e) < 0) {
            if (!late && l->s)
                failed(l, &e);
            l->dropped++;
        }
        free(en.figures);
    }
    struct err e = {0};
    if (l->discard && l->s)
        (void)store_drop_run(l->s, l->run_id, &e);
    store_close(l->s);
    l->s = NULL;
    return NULL;
}

struct store_live *store_live_start(const char *conninfo, const struct result *header,
                                    store_live_warn_fn warn, void *arg)
{
    struct store_live *l = xcalloc(1, sizeof *l);
    l->conninfo = xstrdup(conninfo);
    l->run_id = xstrdup(header->run_id);
    l->row = store_row_params(header);
    l->warn = warn;
    l->warn_arg = arg;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    if (pthread_create(&l->thread, NULL, live_main, l) != 0) {
        say(l, xstrdup("warning: cannot start the thread that stores the run's intervals as "
                       "they close: they are stored with its result only"));
        l->stop = 1;
        store_live_finish(l, 0);
        return NULL;
    }
    return l;
}

void store_live_push(struct store_live *l, const struct result_interval *it)
{
    if (!l)
        return;
    char *figures = result_interval_dumps(it);
    pthread_mutex_lock(&l->mu);
    l->pushed++;
    if (l->n < LIVE_QUEUE) {
        l->queue[(l->head + l->n) % LIVE_QUEUE] = (struct live_entry){it->t_s, figures};
        l->n++;
        figures = NULL;
        pthread_cond_signal(&l->cv);
    } else {
        l->dropped_full++;
    }
    pthread_mutex_unlock(&l->mu);
    free(figures);
}

void store_live_finish(struct store_live *l, int discard)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    int running = !l->stop;
    l->stop = 1;
    l->discard = discard;
    l->drain_until = clock_now_ns() + LIVE_DRAIN_NS;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
    if (running)
        pthread_join(l->thread, NULL);
    size_t lost = l->dropped + l->dropped_full;
    if (lost > 0 && !discard) {
        say(l, xasprintf("warning: %zu of the run's %zu intervals did not reach the results store "
                         "as they closed (the result file holds them)",
                         lost, l->pushed));
    }
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    store_row_params_free(l->row);
    free(l->conninfo);
    free(l->run_id);
    free(l);
}
