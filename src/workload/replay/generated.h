#ifndef PGARENA_WORKLOAD_REPLAY_GENERATED_H
#define PGARENA_WORKLOAD_REPLAY_GENERATED_H

/* Whether a statement that failed in a replay (and not in its capture) failed on a value the
 * capture's server generated and the statement carried as a literal: a large object's OID, a
 * transaction ID, a temporary schema's name, an object's OID. A log holds no statement's
 * results, so such a value cannot be mapped to the one the replay's server generated; the
 * divergence report names these apart. The kind ("large object OID", ...), or NULL for any
 * other error. Pure: reads the server's English message. */
const char *replay_generated_value(const char *message);

#endif
