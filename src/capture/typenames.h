#ifndef PGARENA_CAPTURE_TYPENAMES_H
#define PGARENA_CAPTURE_TYPENAMES_H

#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"

/*
 * replay record's names of the user's types (OID 16384 or above) the sessions' Parse
 * messages name, and of the types their values hold (an array's element, a composite's
 * fields, a domain's base, and theirs in turn), by database: learnt as the Parse comes, on a
 * thread and connections of their own (the relay never waits for them), one query for the
 * OIDs asked meanwhile in one database, each (database, OID) asked once. A type dropped
 * later keeps its name; one the lookup cannot see (not committed yet, or the connection
 * failed) has none, and a replay infers it as before. Ownership: the cache owns what it
 * learns; typenames_collect's names are the caller's (typenames_names_free).
 */

/* A type as its database's catalog names it: kind and inner as capture_type_name's; children:
 * the types its values hold (inner, or a composite's fields' types). */
struct typenames_row {
    uint32_t oid;
    char *schema, *name;
    char kind;
    uint32_t inner;
    uint32_t *children;
    int n_children;
};

/* One lookup: the rows of oids (n) and of the user's types they hold, in database as user,
 * into *rows (*n_rows, each row's strings and children malloc'd); 0, or -1 with why (one
 * line, no secret) when it could not be asked. */
typedef int (*typenames_lookup_fn)(void *arg, const char *database, const char *user,
                                   const uint32_t *oids, int n, struct typenames_row **rows,
                                   int *n_rows, char *why, size_t why_size);

struct typenames;

/* Start the thread that asks lookup. */
struct typenames *typenames_new(typenames_lookup_fn lookup, void *arg);

/* The OIDs (n, any: the user's among them are asked when not known yet) a session of user
 * in database named: cheap when every one is known. */
void typenames_want(struct typenames *t, const char *database, const char *user,
                    const uint32_t *oids, int n);

/* The names of the user's types among oids (n) in database and of those they hold, into
 * *names (*n_names; NULL, 0 when none): 0, or -1 while one is still being asked (nothing
 * returned: ask again later). */
int typenames_collect(struct typenames *t, const char *database, const uint32_t *oids, int n,
                      struct capture_type_name **names, int *n_names);
void typenames_names_free(struct capture_type_name *names, int n);

/* Wait at most timeout_ms for the questions asked to be answered; any still open then has
 * no name. */
void typenames_settle(struct typenames *t, int timeout_ms);

/* Stop the thread and free t (NULL is fine). */
void typenames_free(struct typenames *t);

struct pg_connopts;
/* The lookup through libpq (arg: a typenames_pg): CONN with the session's database and, when
 * CONN names no user, the session's user; a connection kept open per database and user (the
 * question asked at once, while the type is there), made again once when it broke. */
struct typenames_pg;
struct typenames_pg *typenames_pg_new(const struct pg_connopts *conn);
int typenames_lookup_pg(void *arg, const char *database, const char *user, const uint32_t *oids,
                        int n, struct typenames_row **rows, int *n_rows, char *why,
                        size_t why_size);
/* Close its connections and free it (NULL is fine), once the typenames asking it is freed. */
void typenames_pg_free(struct typenames_pg *pg);

#endif
