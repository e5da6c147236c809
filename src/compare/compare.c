/* compare's entry: sides from labels, runs as series, one analysis per side against A. */
#include "compare/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "compare/cmp_int.h"
#include "compare/duet.h"

const char *const cmp_metric_names[CMP_N_METRICS] = {"tps", "latency_p50", "latency_p95",
                                                     "latency_p99", "failure_rate"};

void cmp_warn(struct cmp_report *rep, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = xstrdup(fmt);
    va_end(ap);
    for (size_t i = 0; i < rep->n_warnings; i++) {
        if (strcmp(rep->warnings[i], msg) == 0) { /* said once is enough */
            free(msg);
            return;
        }
    }
    rep->warnings = xrealloc(rep->warnings, (rep->n_warnings + 1) * sizeof *rep->warnings);
    rep->warnings[rep->n_warnings++] = msg;
}

/* A file without a label is a setup of its own, named by its path. */
static const char *label_of(const struct result *r, const char *path)
{
    return r->label && *r->label ? r->label : path;
}

/* Sides by name: names[i] is run i's, or its label when names is NULL. */
static void group_sides(const struct result *runs, const char *const *paths,
                        const char *const *names, size_t n, struct cmp_report *rep)
{
    rep->sides = xcalloc(n, sizeof *rep->sides);
    for (size_t i = 0; i < n; i++) {
        const char *label = names ? names[i] : label_of(&runs[i], paths[i]);
        size_t s = 0;
        while (s < rep->n_sides && strcmp(rep->sides[s].label, label) != 0)
            s++;
        struct cmp_side *side = &rep->sides[s];
        if (s == rep->n_sides) {
            side->label = xstrdup(label);
            side->runs = xcalloc(n, sizeof *side->runs);
            side->paths = xcalloc(n, sizeof *side->paths);
            rep->n_sides++;
        }
        side->runs[side->n_trials] = &runs[i];
        side->paths[side->n_trials++] = paths[i];
    }
}

/* The run's complete intervals as series, and its warm-up. A last interval shorter than the
 * first is a partial one (the run ended inside it) and is left out (§1). */
int cmp_prepare_run(struct cmp_run *cr, const struct result *r, const char *path, struct err *e)
{
    memset(cr, 0, sizeof *cr);
    cr->r = r;
    cr->path = path;
    size_t n = r->n_intervals;
    cr->interval_s = n > 0 && r->intervals[0].duration_s > 0 ? r->intervals[0].duration_s : 1;
    n = result_whole_intervals(r);
    if (n == 0)
        return err_set(e, ERR_INPUT, "%s: no complete interval to compare", path);
    cr->n = n;
    cr->tps = xmalloc(n * sizeof *cr->tps);
    cr->failed = xmalloc(n * sizeof *cr->failed);
    cr->total = xmalloc(n * sizeof *cr->total);
    for (size_t t = 0; t < n; t++) {
        const struct result_interval *it = &r->intervals[t];
        cr->tps[t] = result_interval_tps(it);
        cr->failed[t] = (double)it->failed;
        cr->total[t] = (double)(it->transactions + it->failed);
    }
    cmp_mser5(cr->tps, n, &cr->mser, NULL, NULL);
    return 0;
}

void cmp_free_run(struct cmp_run *cr)
{
    free(cr->tps);
    free(cr->failed);
    free(cr->total);
}

/* A merged run (run --agents): its agents' spread, and a word when one agent lags the rest:
 * its own host may have been the bottleneck, not the server. */
