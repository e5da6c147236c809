#ifndef PGARENA_WORKLOAD_REPLAY_GENERATED_H
#define PGARENA_WORKLOAD_REPLAY_GENERATED_H

#include <stddef.h>

/* Whether a statement that failed in a replay (and not in its capture) failed on a value the
 * capture's server generated and the statement carried as a literal: a large object's OID, a
 * transaction ID, a temporary schema's name, an object's OID. A log holds no statement's
 * results, so such a value cannot be mapped to the one the replay's server generated; the
 * divergence report names these apart. The kind ("large object OID", ...), or NULL for any
 * other error. Pure: reads the server's English message. */
const char *replay_generated_value(const char *message);

/* The same for a unique violation (23505) or a foreign key violation (23503) on a key a
 * sequence gave: "sequence value" when message names one of keys (the unique indexes and
 * foreign keys on such keys, each with its NUL, len bytes: sequences.h), else NULL. The
 * constraint's name is matched, not the key's value: the message holds the name, its DETAIL
 * (not kept) the value. A name two tables share is taken for the one on a generated key. */
const char *replay_generated_key(const char *sqlstate, const char *message, const char *keys,
                                 size_t len);

#endif
