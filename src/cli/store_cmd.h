#ifndef PGARENA_CLI_STORE_CMD_H
#define PGARENA_CLI_STORE_CMD_H

#include <stddef.h>

#include "base/err.h"

/* Store result files (or every result file under a directory) into the store at conn,
 * printing a line of what was stored unless quiet: what store, run --store and sweep --store
 * do. -1 with e set. */
int cli_store_files(const char *conn, const char *const *paths, size_t n, int quiet, struct err *e);

#endif