static void warn_agents(struct cmp_report *rep, const char *path, const struct result *r)
{
    if (r->n_agents == 0)
        return;
    double lo_tpc = INFINITY, hi_tpc = 0, lo_p99 = INFINITY, hi_p99 = 0;
    int lo_at = 0, hi_at = 0;
    for (size_t i = 0; i < r->n_agents; i++) {
        const struct result_agent *a = &r->agents[i];
        double tpc = a->clients > 0 ? a->tps / a->clients : a->tps;
        lo_tpc = tpc < lo_tpc ? tpc : lo_tpc;
        hi_tpc = tpc > hi_tpc ? tpc : hi_tpc;
        if (a->p99_us < lo_p99)
            lo_p99 = a->p99_us;
        if (a->p99_us > hi_p99) {
            hi_p99 = a->p99_us;
            hi_at = a->index;
        }
        if (tpc <= lo_tpc)
            lo_at = a->index;
    }
    int lagging = hi_p99 > 2 * lo_p99 || lo_tpc < 0.8 * hi_tpc;
    cmp_warn(rep, "%s: merged from %zu agents: tps per client %.2f..%.2f, p99 %.3f..%.3f ms", path,
             r->n_agents, lo_tpc, hi_tpc, lo_p99 / 1000, hi_p99 / 1000);
    if (lagging)
        cmp_warn(rep,
                 "%s: agent %d lags the others (p99 or throughput per client): was its "
                 "load host the bottleneck?",
                 path, hi_p99 > 2 * lo_p99 ? hi_at : lo_at);
}

/* A workload part's warning about a run (result/part.h). */
static void say(void *ctx, const char *text)
{
    cmp_warn(ctx, "%s", text);
}

/* Warnings about single runs, given once whatever the number of comparisons. */
static void warn_runs(struct cmp_report *rep, const struct cmp_side_runs *sr)
{
    int short_runs = 0;
    double interval_s = sr[0].runs[0].interval_s;
    for (size_t s = 0; s < rep->n_sides; s++) {
        for (size_t i = 0; i < sr[s].n; i++) {
            const struct cmp_run *r = &sr[s].runs[i];
            warn_agents(rep, r->path, r->r);
            result_parts_warn(r->r, r->path, say, rep);
            if (!r->r->complete)
                cmp_warn(rep, "%s: the run was cut short (%s)", r->path,
                         r->r->end_reason ? r->r->end_reason : "incomplete");
            if (r->mser.flags & CMP_MSER_UNCERTAIN)
                cmp_warn(rep,
                         "%s: steady state uncertain: MSER-5 would cut %.0f s, past half the "
                         "run (a dip or a slow drift?); a longer run would tell",
                         r->path, (double)r->mser.d_global * r->interval_s);
            short_runs |= (r->mser.flags & CMP_MSER_TOO_SHORT) != 0;
            if (fabs(r->interval_s - interval_s) > 0.01 * interval_s)
                cmp_warn(rep, "%s: intervals of %g s, not %g s as in %s: windows do not align",
                         r->path, r->interval_s, interval_s, sr[0].runs[0].path);
        }
    }
    if (short_runs)
        cmp_warn(rep, "runs shorter than 50 intervals: too short to detect a warm-up, none left "
                      "out (use run --warmup, or run longer)");
}

static int compare_sides(struct cmp_report *out, struct err *e);

int cmp_compare(const struct result *runs, const char *const *paths, size_t n,
                const struct cmp_config *cfg, struct cmp_report *out, struct err *e)
{
    memset(out, 0, sizeof *out);
    out->cfg = *cfg;
    group_sides(runs, paths, NULL, n, out);
    if (out->n_sides == 0) {
        cmp_report_free(out);
        return err_set(e, ERR_INPUT, "compare: no result files");
    }
    if (out->n_sides < 2) {
        err_set(e, ERR_INPUT,
                "compare: every file has the label '%s', so they are trials of one setup: give "
                "the setups different labels (run --label)",
                out->sides[0].label);
        cmp_report_free(out);
        return -1;
    }
    return compare_sides(out, e);
}

int cmp_compare_named(const struct result *runs, const char *const *paths, const char *const *names,
                      size_t n, const struct cmp_config *cfg, struct cmp_report *out, struct err *e)
{
    memset(out, 0, sizeof *out);
    out->cfg = *cfg;
    group_sides(runs, paths, names, n, out);
    if (out->n_sides < 2) {
        err_set(e, ERR_INPUT, "compare: %s",
                out->n_sides ? "the files form one side only" : "no result files");
        cmp_report_free(out);
        return -1;
    }
    return compare_sides(out, e);
}

