#ifndef PGARENA_WORKLOAD_REPLAY_USERTYPES_H
#define PGARENA_WORKLOAD_REPLAY_USERTYPES_H

/*
 * The user's types a recorded capture names (capture.h's capture_type_name), by target
 * database, each mapped to the OID its schema and name have on the replay's server: a
 * statement's Parse then names the target's type, and a binary value that holds type OIDs
 * (an array's header, a composite's fields, and theirs in turn) carries the target's. A type
 * the capture does not name, or one the target lacks (target 0), is left as it was: a
 * Parse's OID of it is sent as 0, the server infers it.
 *
 * The table is made in the first pass (replay_types_add, kept sorted: few distinct types),
 * mapped once per target database before the run (replay_types_learn), then only read, by
 * every worker, without a lock. Ownership: the table owns its strings (replay_types_free).
 */

#include <stddef.h>
#include <stdint.h>

#include "capture/capture.h"

struct replay_type {
    int db;       /* the target database's index (replay_state.databases), -1 the run's own */
    uint32_t oid; /* the capture's */
    char *schema, *name;
    char kind;       /* capture_type_name's */
    uint32_t inner;  /* the capture's OID of its element (an array) or base (a domain) */
    uint32_t target; /* the target's OID, 0: not there (or not looked up) */
};

struct replay_types {
    size_t n, cap;
    struct replay_type *t; /* by (db, oid) */
};

void replay_types_init(struct replay_types *m);
void replay_types_free(struct replay_types *m);

/* The type named t, of a statement replayed on database db (the first name given for a
 * (db, oid) stays). */
void replay_types_add(struct replay_types *m, int db, const struct capture_type_name *t);

/* The type of capture OID oid on database db, NULL when the capture names none. */
const struct replay_type *replay_types_find(const struct replay_types *m, int db, uint32_t oid);

/* The binary value v (len bytes) of capture type oid on database db, its OIDs of the types
 * the capture names and the target has replaced by the target's, in place (an OID is four
 * bytes either way): how many were replaced, or -1 when the value does not read as its type
 * says (then it is left as it was, whole). */
int replay_types_rewrite(const struct replay_types *m, int db, uint32_t oid, uint8_t *v,
                         size_t len);

struct replay_state;
/* Each target database's OIDs of the types the capture names (after --reset-from), one query
 * a database; a database that cannot be read maps none. */
void replay_types_learn(struct replay_state *s);

#endif
