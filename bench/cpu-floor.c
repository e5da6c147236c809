/* The floor of client CPU for one round trip per transaction: the least a client can do
 * for pgbench's select-only under -M prepared. Connects and prepares with libpq, then
 * speaks the protocol itself on the socket: one send (Bind, Execute, Sync) and one recv
 * per transaction, an epoll loop per thread, no result parsing beyond finding
 * ReadyForQuery, no statistics. Whatever a real client does more is what it costs above
 * this. Prints "TPS TRANSACTIONS" after SECONDS.
 *
 * usage: cpu-floor CONNINFO CLIENTS THREADS SECONDS SCALE */
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>

struct floor_client {
    PGconn *conn;
    int fd;
    uint64_t rng;
};

struct floor_thread {
    pthread_t tid;
    struct floor_client *clients;
    int n;
    long long transactions;
};

static const char *conninfo;
static double seconds;
static int accounts;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void put32(char *p, uint32_t v)
{
    v = htonl(v);
    memcpy(p, &v, 4);
}

/* Bind (one text parameter, the account id), Execute, Sync, in one buffer. */
static int send_tx(struct floor_client *c)
{
    c->rng = c->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    char aid[16];
    int len = snprintf(aid, sizeof aid, "%d", (int)((c->rng >> 33) % (uint64_t)accounts) + 1);
    char msg[128];
    char *p = msg;
    int bind_len = 4 + 1 + 2 + 2 + 2 + 4 + len +
                   2; /* length, portal, statement, formats, count, value, result formats */
    *p++ = 'B';
    put32(p, (uint32_t)bind_len);
    p += 4;
    *p++ = 0; /* unnamed portal */
    memcpy(p, "s", 2);
    p += 2;
    memcpy(p, "\0\0\0\1", 4); /* no format codes; one parameter */
    p += 4;
    put32(p, (uint32_t)len);
    p += 4;
    memcpy(p, aid, (size_t)len);
    p += len;
    memcpy(p, "\0\0", 2); /* result formats: default */
    p += 2;
    *p++ = 'E';
    put32(p, 9);
    p += 4;
    *p++ = 0;
    put32(p, 0);
    p += 4;
    *p++ = 'S';
    put32(p, 4);
    p += 4;
    return send(c->fd, msg, (size_t)(p - msg), MSG_NOSIGNAL) == p - msg ? 0 : -1;
}

static void *thread_main(void *arg)
{
    struct floor_thread *t = arg;
    int ep = epoll_create1(0);
    for (int i = 0; i < t->n; i++) {
        struct floor_client *c = &t->clients[i];
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
        if (send_tx(c) < 0)
            return NULL;
    }
    double end = now_s() + seconds;
    char buf[8192];
    while (now_s() < end) {
        struct epoll_event ev[64];
        int n = epoll_wait(ep, ev, 64, 100);
        for (int i = 0; i < n; i++) {
            struct floor_client *c = ev[i].data.ptr;
            ssize_t r = recv(c->fd, buf, sizeof buf, 0);
            if (r <= 0)
                return NULL;
            /* A select-only answer fits one read; ReadyForQuery ('Z', length 5, status) is
             * its last six bytes. */
            if (r >= 6 && buf[r - 6] == 'Z') {
                t->transactions++;
                if (send_tx(c) < 0)
                    return NULL;
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: cpu-floor CONNINFO CLIENTS THREADS SECONDS SCALE\n");
        return 2;
    }
    conninfo = argv[1];
    int clients = atoi(argv[2]), threads = atoi(argv[3]);
    seconds = atof(argv[4]);
    accounts = 100000 * atoi(argv[5]);
    struct floor_thread *t = calloc((size_t)threads, sizeof *t);
    for (int k = 0; k < threads; k++) {
        t[k].n = (k + 1) * clients / threads - k * clients / threads;
        t[k].clients = calloc((size_t)t[k].n, sizeof *t[k].clients);
        for (int i = 0; i < t[k].n; i++) {
            struct floor_client *c = &t[k].clients[i];
            c->conn = PQconnectdb(conninfo);
            PGresult *r = PQprepare(
                c->conn, "s", "SELECT abalance FROM pgbench_accounts WHERE aid = $1", 0, NULL);
            if (PQresultStatus(r) != PGRES_COMMAND_OK) {
                fprintf(stderr, "cpu-floor: %s", PQerrorMessage(c->conn));
                return 1;
            }
            PQclear(r);
            c->fd = PQsocket(c->conn);
            c->rng = (uint64_t)(k * 1000 + i + 1);
        }
    }
    double start = now_s();
    for (int k = 0; k < threads; k++)
        pthread_create(&t[k].tid, NULL, thread_main, &t[k]);
    long long total = 0;
    for (int k = 0; k < threads; k++) {
        pthread_join(t[k].tid, NULL);
        total += t[k].transactions;
    }
    printf("%.1f %lld\n", (double)total / (now_s() - start), total);
    return 0;
}
