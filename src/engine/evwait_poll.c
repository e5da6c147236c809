/* The event-wait seam on poll (engine/evwait.h): other POSIX systems' backend, and Linux's
 * with PGARENA_EVWAIT_POLL (make EVWAIT=poll). ppoll where the system has it, for deadlines
 * finer than a millisecond; a pipe for the wake-up. */
#if !defined(__linux__) || defined(PGARENA_EVWAIT_POLL)

#include "engine/evwait.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/mem.h"

#if defined(__linux__) || defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__) ||   \
    defined(__DragonFly__)
#define HAVE_PPOLL 1
#endif

/* A wait with a deadline is cut to this, so that the kernel's slack on the timeout (0.1 % of
 * it) stays under 50 µs. */
#define MAX_DEADLINE_WAIT_NS (50 * NS_PER_MS)
/* A wait without one ends after this: the caller looks around now and then. */
#define MAX_IDLE_WAIT_NS (1000 * NS_PER_MS)

/* The sockets watched, packed at the front of pfd; slot 0 is the wake-up's when there is
 * one. Each slot knows its watch, so that removing one moves the last into its place. */
struct evwait {
    struct pollfd *pfd;
    void **ptr;
    struct ev_watch **watch;
    void **fired; /* as many as slots */
    int n, cap;
    char error[160];
};

static int set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0
               ? -1
               : 0;
}

int evwake_open(struct evwake *w)
{
    int p[2];
    w->h[0] = w->h[1] = -1;
    if (pipe(p) < 0)
        return -1;
    if (set_flags(p[0]) < 0 || set_flags(p[1]) < 0) {
        int saved = errno;
        close(p[0]);
        close(p[1]);
        errno = saved;
        return -1;
    }
    w->h[0] = p[0];
    w->h[1] = p[1];
    return 0;
}

void evwake_raise(const struct evwake *w)
{
    int fd = (int)w->h[1];
    if (fd >= 0) {
        /* Never read: the pipe stays readable. A full pipe (EAGAIN) is raised already. */
        ssize_t r = write(fd, "x", 1);
        (void)r;
    }
}

void evwake_clear(const struct evwake *w)
{
    int fd = (int)w->h[0];
    char buf[64];
    while (fd >= 0 && read(fd, buf, sizeof buf) > 0)
        ;
}

void evwake_close(struct evwake *w)
{
    int r = (int)w->h[0], wr = (int)w->h[1];
    w->h[0] = w->h[1] = -1;
    if (wr >= 0)
        close(wr);
    if (r >= 0)
        close(r);
}

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
    ws->pfd[i] = (struct pollfd){.fd = fd, .events = events};
    ws->ptr[i] = ptr;
    ws->watch[i] = w;
    return i;
}

struct evwait *evwait_new(const struct evwake *wake)
{
    struct evwait *ws = xcalloc(1, sizeof *ws);
    if (wake && wake->h[0] >= 0)
        add_slot(ws, (int)wake->h[0], POLLIN, NULL, NULL);
    return ws;
}

void evwait_free(struct evwait *ws)
{
    if (!ws)
        return;
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
        snprintf(ws->error, sizeof ws->error, "poll: %s", strerror(EBADF));
        evwait_unwatch(ws, w, 0);
        return -1;
    }
    if (w->slot < 0 || w->slot >= ws->n || ws->watch[w->slot] != w) {
        w->slot = add_slot(ws, fd, to_poll(events), ptr, w);
    } else {
        ws->pfd[w->slot].fd = fd;
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

static int wait_poll(struct evwait *ws, time_ns deadline)
{
    time_ns d = MAX_IDLE_WAIT_NS;
    if (deadline >= 0) {
        time_ns left = deadline - clock_now_ns();
        d = left <= 0 ? 0 : left < MAX_DEADLINE_WAIT_NS ? left : MAX_DEADLINE_WAIT_NS;
    }
#ifdef HAVE_PPOLL
    struct timespec ts = {(time_t)(d / NS_PER_S), (long)(d % NS_PER_S)};
    return ppoll(ws->pfd, (nfds_t)ws->n, &ts, NULL);
#else
    /* Milliseconds, rounded up: a wait never ends before its deadline. */
    return poll(ws->pfd, (nfds_t)ws->n, (int)((d + NS_PER_MS - 1) / NS_PER_MS));
#endif
}

int evwait_wait(struct evwait *ws, time_ns deadline, void *const **fired)
{
    *fired = ws->fired;
    int n = wait_poll(ws, deadline);
    if (n < 0)
        return errno == EINTR ? 0 : -1;
    int k = 0;
    for (int i = 0; i < ws->n && k < n; i++) {
        short r = ws->pfd[i].revents;
        if (r == 0)
            continue;
        if (r & POLLNVAL) { /* closed without an unwatch: never again */
            ws->pfd[i].fd = -1;
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

void evwait_thread_precise(void)
{
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}

#endif
