#ifndef _WIN32 /* Windows: local_none.c */

#include "local/local.h"
#include "local/local_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/mem.h"
#include "pg/pg.h"

#define LOCAL_PORT  5432
#define STR_(x)     #x
#define STR(x)      STR_(x)
#define SOCKET_NAME ".s.PGSQL." STR(LOCAL_PORT)

/* Everything pgarena or its server puts into a scratch directory besides data/. Cleaning up
 * deletes exactly these, so a user's --dir never loses a file pgarena did not create. */
static const char *const artifacts[] = {
    "server.log",     "initdb.log", "pg_ctl.log",        "pgarena.conninfo",
    "pgarena.bindir", SOCKET_NAME,  SOCKET_NAME ".lock",
};
#define N_ARTIFACTS (sizeof artifacts / sizeof artifacts[0])

/* The scratch server local_emergency_cleanup removes. Everything is prepared in advance because
 * a signal handler can neither allocate nor format; armed is set last and cleared first. */
static struct {
    volatile sig_atomic_t armed;
    volatile sig_atomic_t pid;      /* postmaster; 0 until known, then postmaster.pid is read */
    volatile sig_atomic_t starting; /* pg_ctl start is running */
    int created;                    /* this process created dir, so it goes too */
    char dir[PATH_MAX];
    char pidfile[PATH_MAX];
    char paths[1 + N_ARTIFACTS][PATH_MAX]; /* data/ and the artifacts */
    char *argv[3 + 1 + N_ARTIFACTS + 1];   /* rm -rf -- paths... NULL */
} reg;

static void reg_arm(const char *dir, int created)
{
    reg.armed = 0;
    reg.pid = 0;
    reg.starting = 0;
    reg.created = created;
    if (local_fmt(reg.dir, sizeof reg.dir, "%s", dir) < 0 ||
        local_fmt(reg.pidfile, sizeof reg.pidfile, "%s/data/postmaster.pid", dir) < 0 ||
        local_fmt(reg.paths[0], sizeof reg.paths[0], "%s/data", dir) < 0)
        return;
    for (size_t i = 0; i < N_ARTIFACTS; i++)
        if (local_fmt(reg.paths[1 + i], sizeof reg.paths[1 + i], "%s/%s", dir, artifacts[i]) < 0)
            return;
    size_t n = 0;
    reg.argv[n++] = "/bin/rm";
    reg.argv[n++] = "-rf";
    reg.argv[n++] = "--";
    for (size_t i = 0; i < 1 + N_ARTIFACTS; i++)
        reg.argv[n++] = reg.paths[i];
    reg.argv[n] = NULL;
    reg.armed = 1;
}

static void reg_disarm(const char *dir)
{
    if (strcmp(reg.dir, dir) == 0)
        reg.armed = 0;
}

/* Postmaster pid from the first line of postmaster.pid, async-signal-safely; 0 when unknown
 * (no file yet, or the server has not finished writing it). */
static pid_t pidfile_read(const char *path)
{
    char buf[16];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    pid_t pid = 0;
    for (ssize_t i = 0; i < n && i < 10; i++) {
        if (buf[i] == '\n')
            return pid;
        if (buf[i] < '0' || buf[i] > '9')
            return 0;
        pid = pid * 10 + (buf[i] - '0');
    }
    return 0;
}

/* Sleep in a signal handler: poll is async-signal-safe, nanosleep is not listed as such. */
static void sleep_ms(int ms)
{
    poll(NULL, 0, ms);
}

/* Stop the initdb or pg_ctl we are waiting for, and reap it, before deleting its files. */
static void emergency_end_child(void)
{
    pid_t child = local_run_pid;
    if (child <= 0)
        return;
    kill(child, SIGTERM);
    for (int i = 0; i < 250; i++) {
        pid_t r = waitpid(child, NULL, WNOHANG);
        if (r == child || (r < 0 && errno != EINTR))
            return;
        sleep_ms(20);
    }
    kill(child, SIGKILL);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
}

