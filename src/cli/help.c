#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "workload/workload.h"

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
    /* The workloads from their table, so that a new one is listed without an edit here. */
    fputs("\nWorkloads (run -w NAME; run -b list says what each is):\n ", stdout);
    size_t col = 1;
    const struct workload *const *all = workload_all();
    for (size_t i = 0; all[i]; i++) {
        const char *sep = all[i + 1] ? "," : ".";
        size_t len = strlen(all[i]->name) + strlen(sep) + (i == 0 ? strlen(" (default)") : 0);
        if (col + 1 + len > 78) {
            fputs("\n ", stdout);
            col = 1;
        }
        printf(" %s%s%s", all[i]->name, i == 0 ? " (default)" : "", sep);
        col += 1 + len;
    }
    fputs("\nTry: pgarena run --local   (a complete benchmark against a scratch server)\n", stdout);
}
