/* The event-wait seam on epoll (engine/evwait.h): Linux's backend, the default there. */
#if defined(__linux__) && !defined(PGARENA_EVWAIT_POLL)

#include "engine/evwait.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"

/* The seam's values are epoll's: they pass through unchanged. */
_Static_assert(EV_READ == EPOLLIN && EV_WRITE == EPOLLOUT, "EV_* are EPOLLIN and EPOLLOUT");

#define MAX_EVENTS 128

/* A wait with a deadline is cut to this, so that the kernel's slack on the timeout (0.1 % of
 * it, with the thread's timer slack set to 1 ns) stays under 50 µs. */
#define MAX_DEADLINE_WAIT_NS (50 * NS_PER_MS)
/* A wait without one ends after this: the caller looks around now and then. */
#define MAX_IDLE_WAIT_MS 1000

struct evwait {
    int epfd;
    int timerfd;
    time_ns timer_armed; /* deadline the timerfd is set to, 0 when disarmed */
    int pwait2;          /* waits end at deadlines by epoll_pwait2, the timerfd unused */
    int timer_fired;     /* the timerfd fired in the last wait */
    char timer_marker;   /* epoll data of the timerfd; the wake-up's is NULL */
    char error[160];
    struct epoll_event ev[MAX_EVENTS];
    void *fired[MAX_EVENTS];
};

int evwake_open(struct evwake *w)
{
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    w->h[0] = w->h[1] = fd;
    return fd < 0 ? -1 : 0;
}

void evwake_raise(const struct evwake *w)
{
    int fd = (int)w->h[1];
    if (fd >= 0) {
        uint64_t one = 1;
        ssize_t r = write(fd, &one, sizeof one);
        (void)r;
    }
}

void evwake_clear(const struct evwake *w)
{
    int fd = (int)w->h[0];
    uint64_t v;
    if (fd >= 0) {
        ssize_t r = read(fd, &v, sizeof v);
        (void)r;
    }
}

void evwake_close(struct evwake *w)
{
    int fd = (int)w->h[0];
    w->h[0] = w->h[1] = -1;
    if (fd >= 0)
        close(fd);
}

struct evwait *evwait_new(const struct evwake *wake)
{
    struct evwait *ws = xcalloc(1, sizeof *ws);
    ws->pwait2 = 1;
    ws->epfd = epoll_create1(EPOLL_CLOEXEC);
    ws->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    if (wake && wake->h[0] >= 0)
        epoll_ctl(ws->epfd, EPOLL_CTL_ADD, (int)wake->h[0], &ev);
    ev.data.ptr = &ws->timer_marker;
    epoll_ctl(ws->epfd, EPOLL_CTL_ADD, ws->timerfd, &ev);
    return ws;
}

void evwait_free(struct evwait *ws)
{
    if (!ws)
        return;
    if (ws->timerfd >= 0)
        close(ws->timerfd);
    if (ws->epfd >= 0)
        close(ws->epfd);
    free(ws);
}

const char *evwait_error(const struct evwait *ws)
{
    return ws->error;
}

static int ctl_error(struct evwait *ws, const char *what)
{
    snprintf(ws->error, sizeof ws->error, "epoll_ctl %s: %s", what, strerror(errno));
    return -1;
}

/* Add fd, or update it when it is in the set already. */
static int add_or_mod(struct evwait *ws, int fd, struct epoll_event *ev)
{
    if (epoll_ctl(ws->epfd, EPOLL_CTL_ADD, fd, ev) == 0)
        return 0;
    if (errno != EEXIST)
        return ctl_error(ws, "add");
    if (epoll_ctl(ws->epfd, EPOLL_CTL_MOD, fd, ev) < 0)
        return ctl_error(ws, "mod");
    return 0;
}

