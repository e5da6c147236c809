#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"

void cli_synopsis(FILE *f)
{
    for (int c = 0; c < CLI_N_CMDS; c++) {
        const char *p = cli_cmds[c].brief;
        while (*p) {
            const char *end = strchr(p, '\n');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            if (p[0] == ' ' && p[1] == ' ') /* continues the line above */
                fprintf(f, "%16s%.*s\n", "", (int)len, p);
            else
                fprintf(f, "  pgarena %-7s %.*s\n", cli_cmds[c].name, (int)len, p);
            p += len + (end != NULL);
        }
    }
    fputs("  pgarena --help | --version ; pgarena COMMAND --help\n", f);
}

void cli_usage(void)
{
    fputs("pgarena: PostgreSQL benchmark tool\n"
          "\n"
          "Usage:\n",
          stdout);
    cli_synopsis(stdout);
    fputs("\n"
          "Workloads: tpcb-like (default), simple-update, select-only (pgbench's);\n"
          "           oltp-read-write, oltp-read-only, oltp-point-select, oltp-write-only\n"
          "           (sysbench's); tpcc (TPC-C: init --warehouses W); ch (CH-benCHmark:\n"
          "           TPC-C and 22 analytic queries, run --analytic-clients N).\n"
          "Try: pgarena run --local   (a complete benchmark against a scratch server)\n",
          stdout);
}
