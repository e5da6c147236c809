#ifndef PGARENA_CLI_CLI_H
#define PGARENA_CLI_CLI_H

#include <stdio.h>

#include "base/err.h"

/*
 * The commands. Ownership: argv stays the caller's; a command frees all it allocates. Each
 * parses its own options and returns 0 on success, -1 with e set (main
 * prints "pgarena: MESSAGE" and exits with e->code), or 1 when a run was cut short after its
 * result was written and reported (exit status 1, nothing more to print); compare returns 3
 * when --fail-if-worse finds a metric worse.
 */
int cli_init(int argc, char **argv, struct err *e);
int cli_run(int argc, char **argv, struct err *e);
int cli_show(int argc, char **argv, struct err *e);
int cli_compare(int argc, char **argv, struct err *e);
int cli_local(int argc, char **argv, struct err *e);
int cli_report(int argc, char **argv, struct err *e);
int cli_check(int argc, char **argv, struct err *e);
int cli_recover(int argc, char **argv, struct err *e);
int cli_sweep(int argc, char **argv, struct err *e);
int cli_calibrate(int argc, char **argv, struct err *e);
int cli_merge(int argc, char **argv, struct err *e);
int cli_store(int argc, char **argv, struct err *e);
/* 3 when --fail-if-regressed finds the newest run in a worse segment. */
int cli_history(int argc, char **argv, struct err *e);
int cli_replay(int argc, char **argv, struct err *e);

/* The table of commands, one entry each (cli/commands.c): main dispatches by it and
 * cli_parse_only parses by it. */
struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv, struct err *e);   /* the command: cli_init, cli_run... */
    int (*parse)(int argc, char **argv, struct err *e); /* its options' parse and check alone */
};

/* The command called name, or NULL. */
const struct cli_command *cli_command_find(const char *name);

/* Parse and check a command's options as the command does before it starts anything, but
 * touch no server and read no file: argv[0] is the command's name (init, run, show, compare,
 * report, local, recover, check), as main passes it. 0 when they would be accepted (--help prints
 * the usage), -1 with e set (ERR_INPUT) when refused. For the command-line fuzz target. */
int cli_parse_only(int argc, char **argv, struct err *e);

/* Top-level usage (pgarena --help). */
void cli_usage(void);

/* Every command's synopsis, as pgarena --help and the README show it. */
void cli_synopsis(FILE *f);

#endif
