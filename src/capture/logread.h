#ifndef PGARENA_CAPTURE_LOGREAD_H
#define PGARENA_CAPTURE_LOGREAD_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * PostgreSQL server logs, one message (entry) at a time: csvlog, jsonlog, and stderr logs
 * whose log_line_prefix holds a millisecond timestamp (%m or %n) and a session id (%c).
 * Plain or gzip (read through zlib either way). A stderr message's continuation lines
 * (tab-indented) are joined with '\n', and its DETAIL and STATEMENT lines are attached to
 * it, so every format yields the same entries.
 *
 * Ownership: the reader owns the entry's strings; they are valid until the next
 * log_reader_next or log_reader_close.
 */

enum log_format {
    LOG_FORMAT_AUTO =
        0, /* decided from the first line: '{' json, a quoted-field CSV, else stderr */
    LOG_FORMAT_STDERR,
    LOG_FORMAT_CSV,
    LOG_FORMAT_JSON,
};

struct log_entry {
    int64_t time_us;       /* the log time's fields read as UTC (a numeric zone is applied) */
    const char *session;   /* %c / session_id, "" when absent */
    const char *user;      /* "" when absent */
    const char *database;  /* "" when absent */
    const char *severity;  /* LOG, ERROR, FATAL, WARNING... */
    const char *sqlstate;  /* "" when absent (stderr needs %e) */
    const char *message;   /* the primary message */
    const char *detail;    /* DETAIL, "" when none */
    const char *statement; /* STATEMENT (the query of an error), "" when none */
    long line;             /* where the entry starts in its file (1-based) */
    long session_line;     /* its number in its session (csvlog, jsonlog); 0 when absent */
};

struct log_reader;

/* Open path as a log of format fmt (AUTO: detect). prefix is the stderr log_line_prefix, or
 * NULL to infer it from the first statement-like lines. NULL with e set (ERR_INPUT,
 * "PATH: ...") when it cannot be opened. */
struct log_reader *log_reader_open(const char *path, enum log_format fmt, const char *prefix,
                                   struct err *e);

/* The next entry: 1, 0 at the end, -1 with e set (ERR_INPUT, "PATH:LINE: ...") for a corrupt
 * CSV or JSON line, a log without any line the prefix matches, or a read error. */
int log_reader_next(struct log_reader *r, struct log_entry *out, struct err *e);

/* The format in use (after detection) and, for stderr, the prefix in use ("" until known). */
enum log_format log_reader_format(const struct log_reader *r);
const char *log_reader_prefix(const struct log_reader *r);

/* stderr lines skipped because the prefix did not match them (lines written before it was
 * set, or by something else than the server). */
uint64_t log_reader_unmatched(const struct log_reader *r);

void log_reader_close(struct log_reader *r);

/* Parse "YYYY-MM-DD HH:MM:SS[.ffffff][ ZONE]" into µs since the epoch as log_entry.time_us
 * does; *end (if not NULL) gets the first byte after it. 0, or -1 when s is not one. */
int log_parse_time(const char *s, size_t n, int64_t *us, size_t *end);

#endif
