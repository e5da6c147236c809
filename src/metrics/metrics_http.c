/* The metrics server: one thread, a poll loop over nonblocking sockets, one request per
 * connection. Every client is bounded (request size, time to send it, time to read the
 * answer) and none can hold the thread: a slow reader is written to as it reads, and dropped
 * at its deadline. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifndef _WIN32
#include <netdb.h>
#include <unistd.h>
#endif

#include "base/clock.h"
#include "base/mem.h"
#include "base/listen_spec.h"
#include "metrics/metrics_int.h"
#include "os/net.h"

/* Where Winsock differs: sockets are closed by closesocket, made nonblocking by ioctlsocket,
 * and say their errors through WSAGetLastError. A socket is kept in an int on both (Windows'
 * socket handles fit in 32 bits). */
#ifdef _WIN32
#define MSG_NOSIGNAL 0
#define SHUT_WR      SD_SEND

static void sock_close(int fd)
{
    closesocket((SOCKET)fd);
}

static int sock_error(void)
{
    return WSAGetLastError();
}

/* err: wait for the socket (or try again). */
static int sock_retry(int err)
{
    return err == WSAEWOULDBLOCK || err == WSAEINTR;
}

/* err from accept: the connection went before it was taken. */
static int sock_gone(int err)
{
    return err == WSAECONNABORTED || err == WSAECONNRESET;
}

static int sock_nonblocking(int fd)
{
    u_long on = 1;
    return ioctlsocket((SOCKET)fd, FIONBIO, &on) == 0 ? 0 : -1;
}

static const char *sock_strerror(int err)
{
    static _Thread_local char text[48];
    switch (err) {
    case WSAEADDRINUSE:
        return "Address already in use";
    case WSAEADDRNOTAVAIL:
        return "Cannot assign requested address";
    case WSAEACCES:
        return "Permission denied";
    case WSAEAFNOSUPPORT:
        return "Address family not supported by protocol";
    }
    snprintf(text, sizeof text, "Winsock error %d", err);
    return text;
}
#else
static void sock_close(int fd)
{
    close(fd);
}

static int sock_error(void)
{
    return errno;
}

static int sock_retry(int err)
{
    return err == EAGAIN || err == EWOULDBLOCK || err == EINTR;
}

static int sock_gone(int err)
{
    return err == ECONNABORTED;
}

static const char *sock_strerror(int err)
{
    return strerror(err);
}
#endif

int metrics_parse_listen(const char *spec, char *host, size_t host_size, int *port, struct err *e)
{
    return listen_spec_parse(spec, "--metrics-listen", 1, host, host_size, port, e);
}

