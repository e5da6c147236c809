#ifndef PGARENA_WORKLOAD_LOAD_INT_H
#define PGARENA_WORKLOAD_LOAD_INT_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/err.h"
#include "pg/pg.h"
#include "workload/load.h"

/*
 * Machinery shared by the loaders (load.c): throttled progress, interruption, statements that
 * can be cancelled, and COPY streams fed from a row generator. Ownership: a struct load_ctx
 * borrows its options; a PGconn * passed in stays the caller's.
 */

/* One loader run: the current phase and its counters. */
struct load_ctx {
    const struct load_options *opt;
    const char *phase;
    int64_t rows_total;
    int64_t rows_done;
    int stopped; /* sticky: once seen, stop_requested stays honoured */
    time_ns last_report_ns;
    int64_t last_rows; /* what the last report said, so the phase end does not repeat it */
    const char *last_phase;
};

/* Longest COPY text line a row generator may write, newline included. */
#define LOAD_ROW_MAX 256

/* Writes row `row` (0-based) as one COPY text-format line, newline included, into out (room
 * for LOAD_ROW_MAX bytes); returns its length. */
typedef size_t (*load_row_fn)(char *out, int64_t row);

/* A COPY of rows [first, end) produced by row(). */
struct load_copy {
    const char *sql; /* "copy TABLE from stdin ..." */
    load_row_fn row;
    int64_t first;
    int64_t end;
};

void load_ctx_init(struct load_ctx *x, const struct load_options *opt);

/* Start a phase: its count goes to 0 of rows_total, and is reported (throttled). */
void load_phase(struct load_ctx *x, const char *phase, int64_t rows_total);

/* Add rows to the phase's count and report (throttled). */
void load_advance(struct load_ctx *x, int64_t rows);

/* Report the end of the phase, bypassing the throttle (unless that report was just made). */
void load_phase_end(struct load_ctx *x);

/* Whether the caller asked to stop. */
int load_stopped(struct load_ctx *x);

/* Connect for loading: pg_connect, with the server's notices ("table ... does not exist,
 * skipping") discarded, since nothing below main may print. */
PGconn *load_connect(const struct pg_connopts *conn, struct err *e);

/* Run one or more statements, reporting progress while they run; on interruption cancel them
 * and fail with "interrupted". Otherwise an error carries the server's message (and its
 * DETAIL), prefixed by what. */
int load_exec(struct load_ctx *x, PGconn *c, const char *what, const char *sql, struct err *e);

/* Stream cp on c in chunks, counting rows into the phase; stops between chunks when asked,
 * making the server fail the COPY, and returns -1 with "interrupted". */
int load_copy(struct load_ctx *x, PGconn *c, const struct load_copy *cp, struct err *e);

/* Decimal digits of v at p; returns the end. For row generators (faster than snprintf). */
char *load_put_int(char *p, int64_t v);

#endif
