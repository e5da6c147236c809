#ifndef PGARENA_RESULT_SWEEP_H
#define PGARENA_RESULT_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * sweep.json, the plan and state of a sweep:
 * format "pgarena-sweep", version 1, the command, the axes, the setups, one cell per setup,
 * point and trial with its result file (relative to the sweep's directory) and status, and
 * max_rate for a capacity search.
 * Ownership: struct sweep_doc owns every string and array it points to (sweep_doc_free).
 */

#define SWEEP_FORMAT  "pgarena-sweep"
#define SWEEP_VERSION 1

enum sweep_status { SWEEP_PENDING, SWEEP_COMPLETE, SWEEP_INCOMPLETE, SWEEP_FAILED };

/* "pending", "complete", "incomplete", "failed". */
extern const char *const sweep_status_names[4];

struct sweep_setting {
    char *name, *value;
};

/* One run: a setup at one point of the axes, one trial. */
struct sweep_cell {
    size_t setup;    /* index into setups */
    int64_t clients; /* -c; 0 also when the sweep has no clients axis (written null then) */
    double rate;     /* -R, 0 for a closed loop */
    int64_t scale;   /* 0: not an axis */
    size_t n_settings;
    struct sweep_setting *settings; /* the --set values of this cell */
    int trial;                      /* 1-based */
    char *file;                     /* relative to the sweep's directory */
    enum sweep_status status;
    int slo_met; /* capacity search: -1 not judged, 0 missed, 1 met */
    /* capacity search: the step's client stalled (summary.client_health); without slo_met the
     * search ran the rate again instead of judging this trial */
    int client_stalled;
    /* The cell's --speed, the pace against its input's own (SWEEP_SPEED_MAX: max); 0: a sweep
     * without a speed axis. */
    double speed;
};

/* A cell's and an axis's speed "max" (--speed max: as fast as it goes). */
#define SWEEP_SPEED_MAX (-1.0)

/* A speed as sweep.json and the tables write it: "max", else "%g". Returns buf. */
const char *sweep_speed_text(char *buf, size_t size, double speed);

/* A --set axis: a setting and its values. */
struct sweep_set_axis {
    char *name;
    size_t n;
    char **values;
};

struct sweep_setup {
    char *label;
    char *conn; /* password masked */
};

struct sweep_max_rate {
    int have;
    char *slo;              /* as given, e.g. "p99<=5ms" */
    double tps;             /* the highest rate found to meet it */
    double ci_low, ci_high; /* 95 % interval of the achieved rate over the confirming trials */
    double failed_at;       /* the lowest rate that missed it (0: none did) */
};

/* One comparison of a sweep: a value of the compared axis
 * against the axis's first value, in one cell of the other axes, for one metric. */
/* A trial the comparison stood on whose client stalled (its summary.client_health). */
struct sweep_stall {
    char *setup; /* the setup's label */
    char *side;  /* "baseline" or "value" */
    int trial;   /* the cell's trial, 1-based */
    double stalled_ms;
    uint64_t intervals; /* stalled ones */
    char *cause;        /* the worst's: "steal", "runqueue", "late" */
};

struct sweep_comparison {
    char *axis;             /* "setup", "clients", "rate", "scale", "speed" or a --set name */
    char *baseline, *value; /* the axis's values, as text */
    size_t n_cell;
    struct sweep_setting *cell; /* the other axes' values by name ("setup", "clients", ...) */
    char *metric;               /* compare's metric name: "tps", "latency_p99", ... */
    double a, b;                /* the baseline's and the value's figure (NaN: unknown) */
    double change_pct, ci_low, ci_high; /* of the value against the baseline (NaN: unknown) */
    char *verdict;                      /* compare's verdict name */
    char *method;                       /* "pooled" or "cell" */
    double df;                          /* degrees of freedom of the interval (NaN: none) */
    int homogeneous;                    /* -1: not tested, else the homogeneity test's answer */
    char *detail;                       /* why the verdict, or how many trials would settle it */
    char *script; /* per-script records: the script's name ("q16"); NULL: the whole run */
    /* Not written: where the builder found it (the value's point and setup in its figures). */
    size_t fig_point, fig_setup;
    /* Per-class records (runs with statement classes): the class ("class"); NULL: none. */
    char *stmt_class;
    /* The whole run's records: the trials of both sides whose client stalled (written only
     * when there is one). */
    size_t n_stalled;
    struct sweep_stall *stalled;
    /* Not written: inconclusive for want of data (compare's more_data), for the notes. */
    int more_data;
};

void sweep_comparison_free(struct sweep_comparison *c);

struct sweep_doc {
    char *command; /* password masked */
    size_t n_clients;
    int64_t *clients;
    size_t n_rates;
    double *rates;
    size_t n_scales;
    int64_t *scales;
    size_t n_sets;
    struct sweep_set_axis *sets;
    int trials;
    size_t n_setups;
    struct sweep_setup *setups;
    size_t n_cells, cap_cells;
    struct sweep_cell *cells;
    struct sweep_max_rate max_rate;
    char *compare_axis; /* --compare: NULL the default, "none" none */
    size_t n_comparisons;
    struct sweep_comparison *comparisons;
    size_t n_speeds; /* the speed axis's --speed values (SWEEP_SPEED_MAX: max); 0: none */
    double *speeds;
    /* sweep --duet: the two setups of a cell ran at the same time (their files carry duet {})
     * and the comparisons pair their seconds (method "duet"). */
    int duet;
};

void sweep_doc_free(struct sweep_doc *d);

/* d's comparisons as sweep.json holds them (a JSON array, the caller's reference). */
struct json_t;
struct json_t *sweep_comparisons_json(const struct sweep_doc *d);

/* Append a copy of c (its strings and settings are copied); returns its index. */
size_t sweep_doc_add_cell(struct sweep_doc *d, const struct sweep_cell *c);

/* Write d to path atomically (temporary file, fsync, rename). -1 with e (ERR_RUNTIME). */
int sweep_doc_write(const struct sweep_doc *d, const char *path, struct err *e);

/* Read path. -1 with e (ERR_INPUT, "PATH: why") when it is missing, not JSON, of another
 * format or version, or malformed. */
int sweep_doc_read(const char *path, struct sweep_doc *d, struct err *e);

#endif
