#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *oom(void)
{
    fputs("pgarena: out of memory\n", stderr);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    return p ? p : oom();
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p ? p : oom();
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    return q ? q : oom();
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    return p ? p : oom();
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    return p ? p : oom();
}

void *xmemdup(const void *p, size_t n)
{
    void *q = xmalloc(n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

char *xmemdupz(const void *p, size_t n)
{
    char *q = xmalloc(n + 1);
    if (n)
        memcpy(q, p, n);
    q[n] = '\0';
    return q;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *p;
    va_start(ap, fmt);
    int n = vasprintf(&p, fmt, ap);
    va_end(ap);
    return n < 0 ? oom() : p;
}
