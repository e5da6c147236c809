#include "history/detect.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/rng.h"

void detect_config_default(struct detect_config *c)
{
    *c = (struct detect_config){DETECT_DEFAULT_ALPHA, DETECT_DEFAULT_MIN_EFFECT,
                                DETECT_DEFAULT_PERMUTATIONS, DETECT_DEFAULT_RESAMPLES, 42};
}

static double q_of(double s_lr, double s_ll, double s_rr, size_t ml, size_t mr)
{
    double l = (double)ml, r = (double)mr;
    double e = 2 * s_lr / (l * r) - s_ll / (l * (l - 1) / 2) - s_rr / (r * (r - 1) / 2);
    return l * r / (l + r) * e;
}

double detect_q(const double *x, size_t n, size_t tau)
{
    double s_lr = 0, s_ll = 0, s_rr = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            double d = fabs(x[i] - x[j]);
            if (j < tau)
                s_ll += d;
            else if (i >= tau)
                s_rr += d;
            else
                s_lr += d;
        }
    return q_of(s_lr, s_ll, s_rr, tau, n - tau);
}

/* The best split of y[0..m) with both parts at least DETECT_MIN_SEGMENT long: its Q, the
 * split in *tau and the right part's end in *kappa; -INFINITY when the segment is too short.
 * As Matteson & James, the right part ends anywhere from tau + DETECT_MIN_SEGMENT to m
 * (fixed_end 0), so that a change followed by another (a bump) is seen; or at m (fixed_end
 * 1). The distances' 2-D prefix sums make each Q(tau, kappa) O(1), O(m^2) in all. */
static double best_split(const double *y, size_t m, int fixed_end, size_t *tau, size_t *kappa)
{
    if (m < 2 * DETECT_MIN_SEGMENT)
        return -INFINITY;
    size_t w = m + 1;
    double *ps = xcalloc(w * w, sizeof *ps), best = -INFINITY;
    /* ps[i * w + j]: the sum of |y[a] - y[b]| over a < i, b < j */
    for (size_t i = 1; i <= m; i++)
        for (size_t j = 1; j <= m; j++)
            ps[i * w + j] = ps[(i - 1) * w + j] + ps[i * w + j - 1] - ps[(i - 1) * w + j - 1] +
                            fabs(y[i - 1] - y[j - 1]);
#define BLOCK(a1, a2, b1, b2)                                                                      \
    (ps[(a2)*w + (b2)] - ps[(a1)*w + (b2)] - ps[(a2)*w + (b1)] + ps[(a1)*w + (b1)])
    for (size_t t = DETECT_MIN_SEGMENT; t + DETECT_MIN_SEGMENT <= m; t++) {
        double s_ll = BLOCK(0, t, 0, t) / 2;
        for (size_t k = fixed_end ? m : t + DETECT_MIN_SEGMENT; k <= m; k++) {
            double q = q_of(BLOCK(0, t, t, k), s_ll, BLOCK(t, k, t, k) / 2, t, k - t);
            if (q > best) {
                best = q;
                *tau = t;
                *kappa = k;
            }
        }
    }
#undef BLOCK
    free(ps);
    return best;
}

/* The best split over every segment between bounds[0..nb) (bounds[0] = 0, the last n): its
 * segment's start in *from, the split in *where, the right part's end in *to. */
static double best_overall(const double *x, const size_t *bounds, size_t nb, size_t *from,
                           size_t *where, size_t *to)
{
    double best = -INFINITY;
    for (size_t s = 0; s + 1 < nb; s++) {
        size_t tau = 0, kappa = 0;
        double q = best_split(x + bounds[s], bounds[s + 1] - bounds[s], 0, &tau, &kappa);
        if (q > best) {
            best = q;
            *from = bounds[s];
            *where = bounds[s] + tau;
            *to = bounds[s] + kappa;
        }
    }
    return best;
}

/* The permutation test of the best split: the window it was found in, x[from..to), shuffled,
 * and its best split with the window's end fixed, against the one found: how often it is at
 * least as large. Testing the window (not every end again) keeps a clear step at the end of
 * a short series significant (searching every end of every shuffle finds a block of the
 * lows somewhere too often); a bump is still found, in the window around it. */
static int permutation_test(const double *x, size_t from, size_t to, double q, int permutations,
                            double alpha, struct rng *g)
{
    size_t m = to - from, tau, kappa;
    double *y = xcalloc(m, sizeof *y);
    int above = 0;
    /* Once p = (above + 1) / (permutations + 1) exceeds alpha whatever follows, the split is
     * refused: the rest need not be drawn (the last split of every series is refused). */
    for (int r = 0; r < permutations && (above + 1.0) / (permutations + 1.0) <= alpha; r++) {
        memcpy(y, x + from, m * sizeof *y);
        for (size_t i = m - 1; i > 0; i--) {
            size_t j = (size_t)rng_range(g, 0, (int64_t)i);
            double t = y[i];
            y[i] = y[j];
            y[j] = t;
        }
        if (best_split(y, m, 1, &tau, &kappa) >= q)
            above++;
    }
    free(y);
    return above;
}

