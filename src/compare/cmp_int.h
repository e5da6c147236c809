#ifndef PGARENA_COMPARE_CMP_INT_H
#define PGARENA_COMPARE_CMP_INT_H

/*
 * Shared inside compare/ and with its unit tests: the statistics of docs/compare-method.md as pure
 * functions on arrays (section numbers refer to that document).
 * Ownership: callers own every array passed in and out; the one object that allocates,
 * struct cmp_lat, is freed with cmp_lat_free.
 */

#include <stddef.h>
#include <stdint.h>

#include "base/printf.h"
#include "base/rng.h"
#include "compare/compare.h"

/* Random draws and percentiles (§1). */

/* Uniform integer in [0, n), n >= 1: rejects draws below 2^64 mod n, so that every
 * implementation of the method consumes the generator identically. */
uint64_t cmp_rng_below(struct rng *g, uint64_t n);

/* Type-7 percentile (NumPy's and R's default) of v[0..n) sorted ascending; p in [0, 1]. */
double cmp_pct7(const double *v, size_t n, double p);

/* Sort v[0..n) ascending (no NaNs). */
void cmp_sort(double *v, size_t n);

/* rep->stalls: every run of every side whose client stalled (stalls.c). */
void cmp_stalls(struct cmp_report *rep);

/* The 95 % percentile interval of replicates v[0..n): drops NaNs (replicates that had nothing
 * to measure), sorts v in place, gives the type-7 2.5 and 97.5 percentiles (NaN if none left). */
void cmp_pct_interval(double *v, size_t n, double *lo, double *hi);

/* Warm-up, dependence, drift (§3.1, §3.2). */

enum {
    CMP_MSER_TOO_SHORT = 1, /* fewer than 10 batches: no automatic warm-up, none left out */
    CMP_MSER_UNCERTAIN = 2, /* the unrestricted minimum lies past half the run */
};

struct cmp_mser {
    size_t warmup;   /* intervals to leave out at the start */
    size_t d_global; /* the unrestricted cut, in intervals */
    int flags;       /* CMP_MSER_* */
};

/* MSER-5 on x[0..n). When stat is not NULL it receives the statistic of every candidate cut
 * (one per batch, at most n / 5 values) and *n_stat their number. */
void cmp_mser5(const double *x, size_t n, struct cmp_mser *out, double *stat, size_t *n_stat);

/* Politis-White block length with the Patton-Politis-White correction, and the long-run
 * variance it estimates on the way. */
struct cmp_lrv {
    double acov0;   /* sample variance (1/n) */
    double rho1;    /* lag-1 autocorrelation */
    size_t mhat, m; /* first insignificant lag run, and the window M = min(2 mhat, mmax) */
    double s2lr;    /* long-run variance sigma^2_LR (per interval) */
    double g;       /* the G term of the block-length rule */
    double b_cb;    /* optimal circular-block length before rounding */
    size_t b;       /* block length: ceil(b_cb) clamped to [1, bmax] */
    double n_eff;   /* n * acov0 / s2lr: the worth of the series in independent samples */
    int fallback;   /* s2lr came out <= 0 and fell back to acov0 (b = 1) */
};

void cmp_pw_block(const double *x, size_t n, struct cmp_lrv *out);

/* The drift check: halves of x[0..n) compared with a z-test on the long-run variance. */
struct cmp_drift {
    double m1, m2; /* means of the first and second half */
    double z;
    int flagged; /* |z| > 3 and |m2/m1 - 1| > margin */
};

void cmp_drift_check(const double *x, size_t n, double s2lr, double margin, struct cmp_drift *out);

/* Block bootstrap (§3.3). */

/* One circular-block-bootstrap draw of a series of n intervals in blocks of b: the block
 * starts go to starts[] (room for ceil(n / b)); returns their number. Every block but the last
 * is b long; the last is cut to fill exactly n. */
size_t cmp_cbb_starts(size_t n, size_t b, struct rng *g, size_t *starts);

/* One replicate of the mean of x[0..n) (the direct form, for tests). */
double cmp_cbb_mean(const double *x, size_t n, size_t b, struct rng *g);

/* A point estimate with its interval; a and b are the two sides' values. */
struct cmp_ci {
    double a, b;
    double est; /* b / a for ratios, b - a for differences */
    double lo, hi;
};

/* 95 % CI of mean(xb) / mean(xa) by R circular-block-bootstrap replicates: a percentile
 * interval on log(ratio), drawing all of A's blocks then all of B's for each replicate. */
void cmp_ratio_ci(const double *xa, size_t na, const double *xb, size_t nb, size_t b, int r,
                  uint64_t seed, struct cmp_ci *out);

