#ifndef PGARENA_SERVER_SELFHEALTH_H
#define PGARENA_SERVER_SELFHEALTH_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "server/procstat.h"

/*
 * The client process's own health from Linux's /proc: its threads' run-queue delay
 * (/proc/self/task/TID/schedstat), the CPU pressure (/proc/pressure/cpu, PSI) and the host's
 * steal (/proc/stat). Parsers take a file's text and are pure; a reading holds the counters at
 * one time, and an interval's figures are the difference between the readings at its edges
 * (self_edges). Anything the kernel does not have is unknown (-1), never 0.
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

/* One reading: every thread's run delay (the live ones', and those of threads that said they
 * ended: self_health_thread_ended), the PSI total and the host's CPU times, and when it was
 * taken. */
struct self_health {
    size_t n;
    int *tid;
    uint64_t *delay_ns; /* by thread */
    int have_tasks;
    int have_psi;
    uint64_t psi_us;
    int have_cpu;
    struct proc_cpu cpu;
    time_ns read_ns; /* clock_now_ns when it was read */
};

/* A reading now (h is overwritten: free it first). */
void self_health_read(struct self_health *h);
/* What changed from before to after (pure): a thread new in after counts with its whole
 * delay, one gone from after counts nothing; a figure either lacks is unknown. */
void self_health_diff(const struct self_health *before, const struct self_health *after,
                      struct self_health_delta *out);
void self_health_free(struct self_health *h);

/* A thread about to end records its own run delay (/proc/thread-self), so that readings after
 * it is gone still count it: a run's workers end before its last interval is handed over, and
 * a live threads' sum would lose their delay then. Thread-safe; nothing where /proc lacks it.
 * self_health_forget_ended drops the records (before a run starts its threads). */
void self_health_thread_ended(void);
void self_health_forget_ended(void);

/* The readings at the interval edges, by edge index (edge k: the start of interval k and the
 * end of interval k-1), held in a small ring until their interval is taken. Interval idx's
 * figures are the difference between the readings at its two edges; where the engine did not
 * call an edge (or its reading was overwritten, or read before the interval's start), the
 * reading at hand-over stands in, as before the edges existed. */
#define SELF_EDGES 16
struct self_edges {
    struct self_health base; /* where the next interval starts */
    struct self_health at[SELF_EDGES];
    size_t k[SELF_EDGES];
    int have[SELF_EDGES];
};

/* Start over from first (taken: the caller's copy is cleared); the edges held stay. */
void self_edges_start(struct self_edges *r, struct self_health *first);
/* Edge k's reading (taken); an older edge in its slot, never used, is dropped. */
void self_edges_put(struct self_edges *r, size_t k, struct self_health *reading);
/* Interval idx's figures into out: from edge idx's reading when it was read after the base
 * (the measured start after a reading before it), else the base, to edge idx+1's reading, or
 * one read now by read (self_health_read; tests give their own) when that edge is missing or
 * older than the start. Its end is the next interval's base. */
void self_edges_take(struct self_edges *r, size_t idx, void (*read)(struct self_health *),
                     struct self_health_delta *out);
void self_edges_free(struct self_edges *r);

#endif
