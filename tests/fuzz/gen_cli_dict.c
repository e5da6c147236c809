/* Prints the command-line fuzz target's dictionary: the values kept in
 * tests/fuzz/cli-values.dict are added by the Makefile; this adds every command's name and
 * every long option of every command, from the one table the commands parse with (cli/options.def),
 * so that a new option is in the dictionary the day it is added. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/opts.h"

int main(void)
{
    printf("# Made by tests/fuzz/gen_cli_dict.c from cli/options.def: do not edit.\n");
    for (int c = 0; c < CLI_N_CMDS; c++) {
        const char *name = strrchr(cli_cmds[c].name, ' '); /* "replay run": "run" */
        printf("\"%s\"\n", name ? name + 1 : cli_cmds[c].name);
        for (const struct option *o = cli_getopt_table((enum cli_cmd)c, NULL); o->name; o++)
            printf("\"--%s%s\"\n", o->name, o->has_arg == required_argument ? "=" : "");
    }
    return 0;
}
