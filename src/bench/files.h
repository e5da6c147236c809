#ifndef PGARENA_BENCH_FILES_H
#define PGARENA_BENCH_FILES_H

/*
 * The open files a run keeps at once, counted from its plan, so that the limit is checked (and
 * raised) for what this run needs rather than for a fixed allowance.
 * Ownership: plain data; nothing is allocated.
 */

#include "bench/plan.h"

struct bench_files {
    long clients;      /* a socket each */
    long threads;      /* an epoll and a timer descriptor each */
    long logs;         /* -l: a file per thread */
    long sampler;      /* its connection and the /proc file it reads at a time */
    long coordination; /* --agents: the connection to the coordinator */
    long capture;      /* the environment's and statistics' connection (one at a time) */
    long process;      /* stdio, the stop descriptor, journal, result and its directory, and
                        * what libpq and libc open for a moment (pgpass, resolver, TLS) */
    long besides;      /* all but the clients */
    long total;
};

/* What a run of plan p keeps open (p checked: its threads are final). */
void bench_files_needed(const struct bench_plan *p, struct bench_files *out);

#endif
