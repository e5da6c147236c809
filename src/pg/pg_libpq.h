#ifndef PGARENA_PG_PG_LIBPQ_H
#define PGARENA_PG_PG_LIBPQ_H

/* Inside src/pg/ only: libpq's connections and results behind the driver's structs. The
 * wrappers own what they wrap. */

#include <libpq-fe.h>

#include "pg/pg_driver.h"

struct pg_libpq_conn {
    struct pg_conn base;
    PGconn *c;
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

#endif
