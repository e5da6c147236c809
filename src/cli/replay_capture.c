/* pgarena replay capture CONN --seconds N -o CAPTURE: its options, and what it prints; the
 * capture itself, through the server, is capture/'s (prepare_server). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/prepare.h"
#include "cli/args.h"
#include "cli/opts.h"
#include "cli/replay.h"
#include "pg/pg.h"

struct capture_cli {
    struct pg_connopts conn;
    int seconds;
    const char *output;
};

static int parse_capture(int argc, char **argv, struct capture_cli *c, struct err *e)
{
    memset(c, 0, sizeof *c);
    int opt;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_REPLAY_CAPTURE, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (args_conn_option(opt, optarg, &c->conn))
            continue;
        switch (opt) {
        case 's':
            if (args_seconds(optarg, &c->seconds, e) < 0)
                return -1;
            break;
        case 'o':
            c->output = optarg;
            break;
        case OPT_HELP:
            cli_help(CLI_REPLAY_CAPTURE, stdout);
            return 1;
        default:
            return args_bad_option("replay capture", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (args_positional(argc, argv, optind, &c->conn, "replay capture", e) < 0)
        return -1;
    if (!c->seconds)
        return err_set(e, ERR_INPUT, "replay capture: --seconds N is required");
    if (!c->output)
        return err_set(e, ERR_INPUT, "replay capture: -o CAPTURE is required");
    return 0;
}

int cli_replay_capture_parse(int argc, char **argv, struct err *e)
{
    struct capture_cli c;
    int rc = parse_capture(argc, argv, &c, e);
    pg_connopts_free(&c.conn);
    return rc < 0 ? -1 : 0;
}

static void print_manual_settings(void)
{
    printf("Set these on the server (postgresql.conf; logging_collector needs a restart), let\n"
           "the application run, then: pgarena replay prepare LOG... -o CAPTURE\n"
           "  logging_collector = on\n"
           "  log_destination = 'csvlog'          # or jsonlog, or stderr with the prefix below\n"
           "  log_line_prefix = '%%m|%%u|%%d|%%c|%%e|'  # for stderr\n"
           "  log_statement = 'all'               # or log_min_duration_statement = 0\n"
           "  log_connections = on\n"
           "  log_disconnections = on\n"
           "  lc_messages = 'C'\n");
}

int cli_replay_capture(int argc, char **argv, struct err *e)
{
    struct capture_cli o;
    int rc = parse_capture(argc, argv, &o, e);
    if (rc != 0) {
        pg_connopts_free(&o.conn);
        return rc > 0 ? 0 : -1;
    }
    struct prepare_stats stats;
    int by_hand = 0;
    rc = prepare_server(&o.conn, o.seconds, o.output, &stats, &by_hand, e);
    pg_connopts_free(&o.conn);
    if (by_hand)
        print_manual_settings();
    if (rc == 0)
        cli_replay_print_prepared(o.output, &stats);
    return rc;
}
