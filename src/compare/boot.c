/* Circular block bootstrap of means, ratios of means and rates (docs/compare-method.md §3.3). */
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cmp_sort(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
}

void cmp_pct_interval(double *v, size_t n, double *lo, double *hi)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            v[k++] = v[i];
    cmp_sort(v, k);
    *lo = cmp_pct7(v, k, 0.025);
    *hi = cmp_pct7(v, k, 0.975);
}

/* One side of a bootstrap: a ratio of sums over the resampled intervals, num / den, where no
 * den means the number of intervals (so the value is a mean). */
struct boot_side {
    size_t n;
    struct prefix num, den;
    int has_den;
    size_t *starts;
};

static void side_init(struct boot_side *s, const double *num, const double *den, size_t n, size_t b)
{
    s->n = n;
    prefix_init(&s->num, num, n);
    s->has_den = den != NULL;
    if (den)
        prefix_init(&s->den, den, n);
    s->starts = xmalloc((n / b + 1) * sizeof *s->starts);
}

static void side_free(struct boot_side *s)
{
    free(s->num.p);
    if (s->has_den)
        free(s->den.p);
    free(s->starts);
}

/* The value over the whole series (k = 0) or over the replicate drawn last. */
static double side_value(const struct boot_side *s, const size_t *starts, size_t k, size_t b)
{
    double num = k ? prefix_replicate(&s->num, starts, k, b) : s->num.p[s->n];
    double den = !s->has_den ? (double)s->n
                 : k         ? prefix_replicate(&s->den, starts, k, b)
                             : s->den.p[s->n];
    return den > 0 ? num / den : 0;
}

static double side_draw(struct boot_side *s, size_t b, struct rng *g)
{
    size_t k = cmp_cbb_starts(s->n, b, g, s->starts);
    return side_value(s, s->starts, k, b);
}

static double log_ratio(double va, double vb)
{
    return va > 0 && vb > 0 ? log(vb / va) : NAN;
}

static double difference(double va, double vb)
{
    return vb - va;
}

/* R replicates, each drawing all of A's blocks then all of B's, combined into one statistic;
 * its 95 % percentile interval into out->lo, out->hi and the sides' values into out->a, b. */
static void bootstrap(struct boot_side *a, struct boot_side *b, size_t blk, int r, uint64_t seed,
                      double (*combine)(double va, double vb), struct cmp_ci *out)
{
    out->a = side_value(a, NULL, 0, blk);
    out->b = side_value(b, NULL, 0, blk);
    double *v = xmalloc((size_t)r * sizeof *v);
    struct rng g;
    rng_seed(&g, seed);
    for (int i = 0; i < r; i++) {
        double va = side_draw(a, blk, &g);
        v[i] = combine(va, side_draw(b, blk, &g));
    }
    cmp_pct_interval(v, (size_t)r, &out->lo, &out->hi);
    free(v);
}

void cmp_ratio_ci(const double *xa, size_t na, const double *xb, size_t nb, size_t b, int r,
                  uint64_t seed, struct cmp_ci *out)
{
    struct boot_side sa, sb;
    side_init(&sa, xa, NULL, na, b);
    side_init(&sb, xb, NULL, nb, b);
    bootstrap(&sa, &sb, b, r, seed, log_ratio, out);
    out->est = out->b / out->a;
    out->lo = exp(out->lo);
    out->hi = exp(out->hi);
    side_free(&sa);
    side_free(&sb);
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

void cmp_rate_diff_ci(const double *fa, const double *ta, const double *fb, const double *tb,
                      size_t n, size_t b, int r, uint64_t seed, struct cmp_ci *out)
{
    struct boot_side sa, sb;
    side_init(&sa, fa, ta, n, b);
    side_init(&sb, fb, tb, n, b);
    bootstrap(&sa, &sb, b, r, seed, difference, out);
    out->est = out->b - out->a;
    side_free(&sa);
    side_free(&sb);
}
