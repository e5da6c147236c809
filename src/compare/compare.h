#ifndef PGARENA_COMPARE_COMPARE_H
#define PGARENA_COMPARE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "result/result.h"

/*
 * Is B faster than A, by how much, and is it real? Result files are grouped into sides by
 * label (files sharing one are trials of one setup; the first label is the baseline A), and
 * every other side is compared with A on throughput, latency p50/p95/p99 and failure rate as
 * docs/compare-method.md describes; what differs between the environments is listed too.
 * Ownership: struct cmp_report owns everything it points to (cmp_report_free), except the
 * results and paths it was given, which must outlive it.
 */

#define CMP_DEFAULT_SEED   42
#define CMP_DEFAULT_MARGIN 0.02 /* +-2 %: no meaningful difference inside it */
#define CMP_RESAMPLES      2000 /* bootstrap replicates, fixed so that results are stable */

struct cmp_config {
    uint64_t seed;
    double margin; /* relative equivalence margin delta, e.g. 0.02 */
    int resamples;
};

enum cmp_metric_id { CMP_TPS, CMP_P50, CMP_P95, CMP_P99, CMP_FAILURE_RATE, CMP_N_METRICS };

/* "tps", "latency_p50", "latency_p95", "latency_p99", "failure_rate" (the names of compare --json).
 */
extern const char *const cmp_metric_names[CMP_N_METRICS];

enum cmp_verdict { CMP_BETTER, CMP_WORSE, CMP_NO_DIFFERENCE, CMP_INCONCLUSIVE };

/* "better", "worse", "no-meaningful-difference", "inconclusive". */
extern const char *const cmp_verdict_names[4];

/* One metric of one comparison. NAN marks what is unknown or undefined. */
struct cmp_metric {
    double a, b; /* tps; latency in microseconds; failure rate as a fraction of transactions */
    double change_pct;              /* of B against A */
    double ci_low_pct, ci_high_pct; /* 95 % CI of the change */
    enum cmp_verdict verdict;
    char detail[200]; /* one line: why this verdict, or what would settle it */
    double df;        /* degrees of freedom of a t interval over trials (0: none) */
    int more_data;    /* inconclusive for want of data: detail says how many trials per side or
                       * paired seconds would settle it (or that there were too few) */
};

/* A setup: the files that share a label. */
struct cmp_side {
    char *label;
    size_t n_trials;
    const struct result **runs; /* borrowed */
    const char **paths;         /* borrowed */
};

/* The analysis window, common to every run of a comparison. */
struct cmp_window {
    double start_s, end_s;                 /* seconds from the measured start */
    double warmup_a_min_s, warmup_a_max_s; /* warm-up left out, over A's trials */
    double warmup_b_min_s, warmup_b_max_s;
    int auto_warmup; /* 0 when the runs were too short to look for a warm-up */
    size_t block;    /* bootstrap block in intervals (one trial per side), else 0 */
    double interval_s;
    double n_eff_a, n_eff_b; /* independent samples the window is worth (one trial) */
};

/* Per-script latency (summary.scripts[]) when both sides ran the same two or more scripts.
 * The files keep no per-script interval series, so these are whole runs: with one trial per
 * side only A, B and the change (no interval, inconclusive); with trials, Welch's t on the
 * logs of each trial's value, as for the whole-run metrics. */
#define CMP_N_SCRIPT_METRICS 3 /* latency p50, p95, p99: metric ids CMP_P50 + k */

struct cmp_script_row {
    char *name;
    struct cmp_metric metrics[CMP_N_SCRIPT_METRICS];
};

/* A wait event's share of the sampled backends on each side (all trials' counts together),
 * and its change in percentage points. */
struct cmp_wait_change {
    char *name;
    double a_share, b_share; /* 0..1 */
    double change_points;    /* 100 * (b_share - a_share) */
};

/* Wait events listed per outcome: those whose share changed most. */
#define CMP_MAX_WAITS 5

/* An internal of the server (result/server_io.h) on each side, the mean over its trials. */
enum cmp_internal_id {
    CMP_IN_WAL_PER_TX,
    CMP_IN_FPI_SHARE,
    CMP_IN_BUFFERS_PER_TX,
    CMP_IN_TEMP_PER_TX,
    CMP_IN_HIT_RATIO,
    CMP_IN_CHECKPOINTS,
    CMP_IN_AUTOVACUUM,
    CMP_IN_AUTOANALYZE,
    CMP_N_INTERNALS
};

/* "wal_bytes_per_tx", "fpi_share", ... (the names of compare --json's internals[]). */
extern const char *const cmp_internal_names[CMP_N_INTERNALS];

