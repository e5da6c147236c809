#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#ifdef _WIN32
#include <winsock2.h>
#else
#include <sys/socket.h>
#include <unistd.h>
#endif

#include "engine/evwait.h"
#include "os/os.h"

/* Socket pairs: AF_UNIX ones, and on Windows the loopback pair the WSAPoll backend's wake-up
 * is made of. */
#ifdef _WIN32
static int sock_pair(int fd[2])
{
    struct evwake w;
    if (evwake_open(&w) < 0)
        return -1;
    fd[0] = (int)w.h[0];
    fd[1] = (int)w.h[1];
    return 0;
}
#define sock_close(fd)       closesocket((SOCKET)(fd))
#define sock_write(fd, s, n) send((SOCKET)(fd), s, n, 0)
#else
#define sock_pair(fd)        socketpair(AF_UNIX, SOCK_STREAM, 0, fd)
#define sock_close(fd)       close(fd)
#define sock_write(fd, s, n) write(fd, s, n)
#endif

/* The event-wait seam (engine/evwait.h) on the backend this build has: epoll in build/ and
 * build/asan/, poll/ppoll in build/poll/. Sockets are socket pairs: one end watched, the other
 * written to make it readable. No wait here depends on how long it takes. */

struct pair {
    int fd[2];
    struct ev_watch watch;
};

static void pair_open(struct pair *p)
{
    assert_int_equal(sock_pair(p->fd), 0);
    p->watch = (struct ev_watch){.fd = -1, .slot = -1};
}

static void pair_close(struct pair *p)
{
    sock_close(p->fd[0]);
    sock_close(p->fd[1]);
}

static void make_readable(struct pair *p)
{
    assert_int_equal(sock_write(p->fd[1], "x", 1), 1);
}

/* What a wait that does not block reports: how many, and whether ptr is among them. */
static int fired_now(struct evwait *ws, const void *ptr, int *found)
{
    void *const *fired;
    int n = evwait_wait(ws, 0, &fired);
    assert_true(n >= 0);
    *found = 0;
    for (int i = 0; i < n; i++)
        if (fired[i] == ptr)
            *found = 1;
    return n;
}

static void test_ready_sockets_fire_with_their_pointers(void **state)
{
    (void)state;
    struct evwait *ws = evwait_new(NULL);
    struct pair a, b;
    int found;
    pair_open(&a);
    pair_open(&b);
    assert_int_equal(evwait_watch(ws, &a.watch, a.fd[0], EV_READ, &a, 0), 0);
    assert_int_equal(evwait_watch(ws, &b.watch, b.fd[0], EV_READ, &b, 0), 0);
    assert_int_equal(fired_now(ws, &a, &found), 0);
    make_readable(&a);
    assert_int_equal(fired_now(ws, &a, &found), 1);
    assert_true(found);
    make_readable(&b);
    assert_int_equal(fired_now(ws, &b, &found), 2);
    assert_true(found);
    /* Level-triggered: still unread, still reported. */
    assert_int_equal(fired_now(ws, &a, &found), 2);
    evwait_unwatch(ws, &a.watch, 1);
    evwait_unwatch(ws, &b.watch, 1);
    assert_int_equal(fired_now(ws, &a, &found), 0);
    pair_close(&a);
    pair_close(&b);
    evwait_free(ws);
}

/* Unwatching one socket leaves the others watched, each with its own pointer (the poll
 * backend moves its last slot into the freed one). */
