#ifndef PGARENA_LOCAL_LOCAL_INT_H
#define PGARENA_LOCAL_LOCAL_INT_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/printf.h"

/*
 * Process and file helpers shared inside the local module (local_proc.c). Callers own every
 * buffer they pass; nothing here allocates memory that outlives a call.
 */

/* Who runs initdb and pg_ctl: both refuse root, so as root they run as the `postgres` user. */
struct local_runas {
    int drop; /* 1: switch to uid/gid in the child before exec */
    uid_t uid;
    gid_t gid;
};

/* Fill ra for the current effective user. -1 with e set (ERR_RUNTIME) when root and there is no
 * `postgres` user. */
int local_runas_get(struct local_runas *ra, struct err *e);

/* Find the directory holding initdb and pg_ctl (pg_config --bindir, else the newest
 * /usr/lib/postgresql/NN/bin, else PATH) into out (n bytes). -1 with e set when none. */
int local_find_bindir(char *out, size_t n, struct err *e);

/* The absolute form of dir into out (n bytes) when it holds executable initdb, pg_ctl and
 * postgres; else -1 with e set (ERR_INPUT, one line naming what is missing). */
int local_check_bindir(const char *dir, char *out, size_t n, struct err *e);

/* Run argv[0] (an absolute path) with stdin from /dev/null and stdout and stderr appended to
 * log_path (NULL: /dev/null), as ra says, and wait for it. Returns its exit status (0..255,
 * 128 + signal number when killed), or -1 with e set when it could not be started. */
int local_run(const struct local_runas *ra, char *const argv[], const char *log_path,
              struct err *e);

/* 1 when the user ra runs as may read, write and enter dir (it may not when a parent directory
 * is private to root, e.g. under /root); 1 as well when that cannot be checked. */
int local_can_reach(const struct local_runas *ra, const char *dir);

/* Pid of the program local_run is waiting for, 0 when none: local_emergency_cleanup lets it end
 * before deleting the files it writes (initdb, for one, cleans up after itself on a signal). */
extern volatile sig_atomic_t local_run_pid;

/* The most telling line of a log: the last one mentioning FATAL, PANIC or error, else the last
 * non-empty one, without its newline. out is "" when the file is missing or empty. */
void local_log_line(const char *path, char *out, size_t n);

/* snprintf that reports truncation: 0 when the result fits in n bytes, else -1. */
int local_fmt(char *out, size_t n, const char *fmt, ...) PRINTF_LIKE(3, 4);

#endif