struct cmp_internal_change {
    enum cmp_internal_id id;
    double a, b;
    double change_pct; /* of B against A; INFINITY when A is 0 and B is not */
};

/* Side `side` (>= 1) against side 0. */
struct cmp_outcome {
    size_t side;
    struct cmp_window window;
    struct cmp_metric metrics[CMP_N_METRICS];
    double mwu_p;     /* Mann-Whitney p on trial throughputs (secondary), NAN with one trial */
    double mwu_min_p; /* the smallest p these trial counts can give */
    size_t n_scripts; /* 0: no per-script rows */
    struct cmp_script_row *scripts;
    /* When every run of both sides was sampled: the wait events whose share changed most,
     * largest change first (at most CMP_MAX_WAITS, each changed by at least one point). */
    int waits_sampled;
    size_t n_waits;
    struct cmp_wait_change *waits;
    /* When every run of both sides has server_io: the internals that changed, largest
     * relative change first (internals.c). */
    int internals_sampled;
    size_t n_internals;
    struct cmp_internal_change internals[CMP_N_INTERNALS];
    /* The statement classes (summary.classes[]) of every run of both sides whose latency
     * changed most (at most CMP_MAX_CLASSES, largest change of p50 first), as the per-script
     * rows: with trials, CIs and verdicts; with one run a side, plain changes. */
    size_t n_classes;
    struct cmp_script_row *classes;
    /* Duet partners (compare/duet.h): every whole-run metric paired by second over the
     * duet's complete intervals (tps by half-second when duet_halves), its tps interval from
     * duet_seconds paired seconds in duet_batches batches of up to duet_batch_s seconds.
     * duet 0: not a duet. */
    int duet, duet_halves;
    size_t duet_batches;
    double duet_seconds, duet_batch_s;
};

#define CMP_MAX_CLASSES 10

/* A path of the environment whose values differ between A and a side. */
struct cmp_diff {
    size_t side;
    char *path;
    char *a, *b; /* the distinct values of each side joined by ", "; "(absent)" */
    int unfair;  /* it makes the comparison not like for like (also a warning) */
};

/* A run of a comparison whose client stalled (summary.client_health): its side, its trial
 * (1-based, in the side's order), and the line that names it beside the verdicts. */
struct cmp_stall {
    size_t side, trial;
    double stalled_ms;
    uint64_t intervals;
    enum result_stall_cause cause;
    char *text; /* "B trial 2: client stalled 4.1 s (3 intervals), steal" */
};

/* The line naming a stalled run: "LABEL trial N: client stalled 4.1 s (3 intervals), steal"
 * ("850 ms" below a second). 0 with buf untouched when h records no stalled interval, else the
 * length it needed (as snprintf). Pure. */
int cmp_stall_text(char *buf, size_t size, const char *label, size_t trial,
                   const struct result_client_health *h);
/* The same line from its figures (cause: its name, "steal"), as sweep's records keep them. */
int cmp_stall_line(char *buf, size_t size, const char *label, size_t trial, double stalled_ms,
                   uint64_t intervals, const char *cause);

struct cmp_report {
    struct cmp_config cfg;
    size_t n_sides;
    struct cmp_side *sides;
    size_t n_outcomes; /* n_sides - 1, in side order */
    struct cmp_outcome *outcomes;
    size_t n_diffs;
    struct cmp_diff *diffs;
    size_t n_warnings;
    char **warnings;
    size_t n_stalls; /* the runs whose client stalled, side by side, trial by trial */
    struct cmp_stall *stalls;
};

/* Compare runs[0..n) (read from paths[0..n)). -1 with e set (ERR_INPUT) when they form fewer
 * than two sides or a run holds no complete interval; else 0 and out filled. */
int cmp_compare(const struct result *runs, const char *const *paths, size_t n,
                const struct cmp_config *cfg, struct cmp_report *out, struct err *e);

/* As cmp_compare, with the sides named by names[0..n) (run i's side is names[i], the first
 * name the baseline) instead of the labels. -1 with e set (ERR_INPUT) when they form fewer than
 * two sides or a run holds no complete interval. */
int cmp_compare_named(const struct result *runs, const char *const *paths, const char *const *names,
                      size_t n, const struct cmp_config *cfg, struct cmp_report *out,
                      struct err *e);

/* Whether any metric of any comparison, per-script rows included, is `worse` (for
 * --fail-if-worse). */
int cmp_any_worse(const struct cmp_report *rep);

void cmp_report_free(struct cmp_report *rep);

/* Student's t 0.975 quantile for df, from the method's table (the row at or below df);
 * also the capacity search's (sweep/capacity.c). Pure. */
double cmp_t975(double df);

#endif
