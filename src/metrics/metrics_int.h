#ifndef PGARENA_METRICS_METRICS_INT_H
#define PGARENA_METRICS_METRICS_INT_H

/* Shared between metrics/'s files: the registry and the server's state. */

#include <pthread.h>

#include "engine/evwait.h"
#include "metrics/metrics.h"

struct metrics_run {
    struct metrics *m;
    char *run_id, *label, *workload;
    char *labels; /* run_id="...",label="...",workload="...", escaped */
    const char *const *kinds;
    int n_kinds;
    int n_scripts;
    char *scripts[METRICS_MAX_SCRIPTS]; /* escaped as a label's value */
    struct metrics_figures f;           /* under the registry's mutex */
};

struct metrics {
    pthread_mutex_t mu;
    size_t n_runs, cap_runs;
    struct metrics_run **runs;
    /* the server (metrics_http.c) */
    int listen_fd;
    struct evwake wake; /* raised: look at stopping, or at a first run */
    pthread_t thread;
    int ended;             /* under mu: the runs ended (metrics_close) */
    int scraped_after_end; /* under mu: a /metrics answer was sent after that */
    int stop;              /* under mu: the thread returns */
};

/* metrics.c: the registry's mutex and runs. */
void metrics_registry_init(struct metrics *m);
void metrics_registry_free(struct metrics *m);

/* metrics_http.c: start and stop the server's thread on m->listen_fd. */
int metrics_http_start(struct metrics *m, struct err *e);
void metrics_http_stop(struct metrics *m);

#endif
