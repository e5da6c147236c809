#ifndef PGARENA_BASE_BUF_H
#define PGARENA_BASE_BUF_H

#include <stddef.h>
#include <stdio.h>

/* A growable, always NUL-terminated byte buffer; the buffer owns data. */
struct buf {
    char *data;
    size_t len;
    size_t cap;
};

void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);
void buf_append(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append everything left to read from f; 0, or the errno of a read error. */
int buf_read_all(struct buf *b, FILE *f);

#endif
