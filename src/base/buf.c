#include "base/buf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include <stdlib.h>

void buf_init(struct buf *b)
{
    b->cap = 64;
    b->len = 0;
    b->data = xmalloc(b->cap);
    b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    b->data[0] = '\0';
}

static void reserve(struct buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    while (b->len + extra + 1 > b->cap)
        b->cap *= 2;
    b->data = xrealloc(b->data, b->cap);
}

void buf_append(struct buf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void buf_puts(struct buf *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

void buf_putc(struct buf *b, char c)
{
    buf_append(b, &c, 1);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

int buf_read_all(struct buf *b, FILE *f)
{
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_append(b, chunk, n);
    return ferror(f) ? (errno ? errno : EIO) : 0;
}
