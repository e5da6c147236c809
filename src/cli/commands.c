#include "cli/cli.h"

#include <string.h>

#include "cli/cli_int.h"

static const struct cli_command commands[] = {
    {"init", cli_init, cli_init_parse},       {"run", cli_run, cli_run_parse},
    {"show", cli_show, cli_show_parse},       {"compare", cli_compare, cli_compare_parse},
    {"report", cli_report, cli_report_parse}, {"local", cli_local, cli_local_parse},
    {"sweep", cli_sweep, cli_sweep_parse},    {"recover", cli_recover, cli_recover_parse},
    {"check", cli_check, cli_check_parse},    {"merge", cli_merge, cli_merge_parse},
    {"store", cli_store, cli_store_parse},    {"history", cli_history, cli_history_parse},
    {"replay", cli_replay, cli_replay_parse}, {"calibrate", cli_calibrate, cli_calibrate_parse},
};

const struct cli_command *cli_command_find(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(name, commands[i].name) == 0)
            return &commands[i];
    return NULL;
}
