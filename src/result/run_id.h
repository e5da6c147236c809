#ifndef PGARENA_RESULT_RUN_ID_H
#define PGARENA_RESULT_RUN_ID_H

/*
 * A result's run_id: a UUID in its text form. A run draws a random one (version 4); what must
 * be the same wherever it is made gets one derived from a hash of what names it (version 8,
 * RFC 9562's free form): an agent's from --run-id and its index, a merged result's from
 * --run-id alone (so merge stays deterministic), a file written before run_id existed from
 * its bytes (so storing it twice is one row).
 */

#include <stddef.h>
#include <stdint.h>

#define RUN_ID_LEN 36

/* An incremental 128-bit hash (two FNV-1a lanes with a final mix): not cryptographic, only a
 * name for bytes. */
struct run_id_hash {
    uint64_t a, b;
};

void run_id_hash_init(struct run_id_hash *h);
void run_id_hash_add(struct run_id_hash *h, const void *data, size_t n);
/* The hash as a version-8 UUID. */
void run_id_hash_uuid(const struct run_id_hash *h, char out[RUN_ID_LEN + 1]);

/* A random version-4 UUID (getrandom; a clock-and-pid mix when it fails). */
void run_id_random(char out[RUN_ID_LEN + 1]);

/* The UUID derived from kind ("agent", "merged"), name (--run-id) and index (-1: none). */
void run_id_derived(const char *kind, const char *name, long index, char out[RUN_ID_LEN + 1]);

/* The UUID of a file's bytes: 0, or -1 when it cannot be read (errno set). */
int run_id_of_file(const char *path, char out[RUN_ID_LEN + 1]);

#endif
