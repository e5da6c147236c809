#include "cli/cli.h"

#include <getopt.h>
#include <string.h>

#include "cli/cli_int.h"

int cli_parse_only(int argc, char **argv, struct err *e)
{
    static const struct {
        const char *name;
        int (*parse)(int argc, char **argv, struct err *e);
    } commands[] = {{"init", cli_init_parse},       {"run", cli_run_parse},
                    {"show", cli_show_parse},       {"compare", cli_compare_parse},
                    {"report", cli_report_parse},   {"local", cli_local_parse},
                    {"recover", cli_recover_parse}, {"sweep", cli_sweep_parse},
                    {"check", cli_check_parse},     {"merge", cli_merge_parse}};
    if (argc < 1)
        return err_set(e, ERR_INPUT, "no command");
    /* GNU getopt keeps state between parses (optind, and where it is inside a group of short
     * options); optind = 0 makes it start afresh, as a process's first parse does. */
    optind = 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[0], commands[i].name) == 0)
            return commands[i].parse(argc, argv, e);
    return err_set(e, ERR_INPUT, "unknown command '%s' (see pgarena --help)", argv[0]);
}
