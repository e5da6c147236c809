#ifndef PGARENA_CLI_CLI_INT_H
#define PGARENA_CLI_CLI_INT_H

#include "base/err.h"

/* Shared inside cli/: each command's option parsing and checking alone (for cli_parse_only),
 * with the arguments and results of cli_parse_only. Ownership: nothing is allocated that
 * outlives a call; argv stays the caller's. */
int cli_init_parse(int argc, char **argv, struct err *e);
int cli_run_parse(int argc, char **argv, struct err *e);
int cli_show_parse(int argc, char **argv, struct err *e);
int cli_compare_parse(int argc, char **argv, struct err *e);
int cli_report_parse(int argc, char **argv, struct err *e);
int cli_local_parse(int argc, char **argv, struct err *e);
int cli_check_parse(int argc, char **argv, struct err *e);
int cli_recover_parse(int argc, char **argv, struct err *e);
int cli_sweep_parse(int argc, char **argv, struct err *e);
int cli_calibrate_parse(int argc, char **argv, struct err *e);
int cli_merge_parse(int argc, char **argv, struct err *e);
int cli_store_parse(int argc, char **argv, struct err *e);
int cli_history_parse(int argc, char **argv, struct err *e);
int cli_replay_parse(int argc, char **argv, struct err *e);

#endif
