#ifndef PGARENA_CLI_STORE_CMD_H
#define PGARENA_CLI_STORE_CMD_H

#include <stddef.h>

#include "base/err.h"
#include "bench/bench.h"
#include "history/history.h"
#include "result/result.h"

/* The results store's commands (store_cmd.c, history_cmd.c). */

/* Store result files (or every result file under a directory) into the store at conn,
 * printing a line of what was stored unless quiet: what store, run --store and sweep --store
 * do. -1 with e set. */
int cli_store_files(const char *conn, const char *const *paths, size_t n, int quiet, struct err *e);

/* --store while a run goes on (run, replay run, a sweep's cells): bench's live hooks storing
 * the run's row and its intervals as they close into the store at conn (history/store_live.h),
 * the store's warnings as whole lines through warning. The state outlives the runs. */
struct cli_store_live {
    const char *conn;
    void (*warning)(const char *line, void *arg); /* "pgarena: ...\n" */
    void *warning_arg;
};
struct bench_live cli_store_live(struct cli_store_live *l);

/* history's and report --history's input: the runs of a store (CONN) or of every result file
 * under a directory, with --accept's run (a unique prefix of 8 or more) recorded first and
 * the accepted ids added to h. *runs is the caller's (result_free each, free). -1 with e. */
int cli_history_load(const char *source, const char *accept, struct history_opts *h,
                     struct result **runs, size_t *n, struct err *e);

#endif
