#ifndef _WIN32 /* Windows: duet_none.c */
/* sweep --duet: the two setups of a cell run at the same time. Each half is bench_run in a
 * child process of the sweep's (the engine's stop, its cancel thread, the sampler and the
 * client's health are process-wide: two runs in one process would share them), with the
 * cell's clients and threads of its own. The sweep process is the barrier (a socket pair per
 * half, written with MSG_NOSIGNAL: a half gone never kills the sweep): each child says
 * "ready" once every client of its run is connected, and when both have, the sweep gives both
 * the same go instant (monotonic, which the host's processes share) and the wall clock's
 * offset read once, so that both warm up together, start their measured parts at one instant
 * with the same measured_start_at, and cut their intervals on the same seconds. A half that
 * ends early (its server lost, an error, a signal) stops the other; a half that cannot start
 * makes the other's barrier fail.
 *
 * Roles: in odd trials the first setup is role "a", in even trials the second. Role "a" is
 * forked first and is given the go instant first; nothing else differs. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

#include "base/mem.h"
#include "bench/bench.h"
#include "sweep/sweep_int.h"

/* The go instant lies this far ahead of the moment both halves are ready, for both to read it
 * before it comes (a half that reads it late starts at once: its intervals still count from
 * the shared instant). */
#define DUET_GO_AHEAD_NS (100 * NS_PER_MS)

/* One half, as the sweep process sees it. */
struct half {
    size_t cell;    /* in x->doc.cells */
    pid_t pid;      /* 0: not started */
    int fd;         /* the sweep's end of the socket pair: its lines in, the go out (-1) */
    int shut;       /* nothing more goes out: the half's barrier fails unless it has its go */
    int ready;      /* every client connected: waiting for the go */
    int ended;      /* its end line came, or its socket closed */
    int rc;         /* bench_run's */
    int stop_sent;  /* told to stop */
    char msg[1024]; /* bench_run's error */
    char line[1200];
    size_t len;
    struct bench_duet duet;
};

