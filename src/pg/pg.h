#ifndef PGARENA_PG_PG_H
#define PGARENA_PG_PG_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * The one seam to libpq. Everything that talks to a server goes through here: connection
 * options, asynchronous connections for the engine, blocking helpers for setup work, COPY for
 * the loaders, and the SQLSTATE classes that failures are counted by. No libpq type crosses
 * this header: connections and results are opaque, so nothing above src/pg/ can reach libpq.
 *
 * A connection is made by a driver: libpq's (the default) or one a test installs
 * (pg_driver.h), which lets the engine run against a scripted fake connection.
 *
 * Ownership: struct pg_connopts owns its strings (pg_connopts_free); a struct pg_conn * and a
 * struct pg_result * returned here belong to the caller (pg_finish, pg_result_free). Strings
 * returned by accessors belong to the connection or result they came from.
 */

/* Connection options as the user gave them: -h -p -U and a positional dbname, which may be a
 * database name, a key=value conninfo or a postgresql:// URI (libpq expands it). Unset
 * fields are NULL, so libpq falls back to PG* variables and ~/.pgpass. */
struct pg_connopts {
    char *host;
    char *port;
    char *user;
    char *dbname;
};

void pg_connopts_free(struct pg_connopts *o);

/* Room for the keyword/value arrays of pg_connopts_params, with their terminating NULL. */
#define PG_CONN_PARAMS 16

/* NULL-terminated keyword/value arrays for libpq's *Params connection functions with
 * expand_dbname = 1: TCP keepalive and tcp_user_timeout defaults (unless the conninfo sets
 * them), then o's fields. Arrays point into o and static strings; valid while o lives. */
void pg_connopts_params(const struct pg_connopts *o, const char *keywords[PG_CONN_PARAMS],
                        const char *values[PG_CONN_PARAMS]);

/* Where the server of o is, as libpq reads it (o's -h/-p, then the conninfo or URI, then
 * PGHOST/PGPORT; the first of several hosts), without connecting: host (a name, an address,
 * or a socket's directory, default /var/run/postgresql) into host, the port (default 5432).
 * 0, or -1 with e set (ERR_INPUT) when the conninfo or the port does not read. */
int pg_connopts_server(const struct pg_connopts *o, char *host, size_t host_size, int *port,
                       struct err *e);

/* The TLS settings of o as libpq reads them (the conninfo, then PGSSLMODE and PGSSLROOTCERT):
 * sslmode (default prefer) and sslrootcert ("" when unset). 0, or -1 with e set (ERR_INPUT)
 * when the conninfo does not read. */
int pg_connopts_tls(const struct pg_connopts *o, char *sslmode, size_t mode_size, char *rootcert,
                    size_t root_size, struct err *e);

struct buf;
/* " key='v'" appended to conninfo b, as libpq reads it (a backslash before ' and \). */
void pg_conninfo_append(struct buf *b, const char *key, const char *v);

/* o for database dbname (a new struct into out, its dbname a key=value conninfo holding o's
 * conninfo or URI, whose other settings stay) and, when o names no user (no -U, none in its
 * conninfo, no PGUSER), for user. 0, or -1 with e set (ERR_INPUT) when the conninfo does
 * not read. */
int pg_connopts_with_database(const struct pg_connopts *o, const char *dbname, const char *user,
                              struct pg_connopts *out, struct err *e);

struct pg_conn;
struct pg_result;

/* Why a statement failed, as counted in summary.errors. */
enum pg_failure {
    PGF_NONE = 0,
    PGF_SERIALIZATION, /* SQLSTATE 40001: retryable */
    PGF_DEADLOCK,      /* SQLSTATE 40P01: retryable */
    PGF_CONNECTION,    /* connection lost or broken */
    PGF_TIMEOUT,       /* cancelled by --timeout (57014 after our own cancel) */
    PGF_OTHER,         /* any other SQL error */
    PGF__COUNT
};

/* ---- Asynchronous connections (the engine) ---- */

/* What an asynchronous connection attempt waits for next. */
enum pg_poll {
    PG_POLL_READ,  /* wait until the socket is readable, then pg_conn_poll again */
    PG_POLL_WRITE, /* wait until the socket is writable, then pg_conn_poll again */
    PG_POLL_OK,    /* connected */
    PG_POLL_FAILED /* failed: pg_error_line says why */
};

