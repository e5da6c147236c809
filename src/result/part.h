#ifndef PGARENA_RESULT_PART_H
#define PGARENA_RESULT_PART_H

/*
 * A workload's own section of a result file (summary.KEY or a KEY at the top):
 * the workload owns its data and its JSON, result/ only carries it. Each workload with a
 * section gives its operations (in its folder); workload_parts_register() hands them all to
 * result/ once at startup, before any file is read. A file's section whose operations are not
 * registered is not read (a program that registers none sees the core figures only).
 * Ownership: a part's data belongs to the result holding it (freed by result_free).
 */

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct result;
struct buf;

/* Where a part's section sits in the file. */
enum result_part_at {
    RESULT_PART_SUMMARY, /* summary.KEY, after summary.connections */
    RESULT_PART_ROOT,    /* KEY at the top, after summary */
};

/* Where a printout gives a part its say (a workload adds the places it needs). */
enum result_part_place {
    RESULT_PLACE_SHOW_WORKLOAD, /* show: instead of the "workload:" line */
    RESULT_PLACE_SHOW_SUMMARY,  /* show: after the summary's lines */
    RESULT_PLACE_HTML_SUMMARY,  /* report: the summary paragraph's last sentences */
    RESULT_PLACE_SHOW_RATE,     /* show: after the tps line */
    RESULT_PLACE_SHOW_MODE,     /* show: instead of the "mode:" line */
    RESULT_PLACE_SHOW_FIGURES,  /* show: after the latency lines, before the classes */
    RESULT_PLACE_HTML_CLASSES,  /* report: the note under the statement classes' table */
};

/* A side of a comparison: its label and its runs (the trials of one setting). */
struct result_part_side {
    const char *label;
    const struct result *const *runs;
    size_t n;
};

/* report: a section of the part's figures, a row per figure and a column per run (the runs
 * without the part show "-"). */
struct result_part_table {
    const char *id, *title;
    size_t n_rows;
    const char *const *rows; /* each row's label */
    /* Row k's figure of one run's part, as text into t (it holds "-" when called). */
    void (*cell)(const void *data, size_t k, char *t, size_t size);
    const char *note; /* HTML: the paragraph under the table, or NULL */
};

struct result_part_ops {
    const char *key;
    enum result_part_at at;
    /* The section at key (o; NULL when the file has none), with the document's root and
     * summary for a section that also writes beside it. Returns the part's data, or NULL when
     * the file has none of it; *bad = 1 when it is malformed (the read fails). */
    void *(*read)(const json_t *o, const json_t *root, const json_t *summary, int *bad);
    /* The section (caller owns the object; NULL: write none). It may add to summary too. */
    json_t *(*write)(const void *data, json_t *summary);
    void (*free)(void *data);
    /* Agents' results merged: their parts in the merged order (NULL where an agent has
     * none; n >= 1); the merged part or NULL. NULL operation: the merged file has none. */
    void *(*merge)(void *const *parts, size_t n);
    /* Printers (NULL: none): its lines at a place; 1 when it printed something there. */
    int (*text)(const struct result *r, const void *data, enum result_part_place at, FILE *out);
    int (*html)(const struct result *r, const void *data, enum result_part_place at, struct buf *b);
    /* compare: the part's lines for the sides (n >= 2, side 0 the baseline); it looks for its
     * data in the runs (result_part_get) and prints nothing when they have none. */
    void (*compare_text)(const struct result_part_side *sides, size_t n, FILE *out);
    /* What a malformed section's read failure names ("FILE: invalid WHAT"); NULL: "workload
     * section". */
    const char *what;
    /* What the summary counts when the part is there, singular ("statement"); NULL:
     * transactions. */
    const char *unit;
    /* Fields it gives (result/field.h), named KEY.NAME: the NAMEs, NULL-terminated (NULL:
     * none), and one's value (1 and *value, the caller's to free; 0: absent). history groups
     * runs by them by default, leaving them out of the runs without the part. */
    const char *const *fields;
    int (*field)(const void *data, const char *name, char **value);
    /* compare: warnings about one run (path: its file), each handed to say. */
    void (*warn)(const void *data, const char *path, void (*say)(void *ctx, const char *text),
                 void *ctx);
    /* report: a section of its figures, or NULL. */
    const struct result_part_table *table;
    /* recover: the part was read from the journal's last snapshot of it, taken at t_s. */
    void (*recovered)(void *data, double t_s);
};

#define RESULT_MAX_PARTS 8

/* A result's parts: the operations and data of each present. */
struct result_parts {
    size_t n;
    struct {
        const struct result_part_ops *ops;
        void *data;
    } at[RESULT_MAX_PARTS];
};

/* Hand result/ the parts it reads (NULL-terminated; kept, not copied). Called again: replaces. */
void result_parts_register(const struct result_part_ops *const *ops);

/* The part named key in r, or NULL. */
void *result_part_get(const struct result *r, const char *key);

/* Each part of r's printer at a place; the number that printed something. */
int result_parts_text(const struct result *r, enum result_part_place at, FILE *out);
int result_parts_html(const struct result *r, enum result_part_place at, struct buf *b);

/* Each registered part's compare_text for the sides of a comparison. */
void result_parts_compare_text(const struct result_part_side *sides, size_t n, FILE *out);

/* For a part's read and write: a number (0 when absent), a count (0 when absent or negative);
 * a number that is not finite and a NULL string are written as null. */
double result_part_num(const json_t *o, const char *key);
uint64_t result_part_count(const json_t *o, const char *key);
json_t *result_part_real(double v);
json_t *result_part_str(const char *s);

/* Give r a part (data NULL: remove it); the one it had is freed. */
void result_part_set(struct result *r, const struct result_part_ops *ops, void *data);

/* What r's summary counts, singular: its parts' unit, or NULL (transactions). */
const char *result_parts_unit(const struct result *r);

/* compare: each part of r's warnings about it (path: its file). */
void result_parts_warn(const struct result *r, const char *path,
                       void (*say)(void *ctx, const char *text), void *ctx);

/* For a part's read: o's number at key, NaN when absent or not a number. */
double result_part_num_or_nan(const json_t *o, const char *key);

/* A lag object (struct result_lag, in result.h) as parts write it: {"p50", "p99", "max"} in
 * microseconds and its "histogram" when it has one; and back (absent o: all zero; -1 when
 * the histogram is malformed). */
struct result_lag;
json_t *result_lag_json(const struct result_lag *l);
int result_lag_from_json(const json_t *o, struct result_lag *l);

/* Whether summary.classes[] (statement classes, read by result/ itself) is absent or well
 * formed: a part whose section comes with them refuses a file where they are not. */
int result_classes_json_ok(const json_t *summary);

/* The registered parts' fields: the i-th's full name ("KEY.NAME"), NULL past the last. */
const char *result_part_field_name(size_t i);
/* A part's field of r by its full name: -1 when name is no part's field, else 0 (absent) or
 * 1 and *value (the caller frees it). */
int result_part_field(const struct result *r, const char *name, char **value);

#endif
