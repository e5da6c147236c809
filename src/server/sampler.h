#ifndef PGARENA_SERVER_SAMPLER_H
#define PGARENA_SERVER_SAMPLER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "pg/pg.h"
#include "result/result.h"
#include "result/server_io.h"
#include "server/procstat.h"

/*
 * Why a run is as fast as it is: a thread of its own, on a connection of its own, that every
 * sample_ms reads pg_stat_activity for the run's own backends (by the PIDs the engine
 * publishes, so no other session of the server is counted) and counts each backend seen as
 * "wait_event_type:wait_event", or "CPU" when it is active without a wait event. At every
 * interval boundary it also reads the client process's CPU time and, when the server runs on
 * this host, the host's CPU and disk counters. A failure costs the figures, never the run.
 * Ownership: the sampler owns itself (sampler_stop frees it); the figures it hands out belong
 * to the caller (sample_interval_free, sample_totals_free).
 */

struct sampler_config {
    const struct pg_connopts *conn; /* must outlive the sampler */
    int sample_ms;
    int64_t interval_us;    /* length of the run's intervals */
    time_ns start_ns;       /* the measured part begins (monotonic) */
    const atomic_int *pids; /* the engine's backend PIDs, one per client (0: none) */
    int n_pids;
    int host; /* read the host's /proc/stat and /proc/diskstats (the server is local) */
    /* Read the server's statistics views once per interval (server/server_io.h). */
    int server_io;
};

/* One wait event and how many times a run backend was seen in it. */
struct sample_wait {
    char *name;
    uint64_t count;
};

/* What the sampler saw in one interval of the run. */
struct sample_interval {
    uint64_t samples; /* sampling rounds that fell in it */
    size_t n_waits;
    struct sample_wait *waits; /* by count, highest first */
    int have_cpu;
    double cpu_user, cpu_system; /* the client process's CPU, in cores (1.0: one core busy) */
    int have_host;
    struct proc_cpu_share host; /* the host's CPU shares */
    struct proc_disk disk;      /* bytes read and written in the interval */
    struct result_sio sio;      /* the server's deltas over it (sio.have 0: none) */
    /* Events seen since the previous interval was taken, in time order. */
    size_t n_events;
    struct result_event *events;
    /* The whole measured part so far, as sample_totals will say at the end: the busiest
     * client thread's share of one core, and sees_all. */
    double max_thread_core;
    int sees_all;
};

/* The whole measured part: the sum of the intervals taken. */
struct sample_totals {
    int sample_ms;
    uint64_t samples;
    size_t n_waits;
    struct sample_wait *waits; /* by count, highest first */
    /* 1: the user may see every session (superuser or pg_read_all_stats); 0: only its own
     * (the run's backends are the user's own); -1: unknown (the sampler never connected). */
    int sees_all;
    char note[256]; /* why there are no wait events (could not connect...), "" when there are */
    /* The client process's CPU seconds over the intervals taken, and the busiest thread
     * (result_derive_client_cpu makes client_cpu of them). */
    struct result_cpu_measured cpu;
    uint32_t sio_fields; /* the server_io fields its server reports; 0: none read */
};

/* Start the thread; it connects and samples until sampler_stop. NULL when the thread could
 * not be created. */
struct sampler *sampler_start(const struct sampler_config *cfg);

/* Interval idx, which ends at end_ns (monotonic): waits until the sampler has moved past its
 * end (at most a few sampling periods), then hands over what fell in it. Intervals are taken
 * in order; the totals are their sum. */
void sampler_take(struct sampler *s, size_t idx, time_ns end_ns, struct sample_interval *out);

/* Stop the thread, close its connection, fill out and free s. */
void sampler_stop(struct sampler *s, struct sample_totals *out);

void sample_interval_free(struct sample_interval *iv);
void sample_totals_free(struct sample_totals *t);

#endif
