/* Why B differs from A: the wait events whose share of the sampled backends changed most. */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* A change below this many percentage points is not listed. */
#define MIN_POINTS 1.0

struct tally {
    size_t n, cap;
    char **name;
    double *a, *b; /* counts of each side */
};

static void tally_add(struct tally *t, const char *name, double count, int side_b)
{
    name = result_wait_name_current(name); /* a 16 run against a 17 one: one event */
    size_t i = 0;
    while (i < t->n && strcmp(t->name[i], name) != 0)
        i++;
    if (i == t->n) {
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 16;
            t->name = xrealloc(t->name, t->cap * sizeof *t->name);
            t->a = xrealloc(t->a, t->cap * sizeof *t->a);
            t->b = xrealloc(t->b, t->cap * sizeof *t->b);
        }
        t->name[i] = xstrdup(name);
        t->a[i] = t->b[i] = 0;
        t->n++;
    }
    (side_b ? t->b : t->a)[i] += count;
}

/* Every trial's counts of one side; 0 when a trial was not sampled. */
static int add_side(struct tally *t, const struct cmp_side *s, int side_b, double *total)
{
    *total = 0;
    for (size_t i = 0; i < s->n_trials; i++) {
        const struct result_waits *w = &s->runs[i]->waits;
        if (!w->present)
            return 0;
        for (size_t k = 0; k < w->n_events; k++) {
            tally_add(t, w->events[k].name, (double)w->events[k].count, side_b);
            *total += (double)w->events[k].count;
        }
    }
    return 1;
}

static int by_change(const void *x, const void *y)
{
    const struct cmp_wait_change *a = x, *b = y;
    double da = fabs(a->change_points), db = fabs(b->change_points);
    if (da != db)
        return da < db ? 1 : -1;
    return strcmp(a->name, b->name);
}

void cmp_waits(const struct cmp_report *rep, size_t side, struct cmp_outcome *o)
{
    struct tally t = {0};
    double total_a, total_b;
    o->waits_sampled = add_side(&t, &rep->sides[0], 0, &total_a) &&
                       add_side(&t, &rep->sides[side], 1, &total_b) && total_a > 0 && total_b > 0;
    if (o->waits_sampled) {
        o->waits = xcalloc(t.n ? t.n : 1, sizeof *o->waits);
        for (size_t i = 0; i < t.n; i++) {
            double a = t.a[i] / total_a, b = t.b[i] / total_b;
            o->waits[o->n_waits++] =
                (struct cmp_wait_change){xstrdup(t.name[i]), a, b, 100 * (b - a)};
        }
        qsort(o->waits, o->n_waits, sizeof *o->waits, by_change);
        size_t keep = 0;
        while (keep < o->n_waits && keep < CMP_MAX_WAITS &&
               fabs(o->waits[keep].change_points) >= MIN_POINTS)
            keep++;
        for (size_t i = keep; i < o->n_waits; i++)
            free(o->waits[i].name);
        o->n_waits = keep;
    }
    for (size_t i = 0; i < t.n; i++)
        free(t.name[i]);
    free(t.name);
    free(t.a);
    free(t.b);
}