static void insert_bound(size_t *bounds, size_t *nb, size_t b)
{
    size_t k = *nb;
    while (k > 0 && bounds[k - 1] > b) {
        bounds[k] = bounds[k - 1];
        k--;
    }
    bounds[k] = b;
    (*nb)++;
}

static double mean(const double *x, size_t from, size_t to)
{
    double s = 0;
    for (size_t i = from; i < to; i++)
        s += x[i];
    return s / (double)(to - from);
}

/* |after / before - 1|; a change from zero is as large as can be. */
static double effect(double before, double after)
{
    if (before == 0)
        return after == 0 ? 0 : INFINITY;
    return fabs(after / before - 1);
}

/* Drop the smallest change below the minimum effect, until none is. */
static void merge_small(const double *x, size_t *bounds, size_t *nb, double min_effect)
{
    while (*nb > 2) {
        size_t worst = 0;
        double smallest = INFINITY;
        for (size_t k = 1; k + 1 < *nb; k++) {
            double d = effect(mean(x, bounds[k - 1], bounds[k]), mean(x, bounds[k], bounds[k + 1]));
            if (d < smallest) {
                smallest = d;
                worst = k;
            }
        }
        if (smallest >= min_effect)
            return;
        memmove(bounds + worst, bounds + worst + 1, (*nb - worst - 1) * sizeof *bounds);
        (*nb)--;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The 95 % CI of 100 (after / before - 1), resampling the runs of each segment. */
static void bootstrap(const double *x, size_t a, size_t b, size_t c,
                      const struct detect_config *cfg, struct rng *g, struct detect_change *ch)
{
    int n = cfg->resamples > 0 ? cfg->resamples : DETECT_DEFAULT_RESAMPLES, used = 0;
    double *r = xcalloc((size_t)n, sizeof *r);
    for (int k = 0; k < n; k++) {
        double sb = 0, sa = 0;
        for (size_t i = a; i < b; i++)
            sb += x[rng_range(g, (int64_t)a, (int64_t)b - 1)];
        for (size_t i = b; i < c; i++)
            sa += x[rng_range(g, (int64_t)b, (int64_t)c - 1)];
        sb /= (double)(b - a);
        sa /= (double)(c - b);
        if (sb != 0)
            r[used++] = 100 * (sa / sb - 1);
    }
    qsort(r, (size_t)used, sizeof *r, cmp_double);
    ch->ci_low = used ? r[(size_t)(0.025 * (used - 1))] : NAN;
    ch->ci_high = used ? r[(size_t)ceil(0.975 * (used - 1))] : NAN;
    free(r);
}

size_t detect_changes(const double *x, size_t n, const struct detect_config *c,
                      struct detect_change *out)
{
    size_t max = n / DETECT_MIN_SEGMENT + 2, nb = 0;
    size_t *bounds = xcalloc(max + 1, sizeof *bounds);
    double *p_of = xcalloc(n + 1, sizeof *p_of);
    struct rng g;
    rng_seed(&g, c->seed);
    bounds[nb++] = 0;
    bounds[nb++] = n;
    for (;;) {
        size_t from = 0, where = 0, to = 0;
        double q = best_overall(x, bounds, nb, &from, &where, &to);
        if (!isfinite(q) || q <= 0)
            break;
        int above = permutation_test(x, from, to, q, c->permutations, c->alpha, &g);
        double p = (above + 1.0) / (c->permutations + 1.0);
        if (p > c->alpha)
            break;
        p_of[where] = p;
        insert_bound(bounds, &nb, where);
    }
    merge_small(x, bounds, &nb, c->min_effect);
    size_t k = 0;
    for (size_t s = 1; s + 1 < nb; s++, k++) {
        struct detect_change *ch = &out[k];
        ch->index = bounds[s];
        ch->p_value = p_of[bounds[s]];
        ch->before = mean(x, bounds[s - 1], bounds[s]);
        ch->after = mean(x, bounds[s], bounds[s + 1]);
        ch->change_pct = ch->before != 0 ? 100 * (ch->after / ch->before - 1) : NAN;
        bootstrap(x, bounds[s - 1], bounds[s], bounds[s + 1], c, &g, ch);
    }
    free(bounds);
    free(p_of);
    return k;
}