static void emergency_end_postmaster(void)
{
    pid_t pid = reg.pid;
    /* During pg_ctl start the postmaster may exist before its pid file does. */
    for (int i = 0; pid <= 0 && i < (reg.starting ? 50 : 1); i++) {
        pid = pidfile_read(reg.pidfile);
        if (pid <= 0 && reg.starting)
            sleep_ms(20);
    }
    if (pid <= 0 || kill(pid, SIGQUIT) < 0)
        return;
    /* Up to 2 s to take the backends down. The postmaster removes its pid file as it exits;
     * checking the file too ends the wait when nobody reaps the zombie. */
    for (int i = 0; i < 100 && kill(pid, 0) == 0 && access(reg.pidfile, F_OK) == 0; i++)
        sleep_ms(20);
}

void local_emergency_cleanup(void)
{
    if (!reg.armed)
        return;
    reg.armed = 0;
    int saved_errno = errno;
    emergency_end_child();
    emergency_end_postmaster();
    pid_t rm = fork();
    if (rm == 0) {
        execv(reg.argv[0], reg.argv);
        _exit(127);
    }
    if (rm > 0)
        while (waitpid(rm, NULL, 0) < 0 && errno == EINTR)
            ;
    if (reg.created)
        rmdir(reg.dir);
    errno = saved_errno;
}

static int dir_path(char out[PATH_MAX], const char *dir, const char *name)
{
    return local_fmt(out, PATH_MAX, "%s/%s", dir, name);
}

/* The directory lands in pg_ctl's -o string, which a shell splits, and in a unix socket path of
 * at most 107 bytes, so only plain characters and short paths are accepted. */
