#ifndef PGARENA_TESTS_PGWIRE_FIXTURE_H
#define PGARENA_TESTS_PGWIRE_FIXTURE_H

/* Protocol 3's fields, written into a buffer as a client or a server would (big-endian
 * integers, NUL-terminated strings): the recording proxy's tests build messages with them. */

#include <stdint.h>
#include <string.h>

#include "base/buf.h"

static inline void put32(struct buf *b, uint32_t v)
{
    char c[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
    buf_append(b, c, 4);
}

static inline void put16(struct buf *b, uint16_t v)
{
    char c[2] = {(char)(v >> 8), (char)v};
    buf_append(b, c, 2);
}

static inline void putstr(struct buf *b, const char *s)
{
    buf_append(b, s, strlen(s) + 1);
}

#endif
