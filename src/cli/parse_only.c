#include "cli/cli.h"

#include <getopt.h>

int cli_parse_only(int argc, char **argv, struct err *e)
{
    if (argc < 1)
        return err_set(e, ERR_INPUT, "no command");
    /* GNU getopt keeps state between parses (optind, and where it is inside a group of short
     * options); optind = 0 makes it start afresh, as a process's first parse does. */
    optind = 0;
    const struct cli_command *c = cli_command_find(argv[0]);
    if (c)
        return c->parse(argc, argv, e);
    return err_set(e, ERR_INPUT, "unknown command '%s' (see pgarena --help)", argv[0]);
}
