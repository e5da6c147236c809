#ifndef PGARENA_CAPTURE_RECORD_H
#define PGARENA_CAPTURE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "capture/capture.h"
#include "capture/pgwire.h"

/*
 * The recording proxy's messages to capture events (capture version 2): each session's start
 * (every startup parameter as sent; the server's NegotiateProtocolVersion), its statements (a COPY
 * FROM STDIN with the rows the client sent) and its end, timed at the proxy in microseconds
 * (monotonic). A statement is a Query (simple: from it to its ReadyForQuery) or an Execute
 * (extended: from its first Parse or Bind to its CommandComplete, EmptyQueryResponse,
 * PortalSuspended or ErrorResponse), with the text of the statement it runs (named or unnamed), its
 * parameters as bound (text or binary, with their formats and its Parse's types), its outcome (ok,
 * or the ErrorResponse's SQLSTATE), its duration, and the settings the server reported changed
 * (ParameterStatus after the login; those of the login answer the startup and are left out).
 * A statement still running when its session ends is
 * left out; a session that never logged in (no ReadyForQuery) is no session. Passwords: the
 * PasswordMessage and SASL messages are never read; a statement setting one has it cut out
 * (capture/sqltext.h), one holding one that cannot be cut out is left out (skipped_secret).
 * The user's types a statement's Parse names are named (recorder_type_names), with those
 * their values hold.
 * (Captures of version 2 left out binary-format parameters as unsupported binary_parameters.)
 *
 * The events are written as they settle (recorder_flush: once nothing can start before
 * them any more), in the order of their start, sessions numbered in the order they
 * started, from the first session's start (the capture's start); memory holds only what is
 * still running. CAPTURE is written live (capture.h's capture_writer_open_live): each flush
 * leaves it readable up to the events written, so a recorder killed (SIGKILL) leaves a
 * capture whole up to its last flush; recorder_close puts the counts in front. Ownership: the
 * recorder owns its sessions (a session ended and written is freed at a flush) and copies what it
 * is given.
 */

struct recorder;
struct rec_session;

/* The frontend message types whose bodies the recorder reads (a framer's keep_types; f: a
 * CopyFail's message). */
#define RECORD_FRONTEND_TYPES "QPBECSdfF"
/* The backend's (ParameterStatus and NegotiateProtocolVersion: a statement's settings
 * changed, a session's protocol options refused). */
#define RECORD_BACKEND_TYPES "CEZKGTSv"
/* The backend's whose first bytes it reads (pgwire_framer_keep_prefix): DataRow. */
#define RECORD_BACKEND_PREFIX_TYPES "DV"

struct record_stats {
    uint64_t sessions, statements, by_protocol[3], ok, failed;
    uint64_t refused;    /* connections that never logged in */
    uint64_t incomplete; /* statements still running at their session's end: left out */
    uint64_t cancels;    /* CancelRequests forwarded */
    /* Sessions the proxy closed on a fault (recorder_session_failed): what they did before
     * it is kept. */
    uint64_t sessions_failed;
    uint64_t skipped_secret, skipped_unsupported, secrets_cut, portal_fetches;
    uint64_t pipelined;    /* statements sent before the session's previous one was answered */
    uint64_t same_sync;    /* statements with no Sync between them and their session's previous */
    uint64_t param_status; /* settings the server reported changed, written with statements */
    struct capture_unsupported_kind unsupported[CAPTURE_UNSUP__COUNT];
    struct capture_copy_in copy_in;
};

/* A recorder writing CAPTURE at path, started now: wall_us (µs since the epoch) is mono_us
 * (the clock the events are timed with); source (NULL: none) gives the server's address and
 * port for the header written before the first event. NULL with e set when path cannot be
 * written. */
struct recorder *recorder_new(const char *path, const struct capture_header *source,
                              int64_t wall_us, int64_t mono_us, struct err *e);

/* A client's session, started at t by the startup message s (protocol 3). */
struct rec_session *recorder_session_start(struct recorder *r, const struct pgwire_startup *s,
                                           int64_t t);

/* A whole message from the client (body: NULL unless type is in RECORD_FRONTEND_TYPES). */
void recorder_frontend(struct recorder *r, struct rec_session *s, char type, const uint8_t *body,
                       size_t len, int64_t t);

/* A whole message from the server (body: NULL unless type is in RECORD_BACKEND_TYPES). */
void recorder_backend(struct recorder *r, struct rec_session *s, char type, const uint8_t *body,
                      size_t len, int64_t t);

/* The session whose BackendKeyData was pid and key; the statement it runs is marked
 * cancelled at t. NULL when none has them. */
struct rec_session *recorder_cancel(struct recorder *r, uint32_t pid, const uint8_t *key,
                                    size_t key_len, int64_t t);

/* The session is closed on a fault (a client's message that does not read or is cut short,
 * the server gone before the client's Terminate): counted in sessions_failed at its end
 * when it had logged in. */
void recorder_session_failed(struct rec_session *s);

/* The session ended at t (either side closed, or the proxy stopped); s is not to be used
 * after it. */
void recorder_session_end(struct recorder *r, struct rec_session *s, int64_t t);

/* Write the events settled at now and make them readable in CAPTURE (call it now and
 * then). 0, or -1 with e set. */
int recorder_flush(struct recorder *r, int64_t now, struct err *e);

/* Write the rest and put CAPTURE in place: h gives the source's address and port; stats gets
 * the counts. Sessions not ended are ended at their last event. 0, or -1 with e set and no
 * CAPTURE left; r is still to be freed. */
int recorder_close(struct recorder *r, const struct capture_header *h, struct record_stats *stats,
                   struct err *e);

/* The counts so far (sessions, statements: those complete). */
void recorder_stats(const struct recorder *r, struct record_stats *stats);

/* Name the user's types the statements' parameters hold through t (capture/typenames.h,
 * kept by the caller until r is freed): a statement waits for its names to be learnt before
 * it is written, and at recorder_close at most RECORD_TYPE_NAMES_WAIT_MS for those asked. */
#define RECORD_TYPE_NAMES_WAIT_MS 15000
struct typenames;
void recorder_type_names(struct recorder *r, struct typenames *t);

/* Free r; a capture not closed stays as written (a cut capture: capture.h). */
void recorder_free(struct recorder *r);

#endif
