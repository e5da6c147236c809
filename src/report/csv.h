#ifndef PGARENA_REPORT_CSV_H
#define PGARENA_REPORT_CSV_H

#include <stdio.h>

#include "compare/compare.h"
#include "result/result.h"

/*
 * Result files and comparisons as CSV for spreadsheets (show --csv, compare --csv): RFC 4180,
 * a header row first, rows ended by CRLF, a field quoted when it holds a comma, a double quote,
 * CR or LF (quotes inside doubled). Unknown numbers (NaN) are empty fields. Latencies are in
 * milliseconds with microsecond precision, as the text output prints them. Ownership: the
 * functions only read what they are given and write to out.
 */

/* One field, quoted as RFC 4180 needs; s NULL is an empty field. No separator is written. */
void report_csv_field(FILE *out, const char *s);

/* show --csv: one row per interval: t_s, duration_s, transactions, failed, tps,
 * latency_p50_ms, latency_p99_ms, latency_max_ms, and the sampling's client_cpu_cores,
 * host_busy_pct, top_wait, top_wait_share (empty where the interval was not sampled). */
void report_csv_intervals(FILE *out, const struct result *r);

/* show --csv --summary: one row of the whole run (label, workload, options, counts, tps, the
 * failures by class and the latency summary), then the sampling (sample_ms, samples, top_wait,
 * top_wait_share, client CPU) and the agents (this file's agent_index and agent_count, a merged
 * file's agents, start spread and clock uncertainty). */
void report_csv_summary(FILE *out, const struct result *r);

/* show --csv --scripts: one row per script of summary.scripts[] (pgbench 18 prints failed,
 * retried and skipped per script): script, weight, transactions, failed, retried, skipped,
 * tps, latency_{min,mean,p50,p90,p95,p99,max}_ms. */
void report_csv_scripts(FILE *out, const struct result *r);

/* compare --csv: one row per metric and compared side: name, a_label, b_label, a, b,
 * change_pct, ci_low_pct, ci_high_pct, verdict, detail; a and b in compare --json's units
 * (tps, latency in microseconds, failure rate as a fraction); then each side's sampling over
 * its trials (top wait event and its share, client CPU in cores) and agents (merged from). */
void report_csv_compare(FILE *out, const struct cmp_report *rep);

#endif