/* The deterministic cross-check: delta method with the long-run variances (1.96 sigma). */
void cmp_hac_ci(double mean_a, double s2lr_a, size_t na, double mean_b, double s2lr_b, size_t nb,
                struct cmp_ci *out);

/* 95 % CI of rate_B - rate_A where rate = sum(failed) / sum(total) over the intervals, by the
 * same bootstrap (percentile interval on the difference). Both sides have n intervals. */
void cmp_rate_diff_ci(const double *fa, const double *ta, const double *fb, const double *tb,
                      size_t n, size_t b, int r, uint64_t seed, struct cmp_ci *out);

/* Latency quantiles from interval histograms (§3.4). */

/* Bins of two significant binary digits (128 per power of two, at most 0.8 % wide), into which
 * the result file's finer bins nest exactly: resampling costs 8 times less, and the method's
 * test values are defined on them. */
uint32_t cmp_lat_index(int64_t value_us);
int64_t cmp_lat_lowest(uint32_t idx);
int64_t cmp_lat_highest(uint32_t idx);

/* A series of interval histograms on those bins, stored sparse. */
struct cmp_lat {
    size_t n;        /* intervals */
    size_t *off;     /* n + 1 offsets into idx / cnt */
    uint32_t *idx;   /* bin indexes, ascending within an interval */
    uint64_t *cnt;   /* their counts */
    uint32_t lo, hi; /* smallest and largest bin used (lo > hi when empty) */
    uint64_t total;  /* all counts */
    size_t cap, len; /* of idx / cnt */
};

void cmp_lat_init(struct cmp_lat *l);
void cmp_lat_free(struct cmp_lat *l);
/* Add count values of value_us to the interval being built. */
void cmp_lat_add(struct cmp_lat *l, int64_t value_us, uint64_t count);
/* Close the interval being built (possibly empty) and start the next. */
void cmp_lat_next(struct cmp_lat *l);

/* HdrHistogram's rule on the merged series: target rank max(1, (int64)(q N + 0.5)), value the
 * highest of the bin reaching it. 0 when empty. */
double cmp_lat_quantile(const struct cmp_lat *l, double q);

/* For each of qs[0..nq) (ascending): the quantiles of both sides and a 95 % CI of B/A by a
 * circular block bootstrap over whole interval histograms, drawn as cmp_ratio_ci draws. */
void cmp_lat_ci(const struct cmp_lat *la, const struct cmp_lat *lb, size_t b, const double *qs,
                size_t nq, int r, uint64_t seed, struct cmp_ci *out);

/* Trials (§3.5, §6); cmp_t975 is in compare.h. */

struct cmp_welch {
    double d;      /* mean(b) - mean(a) */
    double se, df; /* standard error and Welch-Satterthwaite degrees of freedom */
    double lo, hi; /* d -+ t975(floor df) se */
};

/* Welch's t interval of mean(b) - mean(a). A side with one value borrows the other side's
 * variance (and its degrees of freedom): between-run noise is then assumed equal. At least
 * one side needs two values. */
void cmp_welch(const double *a, size_t na, const double *b, size_t nb, struct cmp_welch *out);

/* Two-sided Mann-Whitney p: exact distribution when na * nb <= 2500, else the normal
 * approximation with tie correction. */
double cmp_mwu_p(const double *a, size_t na, const double *b, size_t nb);

#define CMP_MAX_TRIALS 30

/* Trials per side n, above n_given and up to CMP_MAX_TRIALS, whose 95 % interval would be
 * narrower than gap on each side of the estimate: the interval the verdict uses (Welch's t,
 * cmp_welch), projected with each side's observed between-run variance var_a and var_b (a side
 * with one trial borrowing the other's, as cmp_welch does) and n trials on each side, so
 * t975(df_n) sqrt((var_a + var_b) / n) < gap with df_n the Welch-Satterthwaite degrees of
 * freedom at n. The advice never names n_given or fewer. 0 when no n up to CMP_MAX_TRIALS is
 * enough (or gap <= 0). */
int cmp_trials_needed(double var_a, double var_b, int n_given, double gap);

/* A matrix's trials pooled (§3.6): per side, one between-trial variance of the log figures
 * over all its cells, when Bartlett's test does not reject that they share it. */

#define CMP_HOMOGENEITY_ALPHA 0.01

struct cmp_pooled {
    double var, df;  /* pooled variance of the log values and its degrees of freedom (0: none) */
    size_t n_cells;  /* cells pooled (with two or more values, not excluded) */
    double p;        /* Bartlett's p-value over them (NaN: fewer than two) */
    int homogeneous; /* -1 not tested (fewer than two cells with two values), 1 every such cell
                      * shares the pool, 0 the test refused some (excluded) */
};