int evwait_watch(struct evwait *ws, struct ev_watch *w, int fd, unsigned events, void *ptr,
                 int renew)
{
    struct epoll_event ev = {.events = events, .data.ptr = ptr};
    if (fd == w->fd && !renew) {
        if (events == w->events)
            return 0;
        if (epoll_ctl(ws->epfd, EPOLL_CTL_MOD, fd, &ev) < 0 && add_or_mod(ws, fd, &ev) < 0) {
            w->fd = -1;
            return -1;
        }
    } else if (add_or_mod(ws, fd, &ev) < 0) {
        /* A socket closed is out of the set by itself: nothing to remove. */
        w->fd = -1;
        return -1;
    }
    w->fd = fd;
    w->events = events;
    return 0;
}

void evwait_unwatch(struct evwait *ws, struct ev_watch *w, int open)
{
    /* Closing a socket removes it from the set; one still open is removed here. */
    if (open && w->fd >= 0)
        epoll_ctl(ws->epfd, EPOLL_CTL_DEL, w->fd, NULL);
    w->fd = -1;
}

/* Without epoll_pwait2: the timerfd follows the deadline (0 disarms it, so a deadline of 0,
 * long past, is 1 ns). */
static void arm_timer(struct evwait *ws, time_ns deadline)
{
    time_ns next = deadline == 0 ? 1 : deadline;
    if (next == ws->timer_armed || (next < 0 && ws->timer_armed == 0))
        return;
    struct itimerspec its = {0};
    if (next > 0) {
        its.it_value.tv_sec = next / NS_PER_S;
        its.it_value.tv_nsec = next % NS_PER_S;
    }
    timerfd_settime(ws->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
    ws->timer_armed = next > 0 ? next : 0;
}

/* epoll_pwait2 (Linux 5.11): the wait ends at the deadline to the nanosecond, with no timerfd
 * to set and read on every wait. -1 with errno ENOSYS where the kernel lacks it. */
static int wait_pwait2(struct evwait *ws, time_ns deadline)
{
#ifdef SYS_epoll_pwait2
    time_ns d = (time_ns)MAX_IDLE_WAIT_MS * NS_PER_MS;
    if (deadline >= 0) {
        time_ns left = deadline - clock_now_ns();
        d = left <= 0 ? 0 : left < MAX_DEADLINE_WAIT_NS ? left : MAX_DEADLINE_WAIT_NS;
    }
    struct timespec ts = {(time_t)(d / NS_PER_S), (long)(d % NS_PER_S)};
    return (int)syscall(SYS_epoll_pwait2, ws->epfd, ws->ev, MAX_EVENTS, &ts, NULL, 0);
#else
    (void)ws, (void)deadline;
    errno = ENOSYS;
    return -1;
#endif
}

/* Out of the wait's own code, which then needs fewer registers on its hot path. */
__attribute__((noinline, cold)) static void timer_fired(struct evwait *ws)
{
    uint64_t expirations;
    ssize_t r = read(ws->timerfd, &expirations, sizeof expirations);
    (void)r;
    ws->timer_armed = 0;
    ws->timer_fired = 1;
}

int evwait_wait(struct evwait *ws, time_ns deadline, void *const **fired)
{
    int n = -1;
    *fired = ws->fired;
    if (ws->pwait2) {
        n = wait_pwait2(ws, deadline);
        if (n < 0 && errno == ENOSYS)
            ws->pwait2 = 0; /* the timerfd from now on */
    }
    if (!ws->pwait2) {
        arm_timer(ws, deadline);
        n = epoll_wait(ws->epfd, ws->ev, MAX_EVENTS, deadline >= 0 ? -1 : MAX_IDLE_WAIT_MS);
    }
    if (n < 0)
        return errno == EINTR ? 0 : -1;
    int k = 0;
    for (int i = 0; i < n; i++) {
        void *p = ws->ev[i].data.ptr;
        if (p == &ws->timer_marker) {
            timer_fired(ws);
            continue;
        }
        ws->fired[k++] = p;
    }
    return k;
}

int evwait_due(struct evwait *ws, time_ns deadline)
{
    if (ws->pwait2)
        return deadline >= 0 && clock_now_ns() >= deadline;
    int fired = ws->timer_fired;
    ws->timer_fired = 0;
    return fired;
}

void evwait_thread_precise(void)
{
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

#endif
