#include "coord/coord.h"

#include <errno.h>
#include <stdlib.h>

int64_t coord_split_clients(int64_t clients, int n, int i)
{
    /* In 128 bits: (i + 1) * clients cannot overflow for any count run accepts. */
    __int128 hi = (__int128)(i + 1) * clients / n, lo = (__int128)i * clients / n;
    return (int64_t)(hi - lo);
}

double coord_split_rate(double rate, int64_t clients, int64_t clients_i)
{
    return clients > 0 ? rate * (double)clients_i / (double)clients : 0;
}

/* splitmix64's finalizer: close seeds give unrelated outputs. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t coord_split_seed(uint64_t seed, int i)
{
    return mix(seed + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)) & 0x7fffffffffffffffULL;
}

static int parse_index(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > 1000000)
        return -2;
    return (int)v;
}

int coord_index_from_env(void)
{
    const char *s = getenv("JOB_COMPLETION_INDEX");
    if (!s || !*s)
        s = getenv("SLURM_PROCID");
    return s && *s ? parse_index(s) : -1;
}
