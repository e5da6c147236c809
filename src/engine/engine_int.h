#ifndef PGARENA_ENGINE_ENGINE_INT_H
#define PGARENA_ENGINE_ENGINE_INT_H

/* Shared inside engine/: the run, its workers and their clients. */

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/rng.h"
#include "engine/engine.h"

/* Client states. A client moves through them in client_advance; each state says what the
 * client waits for when client_advance returns in it. */
enum client_state {
    CS_CONNECTING,    /* PQconnectPoll in progress: waits for the socket as libpq asks */
    CS_PREPARING,     /* prepared mode: send the next PREPARE, or finish setup */
    CS_WAIT_PREPARE,  /* waits for a PREPARE's result */
    CS_IDLE,          /* set up; waits for the run to start */
    CS_START_TX,      /* choose a script and start a transaction, or finish */
    CS_START_CMD,     /* run the current command: \set inline, SQL is sent */
    CS_WAIT_RESULT,   /* waits for the results of the SQL command sent */
    CS_ERROR,         /* a command failed: roll back if inside a transaction */
    CS_WAIT_ROLLBACK, /* waits for the ROLLBACK's result */
    CS_END_TX,        /* record the transaction */
    CS_FINISHED,      /* done (or lost): no more events */
};

struct worker;

struct client {
    int id; /* 0-based, global: :client_id */
    struct worker *w;
    PGconn *conn;
    int fd;          /* socket registered with epoll, or -1 */
    uint32_t events; /* events registered for fd */
    enum client_state state;
    struct rng rng;
    struct script_vars vars;
    const struct script *script;
    int cmd;         /* index of the current command in script */
    int prep_script; /* prepared mode setup cursor */
    int prep_cmd;
    time_ns tx_start;
    enum pg_failure failure; /* first failure of the current transaction */
    uint64_t n_tx;
    uint64_t n_failed;
    struct buf sql; /* simple mode: the command with values substituted */
    const char **param_values;
    char (*param_text)[32];
};

struct run;

struct worker {
    int id;
    pthread_t thread;
    struct run *run;
    int epfd;
    int n_clients;
    struct client *clients;
    int n_live;          /* clients not yet CS_FINISHED */
    int n_setup_pending; /* clients still connecting/preparing */
    int setup_failed;
    char error[256];

    /* Statistics, owned by this thread; the progress counters are read by the main thread. */
    struct hist *latency;
    struct hist *interval_latency;
    size_t cur_interval;
    uint64_t cur_tx, cur_failed;
    struct series series;
    uint64_t errors[PGF__COUNT];
    uint64_t n_tx, n_failed;
    time_ns last_completion;
    _Atomic uint64_t prog_tx, prog_failed;
    _Atomic double prog_sum_us, prog_sumsq_us;
};

struct run {
    const struct engine_config *cfg;
    int n_workers;
    struct worker *workers;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n_setup_done; /* workers whose clients are all set up (or failed) */
    int go;           /* 1: start measuring; -1: abort before start */
    int n_finished;   /* workers whose loop ended */
    time_ns start_ns;
    time_ns end_ns;      /* -T: when clients stop starting transactions; 0 otherwise */
    size_t max_interval; /* intervals beyond are folded into the last (-T); SIZE_MAX otherwise */
    int max_params;
};

/* Set when a stop is requested; read by workers each loop pass. */
extern atomic_int engine_stop_flag;
/* An eventfd every worker's epoll watches, written on a stop request. */
extern int engine_stop_fd;

void client_init(struct client *c, struct worker *w, int id);
void client_free(struct client *c);
/* Start the asynchronous connection; -1 with w->error set. */
int client_connect(struct client *c);
/* Advance the state machine as far as it can go without waiting. */
void client_advance(struct client *c);
/* Register interest in the socket (EPOLLIN, EPOLLOUT), following socket changes. */
void client_watch(struct client *c, uint32_t events);

/* Record a finished transaction into the worker's statistics. */
void worker_record(struct worker *w, time_ns start, time_ns end, int failed, enum pg_failure why);
void *worker_main(void *arg);

#endif
