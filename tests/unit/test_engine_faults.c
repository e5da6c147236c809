#include "engine_fixture.h"

#include <sys/epoll.h>

/* Faults found in review (issue 12), each pinned by a test that failed before its fix. */

/* The clients the worker's epoll would wake now. */
static int ready_clients(struct fx *f, struct client **first)
{
    struct epoll_event ev[8];
    int n = epoll_wait(f->w->epfd, ev, 8, 0);
    int clients = 0;
    for (int i = 0; i < n; i++) {
        if (ev[i].data.ptr != NULL && ev[i].data.ptr >= (void *)f->w->clients &&
            ev[i].data.ptr < (void *)(f->w->clients + f->w->n_clients)) {
            if (first && clients == 0)
                *first = ev[i].data.ptr;
            clients++;
        }
    }
    return clients;
}

/* libpq moving to the next host opens a new socket, often with the number of the old one:
 * the client must watch the new socket, or it waits forever ("timed out connecting"). */
static void test_new_socket_same_number_is_watched(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, "SELECT 1;\n");
    fake_push_connect(FAKE_CONNECT_NEW_SOCKET);
    run_init(&f.run, &f.cfg);
    f.w = &f.run.workers[0];
    struct client *c = fx_client(&f, 0);
    assert_int_equal(client_connect(c, f.now), 0);
    int before = pg_socket(c->conn);
    struct client *woken = NULL;
    assert_int_equal(ready_clients(&f, &woken), 1); /* writable: connecting */
    client_advance(c, f.now);                       /* the fake moves to a new socket */
    assert_int_equal(pg_socket(c->conn), before);   /* same number, a new socket */
    woken = NULL;
    assert_int_equal(ready_clients(&f, &woken), 1);
    assert_ptr_equal(woken, c);
    /* And the connection completes through epoll alone. */
    for (int k = 0; k < 4 && c->state == CS_CONNECTING; k++)
        if (ready_clients(&f, &woken) == 1)
            client_advance(woken, f.now);
    assert_int_equal(c->state, CS_IDLE);
    assert_int_equal(f.w->n_setup_pending, 0);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_socket_same_number_is_watched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
