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

static const char capture_usage[] =
    "Usage: pgarena replay capture [CONN] [-h HOST] [-p PORT] [-U USER] --seconds N -o CAPTURE\n"
    "\n"
    "Capture N seconds of a server's traffic: as superuser, set the logging parameters with\n"
    "ALTER SYSTEM and a reload, wait N seconds (Ctrl-C ends the wait early), restore them,\n"
    "read the csvlog written meanwhile through the server (pg_current_logfile,\n"
    "pg_read_binary_file) and prepare it, recording the server's system_identifier, address\n"
    "and port. The server needs logging_collector = on (a restart to change); without it, or\n"
    "without superuser, the settings to make by hand are printed and the exit status is 2.\n"
    "\n"
    "  -s, --seconds N    how long to capture (1 to 86400)\n"
    "  -o, --output FILE  the capture to write (required)\n"
    "  -h, -p, -U         connection options, as for run\n"
    "      --help         print this help\n";

struct capture_cli {
    struct pg_connopts conn;
    int seconds;
    const char *output;
};

const struct option cli_replay_capture_options[] = {{"seconds", required_argument, NULL, 's'},
                                                    {"output", required_argument, NULL, 'o'},
                                                    {"host", required_argument, NULL, 'h'},
                                                    {"port", required_argument, NULL, 'p'},
                                                    {"username", required_argument, NULL, 'U'},
                                                    {"help", no_argument, NULL, OPT_HELP},
                                                    {NULL, 0, NULL, 0}};

static int parse_capture(int argc, char **argv, struct capture_cli *c, struct err *e)
{
    memset(c, 0, sizeof *c);
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":s:o:h:p:U:", cli_replay_capture_options, NULL)) != -1) {
        if (args_conn_option(opt, optarg, &c->conn))
            continue;
        switch (opt) {
        case 's': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > 86400)
                return err_set(e, ERR_INPUT,
                               "invalid value for --seconds: '%s' (expected an integer from 1 "
                               "to 86400)",
                               optarg);
            c->seconds = (int)v;
            break;
        }
        case 'o':
            c->output = optarg;
            break;
        case OPT_HELP:
            fputs(capture_usage, stdout);
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
