#ifndef PGARENA_CLI_INIT_INT_H
#define PGARENA_CLI_INIT_INT_H

#include <stdint.h>

#include "base/err.h"
#include "pg/pg.h"
#include "workload/load/load.h"
#include "workload/workload.h"

/* Shared by init and run --local. Ownership: the caller owns every argument; nothing
 * returned needs freeing. */

/* Load a built-in workload's dataset (sizes, jobs, seed and force from opt; the callbacks
 * are set here) with a progress line on stderr; shared by init and run --local. */
int init_load(const struct pg_connopts *conn, const struct workload *wl, struct load_options *opt,
              int quiet, struct err *e);

#endif
