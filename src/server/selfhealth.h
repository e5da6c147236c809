#ifndef PGARENA_SERVER_SELFHEALTH_H
#define PGARENA_SERVER_SELFHEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "server/procstat.h"

/*
 * The client process's own health from Linux's /proc: its threads' run-queue delay
 * (/proc/self/task/TID/schedstat), the CPU pressure (/proc/pressure/cpu, PSI) and the host's
 * steal (/proc/stat). Parsers take a file's text and are pure; a probe keeps the last reading
 * and gives the differences since. Anything the kernel does not have is unknown (-1), never 0.
 * Ownership: struct self_health owns its arrays (self_health_free).
 */

/* The second field of a schedstat line ("exec_runtime run_delay timeslices", nanoseconds): 0,
 * or -1 when malformed. */
int self_parse_schedstat(const char *text, uint64_t *run_delay_ns);

/* The "some" line's total= of a PSI file ("some avg10=0.00 avg60=0.00 avg300=0.00
 * total=12345", microseconds): 0, or -1 when there is none. */
int self_parse_psi_some(const char *text, uint64_t *total_us);

/* What changed between two takes. */
struct self_health_delta {
    double run_delay_ms;     /* the threads' run-queue delay, summed; -1 unknown */
    double run_delay_max_ms; /* the most one thread waited; -1 unknown */
    double psi_ms;           /* CPU pressure "some"; -1 where the kernel has no PSI */
    double steal_share;      /* of the host's CPU time; -1 unknown */
};

struct self_health {
    size_t n;
    int *tid;
    uint64_t *delay_ns; /* by thread, at the last take */
    int have_tasks;
    int have_psi;
    uint64_t psi_us;
    int have_cpu;
    struct proc_cpu cpu;
};

/* The first reading (what later takes differ from). */
void self_health_start(struct self_health *h);
/* Read again: out gets the differences since the last take (a thread new since then counts
 * with its whole delay). */
void self_health_take(struct self_health *h, struct self_health_delta *out);
void self_health_free(struct self_health *h);

#endif
