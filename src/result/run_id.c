#include "result/run_id.h"
#include "os/os.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FNV_PRIME UINT64_C(0x100000001b3)

void run_id_hash_init(struct run_id_hash *h)
{
    h->a = UINT64_C(0xcbf29ce484222325);
    h->b = UINT64_C(0x84222325cbf29ce4);
}

void run_id_hash_add(struct run_id_hash *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ p[i]) * FNV_PRIME;
        h->b = (h->b ^ (p[i] + 0x9e)) * FNV_PRIME;
        h->b ^= h->b >> 29;
    }
}

/* splitmix64's finalizer: spreads every input bit over the output. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* 16 bytes as a UUID of the given version, RFC 9562's variant bits set. */
static void format_uuid(unsigned char b[16], int version, char out[RUN_ID_LEN + 1])
{
    b[6] = (unsigned char)((b[6] & 0x0f) | (version << 4));
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    char *o = out;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *o++ = '-';
        o += sprintf(o, "%02x", b[i]);
    }
}

static void put64(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (56 - 8 * i));
}

void run_id_hash_uuid(const struct run_id_hash *h, char out[RUN_ID_LEN + 1])
{
    unsigned char b[16];
    put64(b, mix(h->a ^ mix(h->b)));
    put64(b + 8, mix(h->b + h->a));
    format_uuid(b, 8, out);
}

void run_id_random(char out[RUN_ID_LEN + 1])
{
    unsigned char b[16];
    if (os_random(b, sizeof b) < 0) {
        uint64_t ns = (uint64_t)os_wall_ns();
        put64(b, mix(ns));
        put64(b + 8, mix((uint64_t)getpid() ^ (ns % 1000000000u) << 20));
    }
    format_uuid(b, 4, out);
}

void run_id_derived(const char *kind, const char *name, long index, char out[RUN_ID_LEN + 1])
{
    struct run_id_hash h;
    char idx[32];
    int n = index >= 0 ? snprintf(idx, sizeof idx, "%ld", index) : 0;
    run_id_hash_init(&h);
    run_id_hash_add(&h, kind, strlen(kind) + 1);
    run_id_hash_add(&h, name, strlen(name) + 1);
    run_id_hash_add(&h, idx, (size_t)n);
    run_id_hash_uuid(&h, out);
}

int run_id_of_file(const char *path, char out[RUN_ID_LEN + 1])
{
    FILE *f = os_fopen(path, "rb");
    if (!f)
        return -1;
    struct run_id_hash h;
    char buf[65536];
    size_t n;
    run_id_hash_init(&h);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        run_id_hash_add(&h, buf, n);
    int failed = ferror(f);
    fclose(f);
    if (failed)
        return -1;
    run_id_hash_uuid(&h, out);
    return 0;
}
