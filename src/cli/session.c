#include "cli/session.h"

#include <stdio.h>

#include "base/mem.h"
#include "bench/bench.h"
#include "os/os.h"

volatile int session_interrupted;

static void on_signal(int sig)
{
    (void)sig;
    if (session_interrupted) {
        /* Second signal: no waiting for anything. The result file is either complete or not
         * there, because it is only ever renamed into place. */
        local_emergency_cleanup();
        static const char msg[] = "pgarena: interrupted again, exiting now\n";
        os_exit_now(msg, sizeof msg - 1, 1);
    }
    session_interrupted = 1;
    bench_request_stop();
}

void session_signals_install(void)
{
    os_on_interrupt(on_signal, NULL);
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