/* Start connecting without blocking, notices ignored. NULL only when out of memory. A
 * connection that failed at once (a bad conninfo, no host reachable) has no socket
 * (pg_socket -1, pg_conn_error says why); otherwise wait until the socket is writable, then
 * pg_conn_poll. */
struct pg_conn *pg_conn_start(const struct pg_connopts *o);

/* One step of the connection attempt. The socket may change between steps (libpq opens a new
 * one for each host and address it tries), so read pg_socket after every step. */
enum pg_poll pg_conn_poll(struct pg_conn *c);

/* Close and free; c may be NULL. */
void pg_finish(struct pg_conn *c);

/* The connection's socket, -1 when there is none. */
int pg_socket(const struct pg_conn *c);

/* 1 while the connection is usable, 0 once it is broken or closed. */
int pg_conn_ok(const struct pg_conn *c);

/* Put a connected connection in non-blocking mode: 0, or -1 on failure. */
int pg_set_nonblocking(struct pg_conn *c);

/* How a statement's parameters are sent, when not all as text with types inferred (a
 * replay sends them as its capture's client did): each value's length and format (1 binary;
 * NULL: all text), the results' format (1 binary), and type OIDs (send_params: n of them;
 * send_prepare: n_params; 0 or NULL: the server infers them). */
struct pg_param_forms {
    const int *lengths, *formats;
    int result_binary;
    const uint32_t *types;
};

/* Send one statement (several in the simple protocol), without waiting: 0 queued, -1 failed
 * (the connection's error message says why). Values are n of them ($1..$n), text unless
 * forms (NULL: text) say otherwise. */
int pg_send_simple(struct pg_conn *c, const char *sql);
int pg_send_params(struct pg_conn *c, const char *sql, int n, const char *const *values,
                   const struct pg_param_forms *forms);
int pg_send_prepared(struct pg_conn *c, const char *name, int n, const char *const *values,
                     const struct pg_param_forms *forms);
int pg_send_prepare(struct pg_conn *c, const char *name, const char *sql, int n_params,
                    const uint32_t *types);

/* Push queued output to the server: 0 all sent, 1 some left (wait until writable and call
 * again), -1 failed. */
int pg_flush(struct pg_conn *c);

/* Read what the socket has: 0, or -1 when the connection broke. */
int pg_consume(struct pg_conn *c);

/* 1 when the next result is not complete yet (pg_next_result would block). */
int pg_is_busy(const struct pg_conn *c);

/* The next result of the statement in flight; NULL after its last one. Call only when
 * pg_is_busy says 0. */
struct pg_result *pg_next_result(struct pg_conn *c);

/* COPY, without blocking. pg_get_copy_data (after a PG_RES_COPY_OUT result) reads one row
 * and drops it: 1 a row was read, 0 none is complete yet (wait until readable, pg_consume,
 * call again), -1 the data has ended (pg_next_result gives the COPY's own result), -2 failed.
 * pg_put_copy_data (after a PG_RES_COPY_IN result) queues n bytes and pg_put_copy_end ends
 * the data (errmsg NULL), or fails the COPY with errmsg (the server answers with an error):
 * 1 queued (pg_flush sends it), 0 not queued, the output is full (wait until writable,
 * pg_flush, call again), -1 failed. */
int pg_get_copy_data(struct pg_conn *c);
int pg_put_copy_data(struct pg_conn *c, const char *data, int n);
int pg_put_copy_end(struct pg_conn *c, const char *errmsg);

/* Pipeline mode: enter (0, or -1 when refused), exit once every result is read, queue a
 * sync (0/-1), and whether c is in pipeline mode (1/0). */
int pg_pipeline_enter(struct pg_conn *c);
void pg_pipeline_exit(struct pg_conn *c);
int pg_pipeline_sync(struct pg_conn *c);
/* A sync in the middle of a pipeline (\syncpipeline), queued without flushing where libpq
 * can (17's PQsendPipelineSync); older ones send the same Sync message and flush. 0/-1. */
int pg_pipeline_send_sync(struct pg_conn *c);
/* In pipeline mode, a Flush queued: the server sends the results so far without waiting for a
 * Sync (a Sync group that goes on). 0/-1. */
int pg_pipeline_flush_request(struct pg_conn *c);
int pg_in_pipeline(const struct pg_conn *c);

