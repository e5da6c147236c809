#ifndef _WIN32 /* Windows: proxy_none.c */
/* replay record's listener and relay (capture/proxy.h). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/tcp.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/mem.h"
#include "capture/proxy.h"
#include "os/net.h"
#include "os/os.h"

/* A side's pending output over this: stop reading the other side until it drains. */
#define PROXY_BACKLOG  (1u << 20)
#define PROXY_READ     65536
#define PROXY_BODY_MAX (64u << 20) /* the longest Query, Parse or Bind kept */

enum pstate { PS_STARTUP, PS_RELAY, PS_CLOSING };

/* One client and its server connection. */
struct pconn {
    struct pconn *next;
    int cfd, sfd;
    enum pstate state;
    struct buf startup;              /* the client's bytes before its startup packet is whole */
    struct buf to_server, to_client; /* what waits to be written, from off */
    size_t ts_off, tc_off;
    struct pgwire_framer fe, be;
    struct rec_session *rs;
};

struct proxy {
    const struct proxy_opts *o;
    struct recorder *rec;
    int lfd;
    struct pconn *conns;
    size_t n_conns;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

static int64_t now_us(void)
{
    return clock_now_ns() / NS_PER_US;
}

static void nonblocking(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int listen_on(const struct proxy_opts *o, int *port, struct err *e)
{
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *ai;
    char service[16];
    snprintf(service, sizeof service, "%d", o->listen_port);
    int rc = getaddrinfo(o->listen_addr, service, &hints, &ai);
    if (rc != 0)
        return err_set(e, ERR_INPUT, "replay record: --listen %s:%d: %s", o->listen_addr,
                       o->listen_port, gai_strerror(rc));
    int fd = socket(ai->ai_family, SOCK_STREAM, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 128) < 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        freeaddrinfo(ai);
        return err_set(e, ERR_INPUT, "replay record: cannot listen on %s:%d: %s", o->listen_addr,
                       o->listen_port, strerror(err));
    }
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    *port = o->listen_port;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        *port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    nonblocking(fd);
    return fd;
}

/* A connection to the server (blocking connect, then non-blocking); -1 with why set. */
static int connect_server(const struct proxy_opts *o, char *why, size_t size)
{
    int fd = -1;
    if (o->server_host[0] == '/') {
        struct sockaddr_un un = {.sun_family = AF_UNIX};
        int n = snprintf(un.sun_path, sizeof un.sun_path, "%s/.s.PGSQL.%d", o->server_host,
                         o->server_port);
        if (n < 0 || (size_t)n >= sizeof un.sun_path) {
            snprintf(why, size, "socket path too long");
            return -1;
        }
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&un, sizeof un) < 0) {
            snprintf(why, size, "%s: %s", un.sun_path, strerror(errno));
            close(fd);
            return -1;
        }
    } else {
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
        struct addrinfo *ai, *a;
        char service[16];
        snprintf(service, sizeof service, "%d", o->server_port);
        int rc = getaddrinfo(o->server_host, service, &hints, &ai);
        if (rc != 0) {
            snprintf(why, size, "%s: %s", o->server_host, gai_strerror(rc));
            return -1;
        }
        snprintf(why, size, "%s:%d: no address", o->server_host, o->server_port);
        for (a = ai; a; a = a->ai_next) {
            fd = socket(a->ai_family, SOCK_STREAM, 0);
            if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) == 0)
                break;
            snprintf(why, size, "%s:%d: %s", o->server_host, o->server_port, strerror(errno));
            if (fd >= 0)
                close(fd);
            fd = -1;
        }
        freeaddrinfo(ai);
        if (fd >= 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
    }
    if (fd < 0)
        return -1;
    nonblocking(fd);
    return fd;
}

static void refuse(struct pconn *c, const char *sqlstate, const char *msg)
{
    pgwire_error_response(&c->to_client, sqlstate, msg);
    c->state = PS_CLOSING;
}

/* A CancelRequest for one of the sessions relayed (by the key its server gave it): sent on
 * to the server on a connection of its own, as libpq does; any other is dropped. */
static void forward_cancel(struct proxy *p, const uint8_t *packet, size_t len,
                           const struct pgwire_startup *su)
{
    char why[256];
    if (!recorder_cancel(p->rec, su->cancel_pid, su->cancel_key, su->cancel_key_len, now_us()))
        return;
    int fd = connect_server(p->o, why, sizeof why);
    if (fd < 0)
        return;
    /* A few bytes on a new connection: the socket's buffer takes them at once. */
    ssize_t n = send(fd, packet, len, MSG_NOSIGNAL);
    (void)n;
    close(fd);
}

