/* The OS layer's Windows branch (os/os.h): Win32 and the C runtime of mingw-w64. */
#ifdef _WIN32

#include "os/os.h"

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <iphlpapi.h>
#include <tlhelp32.h>

#include <bcrypt.h>
#include <direct.h>
#include <shellapi.h>
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/mem.h"
#include "os/net.h"

/* A string as UTF-16, new, or NULL. pgarena's strings are UTF-8; bytes that are not (a name
 * read from an old file) are taken in the ANSI code page, as the C runtime's calls would. */
static wchar_t *wide(const char *s)
{
    UINT cp = CP_UTF8;
    DWORD flags = MB_ERR_INVALID_CHARS;
    int n = MultiByteToWideChar(cp, flags, s, -1, NULL, 0);
    if (n <= 0) {
        cp = CP_ACP;
        flags = 0;
        n = MultiByteToWideChar(cp, flags, s, -1, NULL, 0);
    }
    if (n <= 0) {
        errno = EINVAL;
        return NULL;
    }
    wchar_t *w = xmalloc((size_t)n * sizeof *w);
    MultiByteToWideChar(cp, flags, s, -1, w, n);
    return w;
}

/* A UTF-16 string as UTF-8, new. */
static char *utf8(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = xmalloc(n > 0 ? (size_t)n : 1);
    if (n <= 0 || WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) <= 0)
        *s = '\0';
    return s;
}

void os_init(int *argc, char ***argv)
{
    /* main's argv is in the ANSI code page, which cannot hold every name: the rest of pgarena
     * gets the command line in UTF-8 (kept for the process's life). */
    int n;
    wchar_t **wargv = argc && argv ? CommandLineToArgvW(GetCommandLineW(), &n) : NULL;
    if (wargv) {
        char **a = xcalloc((size_t)n + 1, sizeof *a);
        for (int i = 0; i < n; i++)
            a[i] = utf8(wargv[i]);
        LocalFree(wargv);
        *argc = n;
        *argv = a;
    }
    /* Files, stdout and stderr in binary mode: a result file, --json and --csv have the same
     * bytes as on Linux (no CR before each LF). */
    _fmode = _O_BINARY;
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    WSADATA wsa;
    WSAStartup(MAKEWORD(2, 2), &wsa);
    SetConsoleOutputCP(CP_UTF8);
}

long os_cpus(void)
{
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n ? (long)n : -1;
}

int64_t os_memory_bytes(void)
{
    MEMORYSTATUSEX m = {.dwLength = sizeof m};
    return GlobalMemoryStatusEx(&m) ? (int64_t)m.ullTotalPhys : 0;
}

/* Windows' version as RtlGetVersion gives it (GetVersionEx lies to programs without a
 * manifest): 0, or -1. */
static int version(RTL_OSVERSIONINFOW *v)
{
    typedef LONG(WINAPI * get_fn)(RTL_OSVERSIONINFOW *);
    HMODULE ntdll = GetModuleHandleA("ntdll.dll");
    get_fn get = ntdll ? (get_fn)(void (*)(void))GetProcAddress(ntdll, "RtlGetVersion") : NULL;
    memset(v, 0, sizeof *v);
    v->dwOSVersionInfoSize = sizeof *v;
    return get && get(v) == 0 ? 0 : -1;
}

static const char *machine(void)
{
    SYSTEM_INFO si;
    GetNativeSystemInfo(&si);
    switch (si.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64:
        return "x86_64";
    case PROCESSOR_ARCHITECTURE_ARM64:
        return "aarch64";
    case PROCESSOR_ARCHITECTURE_INTEL:
        return "i686";
    default:
        return "unknown";
    }
}

