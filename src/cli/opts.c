/* The one list of every command's option table. */
#include "cli/opts.h"

#include <stddef.h>

const struct cli_option_table cli_option_tables[] = {{"init", cli_init_options},
                                                     {"run", cli_run_options},
                                                     {"sweep", cli_sweep_options},
                                                     {"show", cli_show_options},
                                                     {"compare", cli_compare_options},
                                                     {"report", cli_report_options},
                                                     {"local", cli_local_options},
                                                     {"recover", cli_recover_options},
                                                     {"check", cli_check_options},
                                                     {"merge", cli_merge_options},
                                                     {"store", cli_store_options},
                                                     {"history", cli_history_options},
                                                     {"replay", cli_replay_prepare_options},
                                                     {"capture", cli_replay_capture_options},
                                                     {"run", cli_replay_run_options},
                                                     {NULL, NULL}};
