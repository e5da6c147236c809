/* The event-wait seam on WSAPoll (engine/evwait.h): Windows' backend. A connected pair of
 * loopback sockets is the wake-up (WSAPoll watches sockets only). WSAPoll's timeout is in
 * milliseconds and Windows' timers tick coarsely: a wait ends a millisecond before its
 * deadline, and the last stretch alternates a poll that does not wait with a high-resolution
 * waitable timer's short sleeps, so that -R's starts are as close to their schedule as on
 * Linux. */
#ifdef _WIN32

#include "engine/evwait_pollset.h"

#include <winsock2.h>
#include <windows.h>

#include <errno.h>

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

/* A wait without a deadline ends after this: the caller looks around now and then. */
#define MAX_IDLE_WAIT_MS 1000

/* Whether the calling thread asked for precise waits (evwait_thread_precise): its wait set
 * then gets a high-resolution timer at its first short sleep, closed by evwait_free. */
static _Thread_local int precise;

static int nonblocking(SOCKET s)
{
    u_long on = 1;
    return ioctlsocket(s, FIONBIO, &on) == 0 ? 0 : -1;
}

int evwake_open(struct evwake *w)
{
    w->h[0] = w->h[1] = -1;
    SOCKET l = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP), a = INVALID_SOCKET, c = INVALID_SOCKET;
    struct sockaddr_in addr = {.sin_family = AF_INET};
    int len = sizeof addr;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (l != INVALID_SOCKET && bind(l, (struct sockaddr *)&addr, sizeof addr) == 0 &&
        listen(l, 1) == 0 && getsockname(l, (struct sockaddr *)&addr, &len) == 0 &&
        (c = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP)) != INVALID_SOCKET &&
        connect(c, (struct sockaddr *)&addr, sizeof addr) == 0 &&
        (a = accept(l, NULL, NULL)) != INVALID_SOCKET && nonblocking(a) == 0 &&
        nonblocking(c) == 0) {
        closesocket(l);
        w->h[0] = (intptr_t)a;
        w->h[1] = (intptr_t)c;
        return 0;
    }
    if (a != INVALID_SOCKET)
        closesocket(a);
    if (c != INVALID_SOCKET)
        closesocket(c);
    if (l != INVALID_SOCKET)
        closesocket(l);
    errno = EMFILE;
    return -1;
}

void evwake_raise(const struct evwake *w)
{
    if (w->h[1] != -1)
        send((SOCKET)w->h[1], "x", 1, 0); /* never read: the read end stays readable */
}

void evwake_clear(const struct evwake *w)
{
    char buf[64];
    while (w->h[0] != -1 && recv((SOCKET)w->h[0], buf, sizeof buf, 0) > 0)
        ;
}

void evwake_close(struct evwake *w)
{
    intptr_t r = w->h[0], wr = w->h[1];
    w->h[0] = w->h[1] = -1;
    if (wr != -1)
        closesocket((SOCKET)wr);
    if (r != -1)
        closesocket((SOCKET)r);
}

/* The wait set's precise timer, made at the first call from a thread that asked for one
 * (NULL otherwise, or when the system has none). */
static HANDLE precise_timer(struct evwait *ws)
{
    if (!ws->timer && precise) {
        ws->timer = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                           TIMER_ALL_ACCESS);
        if (!ws->timer) /* before Windows 10 1803 (and Wine): a plain one */
            ws->timer = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
    }
    return ws->timer;
}

/* Sleep ns on the precise timer (else Sleep, in whole milliseconds). */
static void fine_sleep(struct evwait *ws, time_ns ns)
{
    HANDLE timer = precise_timer(ws);
    if (timer) {
        LARGE_INTEGER due = {.QuadPart = -(LONGLONG)(ns / 100)}; /* relative, 100 ns units */
        if (due.QuadPart == 0)
            due.QuadPart = -1;
        if (SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE)) {
            WaitForSingleObject(timer, INFINITE);
            return;
        }
    }
    Sleep((DWORD)((ns + NS_PER_MS - 1) / NS_PER_MS));
}

/* WSAPoll over the set for ms (0: no wait), or a sleep when the set is empty (WSAPoll refuses
 * an empty set). */
static int poll_ms(struct evwait *ws, int ms)
{
    if (ws->n == 0) {
        if (ms > 0)
            Sleep((DWORD)ms);
        return 0;
    }
    int n = WSAPoll(ws->pfd, (ULONG)ws->n, ms);
    if (n == SOCKET_ERROR) {
        errno = WSAGetLastError() == WSAENOBUFS ? ENOMEM : EINVAL;
        return -1;
    }
    return n;
}

struct wsapoll_os wsapoll_os = {clock_now_ns, poll_ms, fine_sleep};

int pollset_wait(struct evwait *ws, time_ns deadline)
{
    if (deadline < 0)
        return wsapoll_os.poll(ws, MAX_IDLE_WAIT_MS);
    time_ns left = deadline - wsapoll_os.now();
    if (left >= FINE_NS) /* end a millisecond early: Windows' timeouts overshoot */
        return wsapoll_os.poll(ws, (int)((left - NS_PER_MS) / NS_PER_MS));
    for (;;) {
        int n = wsapoll_os.poll(ws, 0);
        if (n != 0 || left <= 0)
            return n;
        wsapoll_os.sleep(ws, left < FINE_STEP_NS ? left : FINE_STEP_NS);
        left = deadline - wsapoll_os.now();
    }
}

void evwait_thread_precise(void)
{
    precise = 1;
}

#endif