char *os_system(void)
{
    RTL_OSVERSIONINFOW v;
    if (version(&v) < 0)
        return NULL;
    return xasprintf("Windows %lu.%lu.%lu %s", (unsigned long)v.dwMajorVersion,
                     (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber, machine());
}

char *os_kernel(void)
{
    RTL_OSVERSIONINFOW v;
    if (version(&v) < 0)
        return NULL;
    return xasprintf("%lu.%lu.%lu", (unsigned long)v.dwMajorVersion,
                     (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber);
}

/* A string value of HKEY_LOCAL_MACHINE\key as UTF-8, trimmed, or NULL. */
static char *registry_string(const wchar_t *key, const wchar_t *name)
{
    wchar_t w[256];
    DWORD size = sizeof w;
    if (RegGetValueW(HKEY_LOCAL_MACHINE, key, name, RRF_RT_REG_SZ, NULL, w, &size) != ERROR_SUCCESS)
        return NULL;
    char u[512];
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, u, sizeof u, NULL, NULL);
    if (n <= 1)
        return NULL;
    char *s = u;
    while (*s == ' ')
        s++;
    size_t len = strlen(s);
    while (len > 0 && s[len - 1] == ' ')
        len--;
    return len ? xstrndup(s, len) : NULL;
}

char *os_cpu_model(void)
{
    return registry_string(L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                           L"ProcessorNameString");
}

char *os_distribution(void)
{
    return registry_string(L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion", L"ProductName");
}

static uint64_t filetime_ticks(FILETIME f)
{
    return ((uint64_t)f.dwHighDateTime << 32) | f.dwLowDateTime;
}

static double filetime_s(FILETIME f)
{
    return (double)filetime_ticks(f) / 1e7;
}

int os_process_cpu(double *user_s, double *system_s)
{
    FILETIME created, exited, kernel, user;
    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user))
        return -1;
    *user_s = filetime_s(user);
    *system_s = filetime_s(kernel);
    return 0;
}

long os_clock_ticks(void)
{
    return 10000000; /* FILETIME's 100 ns */
}

int os_threads_cpu(size_t *n, int **tid, uint64_t **ticks)
{
    HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
    if (snap == INVALID_HANDLE_VALUE)
        return -1;
    DWORD self = GetCurrentProcessId();
    THREADENTRY32 te = {.dwSize = sizeof te};
    size_t cap = 0;
    *n = 0;
    for (BOOL more = Thread32First(snap, &te); more; more = Thread32Next(snap, &te)) {
        if (te.th32OwnerProcessID != self)
            continue;
        HANDLE h = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, te.th32ThreadID);
        FILETIME created, exited, kernel, user;
        int ok = h && GetThreadTimes(h, &created, &exited, &kernel, &user);
        if (h)
            CloseHandle(h);
        if (!ok)
            continue; /* the thread ended meanwhile */
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *tid = xrealloc(*tid, cap * sizeof **tid);
            *ticks = xrealloc(*ticks, cap * sizeof **ticks);
        }
        (*tid)[*n] = (int)te.th32ThreadID;
        (*ticks)[(*n)++] = filetime_ticks(kernel) + filetime_ticks(user);
    }
    CloseHandle(snap);
    return 0;
}

int os_random(void *buf, size_t n)
{
    return BCRYPT_SUCCESS(BCryptGenRandom(NULL, buf, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG))
               ? 0
               : -1;
}

int64_t os_wall_ns(void)
{
    FILETIME f;
    GetSystemTimePreciseAsFileTime(&f);
    /* 100 ns ticks since 1601-01-01. */
    int64_t t = (int64_t)(((uint64_t)f.dwHighDateTime << 32) | f.dwLowDateTime);
    return (t - 116444736000000000LL) * 100;
}

int os_cond_init(pthread_cond_t *cv)
{
    return pthread_cond_init(cv, NULL);
}

void os_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, time_ns deadline)
{
    time_ns left = deadline - clock_now_ns();
    int64_t at = os_wall_ns() + (left > 0 ? left : 0);
    struct timespec ts = {(time_t)(at / NS_PER_S), (long)(at % NS_PER_S)};
    pthread_cond_timedwait(cv, mu, &ts);
}

long os_fdlimit_ensure(long needed)
{
    /* Sockets are not descriptors of the C runtime: WSAPoll takes any number. */
    return needed;
}

static void (*volatile interrupt_fn)(int);

static BOOL WINAPI on_console(DWORD event)
{
    void (*fn)(int) = interrupt_fn;
    if (!fn)
        return FALSE;
    switch (event) {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
        fn(2); /* SIGINT */
        return TRUE;
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT:
        fn(15); /* SIGTERM */
        /* Windows ends the process when this returns: give the run time to write its
         * (incomplete) result first, as it has some seconds to answer. */
        Sleep(5000);
        return TRUE;
    default:
        return FALSE;
    }
}

void os_on_interrupt(void (*fn)(int), struct os_interrupt_saved *save)
{
    if (save)
        save->fn = interrupt_fn;
    interrupt_fn = fn;
    static int installed;
    if (!installed) {
        installed = 1;
        SetConsoleCtrlHandler(on_console, TRUE);
    }
}