static int check_dir_name(const char *dir, struct err *e)
{
    static const char punct[] = "/._-+,@:%";
    for (const char *p = dir; *p; p++) {
        int alnum =
            (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
        if (!alnum && !strchr(punct, *p))
            return err_set(e, ERR_INPUT,
                           "scratch directory %s: use only letters, digits and %s (it goes on "
                           "the server's command line)",
                           dir, punct);
    }
    size_t max = sizeof(((struct sockaddr_un *)0)->sun_path) - sizeof("/" SOCKET_NAME);
    if (strlen(dir) > max)
        return err_set(e, ERR_INPUT,
                       "scratch directory %s is too long for a unix socket path (at most %zu "
                       "bytes)",
                       dir, max);
    return 0;
}

/* mkdir -p. Parents get 0755 so that the postgres user can pass through them when we run as
 * root; the leaf gets 0700. *created tells whether the leaf is new. */
static int mkdir_p(const char *path, int *created)
{
    char tmp[PATH_MAX];
    *created = 0;
    if (local_fmt(tmp, sizeof tmp, "%s", path) < 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(tmp, 0700) == 0) {
        *created = 1;
        return 0;
    }
    struct stat st;
    if (errno != EEXIST || stat(tmp, &st) < 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* A --dir may exist already, but must not hold anything we would create (a cluster, or the
 * socket of another server), because cleaning up deletes exactly those names. */
static int check_dir_free(const char *dir, struct err *e)
{
    char path[PATH_MAX];
    struct stat st;
    for (size_t i = 0; i <= N_ARTIFACTS; i++) {
        const char *name = i == 0 ? "data" : artifacts[i - 1];
        if (dir_path(path, dir, name) < 0 || lstat(path, &st) == 0)
            return err_set(e, ERR_INPUT, "%s already holds a server or pgarena files (%s exists)",
                           dir, name);
    }
    return 0;
}

/* Absolute, canonical path of a --dir, created if missing. */
static int dir_from_arg(struct local_server *srv, const char *arg, int *created, struct err *e)
{
    char abs[PATH_MAX], cwd[PATH_MAX], real[PATH_MAX];
    int fits = arg[0] == '/'
                   ? local_fmt(abs, sizeof abs, "%s", arg) == 0
                   : getcwd(cwd, sizeof cwd) && local_fmt(abs, sizeof abs, "%s/%s", cwd, arg) == 0;
    if (!fits)
        return err_set(e, ERR_INPUT, "scratch directory %s: path too long", arg);
    for (size_t len = strlen(abs); len > 1 && abs[len - 1] == '/'; len--)
        abs[len - 1] = '\0';
    if (check_dir_name(abs, e) < 0)
        return -1;
    if (mkdir_p(abs, created) < 0)
        return err_set(e, ERR_RUNTIME, "cannot create %s: %s", abs, strerror(errno));
    if (!realpath(abs, real)) {
        err_set(e, ERR_RUNTIME, "cannot resolve %s: %s", abs, strerror(errno));
    } else if (check_dir_name(real, e) == 0 && check_dir_free(real, e) == 0 &&
               local_fmt(srv->dir, sizeof srv->dir, "%s", real) == 0) {
        return 0;
    }
    if (*created)
        rmdir(abs);
    return -1;
}

/* A fresh mkdtemp directory under $TMPDIR or /tmp. */
static int dir_make_temp(struct local_server *srv, int *created, struct err *e)
{
    const char *base = getenv("TMPDIR");
    if (!base || !base[0])
        base = "/tmp";
    size_t len = strlen(base);
    while (len > 1 && base[len - 1] == '/')
        len--;
    char tmpl[PATH_MAX], real[PATH_MAX];
    if (local_fmt(tmpl, sizeof tmpl, "%.*s/pgarena-XXXXXX", (int)len, base) < 0)
        return err_set(e, ERR_INPUT, "TMPDIR is too long");
    if (check_dir_name(tmpl, e) < 0)
        return -1;
    if (!mkdtemp(tmpl))
        return err_set(e, ERR_RUNTIME, "cannot create a directory in %s: %s", base,
                       strerror(errno));
    *created = 1;
    if (!realpath(tmpl, real)) {
        err_set(e, ERR_RUNTIME, "cannot resolve %s: %s", tmpl, strerror(errno));
    } else if (check_dir_name(real, e) == 0 &&
               local_fmt(srv->dir, sizeof srv->dir, "%s", real) == 0) {
        return 0;
    }
    rmdir(tmpl);
    return -1;
}

/* As root the server runs as postgres, which must own (or at least reach) the directory. Only a
 * directory we created is chowned: a user's existing one (say --dir /srv) is left alone. */
static int dir_give_to_server(const struct local_server *srv, const struct local_runas *ra,
                              int created, struct err *e)
{
    if (!ra->drop)
        return 0;
    if (created && chown(srv->dir, ra->uid, ra->gid) < 0)
        return err_set(e, ERR_RUNTIME, "cannot give %s to the postgres user: %s", srv->dir,
                       strerror(errno));
    if (local_can_reach(ra, srv->dir))
        return 0;
    if (created)
        return err_set(e, ERR_RUNTIME,
                       "the postgres user cannot reach %s (a parent directory is private?); "
                       "choose another --dir or TMPDIR",
                       srv->dir);
    return err_set(e, ERR_RUNTIME,
                   "%s must be writable by the postgres user, which runs the server when "
                   "pgarena runs as root",
                   srv->dir);
}

/* Remove data/ and the artifacts; then the directory itself if asked and it is empty (a user's
 * --dir may hold files of its own, which stay). -1 with errno on failure. */
static int dir_clean(const char *dir, int remove_dir)
{
    char path[PATH_MAX];
    if (dir_path(path, dir, "data") < 0 || local_rmtree(path) < 0)
        return -1;
    for (size_t i = 0; i < N_ARTIFACTS; i++)
        if (dir_path(path, dir, artifacts[i]) < 0 || (unlink(path) < 0 && errno != ENOENT))
            return -1;
    if (remove_dir && rmdir(dir) < 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
        return -1;
    return 0;
}

static int cluster_init(const struct local_server *srv, const struct local_runas *ra, struct err *e)
{
    char initdb[PATH_MAX], data[PATH_MAX], log[PATH_MAX];
    if (dir_path(initdb, srv->bindir, "initdb") < 0 || dir_path(data, srv->dir, "data") < 0 ||
        dir_path(log, srv->dir, "initdb.log") < 0)
        return err_set(e, ERR_RUNTIME, "path too long under %s", srv->dir);
    /* Data checksums off on every major, as initdb before 18 leaves them, so that majors are
     * compared on the same cluster; 18 turns them on unless told (its option is new in 18). */
    char *version_argv[] = {initdb, "--version", NULL};
    int rc = local_run(ra, version_argv, log, e);
    if (rc < 0)
        return -1;
    char line[512];
    local_log_line(log, line, sizeof line);
    const char *v = strstr(line, "PostgreSQL) ");
    int major = rc == 0 && v ? atoi(v + strlen("PostgreSQL) ")) : 0;
    /* No --no-instructions (PostgreSQL 14+ only): its output goes to the log anyway. -N skips
     * the fsync of a cluster that lives for one run. */
    char *argv[] = {initdb,
                    "-D",
                    data,
                    "-U",
                    "postgres",
                    "-A",
                    "trust",
                    "-E",
                    "UTF8",
                    "-N",
                    major >= 18 ? "--no-data-checksums" : NULL,
                    NULL};
    rc = local_run(ra, argv, log, e);
    if (rc <= 0)
        return rc;
    local_log_line(log, line, sizeof line);
    if (line[0])
        return err_set(e, ERR_RUNTIME, "initdb failed: %s", line);
    return err_set(e, ERR_RUNTIME, "initdb failed (exit status %d)", rc);
}

/* pg_ctl start -w: returns once the server accepts connections. *started is set before pg_ctl
 * runs, since a timed-out start may still leave a postmaster behind to stop. */
static int server_start(const struct local_server *srv, const struct local_runas *ra, int *started,
                        struct err *e)
{
    char pg_ctl[PATH_MAX], data[PATH_MAX], log[PATH_MAX], ctl_log[PATH_MAX], opts[PATH_MAX];
    if (dir_path(pg_ctl, srv->bindir, "pg_ctl") < 0 || dir_path(data, srv->dir, "data") < 0 ||
        dir_path(log, srv->dir, "server.log") < 0 ||
        dir_path(ctl_log, srv->dir, "pg_ctl.log") < 0 ||
        local_fmt(opts, sizeof opts, "-k %s -c listen_addresses='' -p %d", srv->dir, srv->port) < 0)
        return err_set(e, ERR_RUNTIME, "path too long under %s", srv->dir);
    char *argv[] = {pg_ctl, "-D", data, "-l", log, "-w", "-t", "60", "-o", opts, "start", NULL};
    *started = 1;
    reg.starting = 1;
    int rc = local_run(ra, argv, ctl_log, e);
    reg.starting = 0;
    if (rc <= 0)
        return rc;
    /* The server's own log says why (FATAL: ...); pg_ctl's only says that it failed. */
    char line[512];
    local_log_line(log, line, sizeof line);
    if (!line[0])
        local_log_line(ctl_log, line, sizeof line);
    return err_set(e, ERR_RUNTIME, "could not start the scratch server: %s",
                   line[0] ? line : "pg_ctl failed");
}

/* 1 when the server in srv->dir runs, 0 when not, -1 with e set when pg_ctl cannot tell. */
static int server_running(const struct local_server *srv, const struct local_runas *ra,
                          struct err *e)
{
    char pg_ctl[PATH_MAX], data[PATH_MAX];
    if (dir_path(pg_ctl, srv->bindir, "pg_ctl") < 0 || dir_path(data, srv->dir, "data") < 0)
        return err_set(e, ERR_RUNTIME, "path too long under %s", srv->dir);
    char *argv[] = {pg_ctl, "-D", data, "status", NULL};
    int rc = local_run(ra, argv, NULL, e);
    if (rc < 0)
        return -1;
    /* pg_ctl status: 0 running, 3 not running, 4 no usable data directory. */
    if (rc == 0)
        return 1;
    if (rc == 3 || rc == 4)
        return 0;
    return err_set(e, ERR_RUNTIME, "pg_ctl status failed for %s (exit status %d)", data, rc);
}

/* pg_ctl stop -w in the given mode. A server that is not running counts as stopped. */
static int server_stop(const struct local_server *srv, const struct local_runas *ra,
                       const char *mode, struct err *e)
{
    char pg_ctl[PATH_MAX], data[PATH_MAX], log[PATH_MAX];
    if (dir_path(pg_ctl, srv->bindir, "pg_ctl") < 0 || dir_path(data, srv->dir, "data") < 0 ||
        dir_path(log, srv->dir, "pg_ctl.log") < 0)
        return err_set(e, ERR_RUNTIME, "path too long under %s", srv->dir);
    char *argv[] = {pg_ctl, "-D", data, "-m", (char *)mode, "-w", "stop", NULL};
    int rc = local_run(ra, argv, log, e);
    if (rc <= 0)
        return rc;
    int running = server_running(srv, ra, e);
    if (running <= 0)
        return running;
    char line[512];
    local_log_line(log, line, sizeof line);
    return err_set(e, ERR_RUNTIME, "could not stop the scratch server in %s: %s", srv->dir,
                   line[0] ? line : "pg_ctl stop failed");
}

/* Set srv->conninfo and write it to DIR/pgarena.conninfo for a later local_attach. */
static int conninfo_publish(struct local_server *srv, struct err *e)
{
    char path[PATH_MAX];
    if (local_fmt(srv->conninfo, sizeof srv->conninfo,
                  "host=%s port=%d user=postgres dbname=postgres", srv->dir, srv->port) < 0 ||
        dir_path(path, srv->dir, "pgarena.conninfo") < 0)
        return err_set(e, ERR_RUNTIME, "path too long under %s", srv->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return err_set(e, ERR_RUNTIME, "cannot write %s: %s", path, strerror(errno));
    int bad = fprintf(f, "%s\n", srv->conninfo) < 0;
    bad |= fclose(f) != 0;
    if (bad)
        return err_set(e, ERR_RUNTIME, "cannot write %s", path);
    /* The binaries too: status and stop must use the server's own major's pg_ctl (--bin). */
    if (dir_path(path, srv->dir, "pgarena.bindir") < 0 || !(f = fopen(path, "w")))
        return err_set(e, ERR_RUNTIME, "cannot write %s/pgarena.bindir", srv->dir);
    bad = fprintf(f, "%s\n", srv->bindir) < 0;
    bad |= fclose(f) != 0;
    return bad ? err_set(e, ERR_RUNTIME, "cannot write %s", path) : 0;
}

/* The binaries a server in srv->dir was started with (pgarena.bindir), else the ones found as
 * for a new server (a directory from a pgarena before --bin). */
static int bindir_read(struct local_server *srv, struct err *e)
{
    char path[PATH_MAX];
    FILE *f = dir_path(path, srv->dir, "pgarena.bindir") == 0 ? fopen(path, "r") : NULL;
    if (f) {
        int got = fgets(srv->bindir, sizeof srv->bindir, f) != NULL;
        fclose(f);
        srv->bindir[strcspn(srv->bindir, "\r\n")] = '\0';
        if (got && srv->bindir[0] == '/')
            return 0;
    }
    return local_find_bindir(srv->bindir, sizeof srv->bindir, e);
}

/* Read DIR/pgarena.conninfo into srv->conninfo and srv->port. */
static int conninfo_read(struct local_server *srv)
{
    char path[PATH_MAX];
    if (dir_path(path, srv->dir, "pgarena.conninfo") < 0)
        return -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int got = fgets(srv->conninfo, sizeof srv->conninfo, f) != NULL;
    fclose(f);
    srv->conninfo[strcspn(srv->conninfo, "\r\n")] = '\0';
    if (!got || !srv->conninfo[0])
        return -1;
    const char *port = strstr(srv->conninfo, "port=");
    srv->port = port ? atoi(port + strlen("port=")) : LOCAL_PORT;
    return 0;
}

/* Undo a failed local_start: stop what started, delete what was created, leave srv empty. */
static void start_undo(struct local_server *srv, const struct local_runas *ra, int started,
                       int created)
{
    struct err ignored;
    if (started)
        server_stop(srv, ra, "immediate", &ignored);
    reg_disarm(srv->dir);
    dir_clean(srv->dir, created);
    srv->dir[0] = '\0';
    srv->conninfo[0] = '\0';
    srv->owns_dir = 0;
}

/* Append `shared_preload_libraries = 'LIBS'` to the new cluster's postgresql.conf: a setting
 * like any other, which ALTER SYSTEM (sweep --set) still overrides. */
static int conf_preload(const struct local_server *srv, const char *libs, struct err *e)
{
    char path[PATH_MAX];
    if (dir_path(path, srv->dir, "data/postgresql.conf") < 0)
        return err_set(e, ERR_RUNTIME, "path too long under %s", srv->dir);
    FILE *f = fopen(path, "a");
    int bad = !f || fprintf(f, "shared_preload_libraries = '%s'\n", libs) < 0;
    if (f && fclose(f) != 0)
        bad = 1;
    return bad ? err_set(e, ERR_RUNTIME, "cannot write %s: %s", path, strerror(errno)) : 0;
}

int local_start(struct local_server *srv, const char *dir_or_null, struct err *e)
{
    return local_start_preload(srv, dir_or_null, NULL, e);
}

int local_start_preload(struct local_server *srv, const char *dir_or_null, const char *preload,
                        struct err *e)
{
    return local_start_bin(srv, dir_or_null, NULL, preload, e);
}

int local_start_bin(struct local_server *srv, const char *dir_or_null, const char *bin,
                    const char *preload, struct err *e)
{
    struct local_runas ra;
    int created = 0, started = 0;
    memset(srv, 0, sizeof *srv);
    srv->port = LOCAL_PORT;
    if (local_runas_get(&ra, e) < 0 ||
        (bin ? local_check_bindir(bin, srv->bindir, sizeof srv->bindir, e)
             : local_find_bindir(srv->bindir, sizeof srv->bindir, e)) < 0)
        return -1;
    int rc =
        dir_or_null ? dir_from_arg(srv, dir_or_null, &created, e) : dir_make_temp(srv, &created, e);
    if (rc < 0)
        return -1;
    srv->owns_dir = created;
    reg_arm(srv->dir, created);
    if (dir_give_to_server(srv, &ra, created, e) < 0 || cluster_init(srv, &ra, e) < 0 ||
        (preload && conf_preload(srv, preload, e) < 0) || server_start(srv, &ra, &started, e) < 0 ||
        conninfo_publish(srv, e) < 0) {
        start_undo(srv, &ra, started, created);
        return -1;
    }
    char pidfile[PATH_MAX];
    if (dir_path(pidfile, srv->dir, "data/postmaster.pid") == 0)
        reg.pid = pidfile_read(pidfile);
    return 0;
}

int local_create_extension(const struct local_server *srv, const char *name, struct err *e)
{
    struct pg_connopts o = {0};
    o.dbname = xstrdup(srv->conninfo);
    struct pg_conn *c = pg_connect(&o, e);
    pg_connopts_free(&o);
    if (!c)
        return -1;
    char sql[256];
    snprintf(sql, sizeof sql, "CREATE EXTENSION IF NOT EXISTS %s", name);
    int rc = pg_exec(c, sql, e);
    pg_finish(c);
    return rc;
}

int local_stop(struct local_server *srv, struct err *e)
{
    if (!srv->dir[0])
        return 0;
    struct local_runas ra;
    struct stat st;
    /* A directory already gone (emergency cleanup, or removed by hand) holds no server. */
    if (stat(srv->dir, &st) == 0 || errno != ENOENT) {
        if (local_runas_get(&ra, e) < 0 || server_stop(srv, &ra, "fast", e) < 0)
            return -1;
    }
    reg_disarm(srv->dir);
    if (srv->owns_dir && dir_clean(srv->dir, 1) < 0)
        return err_set(e, ERR_RUNTIME, "cannot remove %s: %s", srv->dir, strerror(errno));
    srv->dir[0] = '\0';
    return 0;
}

int local_attach(struct local_server *srv, const char *dir, struct err *e)
{
    struct local_runas ra;
    char real[PATH_MAX];
    memset(srv, 0, sizeof *srv);
    if (!realpath(dir, real) || local_fmt(srv->dir, sizeof srv->dir, "%s", real) < 0 ||
        conninfo_read(srv) < 0) {
        memset(srv, 0, sizeof *srv);
        return err_set(e, ERR_RUNTIME, "no scratch server running in %s", dir);
    }
    int running = -1;
    if (local_runas_get(&ra, e) == 0 && bindir_read(srv, e) == 0)
        running = server_running(srv, &ra, e);
    if (running <= 0) {
        memset(srv, 0, sizeof *srv);
        return running < 0 ? -1 : err_set(e, ERR_RUNTIME, "no scratch server running in %s", dir);
    }
    srv->owns_dir = 1;
    return 0;
}

int local_restart(struct local_server *srv, struct err *e)
{
    struct local_runas ra;
    int started = 0;
    if (local_runas_get(&ra, e) < 0 || server_stop(srv, &ra, "fast", e) < 0 ||
        server_start(srv, &ra, &started, e) < 0)
        return -1;
    char pidfile[PATH_MAX];
    if (dir_path(pidfile, srv->dir, "data/postmaster.pid") == 0)
        reg.pid = pidfile_read(pidfile);
    return 0;
}

int local_available(struct err *e)
{
    (void)e;
    return 0;
}

#endif
