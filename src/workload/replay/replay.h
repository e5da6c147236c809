#ifndef PGARENA_WORKLOAD_REPLAY_REPLAY_H
#define PGARENA_WORKLOAD_REPLAY_REPLAY_H

#include <stddef.h>
#include <stdint.h>

/*
 * -w replay's run options (`run -w replay --capture FILE ...`, `replay run FILE ...`), its
 * struct in workload_params' opts (plain data: the strings point into argv). The workload "replay"
 * (workload/replay/replay_run.c) turns a capture into the engine's feed (engine/feed.h): each
 * captured session a client's stream, its statements at their offsets.
 */

#define REPLAY_MAX_MAPS 32
/* --session-set NAME=VALUE given at most this many times. */
#define REPLAY_MAX_SETS 16

struct replay_map {
    const char *from; /* FROM=TO as given: FROM is its first from_len bytes */
    size_t from_len;
    const char *to;
};

struct replay_opts {
    const char *capture; /* NULL: not a replay */
    double speed;        /* 1 unless given; 0: --speed max */
    int n_map_db, n_map_user;
    struct replay_map map_db[REPLAY_MAX_MAPS], map_user[REPLAY_MAX_MAPS];
    int n_sets;
    struct replay_map sets[REPLAY_MAX_SETS]; /* --session-set NAME=VALUE: from is NAME */
    const char *reset_from;                  /* --reset-from TEMPLATE, or NULL */
    int read_only, force;
    /* --order session: each session on its own clock only; else (capture, the default) no
     * statement starts before those that had finished before it started in the capture. */
    int order_session;
    /* --copy-from DIR: the Nth COPY FROM STDIN into TABLE is sent DIR/TABLE.N when it exists
     * (else skipped); NULL: every COPY FROM STDIN is skipped. */
    const char *copy_from;
};

#endif
