/* Circular block bootstrap of means, ratios of means and rates (COMPARE-METHOD.md §3.3). */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdlib.h>

#include "base/mem.h"

uint64_t cmp_rng_below(struct rng *g, uint64_t n)
{
    uint64_t thr = (0 - n) % n;
    uint64_t r;
    do {
        r = rng_next(g);
    } while (r < thr);
    return r % n;
}

double cmp_pct7(const double *v, size_t n, double p)
{
    if (n == 0)
        return NAN;
    double h = (double)(n - 1) * p;
    size_t lo = (size_t)floor(h);
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

size_t cmp_cbb_starts(size_t n, size_t b, struct rng *g, size_t *starts)
{
    size_t k = 0;
    for (size_t filled = 0; filled < n; filled += b)
        starts[k++] = (size_t)cmp_rng_below(g, n);
    return k;
}

double cmp_cbb_mean(const double *x, size_t n, size_t b, struct rng *g)
{
    double total = 0;
    size_t filled = 0;
    while (filled < n) {
        size_t s = (size_t)cmp_rng_below(g, n);
        size_t len = b < n - filled ? b : n - filled;
        for (size_t i = 0; i < len; i++)
            total += x[(s + i) % n];
        filled += len;
    }
    return total / (double)n;
}

/*
 * Prefix sums over x ++ x, so that any circular block's sum costs one subtraction: with R =
 * 2000 replicates the direct form would cost R n additions per side. The summation order
 * differs from cmp_cbb_mean's, hence the method's 1e-9 tolerance.
 */
struct prefix {
    size_t n;
    double *p; /* 2n + 1 values */
};

static void prefix_init(struct prefix *pf, const double *x, size_t n)
{
    pf->n = n;
    pf->p = xmalloc((2 * n + 1) * sizeof *pf->p);
    pf->p[0] = 0;
    for (size_t i = 0; i < 2 * n; i++)
        pf->p[i + 1] = pf->p[i] + x[i % n];
}

/* The sum of one replicate drawn from starts[0..k) in blocks of b. */
static double prefix_replicate(const struct prefix *pf, const size_t *starts, size_t k, size_t b)
{
    double total = 0;
    size_t filled = 0;
    for (size_t j = 0; j < k; j++) {
        size_t len = b < pf->n - filled ? b : pf->n - filled;
        total += pf->p[starts[j] + len] - pf->p[starts[j]];
        filled += len;
    }
    return total;
}

static double mean_of(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return n ? s / (double)n : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cmp_pct_interval(double *v, size_t n, double *lo, double *hi)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[k++] = v[i];
    qsort(v, k, sizeof *v, cmp_double);
    *lo = cmp_pct7(v, k, 0.025);
    *hi = cmp_pct7(v, k, 0.975);
}

void cmp_ratio_ci(const double *xa, size_t na, const double *xb, size_t nb, size_t b, int r,
                  uint64_t seed, struct cmp_ci *out)
{
    out->a = mean_of(xa, na);
    out->b = mean_of(xb, nb);
    out->est = out->b / out->a;
    struct prefix pa, pb;
    prefix_init(&pa, xa, na);
    prefix_init(&pb, xb, nb);
    size_t *sa = xmalloc((na / b + 1) * sizeof *sa), *sb = xmalloc((nb / b + 1) * sizeof *sb);
    double *lr = xmalloc((size_t)r * sizeof *lr);
    struct rng g;
    rng_seed(&g, seed);
    for (int i = 0; i < r; i++) {
        size_t ka = cmp_cbb_starts(na, b, &g, sa);
        size_t kb = cmp_cbb_starts(nb, b, &g, sb);
        double ma = prefix_replicate(&pa, sa, ka, b) / (double)na;
        double mb = prefix_replicate(&pb, sb, kb, b) / (double)nb;
        lr[i] = ma > 0 && mb > 0 ? log(mb / ma) : NAN;
    }
    cmp_pct_interval(lr, (size_t)r, &out->lo, &out->hi);
    out->lo = exp(out->lo);
    out->hi = exp(out->hi);
    free(lr);
    free(sa);
    free(sb);
    free(pa.p);
    free(pb.p);
}

void cmp_hac_ci(double mean_a, double s2lr_a, size_t na, double mean_b, double s2lr_b, size_t nb,
                struct cmp_ci *out)
{
    out->a = mean_a;
    out->b = mean_b;
    out->est = mean_b / mean_a;
    double se =
        sqrt(s2lr_a / ((double)na * mean_a * mean_a) + s2lr_b / ((double)nb * mean_b * mean_b));
    out->lo = out->est * exp(-1.96 * se);
    out->hi = out->est * exp(1.96 * se);
}

static double ratio_or_zero(double num, double den)
{
    return den > 0 ? num / den : 0;
}

void cmp_rate_diff_ci(const double *fa, const double *ta, const double *fb, const double *tb,
                      size_t n, size_t b, int r, uint64_t seed, struct cmp_ci *out)
{
    struct prefix pfa, pta, pfb, ptb;
    prefix_init(&pfa, fa, n);
    prefix_init(&pta, ta, n);
    prefix_init(&pfb, fb, n);
    prefix_init(&ptb, tb, n);
    out->a = ratio_or_zero(pfa.p[n], pta.p[n]);
    out->b = ratio_or_zero(pfb.p[n], ptb.p[n]);
    out->est = out->b - out->a;
    size_t *sa = xmalloc((n / b + 1) * sizeof *sa), *sb = xmalloc((n / b + 1) * sizeof *sb);
    double *d = xmalloc((size_t)r * sizeof *d);
    struct rng g;
    rng_seed(&g, seed);
    for (int i = 0; i < r; i++) {
        size_t ka = cmp_cbb_starts(n, b, &g, sa);
        size_t kb = cmp_cbb_starts(n, b, &g, sb);
        double ra =
            ratio_or_zero(prefix_replicate(&pfa, sa, ka, b), prefix_replicate(&pta, sa, ka, b));
        double rb =
            ratio_or_zero(prefix_replicate(&pfb, sb, kb, b), prefix_replicate(&ptb, sb, kb, b));
        d[i] = rb - ra;
    }
    cmp_pct_interval(d, (size_t)r, &out->lo, &out->hi);
    free(d);
    free(sa);
    free(sb);
    free(pfa.p);
    free(pta.p);
    free(pfb.p);
    free(ptb.p);
}
