#ifndef PGARENA_WORKLOAD_REPLAY_RETURNED_H
#define PGARENA_WORKLOAD_REPLAY_RETURNED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * The values a capture's server handed back (a recorded capture's statement's `returned`: a
 * large object's OID from lo_create, lo_import...; an id a sequence gave, from an INSERT's
 * RETURNING or currval) and the ones the replay's server handed back for the same statements,
 * so that the later statements carrying one as a literal or a parameter (an application keeps
 * the value and sends it again) carry the replay's. Shared by the replay's workers (a mutex;
 * count is read without it, for the common case of none); a hash table, as an application
 * that inserts rows learns a pair per row.
 * Ownership: the mapping owns its strings; a value handed out stays valid until
 * replay_returned_free.
 */
struct replay_returned {
    pthread_mutex_t mu;
    atomic_size_t count; /* the pairs whose values differ */
    size_t used, cap;    /* slots taken (pairs learnt), slots (a power of 2 or 0) */
    struct replay_returned_pair {
        char *captured, *now; /* captured NULL: a free slot */
        int is_id;
        int64_t session; /* only this session's statements carry it (an xid); -1: any */
    } * slots;
    char **retired; /* values a later learning replaced: handed out, freed at the end */
    size_t n_retired;
};

void replay_returned_init(struct replay_returned *m);
void replay_returned_free(struct replay_returned *m);

/* The statement whose capture returned captured returned now here: learnt when they differ,
 * and a later learning of the same captured value wins (equal: no longer mapped). is_id: an
 * id a sequence gave (capture.h's returned_id), mapped in text only where a value stands.
 * session >= 0: mapped in that session's statements only (a transaction ID: the number is the
 * session's own transaction's, and the same small number in another session's statement is
 * something else: a partition bound, a large object's OID); -1: in every session's. */
void replay_returned_learn(struct replay_returned *m, const char *captured, const char *now,
                           int is_id, int64_t session);

/* The same for the values of several rows, a '\n' between them (an INSERT of several rows'
 * RETURNING), pair by pair: learnt only when both hold as many. */
void replay_returned_learn_rows(struct replay_returned *m, const char *captured, const char *now,
                                int is_id, int64_t session);

/* text (a statement of session) with each whole number in it that is a captured value
 * replaced by the replay's, into out: the replacements made (0: out untouched). A whole number:
 * digits with no letter, digit,
 * '_', '.' or '$' on either side (in a string literal too: '35017'::oid). An id is replaced
 * only where a value stands: after '=', '<', '>', '(', ',' or '[' (spaces and an opening quote
 * between), so that LIMIT 5 or an unrelated 5 elsewhere stays as written. */
int replay_returned_map_text(struct replay_returned *m, const char *text, uint32_t session,
                             struct buf *out);

/* The replay's value for a parameter of a statement of session that is a captured value, or
 * NULL. */
const char *replay_returned_map_value(struct replay_returned *m, const char *v, uint32_t session);

#endif
