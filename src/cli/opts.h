#ifndef PGARENA_CLI_OPTS_H
#define PGARENA_CLI_OPTS_H

/* Every command's options, from the one table cli/options.def: the codes getopt_long returns,
 * each command's getopt_long table and short options, and each command's --help. */

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* The commands that take options (replay's subcommands each one). */
enum cli_cmd {
#define CMD(id, ...) CLI_##id,
#include "cli/commands.def"
    CLI_N_CMDS
};

/* Masks of commands, for options.def's COMMANDS. */
#define CMD(id, ...) enum { C_##id = 1 << CLI_##id };
#include "cli/commands.def"
/* Every command but replay's dispatch, which parses no options. */
#define C_ALL (((1u << CLI_N_CMDS) - 1) & ~(unsigned)C_REPLAY)

#define ARG_NONE no_argument
#define ARG_REQ  required_argument

/* The codes of the long options: above every short option character, so that none collides.
 * getopt_long returns the short form of an option that has one, else its OPT_ code. */
enum cli_opt {
    OPT_FIRST = 256,
#define OPT(id, ...) OPT_##id,
#include "cli/options.def"
};

/* A command, as options.def writes it. */
struct cli_cmd_def {
    const char *name; /* "run", "replay run" */
    const char *brief, *usage, *about, *footer;
};
extern const struct cli_cmd_def cli_cmds[CLI_N_CMDS];

/* A long name of an option (an alias is a second entry with the same code). */
struct cli_opt_def {
    int code; /* OPT_ID */
    const char *name;
    char short_name; /* 0 when none */
    int has_arg;     /* no_argument or required_argument */
    int alias;
    unsigned cmds; /* an alias's commands (C_* mask) */
};
extern const struct cli_opt_def cli_opt_defs[];
extern const size_t cli_n_opt_defs;

/* An option in the commands where it means one thing: OPT's and USE's rows, in order. */
struct cli_opt_use {
    int code;
    unsigned cmds; /* C_* mask */
    const char *group, *metavar, *complete, *help;
};
extern const struct cli_opt_use cli_opt_uses[];
extern const size_t cli_n_opt_uses;

/* The option (not an alias) of code OPT_ID. */
const struct cli_opt_def *cli_opt_find(int code);

/* What getopt_long returns for the option: its short form, else its code. */
int cli_opt_val(const struct cli_opt_def *d);

/* Whether command c takes every option of run besides its own (sweep, calibrate). */
int cli_cmd_takes_run(enum cli_cmd c);

/* Whether command c takes the options of use u (sweep takes every one of run's too). */
int cli_cmd_takes(enum cli_cmd c, const struct cli_opt_use *u);

/* Command c's getopt_long table (NULL-terminated; every option it takes, aliases included)
 * and, in *shortopts when not NULL, its short options (with a leading ':'). Built on the
 * first call, kept for the process. */
const struct option *cli_getopt_table(enum cli_cmd c, const char **shortopts);

/* pgarena COMMAND --help: the usage, the options by group, the footer. */
void cli_help(enum cli_cmd c, FILE *f);

/* The same text in a string the caller frees. */
char *cli_help_string(enum cli_cmd c);

/* One line per option of each command, for the tests: COMMAND<TAB>--long<TAB>-x or
 * -<TAB>METAVAR or -<TAB>alias or option. */
void cli_options_dump(FILE *f);

#endif