/* The child's end of its socket pair: the barrier's argument. */
struct link {
    int fd;
    struct bench_duet *duet;
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* A line to the other end (short: the socket's buffer takes it whole); no SIGPIPE when the
 * other end is gone. */
static int write_line(int fd, const char *s)
{
    size_t n = strlen(s);
    ssize_t w;
    do
        w = send(fd, s, n, MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    return w == (ssize_t)n ? 0 : -1;
}

/* Nothing more to half h: its barrier, if it is still waiting, fails. */
static void shut_half(struct half *h)
{
    if (h->fd >= 0 && !h->shut)
        shutdown(h->fd, SHUT_WR);
    h->shut = 1;
}

/* The child's barrier: ready, then the go line (or the end of the stream: the other half did
 * not start, or the sweep stops). */
static int child_barrier(void *arg, time_ns *go_ns, struct err *e)
{
    struct link *l = arg;
    if (write_line(l->fd, "ready\n") < 0)
        return err_set(e, ERR_RUNTIME, "the duet's sweep is gone");
    char buf[128];
    size_t n = 0;
    while (n < sizeof buf - 1 && (n == 0 || buf[n - 1] != '\n')) {
        ssize_t r = read(l->fd, buf + n, sizeof buf - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return err_set(e, ERR_RUNTIME, "the other half of the duet did not start");
        n += (size_t)r;
    }
    buf[n] = '\0';
    long long go, offset;
    if (sscanf(buf, "go %lld %lld", &go, &offset) != 2)
        return err_set(e, ERR_RUNTIME, "the duet's sweep sent no start");
    *go_ns = (time_ns)go;
    l->duet->wall_offset_ns = offset;
    return 0;
}

/* SIGUSR1 in a half: the other half ended early, or the sweep stops (in the sweep process,
 * where it is installed before the fork, no engine runs). */
static void on_stop(int sig)
{
    (void)sig;
    bench_request_stop();
}

/* In the child: run the half, say how it ended, and leave (nothing of the sweep's to undo). */
static void run_half(struct sweep_exec *x, struct half *h, int fd)
{
    struct sweep_cell *c = &x->doc.cells[h->cell];
    char *path = xasprintf("%s/%s", x->o->dir, c->file);
    struct link l = {fd, &h->duet};
    h->duet.barrier = child_barrier;
    h->duet.barrier_arg = &l;
    struct bench_plan plan;
    sweep_cell_plan(x, c, path, &plan);
    plan.duet = &h->duet;
    struct result r;
    struct err e = {0};
    struct bench_hooks hooks = {.warning = sweep_cell_warning, .arg = x, .live = x->live};
    int rc = bench_run(&plan, &hooks, &r, &e);
    for (char *p = e.msg; *p; p++)
        if (*p == '\n')
            *p = ' ';
    char end[1200];
    snprintf(end, sizeof end, "end %d %s\n", rc, rc < 0 ? e.msg : "");
    write_line(fd, end);
    _exit(0);
}

/* Read what a half said; its lines move it on. */
static void read_half(struct half *h)
{
    ssize_t r = read(h->fd, h->line + h->len, sizeof h->line - 1 - h->len);
    if (r < 0 && errno == EINTR)
        return;
    if (r <= 0) { /* gone without its end line: killed, or crashed */
        if (!h->ended) {
            h->rc = -1;
            snprintf(h->msg, sizeof h->msg, "its process ended without a result");
        }
        h->ended = 1;
        close_fd(&h->fd);
        return;
    }
    h->len += (size_t)r;
    h->line[h->len] = '\0';
    char *nl;
    while ((nl = strchr(h->line, '\n')) != NULL) {
        *nl = '\0';
        int rc, off = 0;
        if (strcmp(h->line, "ready") == 0) {
            h->ready = 1;
        } else if (sscanf(h->line, "end %d %n", &rc, &off) == 1) {
            h->ended = 1;
            h->rc = rc;
            snprintf(h->msg, sizeof h->msg, "%s", off > 0 ? h->line + off : "");
        }
        size_t used = (size_t)(nl + 1 - h->line);
        memmove(h->line, nl + 1, h->len - used + 1);
        h->len -= used;
    }
    if (h->len == sizeof h->line - 1) /* a line too long for us: not ours */
        h->len = 0;
}

static void stop_half(struct half *h)
{
    if (h->pid > 0 && !h->stop_sent && !h->ended)
        kill(h->pid, SIGUSR1);
    h->stop_sent = 1;
}

/* The go line to both, role "a" first. */
static void release(struct half *h[2])
{
    struct timespec wall;
    time_ns mono = clock_now_ns();
    clock_gettime(CLOCK_REALTIME, &wall);
    int64_t offset = (int64_t)wall.tv_sec * NS_PER_S + wall.tv_nsec - (int64_t)mono;
    char go[96];
    snprintf(go, sizeof go, "go %lld %lld\n", (long long)(mono + DUET_GO_AHEAD_NS),
             (long long)offset);
    for (int i = 0; i < 2; i++) {
        write_line(h[i]->fd, go);
        shut_half(h[i]);
    }
}

/* The sweep's side: both halves started, released together, stopped together, waited for. */
static void conduct(struct sweep_exec *x, struct half *h[2])
{
    int released = 0, stopping = 0;
    while (!h[0]->ended || !h[1]->ended) {
        struct pollfd fds[2];
        nfds_t n = 0;
        int which[2];
        for (int i = 0; i < 2; i++)
            if (h[i]->fd >= 0) {
                fds[n] = (struct pollfd){.fd = h[i]->fd, .events = POLLIN};
                which[n++] = i;
            }
        if (n == 0)
            break;
        int r = poll(fds, n, 200);
        for (nfds_t k = 0; r > 0 && k < n; k++)
            if (fds[k].revents)
                read_half(h[which[k]]);
        if (*x->stop && !stopping) { /* SIGTERM to the sweep alone reaches no child */
            stopping = 1;
            for (int i = 0; i < 2; i++) {
                stop_half(h[i]);
                shut_half(h[i]);
            }
        }
        if (!released && !stopping && h[0]->ready && h[1]->ready && !h[0]->ended && !h[1]->ended) {
            release(h);
            released = 1;
        }
        for (int i = 0; i < 2; i++) {
            if (!h[i]->ended)
                continue;
            /* A half that could not start fails the other's barrier; one that ended early (cut
             * short or failed) stops the other. */
            shut_half(h[1 - i]);
            if (h[i]->rc != 0)
                stop_half(h[1 - i]);
        }
    }
    for (int i = 0; i < 2; i++) {
        close_fd(&h[i]->fd);
        if (h[i]->pid > 0)
            while (waitpid(h[i]->pid, NULL, 0) < 0 && errno == EINTR)
                ;
    }
}

/* Start half h (its socket pair, its process); the other's end is closed in the child. */
static int start_half(struct sweep_exec *x, struct half *h, struct half *other, struct err *e)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return err_set(e, ERR_RUNTIME, "sweep --duet: socketpair: %s", strerror(errno));
    /* The child's stop, set before it exists: a stop sent at once must not kill it. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(sv[0]);
        close(sv[1]);
        return err_set(e, ERR_RUNTIME, "sweep --duet: fork: %s", strerror(err));
    }
    if (pid == 0) {
#ifdef __linux__
        /* A sweep killed outright (SIGKILL) stops its halves too: no orphan run goes on beside
         * the sweep that resumes it. */
        prctl(PR_SET_PDEATHSIG, SIGUSR1);
        if (getppid() != parent)
            bench_request_stop();
#endif
        close(sv[0]);
        close_fd(&other->fd);
        run_half(x, h, sv[1]);
    }
    close(sv[1]);
    h->pid = pid;
    h->fd = sv[0];
    return 0;
}

int sweep_run_duet(struct sweep_exec *x, size_t k)
{
    if (*x->stop)
        return -1;
    struct sweep_cell *c = &x->doc.cells[k];
    /* Role a: the first setup in odd trials, the second in even ones. */
    int first = c->trial % 2 == 1 ? 0 : 1;
    struct half *halves = xcalloc(2, sizeof *halves);
    struct half *h[2] = {&halves[first], &halves[1 - first]}; /* by role */
    char duet_id[RUN_ID_LEN + 1];
    run_id_random(duet_id);
    for (int i = 0; i < 2; i++) {
        halves[i].cell = k + (size_t)i;
        halves[i].fd = -1;
        run_id_random(halves[i].duet.run_id);
        snprintf(halves[i].duet.id, sizeof halves[i].duet.id, "%s", duet_id);
    }
    for (int i = 0; i < 2; i++) {
        h[i]->duet.role = i == 0 ? 'a' : 'b';
        snprintf(h[i]->duet.partner, sizeof h[i]->duet.partner, "%s", h[1 - i]->duet.run_id);
    }
    char label[200];
    snprintf(label, sizeof label, "duet %s and %s",
             x->doc.setups[x->doc.cells[h[0]->cell].setup].label,
             x->doc.setups[x->doc.cells[h[1]->cell].setup].label);
    sweep_cell_progress(x, c, label);
    struct err e = {0};
    int rc = 0;
    for (int i = 0; i < 2 && rc == 0; i++) {
        struct sweep_cell *ci = &x->doc.cells[h[i]->cell];
        char *path = xasprintf("%s/%s", x->o->dir, ci->file);
        rc = sweep_cell_prepare(x, ci, path, &e);
        free(path);
    }
    for (int i = 0; i < 2 && rc == 0 && !*x->stop; i++)
        rc = start_half(x, h[i], h[1 - i], &e);
    if (rc < 0) { /* a half not started fails the other's barrier: both fail with e */
        for (int i = 0; i < 2; i++)
            if (!h[i]->pid) {
                h[i]->ended = 1;
                h[i]->rc = -1;
                snprintf(h[i]->msg, sizeof h[i]->msg, "%s", e.msg);
            }
    }
    if (h[0]->pid || h[1]->pid)
        conduct(x, h);
    x->n_done += 2;
    int out = 0;
    for (int i = 0; i < 2; i++) {
        struct half *s = &halves[i];
        if (!s->ended) { /* stopped before it started */
            s->rc = -1;
            snprintf(s->msg, sizeof s->msg, "%s", e.msg[0] ? e.msg : "not started");
        }
        if (sweep_cell_finish(x, &x->doc.cells[s->cell], s->rc, s->msg) < 0)
            out = -1;
    }
    free(halves);
    return out;
}

/* The server and database a setup reaches, as the server names them ("" when it cannot be
 * reached: its cells will say why). */
static void server_key(struct sweep_exec *x, size_t setup, char *key, size_t size)
{
    struct pg_connopts conn;
    sweep_setup_connopts(x, setup, &conn);
    struct err e = {0};
    key[0] = '\0';
    struct pg_conn *c = pg_connect_within(&conn, 10, &e);
    if (c &&
        pg_query_value(c,
                       "SELECT current_setting('port') || ' ' || pg_postmaster_start_time() || "
                       "' ' || current_database()",
                       key, size, &e) < 0)
        key[0] = '\0';
    if (c)
        pg_finish(c);
    pg_connopts_free(&conn);
}

void sweep_duet_check_same(struct sweep_exec *x)
{
    if (!x->doc.duet || x->doc.n_setups != 2)
        return;
    const char *a = sweep_setup_conn(x, 0), *b = sweep_setup_conn(x, 1);
    int same = a && b && strcmp(a, b) == 0;
    if (!same) {
        char ka[512], kb[512];
        server_key(x, 0, ka, sizeof ka);
        server_key(x, 1, kb, sizeof kb);
        same = ka[0] && strcmp(ka, kb) == 0;
    }
    if (same)
        sweep_say(x, SWEEP_SAY_LINE,
                  "pgarena: warning: sweep --duet: setups %s and %s are the same server and "
                  "database: the two halves compete for its rows, locks and WAL\n",
                  x->doc.setups[0].label, x->doc.setups[1].label);
}

#endif
