#ifndef PGARENA_CLI_ARGS_H
#define PGARENA_CLI_ARGS_H

#include <stdint.h>

#include "base/err.h"
#include "base/num.h"
#include "pg/pg.h"

/* Helpers shared by the commands' option parsers. Errors are ERR_INPUT with a message that
 * names the option, e.g. "invalid value for -c: 'x' (expected an integer from 1 to 100000)". */

/* Connection options -h -p -U; returns 1 if opt was one of them (stored), else 0. */
int args_conn_option(int opt, const char *value, struct pg_connopts *conn);

/* The one positional argument (dbname, conninfo or URI); more than one is an error. */
int args_positional(int argc, char **argv, int optind, struct pg_connopts *conn, const char *cmd,
                    struct err *e);

/* replay capture's and replay record's --seconds N (1 to 86400) into *out. 0, or -1 with e
 * set. */
int args_seconds(const char *value, int *out, struct err *e);

/* The unknown-option or missing-argument message for getopt's '?' / ':' returns. */
int args_bad_option(const char *cmd, int argc, char **argv, int optind, int optopt, int missing,
                    struct err *e);

/* The command line as one string with any password masked: password=... in a conninfo or
 * a URI query, and user:secret@ in a URI. Caller frees. */
char *args_masked_command(int argc, char **argv);

/* Mask passwords inside one argument (a conninfo or URI); caller frees. */
char *args_mask_password(const char *arg);

#endif