/* Relay bytes from one side: record its whole messages and queue the bytes for the other. */
static int relay_in(struct proxy *p, struct pconn *c, int from_client, const uint8_t *data,
                    size_t len)
{
    int64_t t = now_us();
    struct pgwire_framer *f = from_client ? &c->fe : &c->be;
    buf_append(from_client ? &c->to_server : &c->to_client, (const char *)data, len);
    size_t pos = 0;
    while (pos < len) {
        size_t used;
        char type;
        const uint8_t *body;
        size_t blen;
        int rc = pgwire_framer_feed(f, data + pos, len - pos, &used, &type, &body, &blen);
        pos += used;
        if (rc < 0)
            return -1;
        if (rc == 0)
            break;
        if (from_client)
            recorder_frontend(p->rec, c->rs, type, body, blen, t);
        else
            recorder_backend(p->rec, c->rs, type, body, blen, t);
    }
    return 0;
}

/* The client's startup packet, when whole: what to do with it. */
static void on_startup(struct proxy *p, struct pconn *c)
{
    for (;;) {
        const uint8_t *d = (const uint8_t *)c->startup.data;
        long n = pgwire_startup_len(d, c->startup.len);
        if (n < 0) {
            refuse(c, "08P01", "pgarena replay record: invalid startup packet length");
            return;
        }
        if (n == 0 || c->startup.len < (size_t)n)
            return;
        struct pgwire_startup su;
        if (pgwire_startup_parse(d, (size_t)n, &su) < 0) {
            refuse(c, "08P01", "pgarena replay record: invalid startup packet");
            return;
        }
        switch (su.kind) {
        case PGWIRE_STARTUP_SSL:
        case PGWIRE_STARTUP_GSSENC:
            buf_putc(&c->to_client, 'N'); /* no encryption: the client goes on in the clear */
            memmove(c->startup.data, c->startup.data + n, c->startup.len - (size_t)n);
            c->startup.len -= (size_t)n;
            continue;
        case PGWIRE_STARTUP_CANCEL:
            forward_cancel(p, d, (size_t)n, &su);
            c->state = PS_CLOSING;
            return;
        case PGWIRE_STARTUP_OTHER:
            refuse(c, "0A000", "pgarena replay record: unsupported frontend protocol");
            return;
        case PGWIRE_STARTUP_V3:
            break;
        }
        if (pgwire_startup_param(&su, "replication")) {
            refuse(c, "0A000", "pgarena replay record: replication connections are not relayed");
            return;
        }
        char why[300], msg[400];
        c->sfd = connect_server(p->o, why, sizeof why);
        if (c->sfd < 0) {
            snprintf(msg, sizeof msg, "pgarena replay record: cannot connect to the server: %s",
                     why);
            refuse(c, "08006", msg);
            return;
        }
        c->rs = recorder_session_start(p->rec, &su, now_us());
        buf_append(&c->to_server, c->startup.data, (size_t)n);
        c->state = PS_RELAY;
        size_t rest = c->startup.len - (size_t)n;
        if (rest > 0 && relay_in(p, c, 1, d + n, rest) < 0)
            c->state = PS_CLOSING;
        buf_reset(&c->startup);
        return;
    }
}

static void conn_close(struct proxy *p, struct pconn *c)
{
    if (c->rs)
        recorder_session_end(p->rec, c->rs, now_us());
    c->rs = NULL;
    if (c->cfd >= 0)
        close(c->cfd);
    if (c->sfd >= 0)
        close(c->sfd);
    c->cfd = c->sfd = -1;
}

static void conn_free(struct pconn *c)
{
    buf_free(&c->startup);
    buf_free(&c->to_server);
    buf_free(&c->to_client);
    pgwire_framer_free(&c->fe);
    pgwire_framer_free(&c->be);
    free(c);
}

static void accept_all(struct proxy *p)
{
    for (;;) {
        int fd = accept(p->lfd, NULL, NULL);
        if (fd < 0)
            return;
        nonblocking(fd);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct pconn *c = xcalloc(1, sizeof *c);
        c->cfd = fd;
        c->sfd = -1;
        buf_init(&c->startup);
        buf_init(&c->to_server);
        buf_init(&c->to_client);
        pgwire_framer_init(&c->fe, RECORD_FRONTEND_TYPES, PROXY_BODY_MAX);
        pgwire_framer_init(&c->be, RECORD_BACKEND_TYPES, PGWIRE_STARTUP_MAX * 100);
        c->next = p->conns;
        p->conns = c;
        p->n_conns++;
    }
}

