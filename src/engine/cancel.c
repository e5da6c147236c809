#include "engine/engine_int.h"

#include <stdlib.h>

#include "base/mem.h"

/* A cancel request blocks until the server answers; against a hung server that could be as long as
 * the hang. So workers hand cancel requests to this one helper thread and go on. */

struct cancel_item {
    struct pg_cancel *cancel;
    struct cancel_item *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct cancel_item *queue;
static int running, stopping;
static pthread_t thread;

static void *cancel_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!queue && !stopping)
            pthread_cond_wait(&cv, &mu);
        if (!queue)
            break;
        struct cancel_item *it = queue;
        queue = it->next;
        pthread_mutex_unlock(&mu);
        pg_cancel_send(it->cancel);
        pg_cancel_free(it->cancel);
        free(it);
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

void cancel_start(void)
{
    stopping = 0;
    running = pthread_create(&thread, NULL, cancel_main, NULL) == 0;
}

void cancel_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&mu);
    stopping = 1;
    /* Requests still queued are dropped: the run is over and the connections closed. */
    while (queue) {
        struct cancel_item *it = queue;
        queue = it->next;
        pg_cancel_free(it->cancel);
        free(it);
    }
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
    /* Not joined: a cancel still in progress against a hung server must not hold up the
     * result. The thread ends on its own once that call returns. */
    pthread_detach(thread);
    running = 0;
}

void cancel_request(struct pg_conn *conn)
{
    struct pg_cancel *cancel = pg_cancel_new(conn);
    if (!cancel || !running) {
        if (cancel)
            pg_cancel_free(cancel);
        return;
    }
    struct cancel_item *it = xmalloc(sizeof *it);
    it->cancel = cancel;
    pthread_mutex_lock(&mu);
    it->next = queue;
    queue = it;
    pthread_cond_signal(&cv);
    pthread_mutex_unlock(&mu);
}
