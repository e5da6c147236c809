#ifndef PGARENA_REPORT_HTML_H
#define PGARENA_REPORT_HTML_H

#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "result/result.h"

struct cmp_report;

/*
 * The HTML report: one self-contained file (inline CSS and SVG, no script, nothing fetched)
 * with a summary of each run, throughput and latency over time, the latency distribution,
 * the comparison of compare, the environments side by side, warnings and errors.
 * Runs are grouped into setups by label as compare groups them (a run without a label is a
 * setup named by its path); each setup keeps one colour and dash pattern throughout.
 * Ownership: everything passed in is borrowed and only read; the caller frees it.
 */

struct report_input {
    size_t n;                     /* runs, at least one */
    const struct result *runs;    /* runs[0..n) */
    const char *const *paths;     /* where each was read from (or written to) */
    const struct cmp_report *cmp; /* their comparison, NULL when there is none */
    const char *no_cmp_reason;    /* why there is none despite several setups, or NULL */
    const char *title;            /* NULL: made from the labels */
};

/* Append the whole document to out. */
void report_html(struct buf *out, const struct report_input *in);

/* Write the report of runs[0..n) to html_path: runs with two labels or more are compared with
 * compare's defaults first. The file is replaced atomically (temporary file, rename). -1 with
 * e set (ERR_INPUT) when it cannot be written. */
int report_html_write(const struct result *runs, const char *const *paths, size_t n,
                      const char *title, const char *html_path, struct err *e);

#endif
