#ifndef _WIN32 /* Windows: no proxy (proxy_none.c), no OpenSSL */
/* The recording proxy's sockets, in the clear or over TLS (capture/ptls.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "base/mem.h"
#include "capture/ptls.h"

struct ptls_ctx {
    SSL_CTX *ctx;
    enum ptls_mode mode;
};

/* OpenSSL's reason for the last failure (never data: names only). */
static const char *reason(void)
{
    unsigned long code = ERR_peek_last_error();
    const char *r = code ? ERR_reason_error_string(code) : NULL;
    return r ? r : "unknown error";
}

/* path can be opened for reading: 0, or -1 with e set naming the option and the file. */
static int readable(const char *opt, const char *path, struct err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(e, ERR_INPUT, "replay record: %s %s: %s", opt, path, strerror(errno));
    fclose(f);
    return 0;
}

static struct ptls_ctx *ctx_new(const SSL_METHOD *method, struct err *e)
{
    SSL_CTX *c = SSL_CTX_new(method);
    if (!c) {
        err_set(e, ERR_INPUT, "replay record: TLS: %s", reason());
        return NULL;
    }
    SSL_CTX_set_min_proto_version(c, TLS1_2_VERSION); /* libpq's default minimum */
    SSL_CTX_set_mode(c, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    struct ptls_ctx *p = xcalloc(1, sizeof *p);
    p->ctx = c;
    return p;
}

struct ptls_ctx *ptls_server_ctx(const char *cert, const char *key, struct err *e)
{
    if (readable("--tls-cert", cert, e) < 0 || readable("--tls-key", key, e) < 0)
        return NULL;
    struct ptls_ctx *p = ctx_new(TLS_server_method(), e);
    if (!p)
        return NULL;
    ERR_clear_error();
    const char *bad = NULL;
    if (SSL_CTX_use_certificate_chain_file(p->ctx, cert) != 1)
        bad = "--tls-cert";
    else if (SSL_CTX_use_PrivateKey_file(p->ctx, key, SSL_FILETYPE_PEM) != 1)
        bad = "--tls-key";
    else if (SSL_CTX_check_private_key(p->ctx) != 1)
        bad = "--tls-key";
    if (bad) {
        err_set(e, ERR_INPUT, "replay record: %s %s: %s", bad, bad[6] == 'c' ? cert : key,
                reason());
        ptls_ctx_free(p);
        return NULL;
    }
    return p;
}

int ptls_client_ctx(const char *sslmode, const char *rootcert, enum ptls_mode *mode,
                    struct ptls_ctx **out, struct err *e)
{
    *out = NULL;
    static const struct {
        const char *name;
        enum ptls_mode mode;
    } modes[] = {{"disable", PTLS_DISABLE},     {"allow", PTLS_DISABLE},
                 {"prefer", PTLS_PREFER},       {"require", PTLS_REQUIRE},
                 {"verify-ca", PTLS_VERIFY_CA}, {"verify-full", PTLS_VERIFY_FULL}};
    size_t i = 0;
    while (i < sizeof modes / sizeof modes[0] && strcmp(modes[i].name, sslmode) != 0)
        i++;
    if (i == sizeof modes / sizeof modes[0]) {
        return err_set(e, ERR_INPUT, "replay record: invalid sslmode in CONN: '%s'", sslmode);
    }
    *mode = modes[i].mode;
    if (*mode == PTLS_DISABLE)
        return 0;
    char home_root[1024] = "";
    if (*mode >= PTLS_VERIFY_CA && !*rootcert) {
        const char *home = getenv("HOME");
        snprintf(home_root, sizeof home_root, "%s/.postgresql/root.crt", home ? home : "");
        rootcert = home_root;
    }
    if (*mode >= PTLS_VERIFY_CA && strcmp(rootcert, "system") != 0 &&
        readable("sslrootcert", rootcert, e) < 0)
        return -1;
    struct ptls_ctx *p = ctx_new(TLS_client_method(), e);
    if (!p)
        return -1;
    p->mode = *mode;
    if (*mode >= PTLS_VERIFY_CA) {
        ERR_clear_error();
        int ok = strcmp(rootcert, "system") == 0
                     ? SSL_CTX_set_default_verify_paths(p->ctx)
                     : SSL_CTX_load_verify_locations(p->ctx, rootcert, NULL);
        if (ok != 1) {
            err_set(e, ERR_INPUT, "replay record: sslrootcert %s: %s", rootcert, reason());
            ptls_ctx_free(p);
            return -1;
        }
        SSL_CTX_set_verify(p->ctx, SSL_VERIFY_PEER, NULL);
    }
    *out = p;
    return 0;
}

void ptls_ctx_free(struct ptls_ctx *ctx)
{
    if (!ctx)
        return;
    SSL_CTX_free(ctx->ctx);
    free(ctx);
}

void ptls_sock_init(struct ptls_sock *s, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->rd_ev = POLLIN;
    s->wr_ev = POLLOUT;
}

int ptls_start(struct ptls_sock *s, struct ptls_ctx *ctx, const char *host)
{
    SSL *ssl = SSL_new(ctx->ctx);
    if (!ssl || SSL_set_fd(ssl, s->fd) != 1) {
        SSL_free(ssl);
        return -1;
    }
    if (!host) {
        SSL_set_accept_state(ssl);
    } else {
        unsigned char ip[16];
        int is_ip = inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1;
        if (!is_ip)
            SSL_set_tlsext_host_name(ssl, host); /* SNI, as libpq sends it */
        if (ctx->mode == PTLS_VERIFY_FULL) {
            X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);
            if (is_ip)
                X509_VERIFY_PARAM_set1_ip_asc(vp, host);
            else
                SSL_set1_host(ssl, host);
        }
        SSL_set_connect_state(ssl);
    }
    s->ssl = ssl;
    return 0;
}