static void test_unwatch_keeps_the_others(void **state)
{
    (void)state;
    struct evwait *ws = evwait_new(NULL);
    struct pair p[3];
    int found;
    for (int i = 0; i < 3; i++) {
        pair_open(&p[i]);
        assert_int_equal(evwait_watch(ws, &p[i].watch, p[i].fd[0], EV_READ, &p[i], 0), 0);
    }
    evwait_unwatch(ws, &p[0].watch, 1);
    assert_int_equal(p[0].watch.fd, -1);
    make_readable(&p[2]);
    assert_int_equal(fired_now(ws, &p[2], &found), 1);
    assert_true(found);
    make_readable(&p[0]); /* not watched: not reported */
    assert_int_equal(fired_now(ws, &p[0], &found), 1);
    assert_false(found);
    /* Watched again, for writing (a socket pair is writable at once). */
    assert_int_equal(evwait_watch(ws, &p[0].watch, p[0].fd[0], EV_WRITE, &p[0], 0), 0);
    assert_int_equal(fired_now(ws, &p[0], &found), 2);
    assert_true(found);
    /* A change of interest: p[1] for writing too. */
    assert_int_equal(evwait_watch(ws, &p[1].watch, p[1].fd[0], EV_READ | EV_WRITE, &p[1], 0), 0);
    assert_int_equal(fired_now(ws, &p[1], &found), 3);
    assert_true(found);
    for (int i = 0; i < 3; i++) {
        evwait_unwatch(ws, &p[i].watch, 1);
        pair_close(&p[i]);
    }
    evwait_free(ws);
}

#ifndef _WIN32
/* A socket closed by its owner's library before the unwatch: unwatched as gone, and a new
 * socket with its number is watched anew (renew). */
static void test_socket_replaced_under_the_same_number(void **state)
{
    (void)state;
    struct evwait *ws = evwait_new(NULL);
    struct pair a, b;
    int found;
    pair_open(&a);
    assert_int_equal(evwait_watch(ws, &a.watch, a.fd[0], EV_READ, &a, 1), 0);
    int number = a.fd[0];
    sock_close(a.fd[0]);
    pair_open(&b); /* the lowest free number: a.fd[0]'s */
    assert_int_equal(b.fd[0], number);
    assert_int_equal(evwait_watch(ws, &a.watch, b.fd[0], EV_READ, &a, 1), 0);
    make_readable(&b);
    assert_int_equal(fired_now(ws, &a, &found), 1);
    assert_true(found);
    evwait_unwatch(ws, &a.watch, 1);
    sock_close(a.fd[1]);
    pair_close(&b);
    evwait_free(ws);
}
#endif

/* A raised wake-up ends every wait of every set that watches it (a NULL entry), until it is
 * closed. */
static void test_wake_ends_every_wait(void **state)
{
    (void)state;
    struct evwake wake;
    assert_int_equal(evwake_open(&wake), 0);
    struct evwait *ws1 = evwait_new(&wake), *ws2 = evwait_new(&wake);
    int found;
    assert_int_equal(fired_now(ws1, NULL, &found), 0);
    evwake_raise(&wake);
    evwake_raise(&wake);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(fired_now(ws1, NULL, &found), 1);
        assert_true(found);
        assert_int_equal(fired_now(ws2, NULL, &found), 1);
        assert_true(found);
    }
    /* A wait without a deadline returns at once too. */
    void *const *fired;
    assert_int_equal(evwait_wait(ws1, -1, &fired), 1);
    assert_null(fired[0]);
    evwait_free(ws1);
    evwait_free(ws2);
    evwake_close(&wake);
    assert_int_equal(wake.h[0], -1);
    evwake_raise(&wake); /* closed: nothing */
}

/* Waits with nothing ready end at their deadline: evwait_due says so, after however many
 * early ends the backend allows. */
static void test_deadline_comes(void **state)
{
    (void)state;
    struct evwait *ws = evwait_new(NULL);
    struct pair a;
    pair_open(&a);
    assert_int_equal(evwait_watch(ws, &a.watch, a.fd[0], EV_READ, &a, 0), 0);
    time_ns deadline = clock_now_ns() + NS_PER_MS;
    int due = 0, waits = 0;
    while (!due && waits < 1000) {
        void *const *fired;
        assert_int_equal(evwait_wait(ws, deadline, &fired), 0);
        due = evwait_due(ws, deadline);
        waits++;
    }
    assert_true(due);
    assert_true(clock_now_ns() >= deadline);
    /* A deadline long past does not block. */
    void *const *fired;
    assert_int_equal(evwait_wait(ws, 0, &fired), 0);
    assert_true(evwait_due(ws, 0));
    evwait_unwatch(ws, &a.watch, 1);
    pair_close(&a);
    evwait_free(ws);
}

#ifdef _WIN32
#include <pthread.h>

#include "engine/evwait_pollset.h"
#include "engine/sched.h"

