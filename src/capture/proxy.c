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
#define PROXY_BACKLOG         (1u << 20)
#define PROXY_READ            65536
#define PROXY_BODY_MAX        (64u << 20) /* the longest Query, Parse or Bind kept */
#define PROXY_FLUSH_US        1000000     /* how often the settled events are written */
#define PROXY_ACCEPT_PAUSE_US 100000

enum pstate { PS_STARTUP, PS_CONNECTING, PS_RELAY, PS_CLOSING };

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
    const struct addrinfo *next_ai; /* PS_CONNECTING: the server's address to try next */
};

struct proxy {
    const struct proxy_opts *o;
    /* The server's addresses, resolved once: a socket's path, or getaddrinfo's list. */
    struct sockaddr_un un;
    struct addrinfo unix_ai, *tcp_ai;
    const struct addrinfo *first;
    struct recorder *rec;
    int lfd;
    struct pconn *conns;
    size_t n_conns;
    int64_t accept_paused_until; /* out of descriptors: the listener waits until then */
    int accept_paused_once;
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

static int resolve_server(struct proxy *p, struct err *e)
{
    const struct proxy_opts *o = p->o;
    if (o->server_host[0] == '/') {
        p->un.sun_family = AF_UNIX;
        int n = snprintf(p->un.sun_path, sizeof p->un.sun_path, "%s/.s.PGSQL.%d", o->server_host,
                         o->server_port);
        if (n < 0 || (size_t)n >= sizeof p->un.sun_path)
            return err_set(e, ERR_INPUT, "replay record: the server's socket path is too long");
        p->unix_ai = (struct addrinfo){.ai_family = AF_UNIX,
                                       .ai_socktype = SOCK_STREAM,
                                       .ai_addr = (struct sockaddr *)&p->un,
                                       .ai_addrlen = sizeof p->un};
        p->first = &p->unix_ai;
        return 0;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    char service[16];
    snprintf(service, sizeof service, "%d", o->server_port);
    int rc = getaddrinfo(o->server_host, service, &hints, &p->tcp_ai);
    if (rc != 0)
        return err_set(e, ERR_INPUT, "replay record: the server's host %s: %s", o->server_host,
                       gai_strerror(rc));
    p->first = p->tcp_ai;
    return 0;
}

/* Start connecting to the server at a or an address after it, without waiting: the socket
 * (connected, or *connecting), *next the address to try if it fails; -1 with why set when
 * none could be started (why is left as it was when a is NULL). */
static int connect_from(const struct proxy *p, const struct addrinfo *a,
                        const struct addrinfo **next, int *connecting, char *why, size_t size)
{
    for (; a; a = a->ai_next) {
        int fd = socket(a->ai_family, SOCK_STREAM, 0);
        int rc = -1;
        if (fd >= 0) {
            nonblocking(fd);
            rc = connect(fd, a->ai_addr, a->ai_addrlen);
        }
        if (rc == 0 || (rc < 0 && errno == EINPROGRESS)) {
            *connecting = rc < 0;
            *next = a->ai_next;
            int one = 1;
            if (a->ai_family != AF_UNIX)
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return fd;
        }
        if (a->ai_family == AF_UNIX)
            snprintf(why, size, "%s: %s", p->un.sun_path, strerror(errno));
        else
            snprintf(why, size, "%s:%d: %s", p->o->server_host, p->o->server_port, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return -1;
}

static void refuse(struct pconn *c, const char *sqlstate, const char *msg)
{
    pgwire_error_response(&c->to_client, sqlstate, msg);
    c->state = PS_CLOSING;
}

/* Connect c to the server from address a on (why: the last failure so far); the client is
 * told why when no address is left. */
static void start_server(struct proxy *p, struct pconn *c, const struct addrinfo *a, char *why,
                         size_t size)
{
    int connecting = 0;
    c->sfd = connect_from(p, a, &c->next_ai, &connecting, why, size);
    if (c->sfd < 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "pgarena replay record: cannot connect to the server: %s", why);
        refuse(c, "08006", msg);
        return;
    }
    c->state = connecting ? PS_CONNECTING : PS_RELAY;
}

/* A CancelRequest for one of the sessions relayed (by the key its server gave it): sent on
 * to the server on a connection of its own, as libpq does; any other is dropped. */
static void forward_cancel(struct proxy *p, const uint8_t *packet, size_t len,
                           const struct pgwire_startup *su)
{
    char why[256];
    if (!recorder_cancel(p->rec, su->cancel_pid, su->cancel_key, su->cancel_key_len, now_us()))
        return;
    const struct addrinfo *next;
    int connecting = 0;
    int fd = connect_from(p, p->first, &next, &connecting, why, sizeof why);
    if (fd < 0)
        return;
    struct pollfd pf = {.fd = fd, .events = POLLOUT};
    if (connecting && os_poll(&pf, 1, 1000) != 1) { /* a second at most: as libpq's cancel */
        close(fd);
        return;
    }
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
        c->rs = recorder_session_start(p->rec, &su, now_us());
        buf_append(&c->to_server, c->startup.data, (size_t)n);
        char why[300] = "no address";
        start_server(p, c, p->first, why, sizeof why);
        size_t rest = c->startup.len - (size_t)n;
        if (c->state != PS_CLOSING && rest > 0 && relay_in(p, c, 1, d + n, rest) < 0)
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
        if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
            /* No room for a connection: new clients wait in the backlog, and the listener
             * is left alone for a while (else its readiness would spin the loop). */
            if (!p->accept_paused_once)
                fprintf(stderr, "replay record: cannot accept a connection: %s; new clients wait\n",
                        strerror(errno));
            p->accept_paused_once = 1;
            p->accept_paused_until = now_us() + PROXY_ACCEPT_PAUSE_US;
            return;
        }
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

/* The server's socket of a connection being made is ready: connected, or the next address. */
static void connected(struct proxy *p, struct pconn *c)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->sfd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err == 0) {
        c->state = PS_RELAY;
        return;
    }
    char why[300];
    snprintf(why, sizeof why, "%s:%d: %s", p->o->server_host, p->o->server_port, strerror(err));
    close(c->sfd);
    c->sfd = -1;
    start_server(p, c, c->next_ai, why, sizeof why);
}

/* One connection's events: 0 to keep it, -1 to close it. */
static int conn_step(struct proxy *p, struct pconn *c, short crev, short srev)
{
    if (c->state != PS_CLOSING && (crev & (POLLIN | POLLHUP | POLLERR)) && read_side(p, c, 1) < 0) {
        /* The client is gone: what it sent still goes to the server (its Terminate). */
        if (c->state == PS_RELAY)
            flush(c->sfd, &c->to_server, &c->ts_off);
        return -1;
    }
    if (c->state == PS_CONNECTING && srev)
        connected(p, c);
    if (c->state == PS_RELAY && (srev & (POLLIN | POLLHUP | POLLERR)) && read_side(p, c, 0) < 0) {
        c->state = PS_CLOSING; /* the server is gone: the client gets what it said last */
        if (c->sfd >= 0)
            close(c->sfd);
        c->sfd = -1;
    }
    if (c->state == PS_RELAY && flush(c->sfd, &c->to_server, &c->ts_off) < 0)
        return -1;
    if (flush(c->cfd, &c->to_client, &c->tc_off) < 0)
        return -1;
    if (c->state == PS_CLOSING && c->to_client.len == 0)
        return -1;
    return 0;
}

/* How long to wait: until the deadline, the listener's pause, or a second (the flush). */
static int poll_timeout(const struct proxy *p, int64_t deadline)
{
    int64_t now = now_us(), until = now + PROXY_FLUSH_US;
    if (deadline != 0 && deadline < until)
        until = deadline;
    if (p->accept_paused_until > now && p->accept_paused_until < until)
        until = p->accept_paused_until;
    return (int)((until - now) / 1000 + 1);
}

/* Relay until the deadline (0: none) or a signal; the events settled are written about
 * once a second. 0, or -1 with e set when the capture cannot be written. */
static int relay_loop(struct proxy *p, int64_t deadline, struct err *e)
{
    struct pollfd *fds = NULL;
    size_t cap = 0;
    int64_t flushed = now_us();
    int rc = 0;
    while (!stop_signal && (deadline == 0 || now_us() < deadline)) {
        int64_t now = now_us();
        if (now - flushed >= PROXY_FLUSH_US) {
            flushed = now;
            rc = recorder_flush(p->rec, now, e);
            if (rc < 0)
                break;
        }
        size_t need = 1 + 2 * p->n_conns;
        if (need > cap) {
            cap = need * 2;
            fds = xrealloc(fds, cap * sizeof *fds);
        }
        fds[0] =
            (struct pollfd){.fd = p->lfd, .events = now >= p->accept_paused_until ? POLLIN : 0};
        size_t i = 1;
        for (struct pconn *c = p->conns; c; c = c->next, i += 2) {
            short ce = 0, se = 0;
            if (c->state != PS_CLOSING && c->to_server.len < PROXY_BACKLOG)
                ce |= POLLIN;
            if (c->to_client.len > c->tc_off)
                ce |= POLLOUT;
            if (c->state == PS_RELAY && c->to_client.len < PROXY_BACKLOG)
                se |= POLLIN;
            if (c->to_server.len > c->ts_off || c->state == PS_CONNECTING)
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
    return rc;
}

int proxy_run(const struct proxy_opts *o, struct record_stats *stats, struct err *e)
{
    struct proxy p = {.o = o};
    int port = o->listen_port;
    memset(stats, 0, sizeof *stats);
    if (resolve_server(&p, e) < 0)
        return -1;
    p.lfd = listen_on(o, &port, e);
    if (p.lfd < 0) {
        if (p.tcp_ai)
            freeaddrinfo(p.tcp_ai);
        return -1;
    }
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    int64_t start = now_us();
    p.rec = recorder_new(o->output, (int64_t)wall.tv_sec * 1000000 + wall.tv_nsec / 1000, start, e);
    if (!p.rec) {
        close(p.lfd);
        if (p.tcp_ai)
            freeaddrinfo(p.tcp_ai);
        return -1;
    }
    stop_signal = 0;
    struct os_interrupt_saved old;
    os_on_interrupt(on_signal, &old);
    fprintf(stderr, "replay record: listening on %s:%d, relaying to %s%s%d; ", o->listen_addr, port,
            o->server_host, o->server_host[0] == '/' ? " port " : ":", o->server_port);
    if (o->seconds)
        fprintf(stderr, "recording for %d s (Ctrl-C ends it early)\n", o->seconds);
    else
        fprintf(stderr, "recording until Ctrl-C\n");
    int rc = relay_loop(&p, o->seconds ? start + (int64_t)o->seconds * 1000000 : 0, e);
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
    if (p.tcp_ai)
        freeaddrinfo(p.tcp_ai);
    if (rc == 0)
        rc = recorder_close(p.rec, &h, stats, e);
    else
        recorder_stats(p.rec, stats);
    recorder_free(p.rec);
    return rc;
}

#endif
