#ifndef _WIN32 /* Windows: local_none.c */

#include "local/local_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

volatile sig_atomic_t local_run_pid;

int local_fmt(char *out, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(out, n, fmt, ap);
    va_end(ap);
    return len < 0 || (size_t)len >= n ? -1 : 0;
}

int local_runas_get(struct local_runas *ra, struct err *e)
{
    memset(ra, 0, sizeof *ra);
    if (geteuid() != 0)
        return 0;
    struct passwd *pw = getpwnam("postgres");
    if (!pw || pw->pw_uid == 0)
        return err_set(e, ERR_RUNTIME,
                       "running as root needs a non-root `postgres` user to run the scratch "
                       "server (initdb refuses root)");
    ra->drop = 1;
    ra->uid = pw->pw_uid;
    ra->gid = pw->pw_gid;
    return 0;
}

/* 1 when dir holds executable initdb and pg_ctl, the two programs this module runs. */
static int has_server_bins(const char *dir)
{
    static const char *const names[] = {"initdb", "pg_ctl"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[PATH_MAX];
        struct stat st;
        if (local_fmt(path, sizeof path, "%s/%s", dir, names[i]) < 0 || stat(path, &st) < 0 ||
            !S_ISREG(st.st_mode) || access(path, X_OK) < 0)
            return 0;
    }
    return 1;
}

static int bindir_from_pg_config(char *out, size_t n)
{
    /* pg_config may belong to the client package only (bindir /usr/bin, no initdb there), so
     * its answer counts only when the server programs are really in it. */
    FILE *f = popen("pg_config --bindir 2>/dev/null", "r");
    if (!f)
        return -1;
    char line[PATH_MAX];
    int got = fgets(line, sizeof line, f) != NULL;
    pclose(f);
    if (!got)
        return -1;
    line[strcspn(line, "\r\n")] = '\0';
    if (line[0] != '/' || !has_server_bins(line))
        return -1;
    return local_fmt(out, n, "%s", line);
}

/* Sort key of a /usr/lib/postgresql entry ("15", "9.6"); -1 when the name is not a version. */
static long version_key(const char *name)
{
    if (!isdigit((unsigned char)name[0]))
        return -1;
    char *end;
    long major = strtol(name, &end, 10);
    long minor = 0;
    if (*end == '.' && isdigit((unsigned char)end[1]))
        minor = strtol(end + 1, &end, 10);
    if (*end != '\0' || major > 100000 || minor > 999)
        return -1;
    return major * 1000 + minor;
}

static int bindir_from_usr_lib(char *out, size_t n)
{
    DIR *d = opendir("/usr/lib/postgresql");
    if (!d)
        return -1;
    long best_key = -1;
    char best[PATH_MAX] = "";
    char cand[PATH_MAX];
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        long key = version_key(de->d_name);
        if (key <= best_key ||
            local_fmt(cand, sizeof cand, "/usr/lib/postgresql/%s/bin", de->d_name) < 0 ||
            !has_server_bins(cand))
            continue;
        best_key = key;
        memcpy(best, cand, sizeof best);
    }
    closedir(d);
    return best_key < 0 ? -1 : local_fmt(out, n, "%s", best);
}

static int bindir_from_path(char *out, size_t n)
{
    const char *p = getenv("PATH");
    while (p && *p) {
        size_t len = strcspn(p, ":");
        char dir[PATH_MAX], file[PATH_MAX], real[PATH_MAX];
        /* An empty PATH entry means the current directory. */
        int ok = len == 0 ? local_fmt(dir, sizeof dir, ".") == 0
                          : local_fmt(dir, sizeof dir, "%.*s", (int)len, p) == 0;
        /* Resolve symlinks such as /usr/local/bin/initdb: the real directory is the one that
         * holds postgres too, which pg_ctl expects next to itself. */
        if (ok && has_server_bins(dir) && local_fmt(file, sizeof file, "%s/initdb", dir) == 0 &&
            realpath(file, real)) {
            *strrchr(real, '/') = '\0';
            if (has_server_bins(real))
                return local_fmt(out, n, "%s", real);
        }
        p += len;
        if (*p == ':')
            p++;
    }
    return -1;
}

int local_find_bindir(char *out, size_t n, struct err *e)
{
    if (bindir_from_pg_config(out, n) == 0 || bindir_from_usr_lib(out, n) == 0 ||
        bindir_from_path(out, n) == 0)
        return 0;
    out[0] = '\0';
    return err_set(e, ERR_RUNTIME,
                   "no PostgreSQL server binaries found (install the postgresql package)");
}

int local_check_bindir(const char *dir, char *out, size_t n, struct err *e)
{
    static const char *const names[] = {"initdb", "pg_ctl", "postgres"};
    char real[PATH_MAX], missing[64] = "";
    if (!realpath(dir, real))
        return err_set(e, ERR_INPUT, "--bin %s: %s", dir, strerror(errno));
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[PATH_MAX];
        struct stat st;
        if (local_fmt(path, sizeof path, "%s/%s", real, names[i]) < 0 || stat(path, &st) < 0 ||
            !S_ISREG(st.st_mode) || access(path, X_OK) < 0)
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
                     missing[0] ? ", " : "", names[i]);
    }
    if (missing[0])
        return err_set(e, ERR_INPUT,
                       "--bin %s: no %s there (give the bin directory of a PostgreSQL "
                       "server)",
                       dir, missing);
    if (local_fmt(out, n, "%s", real) < 0)
        return err_set(e, ERR_INPUT, "--bin %s: path too long", dir);
    return 0;
}