/* The transaction state, as the server last reported it. */
enum pg_txn {
    PG_TXN_IDLE,    /* not in a transaction block */
    PG_TXN_ACTIVE,  /* a statement is in progress */
    PG_TXN_INTRANS, /* in a transaction block */
    PG_TXN_INERROR, /* in a failed transaction block */
    PG_TXN_UNKNOWN  /* the connection is bad */
};
enum pg_txn pg_txn_status(const struct pg_conn *c);

/* The connection's last error message, folded to one line (without "ERROR:  ", the newline
 * and continuation lines joined by a space), into out. "unknown error" when there is none. */
void pg_conn_error(const struct pg_conn *c, char *out, size_t out_size);

/* Ask the server to cancel what c is running. Blocks until the server answers, so the engine
 * calls it from a helper thread: pg_cancel_new (no blocking, on the worker) makes a request
 * that pg_cancel_send (blocking) sends; pg_cancel_free frees it. NULL when c has none. */
struct pg_cancel;
struct pg_cancel *pg_cancel_new(struct pg_conn *c);
void pg_cancel_send(struct pg_cancel *k);
void pg_cancel_free(struct pg_cancel *k);

/* ---- Results ---- */

enum pg_status {
    PG_RES_COMMAND,          /* a command without rows completed */
    PG_RES_ROWS,             /* a query returned rows (maybe none) */
    PG_RES_EMPTY,            /* an empty query string */
    PG_RES_COPY_IN,          /* the server waits for COPY data */
    PG_RES_COPY_OUT,         /* the server sends COPY data: read it with pg_get_copy_data */
    PG_RES_PIPELINE_SYNC,    /* a pipeline's sync point */
    PG_RES_PIPELINE_ABORTED, /* not run: an earlier statement of its pipeline's Sync failed */
    PG_RES_ERROR             /* failed: pg_classify and pg_error_line say why */
};

enum pg_status pg_result_status(const struct pg_result *r);
int pg_result_rows(const struct pg_result *r);
int pg_result_cols(const struct pg_result *r);
/* The text of a value; "" for NULL (tell them apart with pg_result_isnull). */
const char *pg_result_value(const struct pg_result *r, int row, int col);
int pg_result_isnull(const struct pg_result *r, int row, int col);
const char *pg_result_colname(const struct pg_result *r, int col);
/* The five-character SQLSTATE of a failed result; NULL when none (client-side failure). */
const char *pg_result_sqlstate(const struct pg_result *r);
/* The DETAIL line of a failed result, NULL when none. */
const char *pg_result_detail(const struct pg_result *r);
void pg_result_free(struct pg_result *r);

/* Classify a failed result (r may be NULL when the connection broke). */
enum pg_failure pg_classify(const struct pg_conn *c, const struct pg_result *r);

/* The class of a SQLSTATE ("40001" -> PGF_SERIALIZATION ...); PGF_OTHER for NULL. */
enum pg_failure pg_sqlstate_class(const char *sqlstate);

/* A result's error message (else the connection's), folded to one line as pg_conn_error
 * does, into out. */
void pg_error_line(const struct pg_conn *c, const struct pg_result *r, char *out, size_t out_size);

/* What a failed connection's message (struct err's, from pg_connect* or an engine's client)
 * says went wrong, for callers that act on it: no answer in time, the server's connection
 * slots full, the database missing; anything else is OTHER. */
enum pg_connect_failure {
    PG_CONNECT_OTHER,
    PG_CONNECT_NO_ANSWER,
    PG_CONNECT_TOO_MANY_CLIENTS,
    PG_CONNECT_NO_DATABASE,
};
enum pg_connect_failure pg_connect_failure_of(const char *msg);

/* ---- Blocking helpers for setup work ---- */

/* Blocking connect, notices ignored. NULL with e set (ERR_RUNTIME, "could not connect to
 * server: reason") on failure. */
struct pg_conn *pg_connect(const struct pg_connopts *o, struct err *e);

/* The same, giving up after timeout_s seconds (libpq's connect_timeout, unless the conninfo
 * sets its own): a server that accepts the connection but never answers fails it ("could not
 * connect to server: timeout expired") instead of hanging. */
struct pg_conn *pg_connect_within(const struct pg_connopts *o, int timeout_s, struct err *e);

/* Run one or more statements; any result other than a command or rows fails with e set to
 * the server's message. */
int pg_exec(struct pg_conn *c, const char *sql, struct err *e);