/* The analyses of out's sides (grouped): every side against the first. */
static int compare_sides(struct cmp_report *out, struct err *e)
{
    struct cmp_side_runs *sr = xcalloc(out->n_sides, sizeof *sr);
    int rc = 0;
    for (size_t s = 0; s < out->n_sides && rc == 0; s++) {
        sr[s].runs = xcalloc(out->sides[s].n_trials, sizeof *sr[s].runs);
        for (size_t i = 0; i < out->sides[s].n_trials && rc == 0; i++, sr[s].n++)
            rc = cmp_prepare_run(&sr[s].runs[i], out->sides[s].runs[i], out->sides[s].paths[i], e);
    }
    if (rc == 0) {
        warn_runs(out, sr);
        cmp_stalls(out);
        out->n_outcomes = out->n_sides - 1;
        out->outcomes = xcalloc(out->n_outcomes, sizeof *out->outcomes);
        for (size_t s = 1; s < out->n_sides; s++) {
            out->outcomes[s - 1].side = s;
            cmp_analyse(out, &sr[0], &sr[s], &out->outcomes[s - 1]);
            cmp_duet(out, s, &out->outcomes[s - 1]);
            cmp_scripts(out, s, &out->outcomes[s - 1]);
            cmp_classes(out, s, &out->outcomes[s - 1]);
            cmp_waits(out, s, &out->outcomes[s - 1]);
            cmp_internals(out, s, &out->outcomes[s - 1]);
        }
        for (size_t s = 0; s < out->n_sides; s++)
            cmp_env_check_side(out, s);
        for (size_t s = 1; s < out->n_sides; s++)
            cmp_env_diff(out, s);
    }
    for (size_t s = 0; s < out->n_sides; s++) {
        for (size_t i = 0; i < sr[s].n; i++)
            cmp_free_run(&sr[s].runs[i]);
        free(sr[s].runs);
    }
    free(sr);
    if (rc < 0)
        cmp_report_free(out);
    return rc;
}

int cmp_any_worse(const struct cmp_report *rep)
{
    for (size_t i = 0; i < rep->n_outcomes; i++) {
        const struct cmp_outcome *o = &rep->outcomes[i];
        for (int k = 0; k < CMP_N_METRICS; k++)
            if (o->metrics[k].verdict == CMP_WORSE)
                return 1;
        for (size_t s = 0; s < o->n_scripts; s++)
            for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++)
                if (o->scripts[s].metrics[k].verdict == CMP_WORSE)
                    return 1;
        for (size_t s = 0; s < o->n_classes; s++)
            for (int k = 0; k < CMP_N_SCRIPT_METRICS; k++)
                if (o->classes[s].metrics[k].verdict == CMP_WORSE)
                    return 1;
    }
    return 0;
}

void cmp_report_free(struct cmp_report *rep)
{
    for (size_t s = 0; s < rep->n_sides; s++) {
        free(rep->sides[s].label);
        free(rep->sides[s].runs);
        free(rep->sides[s].paths);
    }
    free(rep->sides);
    for (size_t i = 0; i < rep->n_outcomes; i++) {
        for (size_t s = 0; s < rep->outcomes[i].n_scripts; s++)
            free(rep->outcomes[i].scripts[s].name);
        free(rep->outcomes[i].scripts);
        for (size_t s = 0; s < rep->outcomes[i].n_classes; s++)
            free(rep->outcomes[i].classes[s].name);
        free(rep->outcomes[i].classes);
        for (size_t w = 0; w < rep->outcomes[i].n_waits; w++)
            free(rep->outcomes[i].waits[w].name);
        free(rep->outcomes[i].waits);
    }
    free(rep->outcomes);
    for (size_t i = 0; i < rep->n_diffs; i++) {
        free(rep->diffs[i].path);
        free(rep->diffs[i].a);
        free(rep->diffs[i].b);
    }
    free(rep->diffs);
    for (size_t i = 0; i < rep->n_warnings; i++)
        free(rep->warnings[i]);
    free(rep->warnings);
    for (size_t i = 0; i < rep->n_stalls; i++)
        free(rep->stalls[i].text);
    free(rep->stalls);
    memset(rep, 0, sizeof *rep);
}
