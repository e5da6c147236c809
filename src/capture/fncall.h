#ifndef PGARENA_CAPTURE_FNCALL_H
#define PGARENA_CAPTURE_FNCALL_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * A FunctionCall message ('F', protocol 3) as the SQL statement that does the same, for the
 * functions libpq's large-object API calls that way (lo_open, loread, lowrite, lo_creat, ...:
 * their OIDs are fixed in every PostgreSQL): "SELECT pg_catalog.lowrite($1, $2)" with the
 * arguments as text parameters (binary integers in decimal, bytea as \x hex). A replay then
 * sends it as any extended statement. Pure. Ownership: the caller owns text and params (each
 * malloc'd, NULL for a NULL argument; free with fncall_free).
 */

struct fncall {
    struct buf text;
    int n_params;
    char **params;
    int returns_oid; /* its result is an OID a later call may carry (lo_creat, lo_create) */
};

/* body (len bytes) into c: 1 a known function, 0 another (or arguments in text format: a
 * client other than libpq's), -1 a body that does not read. c is to be freed in every case. */
int fncall_parse(const uint8_t *body, size_t len, struct fncall *c);

/* A FunctionCallResponse's ('V') value as text for a function that returns an OID: its 4
 * binary bytes in decimal into out[16]; 0, or -1 when body is not one. */
int fncall_oid_result(const uint8_t *body, size_t len, char out[16]);

void fncall_free(struct fncall *c);

#endif
