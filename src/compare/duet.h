#ifndef PGARENA_COMPARE_DUET_H
#define PGARENA_COMPARE_DUET_H

/*
 * Duets (sweep --duet): the two setups of a cell ran at the same time, so interval k of side A
 * and of side B cover the same wall-clock second, and noise that hits the machine hits both.
 * The comparison pairs them second by second: the log ratio B/A of each second's throughput
 * and latency quantiles, averaged, with a batch-means interval over the seconds of one or
 * several trials (docs/compare-method.md §3.8).
 * Ownership: callers own every array passed in and out; struct duet_run (duet_prepare) owns its
 * series until duet_run_free.
 */

#include <stddef.h>

#include "compare/cmp_int.h"
#include "compare/compare.h"

/* Batches: one every DUET_BATCH_MIN_S paired seconds, at least DUET_BATCHES_MIN when the paired
 * values are seconds and DUET_BATCHES_MIN_HALVES when they are half-seconds (never more than
 * the values), at most DUET_BATCHES_MAX (Schmeiser's range of 10 to 30 batches, its lower
 * end): noise that carries over for a few seconds stays inside a batch (§3.8). Half a second
 * is the shortest batch: on this project's VM, 5 s A/A windows cut into 0.2 s batches missed
 * zero in 8 % of them, into 0.5 s batches in 4 %. */
#define DUET_BATCH_MIN_S        20
#define DUET_BATCHES_MIN        5
#define DUET_BATCHES_MIN_HALVES 10
#define DUET_BATCHES_MAX        10
/* The length rule (§3.8): fewer paired values than DUET_MIN_PAIRS over all trials, no verdict;
 * fewer than DUET_SHORT_PAIRS, a verdict only for a large effect, the whole interval beyond
 * +-DUET_LARGE (a ratio of 1.1 or 1 / 1.1): batches of a second or two cannot hold noise that
 * lasts longer, and the simulation shows how far that can move a short duet. */
#define DUET_MIN_PAIRS   5
#define DUET_SHORT_PAIRS 60
#define DUET_LARGE       0.10
/* A second's quantile q is paired only when both sides counted at least this many
 * transactions beyond it in that second: N (1 - q) >= 5, so 10 for p50, 100 for p95, 500 for
 * p99. */
#define DUET_MIN_BEYOND 5

/* One duet trial: n aligned intervals of each side (the shorter side's count). */
struct duet_trial {
    size_t n;
    const double *tps_a, *tps_b;
    const double *failed_a, *total_a; /* failed and all transactions per interval; NULL: none */
    const double *failed_b, *total_b;
    const struct cmp_lat *lat_a, *lat_b; /* one histogram per interval; NULL: no latency */
    /* Transactions in each half of each interval (2 n values a side: interval t's halves at
     * 2 t and 2 t + 1); NULL on either side: throughput is paired by whole interval. */
    const double *half_a, *half_b;
};

/* How many paired values of metric m a second of trial t gives: 2 for tps when both sides
 * have halves, else 1. */
size_t duet_values_per_s(const struct duet_trial *t, enum cmp_metric_id m);

/* The paired values of metric m in trial t, in time order, into d (room for
 * duet_values_per_s(t, m) * t->n): for tps and the quantiles the log of B/A of each second (of
 * each half-second, for tps with halves) where both sides have a value (transactions > 0;
 * enough transactions beyond the quantile), for the failure rate the difference of the
 * seconds' rates (B - A) where both sides completed a transaction. Returns their number. */
size_t duet_pairs(const struct duet_trial *t, enum cmp_metric_id m, double *d);

/* A batch-means interval of the mean paired value. */
struct duet_ci {
    size_t n_pairs;   /* paired values over all trials */
    size_t per_s;     /* values a second: 2 for tps by half-second, else 1 */
    double seconds;   /* the seconds they cover: n_pairs / per_s */
    size_t n_batches; /* batches over all trials */
    double batch_s;   /* the longest batch, in seconds (intervals) */
    double est;       /* mean paired value (log ratio, or difference) */
    double se, df;    /* standard error and degrees of freedom (n_batches - 1) */
    double lo, hi;    /* est -+ t975(df) se; NaN with fewer than two batches */
};

/* The batches of n paired values, per_s of them a second (1 or 2). */
size_t duet_batches(size_t n, size_t per_s);

/* Trial j's paired values are d[off .. off + n[j]) (the trials one after the other), per_s of
 * them a second. All of them, trial after trial, are cut into duet_batches(sum n, per_s)
 * consecutive batches of near-equal length (the longer ones first); the mean is over all
 * values, its variance from the batch means weighted by their lengths:
 * s2 = sum m_i (bm_i - est)^2 / (k - 1), se^2 = s2 / sum m_i. */
void duet_batch_means(const double *d, const size_t *n, size_t nt, size_t per_s,
                      struct duet_ci *out);

/* Metric m of a duet of nt trials, judged (§3.8, §5): fills every field of out and ci. margin
 * is the relative margin; failure_gate, when not NULL, makes tps inconclusive with that text. */
void duet_metric(const struct duet_trial *tr, size_t nt, enum cmp_metric_id m, double margin,
                 const char *failure_gate, struct cmp_metric *out, struct duet_ci *ci);

/* Whether a and b are the two halves of one duet: both have duet {}, the same id, and each
 * names the other's run_id as its partner. */
int duet_partners(const struct result *a, const struct result *b);

/* A result's complete intervals as a duet half: tps, failures, one histogram a second, and
 * the transactions of each half-second when every interval carries its tenths (tx_100ms). */
struct duet_run {
    struct cmp_run run;
    struct cmp_lat lat;
    double *halves; /* 2 run.n values; NULL: not every complete interval has them */
};

int duet_prepare(struct duet_run *d, const struct result *r, const char *path, struct err *e);
void duet_run_free(struct duet_run *d);

/* Every metric (CMP_TPS .. CMP_FAILURE_RATE) of the duet whose trials are a[j] against b[j],
 * j < nt (partners, prepared): out[] and, when not NULL, the tps interval's figures in tps_ci. */
void duet_compare(const struct duet_run *a, const struct duet_run *b, size_t nt, double margin,
                  struct cmp_metric out[CMP_N_METRICS], struct duet_ci *tps_ci);

/* When side `side` of rep and side 0 are duet partners, trial for trial (each run of the one has
 * its partner among the other's, one to one), o's whole-run metrics become the duet's (o->duet
 * set); else nothing changes. */
void cmp_duet(struct cmp_report *rep, size_t side, struct cmp_outcome *o);

#endif
