#ifndef PGARENA_HISTORY_STORE_H
#define PGARENA_HISTORY_STORE_H

/*
 * The results store: schema pgarena_results in a PostgreSQL database, made on first use (a
 * version row; runs: the searchable figures as columns and the whole result as jsonb,
 * histograms included; accepted: the runs --accept made baselines). Storing is idempotent on
 * run_id and safe with several writers at once (the schema is made under an advisory lock,
 * rows are inserted ON CONFLICT DO NOTHING). An older schema version is migrated; a newer
 * one is refused. Ownership: a store is the caller's (store_close).
 */

#include <stddef.h>

#include "base/err.h"
#include "history/history.h"
#include "result/result.h"

#define STORE_SCHEMA_VERSION 1

struct store;

/* Connect to conninfo and check the schema, making it first when create (a reader does not:
 * no store there is an error). NULL with e set (ERR_INPUT for a newer schema version or no
 * store, ERR_RUNTIME when the server cannot be reached). */
struct store *store_open(const char *conninfo, int create, struct err *e);
void store_close(struct store *s);

/* Store the result r read from text (the file's bytes, stored as jsonb). 1 inserted, 0 there
 * already, -1 with e set. */
int store_put(struct store *s, const struct result *r, const char *text, size_t len, struct err *e);

/* Store the result file at path (read and checked first). As store_put. */
int store_file(struct store *s, const char *path, struct err *e);

/* Every stored result (their run_id as stored). As history_load_dir. */
int store_load(struct store *s, struct result **runs, size_t *n, struct err *e);

/* The accepted run ids, appended to o; and one more recorded. -1 with e. */
int store_accepted(struct store *s, struct history_opts *o, struct err *e);
int store_accept(struct store *s, const char *run_id, struct err *e);

#endif
