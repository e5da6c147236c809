#ifndef PGARENA_REPORT_HISTORY_OUT_H
#define PGARENA_REPORT_HISTORY_OUT_H

#include "base/err.h"
#include "history/history.h"
#include "result/result.h"

/*
 * report --history: one self-contained HTML file (inline CSS and SVG, nothing fetched) with
 * a chart per series and metric: each run's figure with its CI, the segments between change
 * points shaded in turn, each change point marked and linked to the comparison of the runs
 * on either side (their means, the change with its CI, p-value, compare's verdict, and the
 * runs of each segment). It only reads what it is given (runs: those h was made from).
 */
int report_history_html_write(const struct result *runs, const struct history_out *h,
                              const char *title, const char *path, struct err *e);

#endif
