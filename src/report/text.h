#ifndef PGARENA_REPORT_TEXT_H
#define PGARENA_REPORT_TEXT_H

#include <stdio.h>

#include "result/result.h"

/* Text output of results. Ownership: every function only reads the result it is given.
 *
 * The human summary of a result, as `run` prints it at the end and `show` prints it again. */
void report_text_summary(FILE *out, const struct result *r);

/* A duet half's line (show): its role, the duet and its partner's run_id, and the partner's
 * file when it was found (partner_file NULL: not); nothing for a solo run. */
void report_text_duet(FILE *out, const struct result *r, const char *partner_file);

/* Per-statement latencies (run -r). */
void report_text_statements(FILE *out, const struct result *r);

/* Where and how the result was measured: times, command, client machine, and any server
 * settings and warnings the file records (show). */
void report_text_environment(FILE *out, const struct result *r);

/* The summary's lines about why (text_waits.c): the top wait events as shares of what the
 * sampler saw, the client's CPU with a warning when a thread was busy above 90 % of a core,
 * and pg_stat_statements' top statements (or why there are none). */
void report_text_waits(FILE *out, const struct result *r);

/* The client's health line (text_health.c): "client health: 3 of 60 intervals stalled, worst
 * 1.4 s at 37 s, steal"; nothing for a file without summary.client_health. */
void report_text_client_health(FILE *out, const struct result *r);

/* The sum of the counts of n wait events. */
uint64_t report_waits_total(const struct result_wait *w, size_t n);

/* An interval's top wait event and its share of the events kept for it; NULL when none. */
const struct result_wait *report_interval_top_wait(const struct result_interval *it, double *share);

/* One line per interval (show --intervals), with the client's CPU in cores, the host's busy
 * CPU and the top wait event when the run was sampled. */
void report_text_intervals(FILE *out, const struct result *r);

/* The top statement classes by total time (text_classes.c); nothing when there are none. */
void report_text_classes(FILE *out, const struct result *r);

#endif