/* Why a child could not exec, sent to the parent over a close-on-exec pipe: a child that fails
 * before exec has no other way to say why. */
struct child_fail {
    int stage;
    int err;
};

enum { STAGE_USER, STAGE_LOG, STAGE_EXEC };

static const char *const stage_what[] = {
    [STAGE_USER] = "switch to the postgres user to run",
    [STAGE_LOG] = "open the log for",
    [STAGE_EXEC] = "execute",
};

static int drop_privileges(const struct local_runas *ra)
{
    if (!ra->drop)
        return 0;
    /* Groups first: after setuid we would no longer be allowed to change them. */
    if (setgroups(1, &ra->gid) < 0 || setgid(ra->gid) < 0 || setuid(ra->uid) < 0)
        return -1;
    return 0;
}

static _Noreturn void child_fail(int fd, int stage)
{
    struct child_fail f = {stage, errno};
    ssize_t w = write(fd, &f, sizeof f);
    (void)w;
    _exit(127);
}

/* In the forked child, so only async-signal-safe calls: the parent may have threads. */
static _Noreturn void child_exec(const struct local_runas *ra, char *const argv[],
                                 const char *log_path, int fail_fd)
{
    /* The signal mask and ignored signals survive exec; the server must not inherit the
     * benchmark's (e.g. a blocked SIGINT) or it would not shut down when asked. */
    static const int sigs[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD};
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (drop_privileges(ra) < 0)
        child_fail(fail_fd, STAGE_USER);
    /* Opened after dropping privileges so that the log belongs to whoever writes it. */
    int in = open("/dev/null", O_RDONLY);
    int out = open(log_path ? log_path : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        child_fail(fail_fd, STAGE_LOG);
#ifdef CLOSE_RANGE_CLOEXEC
    /* Keep the benchmark's descriptors (sockets, epoll) out of a long-lived postmaster. */
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
#endif
    execv(argv[0], argv);
    child_fail(fail_fd, STAGE_EXEC);
}

static int wait_child(pid_t pid, int *status)
{
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

int local_run(const struct local_runas *ra, char *const argv[], const char *log_path, struct err *e)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return err_set(e, ERR_RUNTIME, "cannot create a pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(fds[0]);
        close(fds[1]);
        return err_set(e, ERR_RUNTIME, "cannot fork to run %s: %s", argv[0], strerror(err));
    }
    if (pid == 0) {
        close(fds[0]);
        child_exec(ra, argv, log_path, fds[1]);
    }
    local_run_pid = pid;
    close(fds[1]);
    struct child_fail f;
    ssize_t got;
    do
        got = read(fds[0], &f, sizeof f);
    while (got < 0 && errno == EINTR);
    close(fds[0]);
    int status;
    int waited = wait_child(pid, &status);
    local_run_pid = 0;
    if (waited < 0)
        return err_set(e, ERR_RUNTIME, "cannot wait for %s: %s", argv[0], strerror(errno));
    if (got == (ssize_t)sizeof f && f.stage >= 0 && f.stage <= STAGE_EXEC)
        return err_set(e, ERR_RUNTIME, "cannot %s %s: %s", stage_what[f.stage], argv[0],
                       strerror(f.err));
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

int local_can_reach(const struct local_runas *ra, const char *dir)
{
    if (!ra->drop)
        return 1;
    pid_t pid = fork();
    if (pid < 0)
        return 1; /* cannot tell; initdb will report the problem itself */
    if (pid == 0) {
        if (drop_privileges(ra) < 0)
            _exit(2);
        _exit(access(dir, R_OK | W_OK | X_OK) == 0 ? 0 : 1);
    }
    int status;
    if (wait_child(pid, &status) < 0)
        return 1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* 1 for a line that probably explains a failure. */
static int is_telling(const char *line)
{
    return strstr(line, "FATAL") || strstr(line, "PANIC") || strcasestr(line, "error");
}

void local_log_line(const char *path, char *out, size_t n)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char last[512] = "", telling[512] = "";
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = '\0';
        if (len == 0)
            continue;
        snprintf(last, sizeof last, "%s", line);
        if (is_telling(line))
            snprintf(telling, sizeof telling, "%s", line);
    }
    free(line);
    fclose(f);
    snprintf(out, n, "%s", telling[0] ? telling : last);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    int rc = flag == FTW_DP ? rmdir(path) : unlink(path);
    return rc < 0 && errno != ENOENT ? -1 : 0;
}

int local_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
    /* Depth first, so each directory is empty when its turn comes; FTW_PHYS never follows a
     * symlink out of the tree. */
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

#endif