/* What an SSL_read or SSL_write that returned rc means: 0 (wait for *ev), or -1 (s->why). */
static ssize_t ssl_failed(struct ptls_sock *s, int rc, short *ev)
{
    SSL *ssl = s->ssl;
    switch (SSL_get_error(ssl, rc)) {
    case SSL_ERROR_WANT_READ:
        *ev = POLLIN;
        return 0;
    case SSL_ERROR_WANT_WRITE:
        *ev = POLLOUT;
        return 0;
    case SSL_ERROR_ZERO_RETURN:
        snprintf(s->why, sizeof s->why, "the peer closed TLS");
        return -1;
    case SSL_ERROR_SYSCALL:
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
            return 0;
        snprintf(s->why, sizeof s->why, "%s", errno ? strerror(errno) : "connection closed");
        return -1;
    default: {
        long v = SSL_get_verify_result(ssl);
        if (v != X509_V_OK)
            snprintf(s->why, sizeof s->why, "certificate verify failed: %s",
                     X509_verify_cert_error_string(v));
        else
            snprintf(s->why, sizeof s->why, "%s", reason());
        return -1;
    }
    }
}

ssize_t ptls_read(struct ptls_sock *s, void *buf, size_t n)
{
    if (!s->ssl) {
        ssize_t r = recv(s->fd, buf, n, 0);
        if (r < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        return r == 0 ? -1 : r;
    }
    ERR_clear_error();
    errno = 0;
    int r = SSL_read(s->ssl, buf, n > 1 << 30 ? 1 << 30 : (int)n);
    if (r > 0) {
        s->rd_ev = POLLIN;
        return r;
    }
    return ssl_failed(s, r, &s->rd_ev);
}

ssize_t ptls_write(struct ptls_sock *s, const void *buf, size_t n)
{
    if (!s->ssl) {
        ssize_t r = send(s->fd, buf, n, MSG_NOSIGNAL);
        if (r < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
        return r;
    }
    ERR_clear_error();
    errno = 0;
    int r = SSL_write(s->ssl, buf, n > 1 << 30 ? 1 << 30 : (int)n);
    if (r > 0) {
        s->wr_ev = POLLOUT;
        return r;
    }
    return ssl_failed(s, r, &s->wr_ev);
}

int ptls_pending(const struct ptls_sock *s)
{
    return s->ssl && SSL_pending(s->ssl) > 0;
}

void ptls_close(struct ptls_sock *s)
{
    if (s->ssl) {
        ERR_clear_error();
        if (SSL_is_init_finished(s->ssl))
            SSL_shutdown(s->ssl); /* close_notify if the socket takes it; no wait */
        SSL_free(s->ssl);
        ERR_clear_error();
        s->ssl = NULL;
    }
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

#endif
