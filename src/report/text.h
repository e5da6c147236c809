#ifndef PGARENA_REPORT_TEXT_H
#define PGARENA_REPORT_TEXT_H

#include <stdio.h>

#include "result/result.h"

/* Text output of results. Ownership: every function only reads the result it is given.
 *
 * The human summary of a result, as `run` prints it at the end and `show` prints it again. */
void report_text_summary(FILE *out, const struct result *r);

/* Per-statement latencies (run -r). */
void report_text_statements(FILE *out, const struct result *r);

/* Where and how the result was measured: times, command, client machine, and any server
 * settings and warnings the file records (show). */
void report_text_environment(FILE *out, const struct result *r);

/* One line per interval (show --intervals). */
void report_text_intervals(FILE *out, const struct result *r);

#endif