static int listen_on(const char *spec, struct err *e)
{
    char host[256], port_s[16];
    int port;
    if (metrics_parse_listen(spec, host, sizeof host, &port, e) < 0)
        return -1;
    snprintf(port_s, sizeof port_s, "%d", port);
    struct addrinfo hints = {.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
                             .ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai = NULL;
    int rc = getaddrinfo(host, port_s, &hints, &ai);
    if (rc != 0)
        return err_set(e, ERR_INPUT, "--metrics-listen %s: %s", spec, gai_strerror(rc));
    int fd = -1, saved = 0;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
#ifdef _WIN32
        SOCKET s = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        fd = s == INVALID_SOCKET ? -1 : (int)s;
#else
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
#endif
        if (fd < 0) {
            saved = sock_error();
            continue;
        }
        int one = 1; /* a port left in TIME_WAIT by the last run is free; one listened on is not */
#ifdef _WIN32        /* Windows' SO_REUSEADDR would share a port another listens on: not that */
        setsockopt((SOCKET)fd, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&one, sizeof one);
        if (sock_nonblocking(fd) < 0 || bind((SOCKET)fd, a->ai_addr, (int)a->ai_addrlen) != 0 ||
            listen((SOCKET)fd, 64) != 0) {
#else
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, 64) < 0) {
#endif
            saved = sock_error();
            sock_close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(ai);
    if (fd < 0)
        return err_set(e, ERR_INPUT, "--metrics-listen %s: cannot listen: %s", spec,
                       sock_strerror(saved));
    return fd;
}

struct metrics *metrics_open(const char *spec, struct err *e)
{
    int fd = listen_on(spec, e);
    if (fd < 0)
        return NULL;
    struct metrics *m = xcalloc(1, sizeof *m);
    metrics_registry_init(m);
    m->listen_fd = fd;
    if (metrics_http_start(m, e) < 0) {
        sock_close(fd);
        metrics_registry_free(m);
        free(m);
        return NULL;
    }
    return m;
}

void metrics_close(struct metrics *m)
{
    if (!m)
        return;
    pthread_mutex_lock(&m->mu);
    m->ended = 1;
    int any = m->n_runs > 0; /* no run: nothing for a scrape to see */
    pthread_mutex_unlock(&m->mu);
    time_ns until = clock_now_ns() + (any ? (time_ns)METRICS_LINGER_S * NS_PER_S : 0);
    for (;;) {
        pthread_mutex_lock(&m->mu);
        int seen = m->scraped_after_end;
        pthread_mutex_unlock(&m->mu);
        if (seen || clock_now_ns() >= until)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    metrics_http_stop(m);
    sock_close(m->listen_fd);
    metrics_registry_free(m);
    free(m);
}

/* One client. */
struct conn {
    int fd;        /* -1: free */
    time_ns until; /* its deadline: the request read, or the answer sent */
    size_t n_in;   /* bytes of the request read */
    char *out;     /* the answer, once there is one */
    size_t n_out, sent;
    int after_end; /* a /metrics answer rendered after the end */
    int pending;   /* a /metrics request waiting for the first run (1 + its format) */
    int head;
    char in[METRICS_MAX_REQUEST];
};

static void conn_close(struct conn *c)
{
    sock_close(c->fd);
    free(c->out);
    c->fd = -1;
    c->out = NULL;
}

static void respond(struct conn *c, int status, const char *type, const char *body, size_t n_body,
                    int head)
{
    static const struct {
        int code;
        const char *text;
    } reasons[] = {
        {200, "OK"}, {400, "Bad Request"}, {404, "Not Found"}, {405, "Method Not Allowed"}};
    const char *reason = "Error";
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (reasons[i].code == status)
            reason = reasons[i].text;
    char hdr[512];
    int n = snprintf(hdr, sizeof hdr,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
                     "Connection: close\r\n\r\n",
                     status, reason, type, n_body, status == 405 ? "Allow: GET, HEAD\r\n" : "");
    size_t keep = head ? 0 : n_body;
    c->out = xmalloc((size_t)n + keep + 1);
    memcpy(c->out, hdr, (size_t)n);
    memcpy(c->out + n, body, keep);
    c->n_out = (size_t)n + keep;
    c->sent = 0;
    c->until = clock_now_ns() + (time_ns)METRICS_TIMEOUT_S * NS_PER_S;
}

static void respond_text(struct conn *c, int status, const char *text)
{
    respond(c, status, "text/plain; charset=utf-8", text, strlen(text), 0);
}

/* OpenMetrics unless the Accept header asks for text/plain and not for OpenMetrics. */
static int wants_openmetrics(const char *headers)
{
    for (const char *l = headers; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncasecmp(l, "accept:", 7) != 0)
            continue;
        size_t n = strcspn(l, "\r\n");
        char v[1024];
        snprintf(v, sizeof v, "%.*s", (int)(n < sizeof v - 1 ? n : sizeof v - 1), l);
        if (strstr(v, "application/openmetrics-text"))
            return 1;
        if (strstr(v, "text/plain"))
            return 0;
    }
    return 1;
}

/* The figures in format om, or nothing yet: before the first run is registered (and while
 * the request may wait), the request waits for it, so that every answer has every series. */
static void answer_metrics(struct metrics *m, struct conn *c, int om, int head)
{
    pthread_mutex_lock(&m->mu);
    int wait = m->n_runs == 0 && !m->ended;
    c->after_end = m->ended;
    pthread_mutex_unlock(&m->mu);
    if (wait && clock_now_ns() < c->until) {
        c->pending = 1 + om;
        c->head = head;
        return;
    }
    c->pending = 0;
    size_t n;
    char *body = metrics_render(m, om, &n);
    respond(c, 200,
            om ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
               : "text/plain; version=0.0.4; charset=utf-8",
            body, n, head);
    free(body);
}

/* The request is whole (headers ended) or its first line is: answer it. 0: wait for more. */
static int handle(struct metrics *m, struct conn *c)
{
    c->in[c->n_in] = '\0';
    if (memchr(c->in, '\0', c->n_in)) { /* no text */
        respond_text(c, 400, "bad request\n");
        return 1;
    }
    char *eol = strchr(c->in, '\n');
    if (!eol)
        return c->n_in >= METRICS_MAX_REQUEST - 1 ? (respond_text(c, 400, "bad request\n"), 1) : 0;
    char method[16], target[1024], version[16];
    if (sscanf(c->in, "%15[A-Z] %1023[^ \r\n] %15[^ \r\n]", method, target, version) != 3 ||
        strncmp(version, "HTTP/1.", 7) != 0 || (version[7] != '0' && version[7] != '1') ||
        version[8] != '\0') {
        respond_text(c, 400, "bad request\n");
        return 1;
    }
    char *hdr_end = strstr(c->in, "\r\n\r\n");
    if (!hdr_end)
        hdr_end = strstr(c->in, "\n\n");
    if (!hdr_end) {
        if (c->n_in < METRICS_MAX_REQUEST - 1)
            return 0;
        respond_text(c, 400, "request too large\n");
        return 1;
    }
    int head = strcmp(method, "HEAD") == 0;
    if (!head && strcmp(method, "GET") != 0) {
        respond_text(c, 405, "only GET\n");
        return 1;
    }
    target[strcspn(target, "?")] = '\0';
    if (strcmp(target, "/metrics") != 0) {
        respond_text(c, 404, "not found: the metrics are at /metrics\n");
        return 1;
    }
    *hdr_end = '\0';
    answer_metrics(m, c, wants_openmetrics(eol + 1), head);
    return 1;
}

static void conn_read(struct metrics *m, struct conn *c)
{
    for (;;) {
        ssize_t n = recv(c->fd, c->in + c->n_in, METRICS_MAX_REQUEST - 1 - c->n_in, 0);
        if (n < 0 && sock_retry(sock_error()))
            return;
        if (n <= 0) { /* closed before a whole request, or an error */
            conn_close(c);
            return;
        }
        c->n_in += (size_t)n;
        if (handle(m, c) || c->n_in >= METRICS_MAX_REQUEST - 1 || c->fd < 0)
            return;
    }
}

static void conn_write(struct metrics *m, struct conn *c)
{
    while (c->sent < c->n_out) {
        ssize_t n = send(c->fd, c->out + c->sent, c->n_out - c->sent, MSG_NOSIGNAL);
        if (n < 0 && sock_retry(sock_error()))
            return;
        if (n <= 0) {
            conn_close(c);
            return;
        }
        c->sent += (size_t)n;
    }
    if (c->after_end) {
        pthread_mutex_lock(&m->mu);
        m->scraped_after_end = 1;
        pthread_mutex_unlock(&m->mu);
    }
    shutdown(c->fd, SHUT_WR);
    conn_close(c);
}

/* Accept what is waiting. 0, or -1 when accept fails for want of a descriptor (EMFILE...):
 * the caller stops listening a moment instead of spinning on a backlog it cannot take. */
static int accept_all(int listen_fd, struct conn *conns)
{
    for (;;) {
#ifdef _WIN32
        SOCKET s = accept((SOCKET)listen_fd, NULL, NULL);
        int fd = s == INVALID_SOCKET ? -1 : (int)s;
        if (fd >= 0 && sock_nonblocking(fd) < 0) {
            sock_close(fd);
            continue;
        }
#else
        int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
#endif
        if (fd < 0) {
            int err = sock_error();
            return sock_retry(err) || sock_gone(err) ? 0 : -1;
        }
        struct conn *c = NULL;
        for (int i = 0; i < METRICS_MAX_CONNS && !c; i++)
            if (conns[i].fd < 0)
                c = &conns[i];
        if (!c) { /* as many as it serves at once: this one is turned away */
            sock_close(fd);
            continue;
        }
        c->fd = fd;
        c->n_in = 0;
        c->after_end = c->pending = 0;
        c->until = clock_now_ns() + (time_ns)METRICS_TIMEOUT_S * NS_PER_S;
    }
}

static void *serve(void *arg)
{
    struct metrics *m = arg;
    struct conn *conns = xcalloc(METRICS_MAX_CONNS, sizeof *conns);
    for (int i = 0; i < METRICS_MAX_CONNS; i++)
        conns[i].fd = -1;
    time_ns pause = 0; /* not listening until then (accept failed for want of descriptors) */
    for (;;) {
        pthread_mutex_lock(&m->mu);
        int stop = m->stop;
        pthread_mutex_unlock(&m->mu);
        if (stop)
            break;
        struct pollfd pfd[2 + METRICS_MAX_CONNS];
        struct conn *of[2 + METRICS_MAX_CONNS];
        int n = 0;
        pfd[n++] = (struct pollfd){.fd = (int)m->wake.h[0], .events = POLLIN};
        time_ns now = clock_now_ns(), next = now + NS_PER_S;
        pfd[n++] = (struct pollfd){.fd = m->listen_fd, .events = now < pause ? 0 : POLLIN};
        if (now < pause)
            next = pause;
        for (int i = 0; i < METRICS_MAX_CONNS; i++) {
            struct conn *c = &conns[i];
            if (c->fd < 0)
                continue;
            if (c->pending) /* the first run has come, or the request waited long enough */
                answer_metrics(m, c, c->pending - 1, c->head);
            /* too slow to send its request, or to read the answer */
            if (now >= c->until && !c->pending) {
                conn_close(c);
                continue;
            }
            if (c->until < next)
                next = c->until;
            of[n] = c;
            short ev = c->out ? POLLOUT : c->pending ? 0 : POLLIN;
            pfd[n++] = (struct pollfd){.fd = c->fd, .events = ev};
        }
        int ms = (int)((next - now) / 1000000) + 1;
        if (os_poll(pfd, (unsigned long)n, ms) < 0)
            continue;
        if (pfd[0].revents)
            evwake_clear(&m->wake);
        for (int i = 2; i < n; i++) {
            struct conn *c = of[i];
            if (!pfd[i].revents)
                continue;
            if (c->pending) { /* it hung up while waiting */
                conn_close(c);
                continue;
            }
            if (!c->out)
                conn_read(m, c);
            if (c->fd >= 0 && c->out)
                conn_write(m, c);
        }
        if (pfd[1].revents && accept_all(m->listen_fd, conns) < 0)
            pause = clock_now_ns() + NS_PER_S / 10;
    }
    for (int i = 0; i < METRICS_MAX_CONNS; i++)
        if (conns[i].fd >= 0)
            conn_close(&conns[i]);
    free(conns);
    return NULL;
}

int metrics_http_start(struct metrics *m, struct err *e)
{
    if (evwake_open(&m->wake) < 0)
        return err_set(e, ERR_RUNTIME, "--metrics-listen: pipe: %s", strerror(errno));
#ifdef _WIN32 /* no signals to keep from the thread: the console's handler has its own */
    int rc = pthread_create(&m->thread, NULL, serve, m);
#else
    /* The run's signals (SIGINT, SIGTERM) stay the main thread's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&m->thread, NULL, serve, m);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
#endif
    if (rc != 0) {
        evwake_close(&m->wake);
        return err_set(e, ERR_RUNTIME, "--metrics-listen: no thread: %s", strerror(rc));
    }
    return 0;
}

void metrics_http_stop(struct metrics *m)
{
    pthread_mutex_lock(&m->mu);
    m->stop = 1;
    pthread_mutex_unlock(&m->mu);
    evwake_raise(&m->wake);
    pthread_join(m->thread, NULL);
    evwake_close(&m->wake);
}
