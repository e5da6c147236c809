/* The OS layer's POSIX branch (os/os.h): Linux, and the other POSIX systems where the calls
 * are standard. Linux's /proc figures are read by server/ (procstat, selfhealth, machine). */
#ifndef _WIN32

#include "os/os.h"

#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifdef __linux__
#include <sys/random.h>
#include <sys/sysinfo.h>
#endif

#include "base/mem.h"
#include "os/net.h"

void os_init(int *argc, char ***argv)
{
    (void)argc; /* POSIX hands main the bytes as they were given */
    (void)argv;
    /* A write past the file-size limit fails with EFBIG (reported with the file's name)
     * rather than killing the process. */
    signal(SIGXFSZ, SIG_IGN);
}

long os_cpus(void)
{
    return sysconf(_SC_NPROCESSORS_ONLN);
}

int64_t os_memory_bytes(void)
{
#ifdef __linux__
    struct sysinfo si;
    return sysinfo(&si) == 0 ? (int64_t)si.totalram * si.mem_unit : 0;
#elif defined(_SC_PHYS_PAGES)
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (int64_t)pages * size : 0;
#else
    return 0;
#endif
}

char *os_system(void)
{
    struct utsname u;
    return uname(&u) == 0 ? xasprintf("%s %s %s", u.sysname, u.release, u.machine) : NULL;
}

char *os_kernel(void)
{
    struct utsname u;
    return uname(&u) == 0 ? xasprintf("%s %s", u.release, u.version) : NULL;
}

char *os_cpu_model(void)
{
    return NULL;
}

char *os_distribution(void)
{
    return NULL;
}

int os_process_cpu(double *user_s, double *system_s)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    *user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    *system_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    return 0;
}

long os_clock_ticks(void)
{
    return sysconf(_SC_CLK_TCK);
}

int os_threads_cpu(size_t *n, int **tid, uint64_t **ticks)
{
    (void)n;
    (void)tid;
    (void)ticks;
    return -1;
}

int os_random(void *buf, size_t n)
{
#ifdef __linux__
    return getrandom(buf, n, 0) == (ssize_t)n ? 0 : -1;
#else
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, n);
    close(fd);
    return r == (ssize_t)n ? 0 : -1;
#endif
}

int64_t os_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int os_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(cv, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

void os_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, time_ns deadline)
{
    struct timespec ts = {(time_t)(deadline / NS_PER_S), (long)(deadline % NS_PER_S)};
    pthread_cond_timedwait(cv, mu, &ts);
}

long os_fdlimit_ensure(long needed)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    if (rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < needed) {
        struct rlimit want = rl;
        want.rlim_cur = rl.rlim_max == RLIM_INFINITY || (long)rl.rlim_max >= needed ? (rlim_t)needed
                                                                                    : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &want) == 0)
            rl = want;
    }
    return rl.rlim_cur == RLIM_INFINITY ? needed : (long)rl.rlim_cur;
}

void os_on_interrupt(void (*fn)(int), struct os_interrupt_saved *save)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, save ? &save->sigint : NULL);
    sigaction(SIGTERM, &sa, save ? &save->sigterm : NULL);
}

void os_interrupt_restore(const struct os_interrupt_saved *save)
{
    sigaction(SIGINT, &save->sigint, NULL);
    sigaction(SIGTERM, &save->sigterm, NULL);
}

void os_exit_now(const char *msg, size_t len, int status)
{
    ssize_t r = write(2, msg, len);
    (void)r;
    _exit(status);
}

int os_fsync(int fd)
{
    return fsync(fd);
}

int os_datasync(int fd)
{
#ifdef __APPLE__
    return fsync(fd);
#else
    return fdatasync(fd);
#endif
}

FILE *os_fopen(const char *path, const char *mode)
{
    return fopen(path, mode);
}

int os_open(const char *path, int flags, int mode)
{
    return open(path, flags, (mode_t)mode);
}

int os_stat(const char *path, struct stat *st)
{
    return stat(path, st);
}

int os_access(const char *path, int mode)
{
    return access(path, mode);
}

int os_unlink(const char *path)
{
    return unlink(path);
}

int os_rmdir(const char *path)
{
    return rmdir(path);
}

struct gzFile_s *os_gzopen(const char *path, const char *mode)
{
    return gzopen(path, mode);
}

struct os_dir {
    DIR *d;
};

struct os_dir *os_opendir(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return NULL;
    struct os_dir *od = xmalloc(sizeof *od);
    od->d = d;
    return od;
}

const char *os_readdir(struct os_dir *d)
{
    struct dirent *de = readdir(d->d);
    return de ? de->d_name : NULL;
}

void os_closedir(struct os_dir *d)
{
    if (d) {
        closedir(d->d);
        free(d);
    }
}

int os_replace(const char *tmp, const char *path)
{
    return rename(tmp, path);
}

void os_sync_dir(const char *path)
{
    char *copy = xstrdup(path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(copy);
}

int os_remove_open(const char *path, int fd)
{
    int rc = unlink(path), saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int os_mkstemp(char *tmpl)
{
    return mkstemp(tmpl);
}

int os_mkdir(const char *path)
{
    return mkdir(path, 0777);
}

int os_lock(int fd, int exclusive)
{
    return flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB);
}

int64_t os_mtime_ns(const struct stat *st)
{
#ifdef __APPLE__
    return (int64_t)st->st_mtimespec.tv_sec * 1000000000 + st->st_mtimespec.tv_nsec;
#else
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
#endif
}

int os_default_mode(int fd)
{
    mode_t mask = umask(0);
    umask(mask);
    return fchmod(fd, 0666 & ~mask);
}

static int addr_text(const struct sockaddr *sa, char *out, socklen_t size)
{
    if (sa && sa->sa_family == AF_INET) {
        struct sockaddr_in in;
        memcpy(&in, sa, sizeof in);
        return inet_ntop(AF_INET, &in.sin_addr, out, size) != NULL;
    }
    if (sa && sa->sa_family == AF_INET6) {
        struct sockaddr_in6 in6;
        memcpy(&in6, sa, sizeof in6);
        return inet_ntop(AF_INET6, &in6.sin6_addr, out, size) != NULL;
    }
    return 0;
}

size_t os_own_addresses(char ***out)
{
    struct ifaddrs *ifs = NULL;
    size_t n = 0;
    *out = NULL;
    if (getifaddrs(&ifs) < 0)
        return 0;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        char text[INET6_ADDRSTRLEN];
        if (!addr_text(i->ifa_addr, text, sizeof text))
            continue;
        *out = xrealloc(*out, (n + 1) * sizeof **out);
        (*out)[n++] = xstrdup(text);
    }
    freeifaddrs(ifs);
    return n;
}

#endif
