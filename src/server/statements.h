#ifndef PGARENA_SERVER_STATEMENTS_H
#define PGARENA_SERVER_STATEMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "pg/pg.h"

/*
 * pg_stat_statements around the measured part: a reading before, one after, and the
 * statements whose time grew most in between. A server without the extension gives a note,
 * never an error. Statements pgarena runs itself (marked "pgarena:" in a comment) are left
 * out.
 * Ownership: struct srv_statements and the delta array own their strings (the _free calls).
 */

/* One statement as pg_stat_statements counts it, under its (user, query ID, top level) key. */
struct srv_statement {
    char *key;
    char *query;
    uint64_t calls, rows;
    double total_ms;
};

struct srv_statements {
    int read;       /* 1 when read; 0 with note saying why not */
    char note[256]; /* "pg_stat_statements is not installed ...", "" when read */
    size_t n;
    struct srv_statement *s; /* sorted by key */
};

/* An extension's version ("1.10") as 100 * major + minor (110): its columns depend on it. */
int srv_extension_version(const char *v);

/* The current database's statements on c: 0, or -1 with out->note set (not installed, not
 * preloaded, not readable). */
int srv_statements_read(struct pg_conn *c, struct srv_statements *out);
void srv_statements_free(struct srv_statements *s);

/* The top statements by the growth of their total time from before to after (a statement new
 * in after counts whole), at most top of them, highest first, with calls and rows grown too;
 * statements that were not called in between are left out. Returns the count; *out (caller
 * frees with srv_statements_delta_free) holds them with their own strings. */
size_t srv_statements_delta(const struct srv_statements *before, const struct srv_statements *after,
                            size_t top, struct srv_statement **out);
void srv_statements_delta_free(struct srv_statement *d, size_t n);

#endif
