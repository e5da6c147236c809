#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "local/local.h"

/* The action, --dir and --bin, checked; 1 when --help was printed, -1 with e set. */
static int parse_options(int argc, char **argv, const char **action, const char **dir,
                         const char **bin, struct err *e)
{
    int opt;
    if (local_available(e) < 0)
        return -1;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_LOCAL, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == OPT_DIR) {
            *dir = optarg;
        } else if (opt == OPT_BIN) {
            *bin = optarg;
        } else if (opt == OPT_HELP) {
            cli_help(CLI_LOCAL, stdout);
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
    /* stop and status use the binaries the server was started with (pgarena.bindir). */
    if (*bin && strcmp(*action, "start") != 0)
        return err_set(e, ERR_INPUT, "local %s: --bin is for start only", *action);
    return 0;
}

int cli_local_parse(int argc, char **argv, struct err *e)
{
    const char *action, *dir = NULL, *bin = NULL;
    return parse_options(argc, argv, &action, &dir, &bin, e) < 0 ? -1 : 0;
}

int cli_local(int argc, char **argv, struct err *e)
{
    const char *action, *dir = NULL, *bin = NULL;
    int rc = parse_options(argc, argv, &action, &dir, &bin, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    struct local_server srv = {0};
    if (strcmp(action, "start") == 0) {
        if (local_start_bin(&srv, dir, bin, NULL, e) < 0)
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
