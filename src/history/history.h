#ifndef PGARENA_HISTORY_HISTORY_H
#define PGARENA_HISTORY_HISTORY_H

/*
 * Series across runs: results filtered (--where), grouped into series
 * by the fields that make runs "the same benchmark" (--by), ordered in time or by a meta key,
 * and for each metric the per-run figures with a CI, the change points (history/detect.h)
 * and whether the newest run is in a segment worse than the one before (the CI gate).
 * Ownership: struct history_out owns what it points to (history_out_free) but the results,
 * which are the caller's and must outlive it.
 */

#include <stddef.h>

#include "base/err.h"
#include "compare/compare.h"
#include "history/detect.h"
#include "result/result.h"

#define HISTORY_MAX_FILTERS 32
#define HISTORY_MAX_BY      16
/* With fewer earlier runs than this the gate compares the newest with them instead. */
#define HISTORY_MIN_EARLIER 5

enum history_op { HISTORY_EQ, HISTORY_NE, HISTORY_LT, HISTORY_GT };

struct history_filter {
    char *field, *value;
    enum history_op op;
};

struct history_opts {
    size_t n_filters;
    struct history_filter filters[HISTORY_MAX_FILTERS];
    size_t n_by; /* 0: the default fields */
    char *by[HISTORY_MAX_BY];
    const char *order;           /* "started_at" (default) or "meta.KEY" */
    int metrics[CMP_N_METRICS];  /* which metrics (1) */
    struct detect_config detect; /* min_effect: also compare's margin for verdicts */
    size_t n_accepted;
    char **accepted; /* run ids made a baseline by --accept */
};

/* Defaults: no filter, the default fields, started_at, tps and latency_p99. */
void history_opts_init(struct history_opts *o);
void history_opts_free(struct history_opts *o);

/* --where FIELD=VALUE (also !=, <, >), --by LIST, --metric LIST, --order KEY: -1 with e set
 * (ERR_INPUT, "history: ...") when refused. */
int history_add_filter(struct history_opts *o, const char *arg, struct err *e);
int history_set_by(struct history_opts *o, const char *list, struct err *e);
int history_set_metrics(struct history_opts *o, const char *list, struct err *e);
int history_set_order(struct history_opts *o, const char *key, struct err *e);

struct history_point {
    size_t run;  /* index into the results */
    char *order; /* the order key's value */
    double value, ci_low, ci_high;
};

struct history_change {
    struct detect_change d;
    enum cmp_verdict verdict;
    /* "the machine changed too: ..." with the figures, when the segments on either side differ
     * in client health (the share of stalled intervals, by HISTORY_STALL_POINTS or more) or in
     * the client machine (CPU model, kernel); NULL otherwise. */
    char *machine;
};

/* Percentage points of stalled intervals by which two segments differ in client health. */
#define HISTORY_STALL_POINTS 5.0

/* The machine line of two segments, runs[idx[0..n_before)] then runs[idx[n_before..n)]: NULL
 * when they do not differ (see struct history_change), else the caller frees it. Pure. */
char *history_machine_line(const struct result *runs, const size_t *idx, size_t n_before, size_t n);

struct history_metric {
    int metric; /* enum cmp_metric_id */
    size_t n_points;
    struct history_point *points;
    size_t n_changes;
    struct history_change *changes;
    /* The gate: the newest run is in a segment worse than the one before (or, with fewer
     * than HISTORY_MIN_EARLIER earlier runs, compare finds it worse than them); first is the
     * index of the first point of that segment; accepted: an --accept'ed run is in it. */
    int regressed, accepted, by_compare;
    size_t first;
    double change_pct, ci_low, ci_high; /* of the regression */
};

struct history_series {
    char *key; /* "FIELD=VALUE, ..." of the grouping fields */
    size_t n_fields;
    char **fields, **values; /* values NULL when absent */
    size_t n_metrics;
    struct history_metric *metrics;
};

struct history_out {
    size_t n_series;
    struct history_series *series;
    size_t n_unordered; /* runs left out: without the order key */
    size_t n_filtered;  /* runs left out by --where */
    size_t n_duet;      /* runs left out: halves of a duet (sweep --duet), not solo runs */
};

/* Analyse runs[0..n). 0, or -1 with e set. */
int history_analyse(const struct result *runs, size_t n, const struct history_opts *o,
                    struct history_out *out, struct err *e);

/* Whether any series' metric regressed without being accepted. */
int history_regressed(const struct history_out *out);

void history_out_free(struct history_out *out);

/* Whether arg names an existing directory (history DIR), else it is a conninfo. */
int history_is_dir(const char *arg);

/* Every result file under dir (recursively; other JSON files are skipped), read into
 * *runs (caller frees each with result_free and the array) and their paths. -1 with e. */
int history_load_dir(const char *dir, struct result **runs, char ***paths, size_t *n,
                     struct err *e);

/* The run ids --accept recorded for a directory (DIR/.pgarena-accepted), appended to o. */
void history_dir_accepted(const char *dir, struct history_opts *o);
/* Record an accepted run id for a directory. -1 with e. */
int history_dir_accept(const char *dir, const char *run_id, struct err *e);

#endif
