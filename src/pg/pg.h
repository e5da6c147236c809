#ifndef PGARENA_PG_PG_H
#define PGARENA_PG_PG_H

#include <libpq-fe.h>

#include "base/err.h"

/*
 * The one seam to libpq. Everything that talks to a server goes through here: connection
 * options, blocking setup helpers, and the SQLSTATE classes that failures are counted by.
 * Ownership: struct pg_connopts owns its strings (pg_connopts_free); PGconn * returned by
 * these functions belongs to the caller (PQfinish).
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

/* NULL-terminated keyword/value arrays for PQconnectStartParams/PQconnectdbParams with
 * expand_dbname = 1. Arrays point into o; valid while o lives. */
void pg_connopts_params(const struct pg_connopts *o, const char *keywords[8],
                        const char *values[8]);

/* Blocking connect for setup work (init, scale detection). Returns NULL with e set
 * (ERR_RUNTIME, "could not connect to ...: reason") on failure. */
PGconn *pg_connect(const struct pg_connopts *o, struct err *e);

/* Run one or more statements; any result other than COMMAND_OK/TUPLES_OK fails with e set to
 * the server's message. */
int pg_exec(PGconn *c, const char *sql, struct err *e);

/* Run a query returning one row and one column; copies it into out. -1 on error or no row. */
int pg_query_value(PGconn *c, const char *sql, char *out, unsigned long out_size, struct err *e);

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

/* Classify a failed result (res may be NULL when the connection broke). */
enum pg_failure pg_classify(PGconn *c, const PGresult *res);

/* Whether the session is inside a transaction block (idle in it or in a failed one). */
int pg_in_transaction(const PGconn *c);

/* The first line of a connection's or result's error message, without the trailing newline,
 * into out. */
void pg_error_line(PGconn *c, const PGresult *res, char *out, unsigned long out_size);

#endif
