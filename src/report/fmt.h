#ifndef PGARENA_REPORT_FMT_H
#define PGARENA_REPORT_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"

/*
 * Numbers and text as the HTML report shows them. Pure functions: each writes into the
 * caller's buffer (always NUL-terminated, cut to size) and returns it, so that calls can sit
 * in printf arguments. NaN prints as "-" (unknown). Ownership: the caller owns every buffer.
 */

/* Escape s for HTML text and attribute values (& < > " ') and append it to b. Control
 * characters other than tab and newline are dropped: they are not allowed in HTML. */
void report_escape(struct buf *b, const char *s);

/* s on one line (newlines and tabs as spaces) in at most size - 1 bytes, for a column of text
 * output; when it is cut, "..." ends it and no UTF-8 character is split. */
char *report_fmt_cut(char *buf, size_t size, const char *s);

/* A whole count with thousands separators: 1234567 -> "1,234,567". */
char *report_fmt_count(char *buf, size_t size, uint64_t n);

/* v with sig significant digits, never in exponent form, thousands separated:
 * (1234.5, 4) -> "1,235", (0.012345, 3) -> "0.0123". */
char *report_fmt_sig(char *buf, size_t size, double v, int sig);

/* As report_fmt_sig without the zeros that end a fraction: (3.0, 3) -> "3", (2.50, 3) -> "2.5". */
char *report_fmt_num(char *buf, size_t size, double v, int sig);

/* A latency given in microseconds with its unit and three significant digits:
 * 850 -> "850 µs", 1250 -> "1.25 ms", 3400000 -> "3.40 s". */
char *report_fmt_latency(char *buf, size_t size, double us);

/* A compact latency for a log axis tick: trailing zeros dropped, 1000 -> "1 ms",
 * 2500 -> "2.5 ms", 200 -> "200 µs". */
char *report_fmt_latency_tick(char *buf, size_t size, double us);

/* A linear axis tick: as many decimals as step needs, k and M for thousands and millions:
 * (1500, 500) -> "1.5k", (0.25, 0.05) -> "0.25", (2000000, 1000000) -> "2M". */
char *report_fmt_tick(char *buf, size_t size, double v, double step);

/* A percentile given on the "nines" scale x = -log10(1 - p): 0 -> "0%", 1 -> "90%",
 * 2 -> "99%", 3 -> "99.9%"; x between whole nines gets one decimal more (2.5 -> "99.7%"). */
char *report_fmt_nines(char *buf, size_t size, double nines);

/* A signed percentage with one decimal: 3.14 -> "+3.1%", -2 -> "-2.0%", and 0.0 unsigned
 * ("-0.0%" would suggest a direction that rounding took away). */
char *report_fmt_change(char *buf, size_t size, double pct);

/* What a run's workload was loaded with: its sizes, "2 tables × 20,000 rows" (sysbench's), else
 * "scale 10". */
struct result;
char *report_fmt_dataset(char *buf, size_t size, const struct result *r);

#endif