/* A worker's life: a precise thread waits on its set to a deadline near enough for the
 * precise timer's short sleeps. */
static void *precise_thread(void *arg)
{
    struct evwait *ws = arg;
    evwait_thread_precise();
    time_ns deadline = clock_now_ns() + NS_PER_MS;
    void *const *fired;
    while (!evwait_due(ws, deadline))
        assert_int_equal(evwait_wait(ws, deadline, &fired), 0);
    return NULL;
}

/* The precise timer a worker's set makes is the set's, closed with it: each worker thread
 * used to keep one for the process's life. */
static void test_precise_timer_closed_with_its_set(void **state)
{
    (void)state;
    struct evwait *ws = evwait_new(NULL);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, precise_thread, ws), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    HANDLE timer = ws->timer;
    DWORD flags;
    assert_non_null(timer);
    assert_true(GetHandleInformation(timer, &flags));
    evwait_free(ws);
    assert_false(GetHandleInformation(timer, &flags));
}

/* The WSAPoll backend's waits in virtual time: WSAPoll's timeout overshoots by up to a
 * millisecond (a 1 ms timer resolution), the precise timer's sleeps by up to 50 us, a poll
 * that does not wait costs 2 us. */
static time_ns vnow;
static int v_calls;
static uint32_t v_seed = 1;

static time_ns v_jitter(time_ns max)
{
    v_seed = v_seed * 1103515245u + 12345u;
    return (time_ns)((v_seed >> 8) % (uint32_t)max);
}

static time_ns v_now(void)
{
    return vnow;
}

static int v_poll(struct evwait *ws, int ms)
{
    (void)ws;
    v_calls++;
    vnow += ms > 0 ? ms * NS_PER_MS + v_jitter(NS_PER_MS) : 2 * NS_PER_US;
    return 0;
}

static void v_sleep(struct evwait *ws, time_ns ns)
{
    (void)ws;
    v_calls++;
    vnow += ns + v_jitter(50 * NS_PER_US);
}

/* An -R 500 schedule (Poisson gaps of 2 ms on average: above and below the last stretch's
 * 2 ms) as data: each start waits on the set until its time, as a worker's loop does. Every
 * wait ends at or after its start, at most 100 us late (the coarse waits end a millisecond
 * early, the precise sleeps take the rest), in at most 24 calls (no spinning). */
static void test_schedule_in_virtual_time(void **state)
{
    (void)state;
    struct wsapoll_os real = wsapoll_os;
    wsapoll_os = (struct wsapoll_os){v_now, v_poll, v_sleep};
    vnow = 1000 * NS_PER_S;
    struct sched s;
    sched_init(&s, 500, vnow, 42);
    struct evwait *ws = evwait_new(NULL);
    time_ns worst = 0, sum = 0;
    int most = 0;
    for (int i = 0; i < 5000; i++) {
        time_ns at = sched_next(&s);
        void *const *fired;
        v_calls = 0;
        while (vnow < at)
            assert_int_equal(evwait_wait(ws, at, &fired), 0);
        time_ns late = vnow - at;
        assert_true(late <= 100 * NS_PER_US);
        assert_true(v_calls <= 24);
        worst = late > worst ? late : worst;
        most = v_calls > most ? v_calls : most;
        sum += late;
    }
    evwait_free(ws);
    wsapoll_os = real;
    print_message("5000 starts: late %.1f us on average, %.1f us at most, %d calls at most\n",
                  (double)sum / 5000 / NS_PER_US, (double)worst / NS_PER_US, most);
}
#endif

int main(void)
{
    os_init(NULL, NULL); /* Windows: Winsock */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ready_sockets_fire_with_their_pointers),
        cmocka_unit_test(test_unwatch_keeps_the_others),
#ifndef _WIN32 /* Windows' sockets are handles: a new one does not take the lowest number */
        cmocka_unit_test(test_socket_replaced_under_the_same_number),
#endif
        cmocka_unit_test(test_wake_ends_every_wait),
        cmocka_unit_test(test_deadline_comes),
#ifdef _WIN32
        cmocka_unit_test(test_precise_timer_closed_with_its_set),
        cmocka_unit_test(test_schedule_in_virtual_time),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
