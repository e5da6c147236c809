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
#include "capture/ptls.h"
#include "capture/typenames.h"
#include "os/net.h"
#include "os/os.h"

/* A side's pending output over this: stop reading the other side until it drains. */
#define PROXY_BACKLOG         (1u << 20)
#define PROXY_READ            65536
#define PROXY_BODY_MAX        (64u << 20) /* the longest Query, Parse or Bind kept */
#define PROXY_FLUSH_US        1000000     /* how often the settled events are written */
#define PROXY_ACCEPT_PAUSE_US 100000

/* PS_SSL_ASK: the server was sent an SSLRequest and its one-byte answer is awaited. */
enum pstate { PS_STARTUP, PS_CONNECTING, PS_SSL_ASK, PS_RELAY, PS_CLOSING };

/* One client and its server connection. */
struct pconn {
    struct pconn *next;
    struct ptls_sock cs, ss; /* the client's socket, the server's (fd -1: none) */
    enum pstate state;
    int tls_after_flush; /* 'S' queued: TLS with the client starts once it is written */
    int auth_done;       /* AuthenticationOk seen: the server's bytes go through unread */
    int terminated;      /* the client sent Terminate: the server's end is no fault */
    struct buf sauth;    /* the server's bytes before it, up to a whole message */
    struct buf startup;  /* the client's bytes before its startup packet is whole */
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
    struct ptls_ctx *accept_ctx;  /* --tls-cert: TLS with clients; NULL: 'N' */
    struct ptls_ctx *connect_ctx; /* TLS to the server (CONN's sslmode); NULL: in the clear */
    enum ptls_mode smode;
    int lfd;
    struct pconn *conns;
    size_t n_conns;
    int64_t accept_paused_until; /* out of descriptors: the listener waits until then */
    int accept_paused_once;
    /* The bytes last read from one side, relayed before they are recorded (the round trip
     * waits for the relay, not for the recorder), and when they were read. */
    uint8_t in[PROXY_READ];
    size_t in_len;
    int64_t in_t;
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

static void connected(struct proxy *p, struct pconn *c);

/* Connect c to the server from address a on (why: the last failure so far); the client is
 * told why when no address is left. */
static void start_server(struct proxy *p, struct pconn *c, const struct addrinfo *a, char *why,
                         size_t size)
{
    int connecting = 0;
    ptls_sock_init(&c->ss, connect_from(p, a, &c->next_ai, &connecting, why, size));
    if (c->ss.fd < 0) {
        char msg[400];
        snprintf(msg, sizeof msg, "pgarena replay record: cannot connect to the server: %s", why);
        refuse(c, "08006", msg);
        return;
    }
    c->state = PS_CONNECTING;
    if (!connecting)
        connected(p, c);
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

/* Record the whole messages in bytes from one side, read at t: -1 when they do not read. */
static int record_side(struct proxy *p, struct pconn *c, int from_client, const uint8_t *data,
                       size_t len, int64_t t)
{
    struct pgwire_framer *f = from_client ? &c->fe : &c->be;
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
        c->terminated |= from_client && type == 'X';
        if (from_client)
            recorder_frontend(p->rec, c->rs, type, body, blen, t);
        else
            recorder_backend(p->rec, c->rs, type, body, blen, t);
    }
    return 0;
}

/* Relay bytes from one side: queue the bytes for the other and record its whole messages. */
static int relay_pass(struct proxy *p, struct pconn *c, int from_client, const uint8_t *data,
                      size_t len)
{
    buf_append(from_client ? &c->to_server : &c->to_client, (const char *)data, len);
    return record_side(p, c, from_client, data, len, now_us());
}

/* An ErrorResponse body: the server refused SCRAM's channel binding negotiation (a client on
 * TLS to the proxy says it would bind, a server on TLS offers binding: SQLSTATE 28000, the
 * message in English). */
static int cb_refused(const uint8_t *body, size_t len)
{
    char sqlstate[6];
    const char *msg;
    pgwire_parse_error(body, len, sqlstate, &msg);
    return (strcmp(sqlstate, "28000") == 0 || strcmp(sqlstate, "08P01") == 0) &&
           strstr(msg, "channel binding") != NULL;
}

/* The server's bytes before its AuthenticationOk, message by message: an AuthenticationSASL
 * goes on without SCRAM-SHA-256-PLUS, the rest unchanged. */
static int relay_auth(struct proxy *p, struct pconn *c, const uint8_t *data, size_t len)
{
    buf_append(&c->sauth, (const char *)data, len);
    size_t pos = 0;
    int rc = 0;
    while (rc == 0 && !c->auth_done && c->sauth.len - pos >= 5) {
        const uint8_t *m = (const uint8_t *)c->sauth.data + pos;
        uint32_t n = (uint32_t)m[1] << 24 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 8 | m[4];
        if (n < 4 || n > PGWIRE_STARTUP_MAX * 100)
            return -1;
        if (c->sauth.len - pos < (size_t)n + 1)
            break;
        uint32_t code = m[0] == 'R' && n >= 8 ? (uint32_t)m[5] << 24 | (uint32_t)m[6] << 16 |
                                                    (uint32_t)m[7] << 8 | m[8]
                                              : 99;
        if (code == 10) {
            struct buf out;
            buf_init(&out);
            /* Channel binding ties SCRAM to the TLS session it runs in, and the client's TLS
             * ends here. */
            if (pgwire_sasl_without(m + 5, n - 4, "SCRAM-SHA-256-PLUS", &out) < 0)
                refuse(c, "28000",
                       "pgarena replay record: the server offers only SCRAM-SHA-256-PLUS; "
                       "channel binding cannot pass through a proxy that ends the client's TLS");
            else
                rc = relay_pass(p, c, 0, (const uint8_t *)out.data, out.len);
            buf_free(&out);
            if (c->state == PS_CLOSING)
                return -1;
        } else if (m[0] == 'E' && c->cs.ssl && c->ss.ssl && cb_refused(m + 5, n - 4)) {
            refuse(c, "08P01",
                   "pgarena replay record: channel binding cannot pass through a proxy that ends "
                   "the client's TLS and opens its own to the server: connect with "
                   "channel_binding=disable, or give CONN sslmode=disable");
            return -1;
        } else {
            rc = relay_pass(p, c, 0, m, (size_t)n + 1);
        }
        c->auth_done = (m[0] == 'R' && code == 0) || m[0] == 'E';
        pos += (size_t)n + 1;
    }
    if (rc == 0 && c->auth_done && c->sauth.len > pos)
        rc = relay_pass(p, c, 0, (const uint8_t *)c->sauth.data + pos, c->sauth.len - pos);
    if (c->auth_done)
        pos = c->sauth.len;
    memmove(c->sauth.data, c->sauth.data + pos, c->sauth.len - pos);
    c->sauth.len -= pos;
    return rc;
}

static int relay_in(struct proxy *p, struct pconn *c, int from_client, const uint8_t *data,
                    size_t len)
{
    if (!from_client && !c->auth_done)
        return relay_auth(p, c, data, len);
    return relay_pass(p, c, from_client, data, len);
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
            if (p->accept_ctx && !c->cs.ssl) {
                if (c->startup.len != (size_t)n) { /* bytes after it would skip TLS */
                    refuse(c, "08P01", "pgarena replay record: data after SSLRequest");
                    return;
                }
                buf_putc(&c->to_client, 'S'); /* TLS starts once 'S' is written */
                c->tls_after_flush = 1;
                buf_reset(&c->startup);
                return;
            }
            /* No certificate: no TLS, as GSSENCRequest. */
            /* fall through */
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
    ptls_close(&c->cs);
    ptls_close(&c->ss);
}

static void conn_free(struct pconn *c)
{
    buf_free(&c->startup);
    buf_free(&c->sauth);
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
        ptls_sock_init(&c->cs, fd);
        ptls_sock_init(&c->ss, -1);
        buf_init(&c->startup);
        buf_init(&c->sauth);
        buf_init(&c->to_server);
        buf_init(&c->to_client);
        pgwire_framer_init(&c->fe, RECORD_FRONTEND_TYPES, PROXY_BODY_MAX);
        pgwire_framer_init(&c->be, RECORD_BACKEND_TYPES, PGWIRE_STARTUP_MAX * 100);
        pgwire_framer_keep_prefix(&c->be, RECORD_BACKEND_PREFIX_TYPES);
        c->next = p->conns;
        p->conns = c;
        p->n_conns++;
    }
}

