#ifndef PGARENA_CAPTURE_PTLS_H
#define PGARENA_CAPTURE_PTLS_H

#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

/*
 * The recording proxy's sockets, in the clear or over TLS (OpenSSL, as libpq uses), without
 * blocking: a read or a write that cannot go on now says which readiness it waits for
 * (rd_ev, wr_ev: POLLIN or POLLOUT), and data TLS has already decrypted (ptls_pending) is read
 * without waiting for the socket. No key material is ever printed: errors name the file or
 * OpenSSL's reason only. POSIX only (not in the Windows build).
 */

struct ptls_ctx;

/* TLS to the server as CONN's sslmode asks. */
enum ptls_mode {
    PTLS_DISABLE, /* disable, allow: in the clear */
    PTLS_PREFER,  /* TLS when the server takes it */
    PTLS_REQUIRE, /* TLS or no connection; the certificate not checked */
    PTLS_VERIFY_CA,
    PTLS_VERIFY_FULL,
};

/* A context that answers clients with cert and key (PEM files). NULL with e set (ERR_INPUT,
 * one line naming the file) when they do not load or do not match. */
struct ptls_ctx *ptls_server_ctx(const char *cert, const char *key, struct err *e);

/* A context for connections to the server into *out (NULL for disable and allow): mode from
 * sslmode ("disable" ... "verify-full"), rootcert the CA file for the verify modes (default
 * ~/.postgresql/root.crt; "system": OpenSSL's). 0, or -1 with e set when sslmode is not one
 * of them or rootcert does not load. */
int ptls_client_ctx(const char *sslmode, const char *rootcert, enum ptls_mode *mode,
                    struct ptls_ctx **out, struct err *e);
void ptls_ctx_free(struct ptls_ctx *ctx);

/* One socket of the proxy. */
struct ptls_sock {
    int fd;
    void *ssl;          /* SSL *, NULL in the clear */
    short rd_ev, wr_ev; /* what a read, a write waits for */
    char why[160];      /* the last TLS failure (OpenSSL's reason) */
};

void ptls_sock_init(struct ptls_sock *s, int fd);

/* Start TLS on s: as the server of a client (host NULL), or as a client of the server at host
 * (checked as the context's mode asks). The handshake runs within the reads and writes. 0, or
 * -1 (out of memory). */
int ptls_start(struct ptls_sock *s, struct ptls_ctx *ctx, const char *host);

/* Read up to n bytes: the count, 0 when nothing can be read now, -1 at the end or an error. */
ssize_t ptls_read(struct ptls_sock *s, void *buf, size_t n);

/* Write up to n bytes (n > 0): the count, 0 when nothing can be written now, -1 when the peer
 * is gone. A write that returned 0 is retried with the same bytes (more may follow them). */
ssize_t ptls_write(struct ptls_sock *s, const void *buf, size_t n);

/* 1 when TLS holds decrypted bytes not read yet (the socket will not say so). */
int ptls_pending(const struct ptls_sock *s);

/* Shut TLS down (without waiting) and close the socket. */
void ptls_close(struct ptls_sock *s);

#endif
