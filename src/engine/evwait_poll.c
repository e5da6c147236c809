/* The event-wait seam on poll (engine/evwait.h): other POSIX systems' backend, and Linux's
 * with PGARENA_EVWAIT_POLL (make EVWAIT=poll). ppoll where the system has it, for deadlines
 * finer than a millisecond; a pipe for the wake-up. */
#if !defined(_WIN32) && (!defined(__linux__) || defined(PGARENA_EVWAIT_POLL))

#include "engine/evwait_pollset.h"

#include <errno.h>
#include <fcntl.h>
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

int pollset_wait(struct evwait *ws, time_ns deadline)
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

void evwait_thread_precise(void)
{
#ifdef __linux__
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
}

#endif