/* Write what waits in b (from *off) to s: -1 when the peer is gone. */
static int flush(struct ptls_sock *s, struct buf *b, size_t *off)
{
    while (*off < b->len) {
        ssize_t n = ptls_write(s, b->data + *off, b->len - *off);
        if (n <= 0)
            return (int)n;
        *off += (size_t)n;
    }
    buf_reset(b);
    *off = 0;
    return 0;
}

/* Read from one side and queue its bytes for the other; those of a relayed stream are left
 * in p->in to be recorded once sent (record_in). -1 at its end or an error, -2 when its
 * stream does not read. */
static int read_side(struct proxy *p, struct pconn *c, int from_client)
{
    uint8_t *data = p->in;
    p->in_len = 0;
    if (from_client && c->tls_after_flush)
        return -1; /* bytes before TLS could start */
    ssize_t n = ptls_read(from_client ? &c->cs : &c->ss, data, sizeof p->in);
    if (n <= 0)
        return (int)n;
    if (from_client && c->state == PS_STARTUP) {
        buf_append(&c->startup, (const char *)data, (size_t)n);
        on_startup(p, c);
        return 0;
    }
    if (!from_client && !c->auth_done)
        return relay_auth(p, c, data, (size_t)n) < 0 ? -2 : 0;
    /* A stream that does not read ends the session unsent: its messages before the fault
     * are recorded, as they would have been. */
    if (pgwire_framer_check(from_client ? &c->fe : &c->be, data, (size_t)n) < 0)
        return relay_pass(p, c, from_client, data, (size_t)n) < 0 ? -2 : 0;
    buf_append(from_client ? &c->to_server : &c->to_client, (const char *)data, (size_t)n);
    p->in_len = (size_t)n;
    p->in_t = now_us();
    return 0;
}

