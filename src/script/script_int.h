#ifndef PGARENA_SCRIPT_SCRIPT_INT_H
#define PGARENA_SCRIPT_SCRIPT_INT_H

/* Shared inside workload/ between the script set (script.c) and its parser. Ownership: the
 * commands parsed belong to the script (and so to the set); script_command_free frees one. */

#include "script/script.h"

/* Parse text into sc's commands; -1 with e set (ERR_INPUT, "NAME:LINE:COL: ..."). */
int script_parse(struct script_set *set, struct script *sc, const char *name, const char *text,
                 struct err *e);

void script_command_free(struct script_command *c);

#endif
