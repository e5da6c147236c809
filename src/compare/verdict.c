/* From a confidence interval to a verdict word and its detail (docs/compare-method.md §5). */
#include "compare/cmp_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "base/printf.h"

const char *const cmp_verdict_names[4] = {"better", "worse", "no-meaningful-difference",
                                          "inconclusive"};

enum cmp_class cmp_classify(double l, double u, double null, double lo, double up)
{
    if (l > up)
        return CMP_C_BETTER;
    if (u < lo)
        return CMP_C_WORSE;
    if (l > null && u <= up)
        return CMP_C_BETTER_NEGLIGIBLE;
    if (u < null && l >= lo)
        return CMP_C_WORSE_NEGLIGIBLE;
    if (l > null)
        return CMP_C_BETTER_SMALL;
    if (u < null)
        return CMP_C_WORSE_SMALL;
    if (lo <= l && u <= up)
        return CMP_C_EQUIVALENT;
    return CMP_C_INCONCLUSIVE;
}

void cmp_set_verdict(struct cmp_metric *m, enum cmp_verdict v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    m->verdict = v;
    m->more_data = 0;
    vsnprintf(m->detail, sizeof m->detail, fmt, ap);
    va_end(ap);
}

void cmp_want_data(struct cmp_metric *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    m->verdict = CMP_INCONCLUSIVE;
    m->more_data = 1;
    vsnprintf(m->detail, sizeof m->detail, fmt, ap);
    va_end(ap);
}

/* An inconclusive trial comparison: how many trials per side would settle it (§6), from the
 * interval the verdict used (Welch's, with each side's between-run variance) projected to more
 * trials, the current estimate and the margin, all on the analysis scale. */
/* Trials per side for the gap: pooled when the interval was. */
static int needed(const struct cmp_judge *j, double gap)
{
    if (j->pool_a && j->pool_b)
        return cmp_trials_needed_pooled(j->pool_a, j->n_a, j->pool_b, j->n_b, gap);
    return cmp_trials_needed(j->var_a, j->var_b, j->n_trials, gap);
}

static void projection(struct cmp_metric *m, const struct cmp_judge *j)
{
    const char *noisy = "over %d trials per side needed: too noisy for %s (use a quieter machine, "
                        "interleave, or widen --margin)";
    if (j->d <= j->margin) {
        int eq = needed(j, j->margin - j->d);
        if (eq)
            cmp_want_data(m, "about %d trials per side would show whether it is inside %s", eq,
                          j->margin_text);
        else
            cmp_want_data(m, noisy, CMP_MAX_TRIALS, j->margin_text);
        return;
    }
    int dir = needed(j, j->d);
    int size = needed(j, j->d - j->margin);
    if (!dir)
        cmp_want_data(m, noisy, CMP_MAX_TRIALS, j->margin_text);
    else if (!size)
        cmp_want_data(
            m, "about %d trials per side would settle the direction (over %d to size it beyond %s)",
            dir, CMP_MAX_TRIALS, j->margin_text);
    else if (size == dir)
        cmp_want_data(m, "about %d trials per side would settle it", dir);
    else
        cmp_want_data(m,
                      "about %d trials per side would settle the direction, %d its size beyond %s",
                      dir, size, j->margin_text);
}

void cmp_judge_metric(struct cmp_metric *m, double l, double u, const struct cmp_judge *j)
{
    if (j->hard) {
        cmp_set_verdict(m, CMP_INCONCLUSIVE, "%s", j->hard);
        return;
    }
    if (isnan(l) || isnan(u)) {
        cmp_set_verdict(m, CMP_INCONCLUSIVE, "no interval could be computed");
        return;
    }
    enum cmp_class c = cmp_classify(l, u, j->null, j->lo, j->up);
    const char *prov = j->single ? "; provisional: one trial per side" : "";
    enum cmp_verdict dir = l > j->null ? CMP_BETTER : CMP_WORSE;
    if (j->cap) {
        /* Gates make small differences unjudgeable, not a halving of throughput. */
        if (l > j->gross_up || u < j->gross_lo)
            cmp_set_verdict(m, dir, "far beyond run-to-run noise although %s%s", j->cap, prov);
        else
            cmp_set_verdict(m, CMP_INCONCLUSIVE, "%s", j->cap);
        return;
    }
    switch (c) {
    case CMP_C_BETTER:
    case CMP_C_WORSE:
        if (j->single)
            cmp_set_verdict(m, dir, "provisional: one trial per side");
        else
            cmp_set_verdict(m, dir, "beyond the %s margin", j->margin_text);
        return;
    case CMP_C_BETTER_NEGLIGIBLE:
    case CMP_C_WORSE_NEGLIGIBLE:
        cmp_set_verdict(m, CMP_NO_DIFFERENCE, "real but inside %s%s", j->margin_text, prov);
        return;
    case CMP_C_EQUIVALENT:
        cmp_set_verdict(m, CMP_NO_DIFFERENCE, "inside %s%s", j->margin_text, prov);
        return;
    case CMP_C_BETTER_SMALL:
    case CMP_C_WORSE_SMALL:
        /* Within one run the direction is clear, but between-run noise, unknown with one
         * trial per side, is usually larger than a difference this close to the margin. */
        if (j->single)
            cmp_set_verdict(m, CMP_INCONCLUSIVE,
                            "B %s within these runs, size uncertain; repeat each side",
                            dir == CMP_BETTER ? "better" : "worse");
        else
            cmp_set_verdict(m, dir, "size uncertain: the CI reaches inside %s", j->margin_text);
        return;
    default:
        if (j->single)
            cmp_set_verdict(m, CMP_INCONCLUSIVE,
                            "the CI reaches past %s; repeat each side, or run longer",
                            j->margin_text);
        else
            projection(m, j);
        return;
    }
}
