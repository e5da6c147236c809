#ifndef PGARENA_ENGINE_EVWAIT_H
#define PGARENA_ENGINE_EVWAIT_H

#include <stdint.h>

#include "base/clock.h"

/*
 * The engine's one event-wait seam, as redis's ae: a worker's wait set of sockets, each
 * watched for reading and/or writing with a pointer of its owner's, waited on until an
 * absolute deadline on the engine's clock (clock_now_ns), and a wake-up that ends every
 * wait of every set watching it, from another thread or a signal handler. One backend is
 * compiled in, chosen at build time (evwait_*.c; PGARENA_EVWAIT_POLL picks poll/ppoll, the
 * default on Linux is the other): the engine above never learns which.
 *
 * Readiness is level-triggered: a socket with data unread is reported again at each wait.
 * Watched descriptors are sockets (and the wake-up's own end); nothing else is assumed of
 * them. Ownership: a wait set owns what it allocates; the watches it reports and the
 * pointers in them belong to their owners, who unwatch a socket before closing it (or say,
 * when libpq closed it first, that it is gone).
 */

#define EV_READ  0x1u
#define EV_WRITE 0x4u

/* One watched socket, embedded in its owner (a client): the set finds it by this address. */
struct ev_watch {
    int fd;          /* the socket, -1 when not watched */
    unsigned events; /* EV_READ | EV_WRITE registered */
    int slot;        /* the backend's own (an index), -1 when none */
};

/* A wake-up shared by wait sets: once raised it stays raised, and every wait of a set that
 * watches it returns at once with a NULL entry, until it is closed. Plain data so that a
 * signal handler may raise it without a lock (a raise racing the close is lost). */
struct evwake {
    intptr_t h[2]; /* the backend's handles (read end, write end); -1 when closed */
};

/* Open w (-1 with errno when the system refuses). */
int evwake_open(struct evwake *w);
/* Raise w: async-signal-safe; nothing when w is closed. */
void evwake_raise(const struct evwake *w);
void evwake_close(struct evwake *w);
/* Lower w again (its reading end drained): a wake-up a thread raises for one other, which
 * clears it when it wakes. Nothing when w is closed. */
void evwake_clear(const struct evwake *w);

struct evwait;

/* A wait set that also watches wake (when not NULL). Never NULL: a set the system refused
 * (too many open files) says so at its first watch. */
struct evwait *evwait_new(const struct evwake *wake);
void evwait_free(struct evwait *ws);

/* Watch fd for events (EV_READ and/or EV_WRITE, not 0) with ptr, through w: a first watch,
 * a change of events, or another fd in place of w's old one (which libpq has closed). With
 * renew, the socket is registered anew even when w holds the same fd and events: libpq may
 * have replaced the socket by a new one with the same number. 0, or -1 with the reason in
 * evwait_error. */
int evwait_watch(struct evwait *ws, struct ev_watch *w, int fd, unsigned events, void *ptr,
                 int renew);
/* Stop watching w's socket (nothing when w watches none). open: the socket is still open;
 * 0 when libpq has closed it already (its number may be another's by now). */
void evwait_unwatch(struct evwait *ws, struct ev_watch *w, int open);
/* Why the last watch failed, as "call: reason". */
const char *evwait_error(const struct evwait *ws);

/* Wait until a watched socket is ready (for what it is watched for, or with an error or a
 * hang-up), the wake-up is raised, or deadline (absolute, on clock_now_ns's clock; -1: none,
 * the wait then ends within a second) has come. *fired points to the list of what fired: the
 * ready sockets' pointers, NULL for the wake-up (the set's own list, valid until the next
 * wait). Returns their number, 0 at the deadline or an interruption (a wait may end early:
 * see evwait_due), -1 with errno when the wait failed. */
int evwait_wait(struct evwait *ws, time_ns deadline, void *const **fired);
/* After a wait (and the handling of what fired): whether its deadline has come. The backend
 * may know it without reading the clock (its timer fired). */
int evwait_due(struct evwait *ws, time_ns deadline);

/* Let the calling thread's waits end when asked rather than with the system's default slack
 * (a feed's statements are due to the microsecond). */
void evwait_thread_precise(void);

#endif
