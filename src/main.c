/* pgarena: dispatch to a command and map its error to the exit status. */
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "workload/workload.h"
#include "os/os.h"

int main(int argc, char **argv)
{
    /* POSIX: a write over a file-size limit fails with EFBIG and is reported like any failed
     * write (the result file is never left half-written) instead of killing the process. */
    os_init(&argc, &argv);
    workload_parts_register(); /* the workloads' result sections, before any file is read */
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        cli_usage();
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("pgarena %s\n", PGARENA_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "__options") == 0) { /* hidden: every command's options, for the tests */
        cli_options_dump(stdout);
        return 0;
    }
    const struct cli_command *c = cli_command_find(argv[1]);
    if (c) {
        struct err e = {0};
        /* Each command sees its own name as argv[0], as getopt expects. */
        int rc = c->run(argc - 1, argv + 1, &e);
        if (rc < 0) {
            fprintf(stderr, "pgarena: %s\n", e.msg);
            return e.code ? (int)e.code : 1;
        }
        return rc;
    }
    fprintf(stderr, "pgarena: unknown command '%s' (see pgarena --help)\n", argv[1]);
    return 2;
}