/* Pool cells c = 0..nc whose values are y[n[0] + ... + n[c-1] ..][0..n[c]) (the cells one
 * after the other); floor_var is the smallest variance a cell is taken to have (the values'
 * resolution). While Bartlett's test refuses at CMP_HOMOGENEITY_ALPHA, the cell whose
 * variance lies farthest from the median of theirs (log scale) is excluded (excluded[c] = 1,
 * room for nc) and the rest tested again; when fewer than two remain there is no pool (df 0,
 * every cell with two values excluded). With fewer than two cells of two values nothing is
 * tested: such a cell is excluded (keeps its own variance) and the pool is its variance, which
 * cells of one value borrow. */
void cmp_pool(const double *y, const size_t *n, size_t nc, double floor_var, int *excluded,
              struct cmp_pooled *out);

/* The variance cell c (values y[0..n)) is judged with: the pool (1), unless the cell was
 * excluded or there is no pool, then its own with n - 1 df (0), or none with one value (-1). */
int cmp_pool_cell(const struct cmp_pooled *pool, int excluded, const double *y, size_t n,
                  double floor_var, struct cmp_pooled *out);

/* A sweep's per-script figures pooled over the scripts of a side (§3.7): units c = 0..nc as
 * cmp_pool's cells (values y, counts n), run[c] naming the cells whose values come from the
 * same trials (the scripts of one cell of the sweep: value i of each is trial i). cmp_pool's
 * pool and exclusions, with its degrees of freedom replaced by cmp_shared_trials_df's. */
void cmp_pool_parts(const double *y, const size_t *n, const size_t *run, size_t nc,
                    double floor_var, int *excluded, struct cmp_pooled *out);

/* The degrees of freedom of the pooled variance of the units not excluded: per run, its trial
 * and residual sums of squares of a two-way (trial x unit) layout, n - 1 and (k - 1)(n - 1) df
 * (a run with one unit: its sum of squares, n - 1 df), combined by Satterthwaite's rule
 * (sum SS)^2 / sum (SS^2 / df). A trial effect that all units of a run share counts once, not
 * once per unit. The one-way df, sum (n - 1), when every sum is zero. */
double cmp_shared_trials_df(const double *y, const size_t *n, const size_t *run, size_t nc,
                            const int *excluded);

/* The chi-squared survival function P(X > x) on k degrees of freedom. */
double cmp_chi2_sf(double x, double k);

/* The interval of a difference d of cell means of na and nb values, the sides' variances
 * pooled (pa, pb), combined Welch-style with their pooled degrees of freedom. */
void cmp_pooled_welch(double d, size_t na, const struct cmp_pooled *pa, size_t nb,
                      const struct cmp_pooled *pb, struct cmp_welch *out);

/* Trials per side in this cell, above what it has and up to CMP_MAX_TRIALS, whose pooled
 * interval would be narrower than gap on each side; 0 when none is enough. */
int cmp_trials_needed_pooled(const struct cmp_pooled *pa, size_t na, const struct cmp_pooled *pb,
                             size_t nb, double gap);

/* Verdict (§5). */

enum cmp_class {
    CMP_C_BETTER,
    CMP_C_WORSE,
    CMP_C_BETTER_NEGLIGIBLE, /* real but inside the margin */
    CMP_C_WORSE_NEGLIGIBLE,
    CMP_C_BETTER_SMALL, /* direction established, size may be inside the margin */
    CMP_C_WORSE_SMALL,
    CMP_C_EQUIVALENT, /* the CI lies inside the margin */
    CMP_C_INCONCLUSIVE,
};

/* Classify [l, u], oriented so that values above null are better for B, against the margin
 * band [lo, up] around null (the table of §5, checked top to bottom). */
enum cmp_class cmp_classify(double l, double u, double null, double lo, double up);

/* How one metric's interval is judged. Scales are oriented: above null is better for B. */
struct cmp_judge {
    int single;                /* one trial per side: the interval covers within-run noise only */
    const char *hard;          /* a failed hard gate: inconclusive whatever the interval, and why */
    const char *cap;           /* a soft gate capping the verdict at inconclusive (unless gross) */
    double null, lo, up;       /* no change, and the margin band around it */
    double gross_lo, gross_up; /* beyond these, no plausible run-to-run noise explains it */
    double d, margin;          /* |estimate| and margin on the analysis scale */
    double var_a, var_b;       /* between-run variances of the trials, as cmp_welch uses them */
    int n_trials;              /* trials per side given (the larger side) */
    const char *margin_text;   /* "+-2%" */
    /* Pooled intervals (NULL: not pooled): the projection of more trials uses these. */
    const struct cmp_pooled *pool_a, *pool_b;
    size_t n_a, n_b;
};