/* Run a query expecting rows, with text parameters $1..$n (n may be 0); NULL with e set to
 * the server's message otherwise. */
struct pg_result *pg_query(struct pg_conn *c, const char *sql, int n, const char *const *values,
                           struct err *e);

/* Prepare sql as the named statement (n text parameters) for pg_query_prepared: 0, or -1
 * with e set to the server's message. A query run often is then planned once. */
int pg_prepare(struct pg_conn *c, const char *name, const char *sql, int n, struct err *e);

/* Run a statement prepared with pg_prepare, expecting rows; NULL with e set otherwise. */
struct pg_result *pg_query_prepared(struct pg_conn *c, const char *name, int n,
                                    const char *const *values, struct err *e);

/* pg_query for any statement with parameters (at least one): rows, or a command without
 * (a result of no rows). On failure NULL with e set as pg_query sets it, and sqlstate (6
 * bytes) the server's SQLSTATE, "" when there is none (the connection broke). */
struct pg_result *pg_query_state(struct pg_conn *c, const char *sql, int n,
                                 const char *const *values, char *sqlstate, struct err *e);

/* Wait at most timeout_ms for a notification (after LISTEN) on an idle connection: 1 when
 * one or more came (all are consumed; their channels and payloads are not kept), 0 when
 * none did, -1 when the connection broke. */
int pg_wait_notify(struct pg_conn *c, int timeout_ms);

/* Run a query returning one row and one column; copies it into out. -1 on error or no row. */
int pg_query_value(struct pg_conn *c, const char *sql, char *out, size_t out_size, struct err *e);

/* A server parameter reported at connect ("server_version"...), NULL when unknown. */
const char *pg_parameter(const struct pg_conn *c, const char *name);
/* The server version as a number (150004), 0 when unknown. */
int pg_server_version(const struct pg_conn *c);
/* The host as given (a name, an address or a socket directory) and the address connected
 * to (NULL or "" over a unix socket). */
const char *pg_host(const struct pg_conn *c);
const char *pg_hostaddr(const struct pg_conn *c);
/* The process ID of the connection's backend on the server, 0 when unknown (not connected,
 * or not a libpq connection). */
int pg_backend_pid(const struct pg_conn *c);
/* 1 when the connection uses TLS. */
int pg_ssl_in_use(const struct pg_conn *c);
/* libpq's version as a number (150004). */
int pg_lib_version(void);

/* ---- COPY FROM STDIN (the loaders) ---- */

/* Start a COPY ... FROM STDIN: 0, or -1 with e set (the server's message, with its DETAIL
 * in parentheses when there is one; what names the step). */
int pg_copy_start(struct pg_conn *c, const char *sql, const char *what, struct err *e);
/* Send len bytes of COPY data: 0, or -1 when the connection broke. */
int pg_copy_data(struct pg_conn *c, const char *data, size_t len);
/* End the COPY: normally (abort_msg NULL) or failing it with abort_msg. Then the results are
 * read as pg_drain does. */
int pg_copy_end(struct pg_conn *c, const char *abort_msg, const char *what, struct err *e);

/* Read every result of the statements in flight (blocking); the first failure goes into e
 * (may be NULL) as "what: message (detail)". */
int pg_drain(struct pg_conn *c, const char *what, struct err *e);

/* ---- Auxiliary connections ---- */

/* How long an auxiliary connection's statement may take, on the server and on the client. */
#define PG_AUX_TIMEOUT_MS 5000

/* A blocking connection of pgarena's own (the sampler, the environment capture, the agents'
 * coordination), never a measured client's: a server that stops answering must not hold up
 * the end of a run. Connecting gives up after a few seconds (connect_timeout, unless the
 * conninfo sets one), and each statement of the blocking helpers above is bounded twice:
 * statement_timeout = timeout_ms on the server, and a deadline of timeout_ms on the client,
 * after which the statement is cancelled and the connection fails ("no answer from the
 * server within N ms") as if it had broken. NULL with e set as pg_connect sets it. */
struct pg_conn *pg_connect_aux(const struct pg_connopts *o, int timeout_ms, struct err *e);

/* ---- Quoting ---- */

/* A new string: s as an SQL identifier (double quotes, doubled inside) or literal (single
 * quotes, doubled inside; E'' with backslashes doubled when s has one). */
char *pg_quote_ident(const char *s);
char *pg_quote_literal(const char *s);

#endif
