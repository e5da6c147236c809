#ifndef PGARENA_BASE_MEM_H
#define PGARENA_BASE_MEM_H

#include <stddef.h>

#include "base/printf.h"

/* Allocation that never returns NULL: out of memory aborts the process with a message,
 * because no benchmark result is meaningful once the client cannot allocate. Ownership: the
 * caller owns (and frees with free()) everything these return. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A copy of n bytes (xmemdupz: and a NUL after them, for bytes that may hold NULs). */
void *xmemdup(const void *p, size_t n);
char *xmemdupz(const void *p, size_t n);
/* printf into a fresh heap string. */
char *xasprintf(const char *fmt, ...) PRINTF_LIKE(1, 2);

#endif