/* Set m->verdict, and m->detail (printf-style). */
void cmp_set_verdict(struct cmp_metric *m, enum cmp_verdict v, const char *fmt, ...)
    PRINTF_LIKE(3, 4);
/* Inconclusive for want of data (m->more_data): detail says how much more would settle it. */
void cmp_want_data(struct cmp_metric *m, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Set m->verdict and m->detail from the oriented interval [l, u]. */
void cmp_judge_metric(struct cmp_metric *m, double l, double u, const struct cmp_judge *j);

/* A ratio metric (latency, tps) over trials: Welch's t on the logs of the per-trial values
 * ya[0..na), yb[0..nb) (§3.5), judged against the relative margin; hard, when not NULL, is a
 * failed gate that makes it inconclusive. Fills every field of m. */
void cmp_trial_ratio(double margin, const double *ya, size_t na, const double *yb, size_t nb,
                     int lower_better, const char *hard, struct cmp_metric *m);

/* The same from pooled variances: the difference of the mean logs mean_b - mean_a of na and nb
 * trials in the cell, the interval of cmp_pooled_welch. Fills every field of m. */
void cmp_pooled_ratio(double margin, double mean_a, size_t na, const struct cmp_pooled *pa,
                      double mean_b, size_t nb, const struct cmp_pooled *pb, int lower_better,
                      const char *hard, struct cmp_metric *m);

/* A run's figures over its own steady part (its warm-up left out): tps, latency p50, p95 and
 * p99, the metrics CMP_TPS .. CMP_P99, as the trials of cmp_analyse measure them. */
#define CMP_N_RUN_FIGS 4
struct cmp_run;
void cmp_run_figures(const struct cmp_run *r, double fig[CMP_N_RUN_FIGS]);

/* The failure gate of tps: NULL when the failure rates m (compared) leave tps comparable, else
 * why not, into buf. */
const char *cmp_failure_gate(const struct cmp_metric *f, char *buf, size_t size);

/* Orchestration shared by compare.c, analyse.c and env.c. */

/* A run prepared for analysis: its complete intervals as series. */
struct cmp_run {
    const struct result *r;
    const char *path;
    size_t n;               /* complete intervals (a shorter last one is left out) */
    double *tps;            /* committed transactions per second, per interval */
    double *failed, *total; /* failed and all (committed + failed) transactions */
    double interval_s;
    struct cmp_mser mser;
};

/* Prepare run r (read from path) for analysis: -1 with e set when it holds no complete
 * interval. Free with cmp_free_run. */
int cmp_prepare_run(struct cmp_run *cr, const struct result *r, const char *path, struct err *e);
void cmp_free_run(struct cmp_run *cr);

/* The runs of one side. */
struct cmp_side_runs {
    size_t n;
    struct cmp_run *runs;
};

/* Per-script latency rows of side `side` against side 0, when both ran the same scripts
 * (scripts.c). */
void cmp_scripts(struct cmp_report *rep, size_t side, struct cmp_outcome *o);
/* A part's (script's or class's) latency at metric k (p50, p95, p99) in one run: from its
 * histogram when the file has it, else the figure the file gives (scripts.c). */
double cmp_part_value(const struct result_script_figures *s, int k);

/* Per-class latency rows of side `side` against side 0, for runs with statement classes: the
 * classes every run of both sides has, those whose p50 changed most (cmp_classes.c). */
void cmp_classes(struct cmp_report *rep, size_t side, struct cmp_outcome *o);

/* The wait events whose share changed most from side 0 to side `side` into o (waits.c). */
void cmp_waits(const struct cmp_report *rep, size_t side, struct cmp_outcome *o);

/* The server's internals that changed from side 0 to side `side` into o (internals.c). */
void cmp_internals(const struct cmp_report *rep, size_t side, struct cmp_outcome *o);

/* Add a warning to the report (printf-style). */
void cmp_warn(struct cmp_report *rep, const char *fmt, ...) PRINTF_LIKE(2, 3);

/* Compare side b with side a into o (o->side set by the caller). */
void cmp_analyse(struct cmp_report *rep, const struct cmp_side_runs *a,
                 const struct cmp_side_runs *b, struct cmp_outcome *o);

/* List what differs between the environments of side 0 and `side`; warn when it is not like
 * for like. */
void cmp_env_diff(struct cmp_report *rep, size_t side);

/* Warn when the trials of one side differ among themselves where they should not. */
void cmp_env_check_side(struct cmp_report *rep, size_t side);

#endif
