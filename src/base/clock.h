#ifndef PGARENA_BASE_CLOCK_H
#define PGARENA_BASE_CLOCK_H

#include <stdint.h>

/* One clock for every measurement: CLOCK_MONOTONIC in nanoseconds. Ownership: nothing is
 * allocated; callers own the buffers they pass. */
typedef int64_t time_ns;

#define NS_PER_US 1000LL
#define NS_PER_MS 1000000LL
#define NS_PER_S  1000000000LL

/* Monotonic now, in nanoseconds since an arbitrary origin. */
time_ns clock_now_ns(void);

/* Wall-clock now as an ISO 8601 UTC string ("2026-11-29T19:55:13.123Z") into out (>= 32 bytes). */
void clock_wall_iso8601(char *out, unsigned long out_size);

#endif
