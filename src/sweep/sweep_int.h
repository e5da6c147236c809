#ifndef PGARENA_SWEEP_SWEEP_INT_H
#define PGARENA_SWEEP_SWEEP_INT_H

/* Shared between sweep/'s files: the steps of a cell's run (cell.c), which a duet (duet.c)
 * takes for its two cells. */

#include "sweep/sweep.h"

/* The progress line of cell c, naming it by label. */
void sweep_cell_progress(struct sweep_exec *x, const struct sweep_cell *c, const char *label);

/* Before cell c runs with its result file at path: its settings, its scale (--init), a stale
 * journal removed. -1 with e. */
int sweep_cell_prepare(struct sweep_exec *x, const struct sweep_cell *c, const char *path,
                       struct err *e);

/* A cell's run warns through the sweep (bench_hooks.warning, arg the struct sweep_exec). */
void sweep_cell_warning(const char *line, void *arg);

/* Set cell c's status and write sweep.json. */
void sweep_cell_status(struct sweep_exec *x, struct sweep_cell *c, enum sweep_status s);

/* After cell c's run (rc as bench_run's, msg its error): its status, and a failure said. -1
 * when the sweep must stop (interrupted), else 0. */
int sweep_cell_finish(struct sweep_exec *x, struct sweep_cell *c, int rc, const char *msg);

/* sweep --duet: run cells k (the first setup) and k + 1 (the second) at the same time. 0, or
 * -1 when the sweep must stop (interrupted). */
int sweep_run_duet(struct sweep_exec *x, size_t k);

/* sweep --duet: warn when both setups reach the same server and database. */
void sweep_duet_check_same(struct sweep_exec *x);

#endif
