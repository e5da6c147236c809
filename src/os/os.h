#ifndef PGARENA_OS_OS_H
#define PGARENA_OS_OS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "base/clock.h"

/*
 * What differs between Linux, other POSIX systems and Windows, in one place: the process's
 * start, machine facts, CPU times, randomness, Ctrl-C and termination, files (durable atomic
 * replace, temporary files, locks, directories) and the home directory. os_posix.c is the
 * POSIX branch (Linux keeps /proc's figures, read in server/), os_win.c the Windows one. A
 * figure the platform cannot give is reported as absent (NULL, -1), never as a zero.
 * Ownership: strings returned are new (the caller frees them); nothing else is allocated.
 */

#ifdef _WIN32
/* Windows has no such flags: a descriptor is kept from child processes by _O_NOINHERIT. */
#define OS_O_CLOEXEC 0x0080 /* _O_NOINHERIT */
#else
#include <fcntl.h>
#define OS_O_CLOEXEC O_CLOEXEC
#endif

/* At the start of main: POSIX ignores SIGXFSZ (a write error says why instead); Windows
 * replaces *argc and *argv (when not NULL) by the command line in UTF-8 (main's is in the ANSI
 * code page), opens files and stdout and stderr in binary mode (the same bytes as on Linux),
 * starts Winsock and speaks UTF-8 to the console. */
void os_init(int *argc, char ***argv);

/* Online CPUs, or -1 when unknown. */
long os_cpus(void);
/* Physical memory in bytes, or 0 when unknown (the result leaves it out). */
int64_t os_memory_bytes(void);
/* "sysname release machine" ("Linux 6.1.0 x86_64", "Windows 10.0.19045 x86_64"), or NULL. */
char *os_system(void);
/* The kernel's release and version ("6.1.0-18-amd64 #1 SMP ..."), or NULL. */
char *os_kernel(void);
/* The CPU model ("Intel(R) Xeon(R) ...") and the edition ("Windows 10 Pro") where the system
 * has an API for them (Windows' registry), else NULL: on POSIX systems server/machine.c parses
 * /proc/cpuinfo and os-release. */
char *os_cpu_model(void);
char *os_distribution(void);

/* The process's user and system CPU time in seconds: 0, or -1 when unknown. */
int os_process_cpu(double *user_s, double *system_s);

/* The clock ticks per second of threads' CPU times (/proc's, or os_threads_cpu's). */
long os_clock_ticks(void);
/* The CPU time (user + system, in os_clock_ticks units) of each thread of this process, by
 * thread ID, in new arrays: 0, or -1 where the system has no call for it (Linux: /proc is
 * read by server/procstat.c). */
int os_threads_cpu(size_t *n, int **tid, uint64_t **ticks);

/* n random bytes from the system: 0, or -1 when it has none to give. */
int os_random(void *buf, size_t n);
/* Wall-clock time in nanoseconds since the Unix epoch. */
int64_t os_wall_ns(void);

/* A condition variable whose timed waits end at deadlines on clock_now_ns's clock (POSIX:
 * CLOCK_MONOTONIC; winpthreads has only the wall clock for them, so Windows converts): 0, or
 * an error number. */
int os_cond_init(pthread_cond_t *cv);
/* Wait on cv (mu held) until it is signalled or deadline (clock_now_ns) has come. */
void os_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, time_ns deadline);

/* Raise the open-files limit to needed where allowed: the limit after, or -1 when unknown. */
long os_fdlimit_ensure(long needed);

/* Call fn on Ctrl-C and on a request to terminate (SIGINT/SIGTERM; on Windows the console's
 * control events), in a signal handler or the console's handler thread: fn must be
 * async-signal-safe. save, when not NULL, receives what was there before (for
 * os_interrupt_restore). */
#ifdef _WIN32
struct os_interrupt_saved {
    void (*fn)(int);
};
#else
#include <signal.h>
struct os_interrupt_saved {
    struct sigaction sigint, sigterm;
};
#endif
void os_on_interrupt(void (*fn)(int), struct os_interrupt_saved *save);
void os_interrupt_restore(const struct os_interrupt_saved *save);
/* Write a message to stderr and end the process at once with status (from a handler). */
void os_exit_now(const char *msg, size_t len, int status);

/* Files by path. pgarena's paths are UTF-8; Windows hands them to its wide-character calls
 * (as UTF-16: _wfopen, _wopen, _wstat64...), so that names outside the ANSI code page work,
 * and opens every file in binary mode. POSIX: the plain calls. Each returns what its POSIX
 * call does, errno set on failure. */
FILE *os_fopen(const char *path, const char *mode);
int os_open(const char *path, int flags, int mode);
int os_stat(const char *path, struct stat *st);
int os_access(const char *path, int mode); /* Windows: X_OK is not asked (it has none) */
int os_unlink(const char *path);
int os_rmdir(const char *path);
/* zlib's gzopen (Windows: gzopen_w): a gzFile, or NULL. */
struct gzFile_s *os_gzopen(const char *path, const char *mode);
/* A directory's entries, "." and ".." included, in no particular order: os_opendir gives
 * NULL with errno when path cannot be listed; os_readdir the next entry's name (valid until
 * the next call) or NULL at the end. */
struct os_dir;
struct os_dir *os_opendir(const char *path);
const char *os_readdir(struct os_dir *d);
void os_closedir(struct os_dir *d);

/* Flush fd's data and metadata to the disk: 0, or -1 with errno. */
int os_fsync(int fd);
/* Flush fd's data (and what reading it back needs) to the disk: 0, or -1 with errno. */
int os_datasync(int fd);
/* Replace path by tmp atomically (tmp was written and flushed): 0, or -1 with errno. Windows
 * retries for a while when another process (an antivirus, an editor) holds the target. */
int os_replace(const char *tmp, const char *path);
/* Make a rename into path's directory durable (POSIX: fsync the directory; Windows: the
 * replace was written through already). Errors are ignored. */
void os_sync_dir(const char *path);
/* Remove path and close fd, its open file: POSIX removes it first (a lock on it is held until
 * it is gone); Windows cannot remove an open file, so closes it first. The removal's 0, or -1
 * with errno. */
int os_remove_open(const char *path, int fd);
/* mkstemp: a new file from a template ending in XXXXXX, opened read-write: fd or -1. */
int os_mkstemp(char *tmpl);
/* mkdir with the default mode: 0, or -1 with errno. */
int os_mkdir(const char *path);
/* A lock on an open file, not waiting: exclusive or shared. 0, or -1 when another holds it. */
int os_lock(int fd, int exclusive);
/* The modification time of a stat buffer, in nanoseconds since the epoch. */
int64_t os_mtime_ns(const struct stat *st);
/* Give a file made by os_mkstemp (mode 0600) the mode a new file gets (0666 less the umask;
 * nothing on Windows): 0, or -1 with errno. */
int os_default_mode(int fd);

#endif
