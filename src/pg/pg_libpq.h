#ifndef PGARENA_PG_PG_LIBPQ_H
#define PGARENA_PG_PG_LIBPQ_H

/* Inside src/pg/ only: libpq's connections and results behind the driver's structs. The
 * wrappers own what they wrap. */

#include <libpq-fe.h>

#include "pg/pg_driver.h"

struct pg_libpq_conn {
    struct pg_conn base;
    PGconn *c;
    int aux_timeout_ms; /* pg_connect_aux: each statement's deadline; 0 for no deadline */
    int timed_out;      /* a statement missed that deadline: the connection is unusable */
    char missed[64];    /* then the connection's error message */
};

struct pg_libpq_result {
    struct pg_result base;
    PGresult *r;
};

#define PG_LIBPQ(conn)    (((const struct pg_libpq_conn *)(conn))->c)
#define PG_LIBPQ_RES(res) (((const struct pg_libpq_result *)(res))->r)

/* Wrap a PGconn (notices ignored from now on) or a PGresult (NULL stays NULL). */
struct pg_conn *pg_libpq_wrap(PGconn *c);
struct pg_result *pg_libpq_result(PGresult *r);

/* The blocking calls of pg_exec.c: PQexec (n == 0) or PQexecParams, PQexecPrepared and
 * PQprepare, each bounded by the connection's deadline when it has one (pg_aux.c). NULL
 * after a missed deadline (the connection's error message then says so). */
PGresult *pg_libpq_exec(struct pg_conn *c, const char *sql, int n, const char *const *values);
PGresult *pg_libpq_exec_prepared(struct pg_conn *c, const char *name, int n,
                                 const char *const *values);
PGresult *pg_libpq_prepare(struct pg_conn *c, const char *name, const char *sql, int n);

#endif
