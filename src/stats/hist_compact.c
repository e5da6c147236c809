#include "stats/hist_compact.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/*
 * Compact bins mirror hist.c's layout with 5 sub-bucket bits instead of 10: values 0 .. 63
 * each have a bin, and [2^k, 2^(k+1)) for k >= 6 is cut into 32 bins of width 2^(k-5). Each
 * compact bin's bounds are full-precision bin bounds, so a full-precision bin falls inside
 * exactly one compact bin.
 */
#define C_BITS 5
#define C_SUB  (1 << C_BITS)
/* Compact bins up to HIST_MAX_US: (42 - 5) powers of two past bucket 0, one extra for 2^42. */
#define C_COUNT ((size_t)(42 - C_BITS) * C_SUB + (size_t)(HIST_MAX_US >> (42 - C_BITS)) + 1)

static size_t c_index(int64_t v)
{
    uint64_t u = (uint64_t)v;
    unsigned shift = (unsigned)(64 - (C_BITS + 1) - __builtin_clzll(u | (2 * C_SUB - 1)));
    return ((size_t)shift << C_BITS) + (size_t)(u >> shift);
}

static int64_t c_lowest(size_t i)
{
    if (i < 2 * C_SUB)
        return (int64_t)i;
    unsigned shift = (unsigned)(i >> C_BITS) - 1;
    uint64_t sub = (i & (C_SUB - 1)) + C_SUB;
    return (int64_t)(sub << shift);
}

/* The lowest value of the full-precision bin holding v (hist.c's layout, 10 bits). */
static int64_t fine_floor(int64_t v)
{
    uint64_t u = (uint64_t)v;
    unsigned shift = (unsigned)(64 - 11 - __builtin_clzll(u | 2047));
    return (int64_t)((u >> shift) << shift);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_varint(struct buf *raw, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); /* ZigZag */
    do {
        unsigned char byte = z & 0x7f;
        z >>= 7;
        if (z)
            byte |= 0x80;
        buf_putc(raw, (char)byte);
    } while (z);
}

static void put_base64(struct buf *out, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        char q[4] = {b64[v >> 18], b64[(v >> 12) & 63], i + 1 < n ? b64[(v >> 6) & 63] : '=',
                     i + 2 < n ? b64[v & 63] : '='};
        buf_append(out, q, 4);
    }
}

void hist_compact_encode(const struct hist_sparse *s, struct buf *out)
{
    struct buf raw;
    buf_init(&raw);
    size_t next = 0; /* first compact index not yet written */
    size_t k = 0;
    while (k < s->n_bins) {
        size_t idx = c_index(s->bins[k].value_us);
        uint64_t n = 0;
        for (; k < s->n_bins && c_index(s->bins[k].value_us) == idx; k++)
            n += s->bins[k].count;
        if (n == 0)
            continue;
        if (idx > next)
            put_varint(&raw, -(int64_t)(idx - next));
        /* Counts above 2^62 cannot be written as a positive ZigZag value; no run reaches
         * that (one transaction per nanosecond for 146 years). */
        put_varint(&raw, (int64_t)(n > INT64_MAX / 2 ? INT64_MAX / 2 : n));
        next = idx + 1;
    }
    put_base64(out, (const unsigned char *)raw.data, raw.len);
    buf_free(&raw);
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Base64 text to bytes in raw (room for len / 4 * 3); their count, or -1 on a character
 * outside the alphabet or a bad length. */
static long get_base64(const char *text, size_t len, unsigned char *raw)
{
    if (len % 4 != 0)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        int pad = 0;
        for (int j = 0; j < 4; j++) {
            if (text[i + j] == '=' && i + 4 == len && j >= 2) {
                v[j] = 0;
                pad++;
            } else if (pad || (v[j] = b64_value(text[i + j])) < 0) {
                return -1;
            }
        }
        uint32_t w =
            (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        raw[n++] = (unsigned char)(w >> 16);
        if (pad < 2)
            raw[n++] = (unsigned char)(w >> 8);
        if (pad < 1)
            raw[n++] = (unsigned char)w;
    }
    return (long)n;
}

static int get_varint(const unsigned char **p, const unsigned char *end, int64_t *out)
{
    uint64_t z = 0;
    for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
        unsigned char byte = *(*p)++;
        z |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) {
            *out = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
            return 0;
        }
    }
    return -1;
}