/* Write what waits in b (from *off) to fd: -1 when the peer is gone. */
static int flush(int fd, struct buf *b, size_t *off)
{
    while (*off < b->len) {
        ssize_t n = send(fd, b->data + *off, b->len - *off, MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        *off += (size_t)n;
    }
    buf_reset(b);
    *off = 0;
    return 0;
}

/* Read from one side; -1 at its end or an error. */
static int read_side(struct proxy *p, struct pconn *c, int from_client)
{
    uint8_t data[PROXY_READ];
    ssize_t n = recv(from_client ? c->cfd : c->sfd, data, sizeof data, 0);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    if (n == 0)
        return -1;
    if (from_client && c->state == PS_STARTUP) {
        buf_append(&c->startup, (const char *)data, (size_t)n);
        on_startup(p, c);
        return 0;
    }
    if (relay_in(p, c, from_client, data, (size_t)n) < 0)
        return -1; /* a stream that does not read: the session ends */
    return 0;
}

/* One connection's events: 0 to keep it, -1 to close it. */
static int conn_step(struct proxy *p, struct pconn *c, short crev, short srev)
{
    if (c->state != PS_CLOSING && (crev & (POLLIN | POLLHUP | POLLERR)) && read_side(p, c, 1) < 0) {
        /* The client is gone: what it sent still goes to the server (its Terminate). */
        if (c->sfd >= 0)
            flush(c->sfd, &c->to_server, &c->ts_off);
        return -1;
    }
    if (c->state == PS_RELAY && (srev & (POLLIN | POLLHUP | POLLERR)) && read_side(p, c, 0) < 0) {
        c->state = PS_CLOSING; /* the server is gone: the client gets what it said last */
        if (c->sfd >= 0)
            close(c->sfd);
        c->sfd = -1;
    }
    if (c->sfd >= 0 && flush(c->sfd, &c->to_server, &c->ts_off) < 0)
        return -1;
    if (flush(c->cfd, &c->to_client, &c->tc_off) < 0)
        return -1;
    if (c->state == PS_CLOSING && c->to_client.len == 0)
        return -1;
    return 0;
}

static int poll_timeout(const struct proxy *p, int64_t deadline)
{
    (void)p;
    if (deadline == 0)
        return 1000;
    int64_t left = (deadline - now_us()) / 1000 + 1;
    return left < 0 ? 0 : left > 1000 ? 1000 : (int)left;
}

static void relay_loop(struct proxy *p, int64_t deadline)
{
    struct pollfd *fds = NULL;
    size_t cap = 0;
    while (!stop_signal && (deadline == 0 || now_us() < deadline)) {
        size_t need = 1 + 2 * p->n_conns;
        if (need > cap) {
            cap = need * 2;
            fds = xrealloc(fds, cap * sizeof *fds);
        }
        fds[0] = (struct pollfd){.fd = p->lfd, .events = POLLIN};
        size_t i = 1;
        for (struct pconn *c = p->conns; c; c = c->next, i += 2) {
            short ce = 0, se = 0;
            if (c->state != PS_CLOSING && c->to_server.len < PROXY_BACKLOG)
                ce |= POLLIN;
            if (c->to_client.len > c->tc_off)
                ce |= POLLOUT;
            if (c->state == PS_RELAY && c->to_client.len < PROXY_BACKLOG)
                se |= POLLIN;
            if (c->to_server.len > c->ts_off)
                se |= POLLOUT;
            fds[i] = (struct pollfd){.fd = c->cfd, .events = ce};
            fds[i + 1] = (struct pollfd){.fd = c->sfd, .events = se};
        }
        int n = os_poll(fds, i, poll_timeout(p, deadline));
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        i = 1;
        for (struct pconn **pc = &p->conns; *pc; i += 2) {
            struct pconn *c = *pc;
            if (conn_step(p, c, fds[i].revents, c->sfd >= 0 ? fds[i + 1].revents : 0) < 0) {
                conn_close(p, c);
                *pc = c->next;
                conn_free(c);
                p->n_conns--;
            } else {
                pc = &c->next;
            }
        }
        if (fds[0].revents & POLLIN)
            accept_all(p);
    }
    free(fds);
}

int proxy_run(const struct proxy_opts *o, struct record_stats *stats, struct err *e)
{
    struct proxy p = {.o = o};
    int port = o->listen_port;
    memset(stats, 0, sizeof *stats);
    p.lfd = listen_on(o, &port, e);
    if (p.lfd < 0)
        return -1;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    int64_t start = now_us();
    p.rec = recorder_new((int64_t)wall.tv_sec * 1000000 + wall.tv_nsec / 1000, start);
    stop_signal = 0;
    struct os_interrupt_saved old;
    os_on_interrupt(on_signal, &old);
    fprintf(stderr, "replay record: listening on %s:%d, relaying to %s%s%d; ", o->listen_addr, port,
            o->server_host, o->server_host[0] == '/' ? " port " : ":", o->server_port);
    if (o->seconds)
        fprintf(stderr, "recording for %d s (Ctrl-C ends it early)\n", o->seconds);
    else
        fprintf(stderr, "recording until Ctrl-C\n");
    relay_loop(&p, o->seconds ? start + (int64_t)o->seconds * 1000000 : 0);
    os_interrupt_restore(&old);
    close(p.lfd);
    while (p.conns) {
        struct pconn *c = p.conns;
        p.conns = c->next;
        conn_close(&p, c);
        conn_free(c);
    }
    struct capture_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.address, sizeof h.address, "%s", o->server_host);
    h.port = o->server_port;
    int rc = recorder_write(p.rec, o->output, &h, stats, e);
    recorder_free(p.rec);
    return rc;
}

#endif
