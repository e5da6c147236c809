/* Prints the command-line fuzz target's dictionary: the values kept in
 * tests/fuzz/cli-values.dict are added by the Makefile; this adds every command's name and
 * every long option of every command, from the one table the commands parse with (cli/opts.h),
 * so that a new option is in the dictionary the day it is added. */
#include <getopt.h>
#include <stdio.h>

#include "cli/opts.h"

int main(void)
{
    printf("# Made by tests/fuzz/gen_cli_dict.c from cli_option_tables: do not edit.\n");
    for (const struct cli_option_table *t = cli_option_tables; t->command; t++) {
        printf("\"%s\"\n", t->command);
        for (const struct option *o = t->options; o->name; o++)
            printf("\"--%s%s\"\n", o->name, o->has_arg == required_argument ? "=" : "");
    }
    return 0;
}
