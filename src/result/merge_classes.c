/* merge: statement classes over the agents' results (summary.classes[]). */
#include "result/merge_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "stats/hist.h"

struct merged_class {
    const char *name; /* borrowed from an input */
    uint64_t count, failed;
    struct hist *h;
    double total_us;
};

static int by_total_desc(const void *a, const void *b)
{
    const struct merged_class *x = a, *y = b;
    if (strcmp(x->name, "other") == 0 || strcmp(y->name, "other") == 0)
        return strcmp(x->name, "other") == 0 ? 1 : -1;
    return x->total_us < y->total_us ? 1 : x->total_us > y->total_us ? -1 : 0;
}

void merge_classes(struct result *const *in, size_t n, struct result *out)
{
    if (n == 0 || !in[0]->summary.has_classes)
        return;
    size_t cap = 0, m = 0;
    for (size_t k = 0; k < n; k++)
        cap += in[k]->summary.n_classes;
    struct merged_class *c = xcalloc(cap + 1, sizeof *c);
    for (size_t k = 0; k < n; k++) {
        for (size_t i = 0; i < in[k]->summary.n_classes; i++) {
            const struct result_script_figures *s = &in[k]->summary.classes[i];
            size_t j = 0;
            while (j < m && strcmp(c[j].name, s->name) != 0)
                j++;
            if (j == m)
                c[m++] = (struct merged_class){s->name, 0, 0, hist_new(), 0};
            c[j].count += s->transactions;
            c[j].failed += s->failed;
            hist_add_sparse(c[j].h, &s->histogram);
            c[j].total_us += s->histogram.sum_us;
        }
    }
    qsort(c, m, sizeof *c, by_total_desc);
    /* Beyond the top RESULT_MAX_CLASSES, the rest is "other" again. */
    size_t keep = m;
    if (m > RESULT_MAX_CLASSES + 1) {
        keep = RESULT_MAX_CLASSES + 1;
        struct merged_class *other = &c[RESULT_MAX_CLASSES];
        other->name = "other";
        for (size_t j = RESULT_MAX_CLASSES + 1; j < m; j++) {
            other->count += c[j].count;
            other->failed += c[j].failed;
            hist_add(other->h, c[j].h);
        }
    }
    out->summary.has_classes = 1;
    out->summary.classes = xcalloc(keep + 1, sizeof *out->summary.classes);
    out->summary.n_classes = keep;
    for (size_t j = 0; j < keep; j++) {
        struct result_script_figures *f = &out->summary.classes[j];
        f->name = xstrdup(c[j].name);
        result_derive_class(f, c[j].count, c[j].failed, out->summary.duration_s, c[j].h);
    }
    for (size_t j = 0; j < m; j++)
        hist_free(c[j].h);
    free(c);
}