/* Record the bytes read_side left in p->in (checked: they read). */
static void record_in(struct proxy *p, struct pconn *c, int from_client)
{
    if (p->in_len > 0)
        record_side(p, c, from_client, p->in, p->in_len, p->in_t);
    p->in_len = 0;
}

/* The server's socket of a connection being made is ready: connected, or the next address. */
static void connected(struct proxy *p, struct pconn *c)
{
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(c->ss.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
        err = errno;
    if (err == 0) {
        c->state = PS_RELAY;
        /* Under sslmode=prefer a client on the proxy's own TLS goes on to the server in the
         * clear: offered no SCRAM-SHA-256-PLUS (channel binding cannot pass a proxy that ends
         * TLS), its libpq tells the server it could have bound the channel, which a server on
         * TLS refuses as a downgrade. A client in the clear says it cannot, and may go on TLS. */
        if (p->connect_ctx && !(p->smode == PTLS_PREFER && c->cs.ssl)) {
            /* Eight bytes on a new connection: the socket's buffer takes them at once. */
            static const uint8_t req[8] = {0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}; /* 80877103 */
            if (send(c->ss.fd, req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req)
                refuse(c, "08006", "pgarena replay record: cannot send SSLRequest to the server");
            else
                c->state = PS_SSL_ASK;
        }
        return;
    }
    char why[300];
    snprintf(why, sizeof why, "%s:%d: %s", p->o->server_host, p->o->server_port, strerror(err));
    ptls_close(&c->ss);
    start_server(p, c, c->next_ai, why, sizeof why);
}

/* The server's answer to the proxy's SSLRequest: TLS, or in the clear when sslmode allows. */
static void ssl_answer(struct proxy *p, struct pconn *c)
{
    char a[2];
    ssize_t n = recv(c->ss.fd, a, sizeof a, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n == 1 && a[0] == 'S' && ptls_start(&c->ss, p->connect_ctx, p->o->server_host) == 0) {
        c->state = PS_RELAY;
    } else if (n == 1 && a[0] == 'N' && p->smode == PTLS_PREFER) {
        c->state = PS_RELAY;
    } else {
        refuse(c, "08006",
               n == 1 && a[0] == 'N'
                   ? "pgarena replay record: the server does not support SSL, but CONN's sslmode "
                     "requires it"
                   : "pgarena replay record: the server did not answer the SSLRequest");
        ptls_close(&c->ss);
    }
}

/* The server's side failed: the client is told why when TLS to the server failed before it
 * logged in. */
static void server_gone(struct pconn *c)
{
    if (c->rs && !c->terminated)
        recorder_session_failed(c->rs);
    if (c->ss.ssl && !c->auth_done && c->ss.why[0]) {
        char msg[300];
        snprintf(msg, sizeof msg, "pgarena replay record: TLS to the server failed: %s", c->ss.why);
        refuse(c, "08006", msg);
    }
    c->state = PS_CLOSING; /* the client gets what the server said last */
    ptls_close(&c->ss);
}

/* One connection's events: 0 to keep it, -1 to close it. What one side sends is written to
 * the other at once, and recorded after; a side found gone meanwhile is dealt with where it
 * was before, after both sides were read. */
static int conn_step(struct proxy *p, struct pconn *c, short crev, short srev)
{
    int rc = 0, server_failed = 0, client_failed = 0;
    if (c->state != PS_CLOSING && (crev & (c->cs.rd_ev | POLLHUP | POLLERR))) {
        if ((rc = read_side(p, c, 1)) < 0) {
            if (c->rs && (rc == -2 || pgwire_framer_mid(&c->fe))) {
                /* A message that does not read, or cut short: the server is not sent the
                 * rest. */
                recorder_session_failed(c->rs);
                return -1;
            }
            /* The client is gone: what it sent still goes to the server (its Terminate). */
            if (c->state == PS_RELAY)
                flush(&c->ss, &c->to_server, &c->ts_off);
            return -1;
        }
        if (c->state == PS_RELAY)
            server_failed = flush(&c->ss, &c->to_server, &c->ts_off) < 0;
        record_in(p, c, 1);
    }
    if (c->state == PS_CONNECTING && srev)
        connected(p, c);
    else if (c->state == PS_SSL_ASK && srev)
        ssl_answer(p, c);
    if (c->state == PS_RELAY && (srev & (c->ss.rd_ev | POLLHUP | POLLERR))) {
        if (read_side(p, c, 0) < 0) {
            server_gone(c);
        } else {
            client_failed = flush(&c->cs, &c->to_client, &c->tc_off) < 0;
            record_in(p, c, 0);
        }
    }
    if (c->state == PS_RELAY && (server_failed || flush(&c->ss, &c->to_server, &c->ts_off) < 0))
        server_gone(c);
    if (client_failed || flush(&c->cs, &c->to_client, &c->tc_off) < 0)
        return -1;
    if (c->tls_after_flush && c->to_client.len == 0) {
        c->tls_after_flush = 0;
        if (ptls_start(&c->cs, p->accept_ctx, NULL) < 0)
            return -1;
    }
    if (c->state == PS_CLOSING && c->to_client.len == 0)
        return -1;
    return 0;
}

/* The client's side is to be read (its bytes have room), the server's. */
static int client_readable(const struct pconn *c)
{
    return c->state != PS_CLOSING && c->to_server.len < PROXY_BACKLOG;
}

static int server_readable(const struct pconn *c)
{
    return c->state == PS_RELAY && c->to_client.len < PROXY_BACKLOG;
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
        int pending = 0;
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
            if (client_readable(c))
                ce |= c->cs.rd_ev;
            if (c->to_client.len > c->tc_off)
                ce |= c->cs.wr_ev;
            if (server_readable(c))
                se |= c->ss.rd_ev;
            if (c->state == PS_RELAY && c->to_server.len > c->ts_off)
                se |= c->ss.wr_ev;
            if (c->state == PS_CONNECTING)
                se |= POLLOUT;
            if (c->state == PS_SSL_ASK)
                se |= POLLIN;
            /* Bytes TLS has decrypted already: the socket does not say so, the loop must. */
            if ((client_readable(c) && ptls_pending(&c->cs)) ||
                (server_readable(c) && ptls_pending(&c->ss)))
                pending = 1;
            fds[i] = (struct pollfd){.fd = c->cs.fd, .events = ce};
            fds[i + 1] = (struct pollfd){.fd = c->ss.fd, .events = se};
        }
        int n = os_poll(fds, i, pending ? 0 : poll_timeout(p, deadline));
        if (n < 0 && errno != EINTR)
            break;
        if (n < 0 || (n == 0 && !pending))
            continue;
        i = 1;
        for (struct pconn **pc = &p->conns; *pc; i += 2) {
            struct pconn *c = *pc;
            short crev = fds[i].revents, srev = c->ss.fd >= 0 ? fds[i + 1].revents : 0;
            if (client_readable(c) && ptls_pending(&c->cs))
                crev |= c->cs.rd_ev;
            if (server_readable(c) && ptls_pending(&c->ss))
                srev |= c->ss.rd_ev;
            if (conn_step(p, c, crev, srev) < 0) {
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

static void proxy_free(struct proxy *p)
{
    if (p->tcp_ai)
        freeaddrinfo(p->tcp_ai);
    ptls_ctx_free(p->accept_ctx);
    ptls_ctx_free(p->connect_ctx);
    p->tcp_ai = NULL;
    p->accept_ctx = p->connect_ctx = NULL;
}

int proxy_run(const struct proxy_opts *o, struct record_stats *stats, struct err *e)
{
    struct proxy p = {.o = o};
    int port = o->listen_port;
    memset(stats, 0, sizeof *stats);
    if (resolve_server(&p, e) < 0)
        return -1;
    if (o->tls_cert && !(p.accept_ctx = ptls_server_ctx(o->tls_cert, o->tls_key, e))) {
        proxy_free(&p);
        return -1;
    }
    /* No TLS on a Unix socket, as libpq. */
    if (ptls_client_ctx(o->sslmode ? o->sslmode : "prefer", o->sslrootcert ? o->sslrootcert : "",
                        &p.smode, &p.connect_ctx, e) < 0) {
        proxy_free(&p);
        return -1;
    }
    if (p.first->ai_family == AF_UNIX) {
        ptls_ctx_free(p.connect_ctx);
        p.connect_ctx = NULL;
    }
    p.lfd = listen_on(o, &port, e);
    if (p.lfd < 0) {
        proxy_free(&p);
        return -1;
    }
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    int64_t start = now_us();
    struct capture_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.address, sizeof h.address, "%s", o->server_host);
    h.port = o->server_port;
    p.rec =
        recorder_new(o->output, &h, (int64_t)wall.tv_sec * 1000000 + wall.tv_nsec / 1000, start, e);
    if (!p.rec) {
        close(p.lfd);
        proxy_free(&p);
        return -1;
    }
    /* The names of user types are learnt on a thread of their own: the relay never waits for
     * a catalog, and a type is named while it exists (an application may drop it later). */
    struct typenames_pg *catalog = o->conn ? typenames_pg_new(o->conn) : NULL;
    struct typenames *names = catalog ? typenames_new(typenames_lookup_pg, catalog) : NULL;
    recorder_type_names(p.rec, names);
    stop_signal = 0;
    struct os_interrupt_saved old;
    os_on_interrupt(on_signal, &old);
    /* OpenSSL writes with write(): a client gone must not end the proxy. */
    struct sigaction pipe_ign = {.sa_handler = SIG_IGN}, pipe_old;
    sigaction(SIGPIPE, &pipe_ign, &pipe_old);
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
    sigaction(SIGPIPE, &pipe_old, NULL);
    proxy_free(&p);
    if (rc == 0)
        rc = recorder_close(p.rec, &h, stats, e);
    else
        recorder_stats(p.rec, stats);
    recorder_free(p.rec);
    typenames_free(names);
    typenames_pg_free(catalog);
    return rc;
}

#endif
