#ifndef PGARENA_CAPTURE_PGWIRE_H
#define PGARENA_CAPTURE_PGWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * PostgreSQL's protocol 3 as the recording proxy (capture/proxy.h) reads it: the startup
 * packet, the framing of typed messages in a byte stream (a message's type byte, then its
 * length counting itself), and the few messages a capture needs, parsed from their bodies.
 * Pure: no I/O, no clock. Ownership: what a parser hands out points into the body it was
 * given (valid while the body is); a framer owns the body it keeps.
 */

#define PGWIRE_PROTOCOL_3     0x00030000u /* major 3, minor 0 (3.x: any minor) */
#define PGWIRE_SSL_REQUEST    80877103u
#define PGWIRE_GSSENC_REQUEST 80877104u
#define PGWIRE_CANCEL_REQUEST 80877102u
/* The longest startup packet or message body a framer keeps (longer ones are refused). */
#define PGWIRE_STARTUP_MAX    10000u
#define PGWIRE_CANCEL_KEY_MAX 256u

enum pgwire_startup_kind {
    PGWIRE_STARTUP_V3,     /* protocol 3.x: parameters follow */
    PGWIRE_STARTUP_SSL,    /* SSLRequest */
    PGWIRE_STARTUP_GSSENC, /* GSSENCRequest */
    PGWIRE_STARTUP_CANCEL, /* CancelRequest: pid and key */
    PGWIRE_STARTUP_OTHER,  /* another protocol version */
};

#define PGWIRE_MAX_PARAMS 64

struct pgwire_startup {
    enum pgwire_startup_kind kind;
    uint32_t code; /* the version or request code as sent */
    int n_params;
    const char *names[PGWIRE_MAX_PARAMS], *values[PGWIRE_MAX_PARAMS];
    uint32_t cancel_pid;
    const uint8_t *cancel_key; /* CANCEL: the key's bytes (4 in 3.0, up to 256 in 3.2) */
    size_t cancel_key_len;
};

/* The length of the startup packet at the front of data (its first 4 bytes): 0 when fewer
 * than 4 bytes are there, -1 when it is out of range (under 8 or over PGWIRE_STARTUP_MAX). */
long pgwire_startup_len(const uint8_t *data, size_t len);

/* Parse a whole startup packet p of len bytes (pgwire_startup_len's). 0, or -1 when it does
 * not read (parameters not NUL-terminated, too many). */
int pgwire_startup_parse(const uint8_t *p, size_t len, struct pgwire_startup *out);

/* The value of parameter name in s, or NULL. */
const char *pgwire_startup_param(const struct pgwire_startup *s, const char *name);

/* A typed message's stream, read as it comes: feed bytes, get each message's type and, when
 * keep says so for its type, its body (others are skipped without being held). */
struct pgwire_framer {
    uint8_t hdr[5];
    int hdr_have;
    uint32_t body_len, body_have;
    int keeping;        /* 0 skipped, 1 kept whole, 2 its first PGWIRE_PREFIX_MAX bytes kept */
    uint8_t keep[32];   /* bitmap of the types whose bodies are kept */
    uint8_t prefix[32]; /* bitmap of the types whose bodies' first bytes are kept */
    uint32_t max_body;  /* a longer kept body: the framer fails */
    struct buf body;    /* the kept body of the message being read */
};

/* Init f keeping the bodies of the types in keep_types (a string of type bytes), at most
 * max_body bytes each. */
void pgwire_framer_init(struct pgwire_framer *f, const char *keep_types, uint32_t max_body);
void pgwire_framer_free(struct pgwire_framer *f);
/* Also keep the first PGWIRE_PREFIX_MAX bytes of the bodies of these types, however long (a
 * message's body is then handed out cut to them: a DataRow's first short value). */
#define PGWIRE_PREFIX_MAX 64u
void pgwire_framer_keep_prefix(struct pgwire_framer *f, const char *types);
/* 1 when a message has been read in part (the stream ended there: cut mid-message). */
int pgwire_framer_mid(const struct pgwire_framer *f);

/* Read from data (len bytes) up to the end of the next message: *used bytes taken. 1 when a
 * message ended (*type, and *body and *body_len when kept, else NULL and 0), 0 when data ran out
 * first, -1 when the stream does not read (a length under 4, a kept body over max_body). */
int pgwire_framer_feed(struct pgwire_framer *f, const uint8_t *data, size_t len, size_t *used,
                       char *type, const uint8_t **body, size_t *body_len);
/* Whether feeding f data (len bytes) would read: 0, or -1 where feed would fail (f is left as
 * it was: a relay sends bytes on before it feeds them to be recorded). */
int pgwire_framer_check(const struct pgwire_framer *f, const uint8_t *data, size_t len);

/* A body read field by field; a read past the end sets bad and gives zeros and "". */
struct pgwire_reader {
    const uint8_t *p;
    size_t len, pos;
    int bad;
};

void pgwire_reader_init(struct pgwire_reader *r, const uint8_t *p, size_t len);
uint32_t pgwire_get_u32(struct pgwire_reader *r);
uint16_t pgwire_get_u16(struct pgwire_reader *r);
const char *pgwire_get_str(struct pgwire_reader *r); /* a NUL-terminated string */
const uint8_t *pgwire_get_bytes(struct pgwire_reader *r, size_t n);

/* Bind ('B'): the statement, and the parameters with their formats. */
#define PGWIRE_NULL_LEN (-1)
struct pgwire_bind {
    const char *portal, *statement;
    int n_params;
    int any_binary;         /* a parameter sent in binary format */
    const uint8_t **values; /* n_params (xcalloc'd arrays: pgwire_bind_free) */
    int32_t *lens;          /* PGWIRE_NULL_LEN for NULL */
    int *formats;           /* n_params formats (0 text, 1 binary) */
    int n_result_formats;   /* the result columns' formats as sent (0: all text) */
    int *result_formats;
};

/* The n bytes (at most 8) at p as an unsigned integer in network order: a binary integer
 * value's. */
uint64_t pgwire_be(const uint8_t *p, int n);

/* Parse a Bind body. 0, or -1 when it does not read. */
int pgwire_parse_bind(const uint8_t *body, size_t len, struct pgwire_bind *b);
void pgwire_bind_free(struct pgwire_bind *b);

/* ErrorResponse/NoticeResponse: the SQLSTATE (field C) into sqlstate[6] ("" when absent)
 * and the message (field M, "" when absent). */
void pgwire_parse_error(const uint8_t *body, size_t len, char sqlstate[6], const char **message);

/* Append to out the AuthenticationSASL whose body (its code 10, then the mechanisms, each
 * NUL-terminated, then a NUL) is body, without mechanism: what the proxy sends a client
 * whose TLS it ends (SCRAM-SHA-256-PLUS cannot pass). 0, or -1 when no mechanism is left. */
int pgwire_sasl_without(const uint8_t *body, size_t len, const char *mechanism, struct buf *out);

/* Append an ErrorResponse (severity FATAL) with code and message to out: what the proxy says
 * to a client it refuses. */
void pgwire_error_response(struct buf *out, const char *sqlstate, const char *message);

#endif
