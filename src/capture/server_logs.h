#ifndef PGARENA_CAPTURE_SERVER_LOGS_H
#define PGARENA_CAPTURE_SERVER_LOGS_H

#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

/*
 * replay capture's csvlog files, read through the server: every file the server wrote during
 * the capture, in order, however often it rotated, and how much of it is gone.
 *
 * Which files: the log directory is listed (pg_ls_logdir) at the start and at the end, and
 * the current file (pg_current_logfile) is looked at about once a second meanwhile. A .csv
 * file that grew between the two listings was written during the capture: it is read from
 * where it was at the start (from 0 when it is new; the start file from the capture's start
 * position). Listing sizes rather than matching log_filename's pattern or modification times
 * works for any pattern, a name used again (appended to) and the second-grained times
 * pg_ls_logdir gives. Order: by modification time (each file was written until the next
 * rotation), then by name (within one second: names that differ hold the time), the end file
 * last.
 *
 * Missing: a file seen during the capture (the start file, or one polled as current) that is
 * gone at the end, and one that shrank (truncated: log_truncate_on_rotation) or could not be
 * read whole, count as missing with the bytes known to be lost (at least). A file made and
 * removed between two polls is not seen, and a name written again after another file within
 * one capture is read in one piece at its place.
 */

struct server_log_file {
    char name[256];
    long long size0; /* at the start, -1 when absent */
    long long seen;  /* the largest seen as current during the capture, -1 when never */
    long long size1; /* at the end, -1 when gone */
    long long mtime; /* at the end, seconds since the epoch */
    long long from;  /* the capture's part: [from, size1) */
    int rank;        /* 1 for the end file (read last), else 0 */
};

struct server_logs {
    char dir[1024];  /* the log directory as pg_current_logfile names it */
    char start[256]; /* the file current at the start */
    long long start_len;
    char end[256]; /* the file current at the end */
    struct server_log_file *f;
    size_t n, cap;
    size_t n_sorted; /* f[0..n_sorted) is the start listing, by name (C order) */
    uint64_t missing_files, missing_bytes;
};

struct pg_conn;

/* At the start, once logging is on: the listing, then the start file and its length. 0, 1
 * when the server writes no csvlog (yet), -1 with e set. */
int server_logs_start(struct pg_conn *c, struct server_logs *l, struct err *e);

/* During the capture: note the current file and its size. 0, or -1 with e set. */
int server_logs_poll(struct pg_conn *c, struct server_logs *l, struct err *e);

/* At the end: the current file and the listing; works out what to read and what is missing.
 * 0, or -1 with e set. */
int server_logs_end(struct pg_conn *c, struct server_logs *l, struct err *e);

/* Copy the capture's part of every file, in order, to out; what cannot be read (a file gone
 * or shorter meanwhile) is counted as missing. 0, or -1 with e set. */
int server_logs_read(struct pg_conn *c, struct server_logs *l, FILE *out, struct err *e);

void server_logs_free(struct server_logs *l);

#endif