/* Where a compact bin's count goes at full precision (see the header). */
static int64_t place(size_t idx, size_t lo, size_t hi, const struct hist_sparse *s)
{
    if (idx == lo)
        return fine_floor(s->min_us);
    if (idx == hi)
        return fine_floor(s->max_us);
    int64_t low = c_lowest(idx), high = c_lowest(idx + 1);
    return fine_floor(low + (high - low) / 2);
}

static void add_bin(struct hist_sparse *out, int64_t value, uint64_t count)
{
    out->bins[out->n_bins].value_us = value;
    out->bins[out->n_bins].count = count;
    out->n_bins++;
}

/* Place the decoded (index, count) pairs; -1 when they disagree with count, min and max.
 * check_only: the checks without the bins. */
static int expand(const size_t *idx, const uint64_t *cnt, size_t n, struct hist_sparse *out,
                  int check_only)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        if (__builtin_add_overflow(total, cnt[i], &total))
            return -1;
    if (total != out->count)
        return -1;
    if (n == 0)
        return 0;
    if (out->min_us < 0 || out->min_us > out->max_us || out->max_us > HIST_MAX_US ||
        c_index(out->min_us) != idx[0] || c_index(out->max_us) != idx[n - 1])
        return -1;
    if (check_only)
        return 0;
    out->bins = xmalloc((n + 1) * sizeof *out->bins);
    if (n == 1 && cnt[0] > 1 && fine_floor(out->min_us) != fine_floor(out->max_us)) {
        /* One bin holding both extremes: one value at the max, the rest at the min. */
        add_bin(out, fine_floor(out->min_us), cnt[0] - 1);
        add_bin(out, fine_floor(out->max_us), 1);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        add_bin(out, place(idx[i], idx[0], idx[n - 1], out), cnt[i]);
    return 0;
}

/* Scratch bytes on the stack: an interval's text is a few hundred bytes. */
#define SCRATCH_STACK 16384

static int decode(const char *text, size_t len, struct hist_sparse *out, int check_only)
{
    /* One scratch block (a 24-hour file decodes 86,400 of these): the bytes, then at most
     * one (index, count) pair per byte. */
    size_t cap = len / 4 * 3 + 1;
    size_t need = cap * (1 + sizeof(size_t) + sizeof(uint64_t));
    _Alignas(uint64_t) unsigned char stack[SCRATCH_STACK];
    unsigned char *scratch = need <= sizeof stack ? stack : xmalloc(need);
    size_t *idx = (size_t *)(void *)scratch;
    uint64_t *cnt = (uint64_t *)(void *)(scratch + cap * sizeof(size_t));
    unsigned char *raw = scratch + cap * (sizeof(size_t) + sizeof(uint64_t));
    long n_raw = get_base64(text, len, raw);
    size_t n = 0, next = 0;
    const unsigned char *p = raw, *end = raw + (n_raw > 0 ? n_raw : 0);
    int rc = n_raw < 0 ? -1 : 0;
    while (rc == 0 && p < end) {
        int64_t v;
        if (get_varint(&p, end, &v) < 0 || v == 0 || v < -(int64_t)C_COUNT) {
            rc = -1;
        } else if (v < 0) {
            if ((uint64_t)-v > C_COUNT - next)
                rc = -1;
            else
                next += (size_t)-v;
        } else if (next >= C_COUNT) {
            rc = -1;
        } else {
            idx[n] = next++;
            cnt[n++] = (uint64_t)v;
        }
    }
    if (rc == 0)
        rc = expand(idx, cnt, n, out, check_only);
    if (scratch != stack)
        free(scratch);
    return rc;
}

int hist_compact_decode(const char *text, size_t len, struct hist_sparse *out)
{
    out->bins = NULL;
    out->n_bins = 0;
    int rc = decode(text, len, out, 0);
    if (rc < 0) {
        free(out->bins);
        out->bins = NULL;
        out->n_bins = 0;
    }
    return rc;
}

int hist_compact_check(const char *text, size_t len, const struct hist_sparse *figures)
{
    struct hist_sparse s = *figures;
    s.bins = NULL;
    s.n_bins = 0;
    return decode(text, len, &s, 1);
}
