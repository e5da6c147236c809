#ifndef PGARENA_STATS_HIST_COMPACT_H
#define PGARENA_STATS_HIST_COMPACT_H

#include <stdint.h>

#include "base/buf.h"
#include "stats/hist.h"

/*
 * The compact text form of an interval histogram (result version 2). A long run keeps one
 * histogram per second; at full precision (1024 sub-buckets per power of two) that is ~16 B
 * per bin and hundreds of bins. The compact form coarsens to HIST_COMPACT_SUB sub-buckets
 * per power of two (values below 2 * HIST_COMPACT_SUB exact), so a bin is at most 1/32 of its
 * lowest value wide, and packs the counts as HdrHistogram's logs do: ZigZag LEB128 varints
 * over the bin indexes from 0, where a negative number -n stands for n empty bins, then
 * base64 (RFC 4648, with padding).
 *
 * Decoding gives a struct hist_sparse at full precision: each compact bin's count goes to the
 * full-precision bin holding its midpoint, except that the lowest and highest nonempty
 * compact bins place their counts at the bins of the exact min and max (which the caller
 * keeps beside the text, with count, sum and sumsq). Every value thus stays inside its
 * compact bin: a percentile of the decoded histogram differs from the exact one by less than
 * 1/32 (3.2 %) of the value, and count, min, max, sum and sumsq are exact.
 *
 * Ownership: the caller owns the buffers and the sparse histogram it passes in.
 */

#define HIST_COMPACT_SUB 32

/* Append the compact text of s (bins sorted, as hist_to_sparse makes them) to out. */
void hist_compact_encode(const struct hist_sparse *s, struct buf *out);

/* Decode len bytes of compact text into out->bins. out->count, min_us and max_us must hold
 * the exact figures already (sum_us and sumsq_us are left as they are). Returns 0, or -1 when
 * the text is not valid compact text or disagrees with those figures (out->bins is then
 * empty). */
int hist_compact_decode(const char *text, size_t len, struct hist_sparse *out);

/* Whether hist_compact_decode would accept len bytes of compact text with the exact figures
 * of figures (count, min_us, max_us): 0 yes, -1 no. Nothing is allocated: a reader that keeps
 * the text and decodes it later checks it this way first. */
int hist_compact_check(const char *text, size_t len, const struct hist_sparse *figures);

#endif
