/* The watched-socket set of the poll and WSAPoll backends (engine/evwait_pollset.h). */
#if defined(_WIN32) || !defined(__linux__) || defined(PGARENA_EVWAIT_POLL)

#include "engine/evwait_pollset.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

static int add_slot(struct evwait *ws, int fd, short events, void *ptr, struct ev_watch *w)
{
    if (ws->n == ws->cap) {
        ws->cap = ws->cap ? 2 * ws->cap : 16;
        ws->pfd = xrealloc(ws->pfd, (size_t)ws->cap * sizeof *ws->pfd);
        ws->ptr = xrealloc(ws->ptr, (size_t)ws->cap * sizeof *ws->ptr);
        ws->watch = xrealloc(ws->watch, (size_t)ws->cap * sizeof *ws->watch);
        ws->fired = xrealloc(ws->fired, (size_t)ws->cap * sizeof *ws->fired);
    }
    int i = ws->n++;
    ws->pfd[i] = (struct pollfd){.fd = (pollset_fd)fd, .events = events};
    ws->ptr[i] = ptr;
    ws->watch[i] = w;
    return i;
}

struct evwait *evwait_new(const struct evwake *wake)
{
    struct evwait *ws = xcalloc(1, sizeof *ws);
    if (wake && wake->h[0] != -1)
        add_slot(ws, (int)wake->h[0], POLLIN, NULL, NULL);
    return ws;
}

void evwait_free(struct evwait *ws)
{
    if (!ws)
        return;
#ifdef _WIN32
    if (ws->timer)
        CloseHandle(ws->timer);
#endif
    free(ws->pfd);
    free(ws->ptr);
    free(ws->watch);
    free(ws->fired);
    free(ws);
}

const char *evwait_error(const struct evwait *ws)
{
    return ws->error;
}

static short to_poll(unsigned events)
{
    return (short)((events & EV_READ ? POLLIN : 0) | (events & EV_WRITE ? POLLOUT : 0));
}

int evwait_watch(struct evwait *ws, struct ev_watch *w, int fd, unsigned events, void *ptr,
                 int renew)
{
    (void)renew; /* poll looks the number up at each wait: a new socket needs nothing more */
    if (fd < 0 || events == 0) {
        snprintf(ws->error, sizeof ws->error, POLLSET_NAME ": %s", strerror(EBADF));
        evwait_unwatch(ws, w, 0);
        return -1;
    }
    if (w->slot < 0 || w->slot >= ws->n || ws->watch[w->slot] != w) {
        w->slot = add_slot(ws, fd, to_poll(events), ptr, w);
    } else {
        ws->pfd[w->slot].fd = (pollset_fd)fd;
        ws->pfd[w->slot].events = to_poll(events);
        ws->ptr[w->slot] = ptr;
    }
    w->fd = fd;
    w->events = events;
    return 0;
}

void evwait_unwatch(struct evwait *ws, struct ev_watch *w, int open)
{
    (void)open; /* poll holds no registration: the slot goes either way */
    int i = w->slot;
    if (i >= 0 && i < ws->n && ws->watch[i] == w) {
        int last = --ws->n;
        if (i != last) {
            ws->pfd[i] = ws->pfd[last];
            ws->ptr[i] = ws->ptr[last];
            ws->watch[i] = ws->watch[last];
            ws->watch[i]->slot = i;
        }
    }
    w->slot = -1;
    w->fd = -1;
}

int evwait_wait(struct evwait *ws, time_ns deadline, void *const **fired)
{
    *fired = ws->fired;
    int n = pollset_wait(ws, deadline);
    if (n < 0)
        return errno == EINTR ? 0 : -1;
    int k = 0;
    for (int i = 0; i < ws->n && k < n; i++) {
        short r = ws->pfd[i].revents;
        if (r == 0)
            continue;
        if (r & POLLNVAL) { /* closed without an unwatch: never again */
            ws->pfd[i].fd = (pollset_fd)-1;
            continue;
        }
        ws->fired[k++] = ws->ptr[i];
    }
    return k;
}

int evwait_due(struct evwait *ws, time_ns deadline)
{
    (void)ws;
    return deadline >= 0 && clock_now_ns() >= deadline;
}

#endif
