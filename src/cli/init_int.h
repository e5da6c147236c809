#ifndef PGARENA_CLI_INIT_INT_H
#define PGARENA_CLI_INIT_INT_H

#include <stdint.h>

#include "base/err.h"
#include "pg/pg.h"
#include "workload/builtin.h"

/* Load a built-in workload's dataset with a progress line on stderr; shared by init and
 * run --local. */
int init_load(const struct pg_connopts *conn, const struct builtin_workload *wl, int64_t scale,
              int64_t jobs, uint64_t seed, int quiet, struct err *e);

/* init -f FILE: run an init script once (pgbench's language, simple protocol). */
int init_run_script(const struct pg_connopts *conn, const char *path, int64_t scale,
                    uint64_t seed, struct err *e);

#endif
