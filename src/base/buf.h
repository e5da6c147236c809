#ifndef PGARENA_BASE_BUF_H
#define PGARENA_BASE_BUF_H

#include <stddef.h>
#include <stdio.h>

#include "base/printf.h"

/*
 * A growable byte buffer, always NUL-terminated, so that data can be used as a C string when
 * the bytes appended hold no NUL. Growth never fails (xrealloc aborts on out of memory).
 * Ownership: the buffer owns data; a pointer into data is valid until the next append or
 * buf_free.
 */
struct buf {
    char *data; /* len bytes, then a NUL */
    size_t len; /* bytes in use, not counting the NUL */
    size_t cap; /* bytes allocated */
};

/* Make b an empty buffer with a small allocation of its own; b's old contents are ignored. */
void buf_init(struct buf *b);

/* Release b's memory; b is then empty with data NULL, ready for buf_init again. */
void buf_free(struct buf *b);

/* Empty b, keeping its allocation for reuse. */
void buf_reset(struct buf *b);

/* Append n bytes from s (which may hold NULs and must not point into b's data). */
void buf_append(struct buf *b, const char *s, size_t n);

/* Append the C string s, without its NUL. */
void buf_puts(struct buf *b, const char *s);

/* Append one byte. */
void buf_putc(struct buf *b, char c);

/* Append printf-formatted text; nothing is appended when the format yields nothing. */
void buf_printf(struct buf *b, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Append everything left to read from f; 0, or the errno of a read error (what was read before
 * the error stays appended). */
int buf_read_all(struct buf *b, FILE *f);

#endif
