#ifndef PGARENA_CLI_REPLAY_H
#define PGARENA_CLI_REPLAY_H

#include "base/err.h"

/*
 * The replay subcommands (pgarena replay SUB ...), dispatched by the table in
 * cli/replay_cmd.c. Each sees its own name as argv[0]; run returns as a command does (0, -1
 * with e set, or 1), parse checks the options alone (for cli_parse_only).
 */
struct replay_subcommand {
    const char *name;
    const char *synopsis; /* for `pgarena replay --help` */
    int (*run)(int argc, char **argv, struct err *e);
    int (*parse)(int argc, char **argv, struct err *e);
};

/* replay run (cli/replay_run_cmd.c). */
int cli_replay_run(int argc, char **argv, struct err *e);
int cli_replay_run_parse(int argc, char **argv, struct err *e);

#endif
