#ifndef PGARENA_RESULT_HEALTH_H
#define PGARENA_RESULT_HEALTH_H

#include <stddef.h>
#include <stdint.h>

/*
 * The client's health: on every interval, the time the pgarena process lost (to the
 * hypervisor, to the run queue, or stopped or starved), and whether the interval was
 * client-stalled; over the run, summary.client_health. The classification and the summary
 * are pure (unit-tested); bench/ fills the figures from the engine's lateness and the
 * readings of /proc (server/selfhealth.h).
 */

enum result_stall_cause {
    RESULT_STALL_NONE,
    RESULT_STALL_STEAL,    /* the hypervisor gave the CPU to another guest */
    RESULT_STALL_RUNQUEUE, /* the process's threads waited on the run queue */
    RESULT_STALL_LATE,     /* the workers woke late: stopped or starved */
    RESULT_N_STALL_CAUSES
};

extern const char *const result_stall_cause_names[RESULT_N_STALL_CAUSES];

/* An interval is client-stalled when the client lost more than this share of it (docs/running.md,
 * "The client's health", says how it was chosen). */
extern const double result_stall_share;

/* intervals[].client_health: milliseconds over the interval; -1 where unknown (psi_ms where
 * the kernel has no /proc/pressure/cpu, steal_ms where /proc/stat cannot be read,
 * run_delay_ms without schedstat). */
struct result_interval_health {
    int present;
    double late_ms;      /* the workers' lateness past their deadlines, summed */
    double late_max_ms;  /* the largest one worker's */
    double run_delay_ms; /* the process's threads' run-queue delay, summed */
    double psi_ms;       /* CPU pressure: "some" stall time of the host (or cgroup) */
    double steal_ms;     /* the host's steal share times the interval */
    /* client-stalled: the time lost and why (NONE: not stalled) */
    double stalled_ms;
    enum result_stall_cause cause;
};

/* What the classification reads besides the interval's figures. */
struct result_health_in {
    double duration_ms;
    double late_max_ms;      /* the most any worker was late */
    double run_delay_max_ms; /* the most any one thread waited on the run queue; < 0 unknown */
    double steal_ms;         /* < 0 unknown */
};

/* Whether an interval of these figures is client-stalled: the time lost to each cause (steal,
 * the most-delayed thread's run-queue delay, the most-late worker's lateness); the cause is the
 * one that lost the most (on a tie: steal, then runqueue, then late: lateness follows from the
 * other two), and the interval is stalled when it lost more than result_stall_share of it.
 * *lost_ms: the time lost, at most the interval (0 when not stalled). */
enum result_stall_cause result_stall_classify(const struct result_health_in *in, double *lost_ms);

/* summary.client_health: present when an interval had a health object. */
struct result_client_health {
    int present;
    uint64_t intervals; /* with a health object */
    uint64_t intervals_stalled;
    double stalled_ms;
    double worst_t_s, worst_ms; /* the interval that lost the most (worst_ms 0: none) */
    enum result_stall_cause worst_cause;
    double steal_share;  /* steal over the intervals' time; < 0 unknown */
    double run_delay_ms; /* < 0 unknown */
    /* what steal_share is made of */
    double steal_ms, steal_of_ms;
};

/* Add one interval (t_s: its end) into the summary. */
void result_health_add(struct result_client_health *s, double t_s, double duration_s,
                       const struct result_interval_health *h);
/* Finish steal_share from what was added. */
void result_health_finish(struct result_client_health *s);
/* Merge an agent's summary into a merged one: counts and times summed, the worst the largest,
 * steal_share weighted by time. */
void result_health_merge(struct result_client_health *dst, const struct result_client_health *src);

#endif
