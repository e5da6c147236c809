#ifndef PGARENA_REPORT_SIO_H
#define PGARENA_REPORT_SIO_H

/* What the server did underneath a run (result/server_io.h), as the text and the HTML report
 * show it. Every function only reads the result it is given. */

#include <stdio.h>

#include "compare/compare.h"
#include "result/result.h"

/* Whether any interval has server_io. */
int report_sio_any(const struct result *r);

/* How many runs of an event kind were going on at some time in (t0_s, t1_s]: begun before
 * t1_s and not ended before t0_s. */
int report_sio_active(const struct result *r, int kind, double t0_s, double t1_s);

/* The shared-buffer hit ratio of an interval's figures, or of a sum; < 0 unknown. */
double report_sio_hit_ratio(const struct result_sio *s);

/* show --intervals: the header and one interval's columns (WAL MB, checkpoint, hit %, temp
 * MB, autovacuum) when report_sio_any. */
void report_text_sio_header(FILE *out);
void report_text_sio_row(FILE *out, const struct result *r, size_t i);

/* The summary's lines: the figures per transaction and the count of each event. */
void report_text_sio_summary(FILE *out, const struct result *r);

/* compare's internals (compare.h) as text: the label ("WAL per transaction") and a value in
 * its unit (bytes, a share in %, a count) into buf. */
const char *report_internal_label(enum cmp_internal_id id);
char *report_internal_value(char *buf, size_t size, enum cmp_internal_id id, double v);

/* The end of the event that events[i] starts: the next end of its kind (and detail, but for
 * checkpoints); the end of the run when none. */
double report_event_end(const struct result *r, size_t i);

#endif
