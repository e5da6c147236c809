#include "workload/tpcc/tpcc_int.h"

#include <stdlib.h>
#include <string.h>

/* Value generators of the TPC-C specification, clause 4.3.2. */

const char *const tpcc_syllables[10] = {"BAR", "OUGHT", "ABLE",  "PRI",   "PRES",
                                        "ESE", "ANTI",  "CALLY", "ATION", "EING"};

int64_t tpcc_nurand(struct rng *r, int64_t a, int64_t x, int64_t y, int64_t c)
{
    return (((rng_range(r, 0, a) | rng_range(r, x, y)) + c) % (y - x + 1)) + x;
}

char *tpcc_last_name(char *p, int n)
{
    int digits[3] = {n / 100 % 10, n / 10 % 10, n % 10};
    for (int i = 0; i < 3; i++) {
        size_t len = strlen(tpcc_syllables[digits[i]]);
        memcpy(p, tpcc_syllables[digits[i]], len);
        p += len;
    }
    return p;
}

static const char alnum[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

char *tpcc_astring(struct rng *r, char *p, int min, int max)
{
    int len = (int)rng_range(r, min, max);
    /* Ten characters from each 64-bit draw: 62^10 < 2^60, so the bias is below 2^-4 per
     * string and none per character that matters for a benchmark's data. */
    uint64_t v = 0;
    for (int i = 0; i < len; i++) {
        if (i % 10 == 0)
            v = rng_next(r);
        *p++ = alnum[v % 62];
        v /= 62;
    }
    return p;
}

char *tpcc_nstring(struct rng *r, char *p, int len)
{
    uint64_t v = 0;
    for (int i = 0; i < len; i++) {
        if (i % 18 == 0)
            v = rng_next(r);
        *p++ = (char)('0' + v % 10);
        v /= 10;
    }
    return p;
}

char *tpcc_zip(struct rng *r, char *p)
{
    p = tpcc_nstring(r, p, 4);
    memcpy(p, "11111", 5);
    return p + 5;
}

char *tpcc_data(struct rng *r, char *p)
{
    char *start = p;
    p = tpcc_astring(r, p, 26, 50);
    if (rng_range(r, 1, 10) == 1) {
        int pos = (int)rng_range(r, 0, (p - start) - 8);
        memcpy(start + pos, "ORIGINAL", 8);
    }
    return p;
}

char *tpcc_decimal(struct rng *r, char *p, int64_t lo, int64_t hi, int decimals)
{
    int64_t v = rng_range(r, lo, hi);
    int64_t scale = decimals == 4 ? 10000 : 100;
    /* load_put_int is in load.c; a local writer keeps this file free of the loader. */
    char tmp[24];
    int n = 0;
    int64_t whole = v / scale;
    do {
        tmp[n++] = (char)('0' + whole % 10);
        whole /= 10;
    } while (whole);
    while (n)
        *p++ = tmp[--n];
    *p++ = '.';
    int64_t frac = v % scale;
    for (int i = decimals - 1; i >= 0; i--, frac /= 10)
        p[i] = (char)('0' + frac % 10);
    return p + decimals;
}

int tpcc_c_last_ok(int c_load, int c_run)
{
    int d = abs(c_run - c_load);
    return c_run >= 0 && c_run <= 255 && d >= 65 && d <= 119 && d != 96 && d != 112;
}

int tpcc_c_last_run(struct rng *r, int c_load)
{
    /* Every load value in [0, 255] has a valid partner on at least one side. */
    for (;;) {
        int d = (int)rng_range(r, 65, 119);
        int c = rng_range(r, 0, 1) ? c_load + d : c_load - d;
        if (tpcc_c_last_ok(c_load, c))
            return c;
    }
}
