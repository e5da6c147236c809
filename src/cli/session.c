#include "cli/session.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "bench/bench.h"

volatile int session_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    if (session_interrupted) {
        /* Second signal: no waiting for anything. The result file is either complete or not
         * there, because it is only ever renamed into place. */
        local_emergency_cleanup();
        static const char msg[] = "pgarena: interrupted again, exiting now\n";
        ssize_t r = write(2, msg, sizeof msg - 1);
        (void)r;
        _exit(1);
    }
    session_interrupted = 1;
    bench_request_stop();
}

void session_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int session_local_start(struct local_server *srv, struct pg_connopts *conn, struct err *e)
{
    if (local_start(srv, NULL, e) < 0)
        return -1;
    pg_connopts_free(conn);
    conn->dbname = xstrdup(srv->conninfo);
    return 0;
}

int session_local_start_run(struct local_server *srv, struct pg_connopts *conn, int statements,
                            struct err *e)
{
    if (!statements)
        return session_local_start(srv, conn, e);
    if (local_start_preload(srv, NULL, LOCAL_STATEMENTS, e) < 0 ||
        local_create_extension(srv, LOCAL_STATEMENTS, e) < 0)
        return -1;
    pg_connopts_free(conn);
    conn->dbname = xstrdup(srv->conninfo);
    return 0;
}

void session_local_stop(struct local_server *srv)
{
    struct err e = {0};
    if (srv->dir[0] && local_stop(srv, &e) < 0)
        fprintf(stderr, "pgarena: stopping the scratch server: %s\n", e.msg);
}
