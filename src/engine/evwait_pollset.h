#ifndef PGARENA_ENGINE_EVWAIT_POLLSET_H
#define PGARENA_ENGINE_EVWAIT_POLLSET_H

/*
 * What the poll backend (evwait_poll.c) and the WSAPoll one (evwait_wsapoll.c) share: the set
 * of watched sockets as an array of pollfd, and everything of engine/evwait.h but the wake-up
 * and the wait itself (evwait_pollset.c). A backend gives evwake_*, evwait_thread_precise and
 * pollset_wait.
 */

#ifdef _WIN32
#include <winsock2.h>
typedef SOCKET pollset_fd;
#define POLLSET_NAME "WSAPoll"
#else
#include <poll.h>
typedef int pollset_fd;
#define POLLSET_NAME "poll"
#endif

#include "engine/evwait.h"

/* The sockets watched, packed at the front of pfd; slot 0 is the wake-up's when there is
 * one. Each slot knows its watch, so that removing one moves the last into its place. */
struct evwait {
    struct pollfd *pfd;
    void **ptr;
    struct ev_watch **watch;
    void **fired; /* as many as slots */
    int n, cap;
    char error[160];
#ifdef _WIN32
    HANDLE timer; /* the precise timer of the thread that waits (evwait_wsapoll.c), or NULL */
#endif
};

/* Wait on ws's n sockets until one is ready or deadline (-1: none) comes: the number ready,
 * 0 at the deadline or an interruption, -1 with errno. */
int pollset_wait(struct evwait *ws, time_ns deadline);

#ifdef _WIN32
/* Closer than this to its deadline, a WSAPoll wait polls and sleeps on the precise timer. */
#define FINE_NS (2 * NS_PER_MS)
/* The precise timer's sleeps in that stretch, at most. */
#define FINE_STEP_NS (250 * NS_PER_US)
/* What the WSAPoll backend's waits ask of Windows: the clock, WSAPoll over the set for ms (0:
 * no wait), a sleep on the precise timer. A test replaces them to run the waits in virtual
 * time (test_engine_evwait.c). */
struct wsapoll_os {
    time_ns (*now)(void);
    int (*poll)(struct evwait *ws, int ms);
    void (*sleep)(struct evwait *ws, time_ns ns);
};
extern struct wsapoll_os wsapoll_os;
#endif

#endif
