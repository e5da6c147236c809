#ifndef PGARENA_CAPTURE_PREPARE_H
#define PGARENA_CAPTURE_PREPARE_H

#include <stdint.h>

#include "base/err.h"
#include "capture/capture.h"
#include "capture/logread.h"

/*
 * Server logs to a CAPTURE, as a stream: the logs are read one entry at a time, and only the
 * events of a sliding window of time (those whose order may still change) and the open
 * sessions are held. Statements from log_statement = 'all' (timed at the line) or
 * log_min_duration_statement = 0 (timed at the line minus the duration, and those of
 * parse and bind), with their parameters, their ERROR, and the sessions' connections and
 * disconnections when logged. What cannot be replayed is counted and left out: statements
 * carrying a password where it cannot be cut out (capture/sqltext.h), and the unsupported
 * by kind (parameters not logged, unreadable or cut, statements out of order). A portal
 * fetched in parts is kept as its first execute, the fetches counted (portal_fetches).
 * A statement whose password can be cut out is kept with the password replaced
 * (secrets_cut). COPY TO STDOUT is kept (a replay reads its rows); COPY FROM STDIN is kept
 * and counted by table (copy_in: its data is not in the log, a replay loads it from a file
 * or skips it); one whose table does not read is left out (skipped_copy).
 */

struct prepare_opts {
    enum log_format format;       /* AUTO: detect each file */
    const char *prefix;           /* the stderr log_line_prefix, NULL to infer it */
    int64_t from_us, to_us;       /* keep statements in [from, to] (log times); INT64_MIN/MAX */
    const char *database;         /* keep sessions of this database only, NULL for all */
    const char *user;             /* keep sessions of this user only, NULL for all */
    struct capture_header source; /* the source's identity (system_identifier, address,
                                   * port) for the header; zeroed when unknown */
    const char *exclude_session;  /* a session id (%c) to leave out (replay capture's own) */
};

struct prepare_stats {
    uint64_t entries;         /* log messages read */
    uint64_t unmatched_lines; /* stderr lines the prefix did not match */
    uint64_t sessions, statements;
    uint64_t skipped_copy, skipped_secret, skipped_unsupported;
    uint64_t secrets_cut; /* statements kept with their password replaced */
    /* "execute fetch from": more rows of a portal, folded into its first execute (a replay
     * runs the portal whole there) */
    uint64_t portal_fetches;
    struct capture_unsupported_kind unsupported[CAPTURE_UNSUP__COUNT]; /* skipped_unsupported's */
    struct capture_copy_in copy_in; /* the COPY FROM STDIN kept (without their data) */
    uint64_t filtered;              /* statements outside the window or of other users/databases */
    int64_t start_us, duration_us;
    char format[16];  /* of the last file: stderr, csvlog, jsonlog */
    char prefix[128]; /* the last stderr file's prefix */
};

/* Read the n logs at paths as one log (rotated files follow each other), in the order of
 * their first entries (not the order given), and write CAPTURE at out. Logs that overlap (one
 * starts with an entry of the log before it, or more than a second before that one's last
 * entry: the same log twice, or in two formats) are refused. 0, or -1 with e set (ERR_INPUT
 * "FILE:LINE: ..." for bad input, "replay prepare: B overlaps A ...") and no CAPTURE left.
 * stats gets the counts either way. */
int prepare_logs(const char *const *paths, int n, const struct prepare_opts *o, const char *out,
                 struct prepare_stats *stats, struct err *e);

/* Parse a --from/--to time ("YYYY-MM-DD HH:MM:SS[.fff]", read as the log's are). */
int prepare_parse_time(const char *s, int64_t *us);

/* replay capture: on a superuser connection to conn, set the logging parameters with ALTER
 * SYSTEM and a reload, wait `seconds` (SIGINT or SIGTERM ends the wait early), restore them
 * (also after a failure or a signal), read the csvlog written meanwhile through the server
 * and prepare it into CAPTURE at output, with the server's system_identifier, address and
 * port in its header and this connection's own session left out. Says on stderr how long it
 * logs. 0 with stats filled, or -1 with e set; *by_hand is set (with ERR_INPUT) when the
 * capture cannot be made through the server (no superuser, or no logging_collector), so
 * that the settings are made by hand instead. */
struct pg_connopts;
int prepare_server(const struct pg_connopts *conn, int seconds, const char *output,
                   struct prepare_stats *stats, int *by_hand, struct err *e);

#endif
