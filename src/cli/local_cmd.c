#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "local/local.h"

static const char usage[] =
    "Usage: pgarena local start|stop|status [--dir DIR]\n"
    "\n"
    "Keep a scratch PostgreSQL server running for several commands.\n"
    "  start    create and start one (in DIR, or a fresh temporary directory); prints the\n"
    "           conninfo to pass to init and run\n"
    "  status   say whether the server in DIR runs, and its conninfo\n"
    "  stop     stop the server in DIR and remove DIR\n";

int cli_local(int argc, char **argv, struct err *e)
{
    static const struct option longopts[] = {{"dir", required_argument, NULL, 'd'},
                                             {"help", no_argument, NULL, 'H'},
                                             {NULL, 0, NULL, 0}};
    const char *dir = NULL;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (opt == 'd') {
            dir = optarg;
        } else if (opt == 'H') {
            fputs(usage, stdout);
            return 0;
        } else {
            return args_bad_option("local", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (optind != argc - 1)
        return err_set(e, ERR_INPUT,
                       "local: expected start, stop or status (see pgarena local --help)");
    const char *action = argv[optind];
    struct local_server srv = {0};
    if (strcmp(action, "start") == 0) {
        if (local_start(&srv, dir, e) < 0)
            return -1;
        printf("%s\n", srv.conninfo);
        return 0;
    }
    if (strcmp(action, "stop") != 0 && strcmp(action, "status") != 0)
        return err_set(e, ERR_INPUT, "local: unknown action '%s' (expected start, stop or status)",
                       action);
    if (!dir)
        return err_set(e, ERR_INPUT, "local %s: --dir DIR is required", action);
    if (local_attach(&srv, dir, e) < 0)
        return -1;
    if (strcmp(action, "status") == 0) {
        printf("running: %s\n", srv.conninfo);
        return 0;
    }
    return local_stop(&srv, e);
}
