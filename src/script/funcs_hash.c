/* pgbench's deterministic integer functions: hash_fnv1a, hash_murmur2 (also plain hash) and
 * permute. Their results must be bit-identical to pgbench 15's, so permute draws from a
 * private copy of PostgreSQL's PRNG (xoroshiro128** seeded by splitmix64), not from ours. */

#include <stdint.h>

#include "script/funcs_int.h"

#define FNV_PRIME    UINT64_C(0x100000001b3)
#define FNV_OFFSET   UINT64_C(0xcbf29ce484222325)
#define MURMUR_MUL   UINT64_C(0xc6a4a7935bd1e995)
#define MURMUR_SHIFT 47

/* FNV-1a over the 8 little-endian bytes of the value; the seed is mixed into the basis. */
static int64_t hash_fnv1a(int64_t value, int64_t seed)
{
    uint64_t h = FNV_OFFSET ^ (uint64_t)seed;
    uint64_t v = (uint64_t)value;
    for (int i = 0; i < 8; i++) {
        h ^= v & 0xff;
        h *= FNV_PRIME;
        v >>= 8;
    }
    return (int64_t)h;
}

/* MurmurHash64A specialised to one 8-byte block (hence the length 8 in the initial mix). */
static int64_t hash_murmur2(int64_t value, int64_t seed)
{
    uint64_t h = (uint64_t)seed ^ (MURMUR_MUL * 8);
    uint64_t k = (uint64_t)value * MURMUR_MUL;
    k ^= k >> MURMUR_SHIFT;
    k *= MURMUR_MUL;
    h = (h ^ k) * MURMUR_MUL;
    h ^= h >> MURMUR_SHIFT;
    h *= MURMUR_MUL;
    h ^= h >> MURMUR_SHIFT;
    return (int64_t)h;
}

/* PostgreSQL's pg_prng: two words of state. */
struct pg_prng {
    uint64_t s0, s1;
};

static uint64_t rotl64(uint64_t x, int bits)
{
    return (x << bits) | (x >> (64 - bits));
}

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void pg_prng_seed(struct pg_prng *p, uint64_t seed)
{
    p->s0 = splitmix64_next(&seed);
    p->s1 = splitmix64_next(&seed);
    if (p->s0 == 0 && p->s1 == 0) { /* all-zero is a fixed point: PostgreSQL's fallback */
        p->s0 = UINT64_C(0x5851f42d4c957f2d);
        p->s1 = UINT64_C(0x14057b7ef767814f);
    }
}

static uint64_t pg_prng_next(struct pg_prng *p)
{
    uint64_t s0 = p->s0;
    uint64_t sx = p->s1 ^ s0;
    uint64_t out = rotl64(s0 * 5, 7) * 9;
    p->s0 = rotl64(s0, 24) ^ sx ^ (sx << 16);
    p->s1 = rotl64(sx, 37);
    return out;
}

/* Position of the highest set bit; x != 0. */
static int top_bit(uint64_t x)
{
    return 63 - __builtin_clzll(x);
}

/* Uniform in [0, hi] by masking the top bits and rejecting, as pg_prng_uint64_range does
 * (the exact draw sequence matters for permute's results). */
static uint64_t pg_prng_upto(struct pg_prng *p, uint64_t hi)
{
    if (hi == 0)
        return 0;
    int shift = 63 - top_bit(hi);
    uint64_t v;
    do {
        v = pg_prng_next(p) >> shift;
    } while (v > hi);
    return v;
}

/* One bijective scramble of the low `bits` bits: odd multiply, xor, rotate left by one. */
static uint64_t scramble(uint64_t v, uint64_t mul, uint64_t xor, uint64_t mask, int bits)
{
    v = ((v * mul) ^ xor) & mask;
    return ((v << 1) & mask) | (v >> (bits - 1));
}

/* pgbench's permute: six rounds, each scrambling the lower and (mirrored) upper power-of-two
 * windows of [0, size) and adding a random offset modulo size. The draws happen whether or
 * not a window applies, so the sequence of PRNG outputs depends only on the seed. */
static int64_t permute(int64_t value, int64_t isize, int64_t seed)
{
    if (isize < 2)
        return 0;
    struct pg_prng p;
    pg_prng_seed(&p, (uint64_t)seed);
    uint64_t size = (uint64_t)isize;
    uint64_t v = (uint64_t)value % size;
    int bits = top_bit(size);
    uint64_t mask = (UINT64_C(1) << bits) - 1;

    for (int round = 0; round < 6; round++) {
        uint64_t mul = (pg_prng_next(&p) & mask) | 1;
        uint64_t xor = pg_prng_next(&p) & mask;
        if (v <= mask)
            v = scramble(v, mul, xor, mask, bits);
        mul = (pg_prng_next(&p) & mask) | 1;
        xor = pg_prng_next(&p) & mask;
        uint64_t mirrored = size - 1 - v;
        if (mirrored <= mask)
            v = size - 1 - scramble(mirrored, mul, xor, mask, bits);
        v = (v + pg_prng_upto(&p, size - 1)) % size;
    }
    return (int64_t)v;
}

int funcs_eval_hash(enum func_id id, const struct value *args, struct value *out, char *msg,
                    size_t msg_size)
{
    int64_t a, b, c;
    if (value_to_int(&args[0], &a, msg, msg_size) < 0 ||
        value_to_int(&args[1], &b, msg, msg_size) < 0)
        return -1;
    if (id == FN_HASH_FNV1A) {
        *out = value_int(hash_fnv1a(a, b));
        return 0;
    }
    if (id != FN_PERMUTE) { /* hash() is murmur2 in pgbench */
        *out = value_int(hash_murmur2(a, b));
        return 0;
    }
    if (value_to_int(&args[2], &c, msg, msg_size) < 0)
        return -1;
    if (b <= 0)
        return funcs_fail(msg, msg_size, "permute size parameter must be greater than zero");
    *out = value_int(permute(a, b, c));
    return 0;
}
