#ifndef PGARENA_CAPTURE_PROXY_H
#define PGARENA_CAPTURE_PROXY_H

#include "base/err.h"
#include "capture/record.h"
#include "pg/pg.h"

/*
 * replay record's proxy: it listens where --listen says, and relays each client's protocol 3
 * connection to the server, bytes unchanged both ways (but SCRAM-SHA-256-PLUS, taken out of
 * the server's mechanisms), while capture/record.h turns the messages into a capture. One
 * thread waits on every connection (poll). Per client: an SSLRequest is answered 'S' and TLS
 * ended here when a certificate is given, else 'N'; a GSSENCRequest 'N'; TLS to the server
 * as sslmode asks (capture/ptls.h); a CancelRequest for a session relayed (by the backend
 * key its server gave) is sent on to the server (any other is dropped), a replication or
 * other protocol's startup is refused with an ErrorResponse to that client alone; a startup
 * of protocol 3 opens a connection to the server (without waiting: the server's addresses
 * are resolved once, at the start) and is sent on as it came, so authentication of every
 * kind passes through. POSIX only: on Windows proxy_run refuses (proxy_none.c).
 */

struct proxy_opts {
    const char *listen_addr; /* an address or host name to listen on */
    int listen_port;         /* 0: a free one (said on stderr) */
    const char *server_host; /* a host name, an address, or a socket's directory (/...) */
    int server_port;
    int seconds; /* stop after (0: at SIGINT or SIGTERM only) */
    const char *output;
    const char *tls_cert, *tls_key;    /* TLS with clients (both, or neither: 'N') */
    const char *sslmode, *sslrootcert; /* TLS to the server, as libpq's (NULL: prefer, none) */
    /* CONN, for the connections that learn the names of the user's types a Parse names
     * (capture/typenames.h); NULL: none learnt */
    const struct pg_connopts *conn;
};

/* Listen, relay and record until --seconds or a signal, then write the capture at
 * o->output. Says on stderr where it listens. 0 with stats filled, or -1 with e set
 * (ERR_INPUT when it cannot listen or write the capture). */
int proxy_run(const struct proxy_opts *o, struct record_stats *stats, struct err *e);

#endif
