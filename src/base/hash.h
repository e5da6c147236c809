#ifndef PGARENA_BASE_HASH_H
#define PGARENA_BASE_HASH_H

/* FNV-1a, 64 bits: a fast, well-spread hash of short strings for hash tables; not
 * cryptographic (result/run_id.h has the 128-bit one for identities). Its offset basis is the
 * one the two copies it replaces used, a digit short of FNV's own: the spread is as good, and a
 * capture's session-end order (prepare's table, walked by bucket) stays as it was. */

#include <stddef.h>
#include <stdint.h>

#define HASH_BASIS UINT64_C(1469598103934665603)

static inline uint64_t hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = HASH_BASIS;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * UINT64_C(1099511628211);
    return h;
}

static inline uint64_t hash_str(const char *s)
{
    uint64_t h = HASH_BASIS;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

#endif
