#ifndef PGARENA_HISTORY_STORE_H
#define PGARENA_HISTORY_STORE_H

/*
 * The results store: schema pgarena_results in a PostgreSQL database, made on first use (a
 * version row; runs: the searchable figures as columns and the whole result as jsonb,
 * histograms included; accepted: the runs --accept made baselines). Storing is idempotent on
 * run_id and safe with several writers at once (the schema is made under an advisory lock,
 * rows are inserted ON CONFLICT DO NOTHING). An older schema version is migrated; a newer
 * one is refused. Version 2: runs.complete (false for a run's row written while it goes on,
 * store_begin_run, until its result is stored) and intervals (run_id, t_s, figures jsonb: an
 * interval as the result file holds it), written as they close (history/store_live.h) and
 * with each stored result. Ownership: a store is the caller's (store_close).
 */

#include <stddef.h>

#include "base/err.h"
#include "history/history.h"
#include "result/result.h"

#define STORE_SCHEMA_VERSION 2

struct store;

/* Connect to conninfo and check the schema, making it first when create (a reader does not:
 * no store there is an error). NULL with e set (ERR_INPUT for a newer schema version or no
 * store, ERR_RUNTIME when the server cannot be reached). */
struct store *store_open(const char *conninfo, int create, struct err *e);
/* As store_open, its connection bounded by timeout_ms (connect and each statement). */
struct store *store_open_within(const char *conninfo, int create, int timeout_ms, struct err *e);
void store_close(struct store *s);

/* Store the result r read from text (the file's bytes, stored as jsonb) with its intervals:
 * a row still incomplete (a run that stored its intervals as they closed, and died or goes
 * on) is replaced, a complete one never. 1 inserted or replaced, 0 there already, -1 with e
 * set. */
int store_put(struct store *s, const struct result *r, const char *text, size_t len, struct err *e);

/* Store the result file at path (read and checked first). As store_put. */
int store_file(struct store *s, const char *path, struct err *e);

/* A run's row before it runs, from its header (the result as known at the start): the
 * values (store_row_params, made on any thread; store_row_params_free), and the row written
 * incomplete (there already: left as it is). -1 with e set. */
char **store_row_params(const struct result *header);
void store_row_params_free(char **params);
int store_begin_run(struct store *s, char *const *params, struct err *e);

/* One interval of run_id (figures: its JSON as the result file holds it); one there at t_s
 * already is kept. -1 with e set. */
int store_put_interval(struct store *s, const char *run_id, double t_s, const char *figures,
                       struct err *e);

/* Remove run_id's row while incomplete, and its intervals (a run that never ran). */
int store_drop_run(struct store *s, const char *run_id, struct err *e);

/* Every stored result (their run_id as stored), complete rows only. As history_load_dir. */
int store_load(struct store *s, struct result **runs, size_t *n, struct err *e);

/* The accepted run ids, appended to o; and one more recorded. -1 with e. */
int store_accepted(struct store *s, struct history_opts *o, struct err *e);
int store_accept(struct store *s, const char *run_id, struct err *e);

#endif
