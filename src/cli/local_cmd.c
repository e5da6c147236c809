#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "local/local.h"

static const char usage[] =
    "Usage: pgarena local start|stop|status [--dir DIR]\n"
    "\n"
    "Keep a scratch PostgreSQL server running for several commands.\n"
    "  start    create and start one (in DIR, or a fresh temporary directory); prints the\n"
    "           conninfo to pass to init and run\n"
    "  status   say whether the server in DIR runs, and its conninfo\n"
    "  stop     stop the server in DIR and remove DIR\n";

const struct option cli_local_options[] = {{"dir", required_argument, NULL, OPT_DIR},
                                           {"help", no_argument, NULL, OPT_HELP},
                                           {NULL, 0, NULL, 0}};

/* The action and --dir, checked; 1 when --help was printed, -1 with e set. */
static int parse_options(int argc, char **argv, const char **action, const char **dir,
                         struct err *e)
{
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":", cli_local_options, NULL)) != -1) {
        if (opt == OPT_DIR) {
            *dir = optarg;
        } else if (opt == OPT_HELP) {
            fputs(usage, stdout);
            return 1;
        } else {
            return args_bad_option("local", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (optind != argc - 1)
        return err_set(e, ERR_INPUT,
                       "local: expected start, stop or status (see pgarena local --help)");
    *action = argv[optind];
    if (strcmp(*action, "start") != 0 && strcmp(*action, "stop") != 0 &&
        strcmp(*action, "status") != 0)
        return err_set(e, ERR_INPUT, "local: unknown action '%s' (expected start, stop or status)",
                       *action);
    if (!*dir && strcmp(*action, "start") != 0)
        return err_set(e, ERR_INPUT, "local %s: --dir DIR is required", *action);
    return 0;
}

int cli_local_parse(int argc, char **argv, struct err *e)
{
    const char *action, *dir = NULL;
    return parse_options(argc, argv, &action, &dir, e) < 0 ? -1 : 0;
}

int cli_local(int argc, char **argv, struct err *e)
{
    const char *action, *dir = NULL;
    int rc = parse_options(argc, argv, &action, &dir, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    struct local_server srv = {0};
    if (strcmp(action, "start") == 0) {
        if (local_start(&srv, dir, e) < 0)
            return -1;
        printf("%s\n", srv.conninfo);
        return 0;
    }
    if (local_attach(&srv, dir, e) < 0)
        return -1;
    if (strcmp(action, "status") == 0) {
        printf("running: %s\n", srv.conninfo);
        return 0;
    }
    return local_stop(&srv, e);
}
