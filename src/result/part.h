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
    RESULT_PLACE_HTML_TABLE,    /* report: the part's table's cells (its table), a row each */
};

/*
 * A part's figures as data: rows that report/ renders (show's text, the report's HTML, compare's
 * lines) with its own formatting, so that a workload prints nothing itself. A row is one line
 * at one place: a label, the line's text with "%v" where each of its values goes (in order; any
 * other character is written as it is; a value past the last "%v" is not written there, a "%v"
 * past the last value writes nothing), and its values. A value is a number or a piece of text
 * with its formatting hint (below) and its unit, written right after the number ("x", " %").
 *   show (RESULT_PLACE_SHOW_*): "LABEL:" in the label column (21 wide), then the text; an empty
 *     label indents a line that continues the one before.
 *   report (RESULT_PLACE_HTML_SUMMARY, _CLASSES): the text is HTML, the label unused, text
 *     values escaped. RESULT_PLACE_HTML_TABLE: row k is the table's row k, its label the row's,
 *     its text plain (escaped); no text and no values: "-".
 *   compare (compare_rows): a row without values is a heading ("\nLABEL:"); a side's row is
 *     its label and values in columns, its text unused.
 *   CSV (report_rows_csv; show --csv prints no part yet): a record per value: the row's
 *     label, the value without its unit, the unit.
 * Rows belong to the struct result_rows they were added to; its strings too (a part's labels
 * and texts are its own constants, or copied in with result_rows_str).
 */

/* How a value's number is written (digits: as each says). */
enum result_row_fmt {
    RESULT_FMT_TEXT,    /* str as it is */
    RESULT_FMT_FIXED,   /* num with digits decimals: (2.5, 0) -> "2" as printf's %.0f */
    RESULT_FMT_G,       /* num in the shortest form (printf's %g): 1.5 -> "1.5" */
    RESULT_FMT_INT,     /* count, plain: 12345 -> "12345" */
    RESULT_FMT_COUNT,   /* count with thousands separators: 12345 -> "12,345" */
    RESULT_FMT_SIG,     /* num with digits significant digits, thousands separated */
    RESULT_FMT_LATENCY, /* num in microseconds, with its unit, 3 significant digits: "1.25 ms" */
    RESULT_FMT_PERCENT, /* num a share (0.5) as a percentage (50.0) with digits decimals */
    RESULT_FMT_CHANGE,  /* num a percentage, signed, with digits decimals: "+3.1" */
};

struct result_value {
    enum result_row_fmt fmt;
    int digits;
    double num;
    uint64_t count;   /* RESULT_FMT_INT, RESULT_FMT_COUNT */
    const char *str;  /* RESULT_FMT_TEXT */
    const char *unit; /* written right after the number; NULL: none */
};

#define RESULT_ROW_VALUES 8

struct result_row {
    int place; /* enum result_part_place, or RESULT_PLACE_COMPARE */
    const char *label, *text;
    size_t n; /* values */
    struct result_value v[RESULT_ROW_VALUES];
};

struct result_rows {
    size_t n, cap;
    struct result_row *row;
    size_t n_str;
    char **str; /* the strings copied in */
};

/* compare's place: the lines of compare_rows. */
#define RESULT_PLACE_COMPARE 100

/* A row at place with label and text (kept, not copied; NULL text: the values alone); the
 * pointer is good until the next row is added. */
struct result_row *result_rows_add(struct result_rows *rs, int place, const char *label,
                                   const char *text);
/* Add a value to row (at most RESULT_ROW_VALUES; more are dropped): a number, a count, a text. */
void result_row_num(struct result_row *row, enum result_row_fmt fmt, int digits, double v,
                    const char *unit);
void result_row_count(struct result_row *row, enum result_row_fmt fmt, uint64_t v,
                      const char *unit);
void result_row_text(struct result_row *row, const char *s);
/* A copy of s that lives as long as rs (for a label, text or value made at run time). */
const char *result_rows_str(struct result_rows *rs, const char *s);
/* Free what rs holds; it is then empty. */
void result_rows_free(struct result_rows *rs);

/* A side of a comparison: its label and its runs (the trials of one setting). */
struct result_part_side {
    const char *label;
    const struct result *const *runs;
    size_t n;
};

/* report: a section of the part's figures, a row per figure (its rows at
 * RESULT_PLACE_HTML_TABLE, the first run's labels) and a column per run (the runs without the
 * part show "-"). */
struct result_part_table {
    const char *id, *title;
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
    /* Its rows at a place (above: result_rows): it adds none where it has nothing to say. */
    void (*rows)(const struct result *r, const void *data, enum result_part_place at,
                 struct result_rows *out);
    /* compare: its rows (place RESULT_PLACE_COMPARE) for the sides (n >= 2, side 0 the
     * baseline); it looks for its data in the runs and adds none when they have none. */
    void (*compare_rows)(const struct result_part_side *sides, size_t n, struct result_rows *out);
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

/* Each registered part's compare_rows for the sides of a comparison, into out. */
void result_parts_compare_rows(const struct result_part_side *sides, size_t n,
                               struct result_rows *out);

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