void os_interrupt_restore(const struct os_interrupt_saved *save)
{
    interrupt_fn = save->fn;
}

void os_exit_now(const char *msg, size_t len, int status)
{
    DWORD done;
    WriteFile(GetStdHandle(STD_ERROR_HANDLE), msg, (DWORD)len, &done, NULL);
    ExitProcess((UINT)status);
}

int os_fsync(int fd)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE || !FlushFileBuffers(h)) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int os_datasync(int fd)
{
    return os_fsync(fd);
}

FILE *os_fopen(const char *path, const char *mode)
{
    wchar_t *w = wide(path), *m = wide(mode);
    FILE *f = w && m ? _wfopen(w, m) : NULL;
    free(w);
    free(m);
    return f;
}

int os_open(const char *path, int flags, int mode)
{
    wchar_t *w = wide(path);
    int fd = w ? _wopen(w, flags | _O_BINARY, mode) : -1;
    free(w);
    return fd;
}

int os_stat(const char *path, struct stat *st)
{
    wchar_t *w = wide(path);
    if (!w)
        return -1;
    /* The C runtime's stat fails on "dir/": drop trailing separators but a root's ("C:\",
     * "/"). */
    size_t n = wcslen(w);
    while (n > 1 && (w[n - 1] == L'/' || w[n - 1] == L'\\') && w[n - 2] != L':')
        w[--n] = L'\0';
    struct _stat64 s;
    int rc = _wstat64(w, &s);
    free(w);
    if (rc == 0) {
        memset(st, 0, sizeof *st);
        st->st_dev = s.st_dev;
        st->st_ino = s.st_ino;
        st->st_mode = s.st_mode;
        st->st_nlink = s.st_nlink;
        st->st_size = (_off_t)s.st_size;
        st->st_atime = (time_t)s.st_atime;
        st->st_mtime = (time_t)s.st_mtime;
        st->st_ctime = (time_t)s.st_ctime;
    }
    return rc;
}

int os_access(const char *path, int mode)
{
    wchar_t *w = wide(path);
    int rc = w ? _waccess(w, mode & (R_OK | W_OK)) : -1;
    free(w);
    return rc;
}

int os_unlink(const char *path)
{
    wchar_t *w = wide(path);
    int rc = w ? _wunlink(w) : -1;
    free(w);
    return rc;
}

int os_rmdir(const char *path)
{
    wchar_t *w = wide(path);
    int rc = w ? _wrmdir(w) : -1;
    free(w);
    return rc;
}

struct gzFile_s *os_gzopen(const char *path, const char *mode)
{
    wchar_t *w = wide(path);
    gzFile f = w ? gzopen_w(w, mode) : NULL;
    free(w);
    return f;
}

struct os_dir {
    HANDLE h; /* INVALID_HANDLE_VALUE: an empty directory */
    WIN32_FIND_DATAW found;
    int have; /* found holds the next entry */
    char *name;
};

struct os_dir *os_opendir(const char *path)
{
    wchar_t *w = wide(path);
    if (!w)
        return NULL;
    DWORD attr = GetFileAttributesW(w);
    if (attr == INVALID_FILE_ATTRIBUTES || !(attr & FILE_ATTRIBUTE_DIRECTORY)) {
        DWORD why = GetLastError();
        errno = attr != INVALID_FILE_ATTRIBUTES ? ENOTDIR
                : why == ERROR_ACCESS_DENIED    ? EACCES
                : why == ERROR_FILE_NOT_FOUND || why == ERROR_PATH_NOT_FOUND ||
                        why == ERROR_INVALID_NAME
                    ? ENOENT
                    : EIO;
        free(w);
        return NULL;
    }
    size_t n = wcslen(w);
    wchar_t *pattern = xmalloc((n + 3) * sizeof *pattern);
    memcpy(pattern, w, n * sizeof *w);
    if (n > 0 && w[n - 1] != L'/' && w[n - 1] != L'\\' && w[n - 1] != L':')
        pattern[n++] = L'\\';
    pattern[n++] = L'*';
    pattern[n] = L'\0';
    free(w);
    struct os_dir *d = xcalloc(1, sizeof *d);
    d->h = FindFirstFileExW(pattern, FindExInfoBasic, &d->found, FindExSearchNameMatch, NULL, 0);
    free(pattern);
    if (d->h == INVALID_HANDLE_VALUE && GetLastError() != ERROR_FILE_NOT_FOUND) {
        errno = GetLastError() == ERROR_ACCESS_DENIED ? EACCES : EIO;
        free(d);
        return NULL;
    }
    d->have = d->h != INVALID_HANDLE_VALUE;
    return d;
}

