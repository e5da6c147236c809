#ifndef PGARENA_CLI_STORE_CMD_H
#define PGARENA_CLI_STORE_CMD_H

#include <stddef.h>

#include "base/err.h"
#include "history/history.h"
#include "result/result.h"

/* The results store's commands (store_cmd.c, history_cmd.c). */

/* Store result files (or every result file under a directory) into the store at conn,
 * printing a line of what was stored unless quiet: what store, run --store and sweep --store
 * do. -1 with e set. */
int cli_store_files(const char *conn, const char *const *paths, size_t n, int quiet, struct err *e);

/* history's and report --history's input: the runs of a store (CONN) or of every result file
 * under a directory, with --accept's run (a unique prefix of 8 or more) recorded first and
 * the accepted ids added to h. *runs is the caller's (result_free each, free). -1 with e. */
int cli_history_load(const char *source, const char *accept, struct history_opts *h,
                     struct result **runs, size_t *n, struct err *e);

#endif
