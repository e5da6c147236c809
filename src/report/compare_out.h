#ifndef PGARENA_REPORT_COMPARE_OUT_H
#define PGARENA_REPORT_COMPARE_OUT_H

#include <jansson.h>
#include <stdio.h>

#include "base/err.h"
#include "compare/compare.h"

/* A comparison as compare prints it. Ownership: both functions only read the report; the
 * caller keeps owning it. */

/* Human text: aligned tables with units, at most 100 columns. */
void report_compare_text(FILE *out, const struct cmp_report *rep);

/* {"metrics": [{"name", "a", "b", "change_pct", "ci_low_pct", "ci_high_pct", "verdict",
 * "detail"}], "warnings": [...]} as README.md documents it, each metric with its "side" (label)
 * when more than two sides were compared. Unknown numbers are null; latency in microseconds,
 * failure rate as a fraction. -1 with e set (ERR_RUNTIME) when it cannot be written. */
int report_compare_json(FILE *out, const struct cmp_report *rep, struct err *e);

/* One metric as compare --json gives it (name k, with "side" when side is not NULL); the
 * caller owns the object. */
json_t *report_metric_json(const struct cmp_metric *m, int k, const char *side);

#endif
