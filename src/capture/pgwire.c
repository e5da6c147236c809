/* Protocol 3's framing and the messages a capture reads (capture/pgwire.h). */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capture/pgwire.h"

uint64_t pgwire_be(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

long pgwire_startup_len(const uint8_t *data, size_t len)
{
    if (len < 4)
        return 0;
    uint32_t n = be32(data);
    return n < 8 || n > PGWIRE_STARTUP_MAX ? -1 : (long)n;
}

int pgwire_startup_parse(const uint8_t *p, size_t len, struct pgwire_startup *out)
{
    memset(out, 0, sizeof *out);
    if (len < 8)
        return -1;
    out->code = be32(p + 4);
    switch (out->code) {
    case PGWIRE_SSL_REQUEST:
        out->kind = PGWIRE_STARTUP_SSL;
        return 0;
    case PGWIRE_GSSENC_REQUEST:
        out->kind = PGWIRE_STARTUP_GSSENC;
        return 0;
    case PGWIRE_CANCEL_REQUEST:
        if (len < 16 || len - 12 > PGWIRE_CANCEL_KEY_MAX)
            return -1;
        out->kind = PGWIRE_STARTUP_CANCEL;
        out->cancel_pid = be32(p + 8);
        out->cancel_key = p + 12;
        out->cancel_key_len = len - 12;
        return 0;
    }
    if ((out->code >> 16) != 3) {
        out->kind = PGWIRE_STARTUP_OTHER;
        return 0;
    }
    out->kind = PGWIRE_STARTUP_V3;
    /* NAME\0VALUE\0 pairs, then a terminating \0. */
    size_t pos = 8;
    while (pos < len && p[pos] != '\0') {
        const uint8_t *name_end = memchr(p + pos, '\0', len - pos);
        if (!name_end)
            return -1;
        size_t vpos = (size_t)(name_end - p) + 1;
        const uint8_t *value_end = vpos < len ? memchr(p + vpos, '\0', len - vpos) : NULL;
        if (!value_end || out->n_params == PGWIRE_MAX_PARAMS)
            return -1;
        out->names[out->n_params] = (const char *)(p + pos);
        out->values[out->n_params] = (const char *)(p + vpos);
        out->n_params++;
        pos = (size_t)(value_end - p) + 1;
    }
    return pos < len && p[pos] == '\0' && pos + 1 == len ? 0 : -1;
}

const char *pgwire_startup_param(const struct pgwire_startup *s, const char *name)
{
    for (int i = 0; i < s->n_params; i++)
        if (strcmp(s->names[i], name) == 0)
            return s->values[i];
    return NULL;
}

void pgwire_framer_init(struct pgwire_framer *f, const char *keep_types, uint32_t max_body)
{
    memset(f, 0, sizeof *f);
    for (const char *t = keep_types; *t; t++)
        f->keep[(uint8_t)*t >> 3] |= (uint8_t)(1u << ((uint8_t)*t & 7));
    f->max_body = max_body;
    buf_init(&f->body);
}

void pgwire_framer_keep_prefix(struct pgwire_framer *f, const char *types)
{
    for (const char *t = types; *t; t++)
        f->prefix[(uint8_t)*t >> 3] |= (uint8_t)(1u << ((uint8_t)*t & 7));
}

void pgwire_framer_free(struct pgwire_framer *f)
{
    buf_free(&f->body);
}

int pgwire_framer_mid(const struct pgwire_framer *f)
{
    return f->hdr_have > 0;
}

/* A whole header's body length and how much of the body f keeps (its keeping): -1 when
 * the stream does not read there. */
static int header_keeping(const struct pgwire_framer *f, const uint8_t hdr[5], uint32_t *body_len)
{
    uint32_t n = be32(hdr + 1);
    if (n < 4)
        return -1;
    *body_len = n - 4;
    uint8_t t = hdr[0];
    int keeping = (f->keep[t >> 3] >> (t & 7)) & 1;
    if (!keeping && ((f->prefix[t >> 3] >> (t & 7)) & 1))
        keeping = 2;
    return keeping == 1 && *body_len > f->max_body ? -1 : keeping;
}

int pgwire_framer_check(const struct pgwire_framer *f, const uint8_t *data, size_t len)
{
    uint8_t hdr[5];
    int have = f->hdr_have;
    memcpy(hdr, f->hdr, (size_t)have);
    uint32_t body_len = f->body_len;
    size_t body_left = have == 5 ? f->body_len - f->body_have : 0, pos = 0;
    for (;;) {
        if (have == 5) {
            if (len - pos <= body_left)
                return 0;
            pos += body_left;
            have = 0;
        }
        while (have < 5) {
            if (pos == len)
                return 0;
            hdr[have++] = data[pos++];
        }
        if (header_keeping(f, hdr, &body_len) < 0)
            return -1;
        body_left = body_len;
    }
}

int pgwire_framer_feed(struct pgwire_framer *f, const uint8_t *data, size_t len, size_t *used,
                       char *type, const uint8_t **body, size_t *body_len)
{
    size_t pos = 0;
    *used = 0;
    while (f->hdr_have < 5) {
        if (pos == len) {
            *used = pos;
            return 0;
        }
        f->hdr[f->hdr_have++] = data[pos++];
        if (f->hdr_have == 5) {
            f->keeping = header_keeping(f, f->hdr, &f->body_len);
            if (f->keeping < 0) {
                *used = pos;
                return -1;
            }
            f->body_have = 0;
            buf_reset(&f->body);
        }
    }
    size_t take = len - pos;
    if (take > f->body_len - f->body_have)
        take = f->body_len - f->body_have;
    if (f->keeping == 1)
        buf_append(&f->body, (const char *)data + pos, take);
    else if (f->keeping == 2 && f->body.len < PGWIRE_PREFIX_MAX)
        buf_append(&f->body, (const char *)data + pos,
                   take < PGWIRE_PREFIX_MAX - f->body.len ? take : PGWIRE_PREFIX_MAX - f->body.len);
    f->body_have += (uint32_t)take;
    pos += take;
    *used = pos;
    if (f->body_have < f->body_len)
        return 0;
    *type = (char)f->hdr[0];
    *body = f->keeping ? (const uint8_t *)f->body.data : NULL;
    *body_len = f->keeping ? f->body.len : 0;
    f->hdr_have = 0;
    return 1;
}

void pgwire_reader_init(struct pgwire_reader *r, const uint8_t *p, size_t len)
{
    r->p = p;
    r->len = len;
    r->pos = 0;
    r->bad = 0;
}

const uint8_t *pgwire_get_bytes(struct pgwire_reader *r, size_t n)
{
    if (r->bad || r->len - r->pos < n) {
        r->bad = 1;
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

uint32_t pgwire_get_u32(struct pgwire_reader *r)
{
    const uint8_t *p = pgwire_get_bytes(r, 4);
    return p ? be32(p) : 0;
}

uint16_t pgwire_get_u16(struct pgwire_reader *r)
{
    const uint8_t *p = pgwire_get_bytes(r, 2);
    return p ? (uint16_t)(p[0] << 8 | p[1]) : 0;
}

const char *pgwire_get_str(struct pgwire_reader *r)
{
    const uint8_t *end = r->bad ? NULL : memchr(r->p + r->pos, '\0', r->len - r->pos);
    if (!end) {
        r->bad = 1;
        return "";
    }
    const char *s = (const char *)(r->p + r->pos);
    r->pos = (size_t)(end - r->p) + 1;
    return s;
}

int pgwire_parse_bind(const uint8_t *body, size_t len, struct pgwire_bind *b)
{
    memset(b, 0, sizeof *b);
    struct pgwire_reader r;
    pgwire_reader_init(&r, body, len);
    b->portal = pgwire_get_str(&r);
    b->statement = pgwire_get_str(&r);
    int n_formats = pgwire_get_u16(&r);
    const uint8_t *formats = pgwire_get_bytes(&r, (size_t)n_formats * 2);
    int n = pgwire_get_u16(&r);
    if (r.bad || (n_formats > 1 && n_formats != n))
        return -1;
    b->n_params = n;
    b->values = xcalloc((size_t)n + 1, sizeof *b->values);
    b->lens = xcalloc((size_t)n + 1, sizeof *b->lens);
    b->formats = xcalloc((size_t)n + 1, sizeof *b->formats);
    for (int i = 0; i < n; i++) { /* one format for all, or one each */
        const uint8_t *f = n_formats == 0 ? NULL : formats + 2 * (n_formats == 1 ? 0 : i);
        b->formats[i] = f && (f[0] != 0 || f[1] != 0);
        b->any_binary |= b->formats[i];
    }
    for (int i = 0; i < n; i++) {
        int32_t l = (int32_t)pgwire_get_u32(&r);
        b->lens[i] = l < 0 ? PGWIRE_NULL_LEN : l;
        b->values[i] = l < 0 ? NULL : pgwire_get_bytes(&r, (size_t)l);
    }
    b->n_result_formats = pgwire_get_u16(&r);
    b->result_formats = xcalloc((size_t)b->n_result_formats + 1, sizeof *b->result_formats);
    for (int i = 0; i < b->n_result_formats && !r.bad; i++)
        b->result_formats[i] = pgwire_get_u16(&r) != 0;
    if (r.bad) {
        pgwire_bind_free(b);
        return -1;
    }
    return 0;
}

void pgwire_bind_free(struct pgwire_bind *b)
{
    free(b->values);
    free(b->lens);
    free(b->formats);
    free(b->result_formats);
    b->values = NULL;
    b->lens = NULL;
    b->formats = b->result_formats = NULL;
}

void pgwire_parse_error(const uint8_t *body, size_t len, char sqlstate[6], const char **message)
{
    struct pgwire_reader r;
    pgwire_reader_init(&r, body, len);
    sqlstate[0] = '\0';
    *message = "";
    while (!r.bad && r.pos < len) {
        uint8_t field = *pgwire_get_bytes(&r, 1);
        if (field == 0)
            break;
        const char *v = pgwire_get_str(&r);
        if (r.bad)
            break;
        if (field == 'C') {
            strncpy(sqlstate, v, 5);
            sqlstate[5] = '\0';
        } else if (field == 'M') {
            *message = v;
        }
    }
}

static void put_u32(struct buf *out, uint32_t v)
{
    char b[4] = {(char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v};
    buf_append(out, b, 4);
}

/* The length of the message that starts at out->data + start, written in its place. */
static void set_len(struct buf *out, size_t start)
{
    uint32_t n = (uint32_t)(out->len - start - 1);
    for (int i = 0; i < 4; i++)
        out->data[start + 1 + i] = (char)(n >> (24 - 8 * i));
}

int pgwire_sasl_without(const uint8_t *body, size_t len, const char *mechanism, struct buf *out)
{
    size_t start = out->len;
    buf_putc(out, 'R');
    put_u32(out, 0);
    buf_append(out, (const char *)body, len < 4 ? len : 4);
    int kept = 0;
    for (size_t pos = 4; pos < len && body[pos];) {
        const uint8_t *end = memchr(body + pos, '\0', len - pos);
        if (!end)
            break;
        size_t n = (size_t)(end - (body + pos)) + 1;
        if (strcmp((const char *)body + pos, mechanism) != 0) {
            buf_append(out, (const char *)body + pos, n);
            kept++;
        }
        pos += n;
    }
    buf_putc(out, '\0');
    set_len(out, start);
    return kept ? 0 : -1;
}

void pgwire_error_response(struct buf *out, const char *sqlstate, const char *message)
{
    size_t start = out->len;
    buf_putc(out, 'E');
    put_u32(out, 0);
    const char *fields[][2] = {{"S", "FATAL"}, {"V", "FATAL"}, {"C", sqlstate}, {"M", message}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        buf_puts(out, fields[i][0]);
        buf_append(out, fields[i][1], strlen(fields[i][1]) + 1);
    }
    buf_putc(out, '\0');
    set_len(out, start);
}