const char *os_readdir(struct os_dir *d)
{
    free(d->name);
    d->name = NULL;
    if (!d->have)
        return NULL;
    d->name = utf8(d->found.cFileName);
    d->have = FindNextFileW(d->h, &d->found) != 0;
    return d->name;
}

void os_closedir(struct os_dir *d)
{
    if (!d)
        return;
    if (d->h != INVALID_HANDLE_VALUE)
        FindClose(d->h);
    free(d->name);
    free(d);
}

int os_replace(const char *tmp, const char *path)
{
    wchar_t *wt = wide(tmp), *wp = wide(path);
    int rc = -1;
    if (wt && wp) {
        /* An antivirus or an editor may hold the target for a moment: retry for ~2 s. */
        for (int i = 0; i < 40; i++) {
            if (MoveFileExW(wt, wp, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
                rc = 0;
                break;
            }
            DWORD why = GetLastError();
            if (why != ERROR_ACCESS_DENIED && why != ERROR_SHARING_VIOLATION &&
                why != ERROR_LOCK_VIOLATION) {
                errno = why == ERROR_PATH_NOT_FOUND || why == ERROR_FILE_NOT_FOUND ? ENOENT : EIO;
                break;
            }
            errno = EACCES;
            Sleep(50);
        }
    }
    free(wt);
    free(wp);
    return rc;
}

void os_sync_dir(const char *path)
{
    (void)path; /* MOVEFILE_WRITE_THROUGH has flushed the rename */
}

int os_remove_open(const char *path, int fd)
{
    _close(fd);
    return os_unlink(path);
}

int os_mkstemp(char *tmpl)
{
    size_t n = strlen(tmpl);
    if (n < 6 || strcmp(tmpl + n - 6, "XXXXXX") != 0) {
        errno = EINVAL;
        return -1;
    }
    static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char r[6];
        if (os_random(r, sizeof r) < 0)
            return -1;
        for (int i = 0; i < 6; i++)
            tmpl[n - 6 + i] = chars[r[i] % (sizeof chars - 1)];
        int fd = os_open(tmpl, _O_RDWR | _O_CREAT | _O_EXCL | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

int os_mkdir(const char *path)
{
    wchar_t *w = wide(path);
    int rc = w ? _wmkdir(w) : -1;
    free(w);
    return rc;
}

int os_lock(int fd, int exclusive)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    OVERLAPPED o = {0};
    DWORD flags = LOCKFILE_FAIL_IMMEDIATELY | (exclusive ? LOCKFILE_EXCLUSIVE_LOCK : 0);
    if (h == INVALID_HANDLE_VALUE || !LockFileEx(h, flags, 0, MAXDWORD, MAXDWORD, &o)) {
        errno = EWOULDBLOCK;
        return -1;
    }
    return 0;
}

int64_t os_mtime_ns(const struct stat *st)
{
    return (int64_t)st->st_mtime * 1000000000;
}

int os_default_mode(int fd)
{
    (void)fd;
    return 0;
}

size_t os_own_addresses(char ***out)
{
    *out = NULL;
    ULONG size = 16 * 1024;
    IP_ADAPTER_ADDRESSES *list = NULL;
    ULONG rc = ERROR_BUFFER_OVERFLOW;
    for (int i = 0; i < 3 && rc == ERROR_BUFFER_OVERFLOW; i++) {
        free(list);
        list = xmalloc(size);
        rc = GetAdaptersAddresses(AF_UNSPEC, GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST, NULL,
                                  list, &size);
    }
    size_t n = 0;
    for (IP_ADAPTER_ADDRESSES *a = rc == NO_ERROR ? list : NULL; a; a = a->Next)
        for (IP_ADAPTER_UNICAST_ADDRESS *u = a->FirstUnicastAddress; u; u = u->Next) {
            char text[INET6_ADDRSTRLEN];
            const struct sockaddr *sa = u->Address.lpSockaddr;
            const void *bytes = sa->sa_family == AF_INET
                                    ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
                                    : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;
            if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
                !inet_ntop(sa->sa_family, bytes, text, sizeof text))
                continue;
            *out = xrealloc(*out, (n + 1) * sizeof **out);
            (*out)[n++] = xstrdup(text);
        }
    free(list);
    return n;
}

#endif
