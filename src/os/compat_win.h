#ifndef PGARENA_OS_COMPAT_WIN_H
#define PGARENA_OS_COMPAT_WIN_H

/*
 * The POSIX and GNU functions pgarena uses that mingw-w64's C runtime lacks, for the Windows
 * build only: the Makefile's windows target includes this header before every source
 * (-include), so the sources call them as on Linux. Implemented in compat_win.c.
 */
#ifdef _WIN32

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

char *strndup(const char *s, size_t n);
void *memmem(const void *hay, size_t hay_len, const void *needle, size_t needle_len);
char *strcasestr(const char *hay, const char *needle);
ssize_t getline(char **line, size_t *cap, FILE *f);

/* No memory streams on Windows: callers (help text into a string, used by tests) take their
 * fallback. */
static inline FILE *open_memstream(char **buf, size_t *size)
{
    (void)buf;
    (void)size;
    errno = ENOSYS;
    return NULL;
}

#endif
#endif
