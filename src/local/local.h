#ifndef PGARENA_LOCAL_LOCAL_H
#define PGARENA_LOCAL_LOCAL_H

#include "base/err.h"

/* What --local preloads, unless --no-statements: every local run reports its statements. */
#define LOCAL_STATEMENTS "pg_stat_statements"

/*
 * A scratch PostgreSQL server for `--local` and `pgarena local start|stop|status`.
 *
 * Binaries come from `pg_config --bindir` (if initdb is there), else the newest
 * /usr/lib/postgresql/NN/bin, else PATH, unless local_start_bin names their folder. The cluster
 * lives in a fresh temporary directory (mode 0700) and listens only on a unix socket inside it
 * (listen_addresses = ''). As root, initdb and the server run as the `postgres` user. It never
 * touches the system's cluster.
 *
 * Ownership: struct local_server is caller-owned plain data; local_stop removes the directory
 * only when owns_dir (local_start created it, or local_attach took it over).
 */
struct local_server {
    char dir[4096];      /* top directory: data/ , the socket and server.log live inside */
    char bindir[4096];   /* where initdb, pg_ctl, postgres were found */
    char conninfo[4352]; /* "host=DIR port=PORT user=postgres dbname=postgres" */
    int port;
    int owns_dir; /* 1 when local_start created dir, so local_stop removes it */
};

/* Create (dir_or_null == NULL: a fresh mkdtemp under $TMPDIR or /tmp; else that directory,
 * created like mkdir -p if missing, which must not hold a cluster or pgarena files yet) and start
 * a server, waiting until it accepts connections. Also registers the directory for
 * local_emergency_cleanup (one server per process: a later local_start replaces the
 * registration). Returns 0, or -1 with e set, having removed whatever it created:
 * ERR_INPUT when the directory is unusable before anything ran (characters other than letters,
 * digits and /._-+,@:% since it goes on the server's command line; longer than a unix socket
 * path allows; already holds data/), else ERR_RUNTIME. As root, only a directory pgarena
 * creates is chowned to postgres; an existing one must already be writable by postgres. */
int local_start(struct local_server *srv, const char *dir_or_null, struct err *e);

/* As local_start, with shared_preload_libraries set to preload (NULL: none) in the cluster's
 * postgresql.conf before it starts. */
int local_start_preload(struct local_server *srv, const char *dir_or_null, const char *preload,
                        struct err *e);

/* As local_start_preload, with the binaries of bin (NULL: found as above), which must hold
 * initdb, pg_ctl and postgres (else ERR_INPUT, one line) of any major. Every major gets the same
 * cluster: data checksums off (18's initdb would turn them on), the same postgresql.conf. The
 * directory remembers bin (pgarena.bindir) for local_attach. */
int local_start_bin(struct local_server *srv, const char *dir_or_null, const char *bin,
                    const char *preload, struct err *e);

/* CREATE EXTENSION IF NOT EXISTS name in the server's database. -1 with e set. */
int local_create_extension(const struct local_server *srv, const char *name, struct err *e);

/* Stop the server (fast shutdown, waits) and unregister it; if owns_dir, delete what pgarena put
 * in the directory (data/, logs, pgarena.conninfo, socket) and then the directory itself unless
 * it holds other files. A server that is not running counts as stopped. Safe to call twice
 * (srv->dir is "" afterwards). Returns 0, or -1 with e set (ERR_RUNTIME). */
int local_stop(struct local_server *srv, struct err *e);

/* Restart a server local_start started (fast shutdown, then start, waiting until it accepts
 * connections), so that settings set with ALTER SYSTEM that need a restart take effect.
 * Returns 0, or -1 with e set (ERR_RUNTIME). */
int local_restart(struct local_server *srv, struct err *e);

/* Attach to a server kept running by `pgarena local start --dir DIR` (reads DIR/pgarena.conninfo,
 * asks pg_ctl status). Returns 0 when DIR holds a running scratch server, -1 with e set
 * (ERR_RUNTIME, "no scratch server running in DIR") otherwise. Sets owns_dir = 1 so that a later
 * local_stop removes it. Does not register it for local_emergency_cleanup. */
int local_attach(struct local_server *srv, const char *dir, struct err *e);

/* Whether this system can run a scratch server: 0, or -1 with e saying it cannot (Windows:
 * --local and `pgarena local` are refused there, exit 2). */
int local_available(struct err *e);

/* Async-signal-safe: send an immediate shutdown (SIGQUIT) to the registered scratch server, wait
 * up to 2 s for it, and remove its files and directory (fork + exec of /bin/rm). Does nothing when
 * none is registered, and runs at most once per registration. For a second Ctrl-C, where normal
 * cleanup cannot run. */
void local_emergency_cleanup(void);

/* Remove path and everything below it, never following symlinks (a scratch server's
 * directory, calibrate's sweeps). A missing path is fine. Returns 0, or -1 with errno set. */
int local_rmtree(const char *path);

#endif
