#ifndef PGARENA_CLI_SWEEP_CMD_H
#define PGARENA_CLI_SWEEP_CMD_H

/* Shared between the sweep command's files in cli/: its options, the capacity search's glue
 * and the printing, around src/sweep/. */

#include "sweep/sweep.h"

/* Parse the sweep's options into o: its own, and every run option into the base plan. 1 when
 * --help was printed, -1 with e set (ERR_INPUT). */
int sweep_parse(int argc, char **argv, struct sweep_opts *o, struct err *e);

/* Print the per-point table of a sweep's directory (or --json), and when json_path is not NULL
 * keep the comparisons in d and write it there. -1 with e when a result file of a complete cell
 * cannot be read or sweep.json cannot be written. */
int sweep_print(struct sweep_doc *d, const char *dir, const char *json_path, int json,
                struct err *e);

/* Run the parsed sweep o (its plan moves out of o; the caller still frees o): DIR prepared or
 * resumed, the cells run, with print the table (or --json) and sweep.json's comparisons, then
 * --store. command identifies the sweep (password masked; it moves into the document). 0 done,
 * 1 interrupted or cells failed, with the document in *done (the caller frees it); -1 with e
 * set (nothing in *done). */
int sweep_command_execute(struct sweep_opts *o, char *command, int print, struct sweep_doc *done,
                          struct err *e);

#endif
