#ifndef PGARENA_SERVER_SERVER_INT_H
#define PGARENA_SERVER_SERVER_INT_H

/* Shared inside server/: running a catalog query, reading its values, the client's
 * addresses. Ownership: the caller owns (and frees) every result, string and array returned. */

#include <stdint.h>

#include "server/server.h"

/* A query expecting rows; NULL with e set (the server's message) otherwise. The caller
 * frees the result (pg_result_free). */
struct pg_result *srv_query(struct pg_conn *c, const char *sql, struct err *e);

/* A value as an integer; -1 when NULL or not a number (sizes and counters are >= 0). */
int64_t srv_value_int(const struct pg_result *r, int row, int col);

/* A value as a new string, NULL when NULL. */
char *srv_value_dup(const struct pg_result *r, int row, int col);

#endif
