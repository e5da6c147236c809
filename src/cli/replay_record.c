/* pgarena replay record CONN --listen [ADDR:]PORT -o CAPTURE [--seconds N] [--tls-cert F
 * --tls-key F]: its options and
 * what it prints; the proxy and the recording are capture/'s (proxy.h, record.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/listen_spec.h"
#include "capture/proxy.h"
#include "cli/args.h"
#include "cli/opts.h"
#include "cli/replay.h"
#include "pg/pg.h"

struct record_cli {
    struct pg_connopts conn;
    struct proxy_opts o;
    char addr[256];
};

static int parse_record(int argc, char **argv, struct record_cli *c, struct err *e)
{
    memset(c, 0, sizeof *c);
    int opt;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_REPLAY_RECORD, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (args_conn_option(opt, optarg, &c->conn))
            continue;
        switch (opt) {
        case 's':
            if (args_seconds(optarg, &c->o.seconds, e) < 0)
                return -1;
            break;
        case 'o':
            c->o.output = optarg;
            break;
        case OPT_LISTEN:
            if (listen_spec_parse(optarg, "--listen", 0, c->addr, sizeof c->addr, &c->o.listen_port,
                                  e) < 0)
                return -1;
            c->o.listen_addr = c->addr;
            break;
        case OPT_TLS_CERT:
            c->o.tls_cert = optarg;
            break;
        case OPT_TLS_KEY:
            c->o.tls_key = optarg;
            break;
        case OPT_HELP:
            cli_help(CLI_REPLAY_RECORD, stdout);
            return 1;
        default:
            return args_bad_option("replay record", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (args_positional(argc, argv, optind, &c->conn, "replay record", e) < 0)
        return -1;
    if (!c->o.listen_addr)
        return err_set(e, ERR_INPUT, "replay record: --listen [ADDR:]PORT is required");
    if (!c->o.output)
        return err_set(e, ERR_INPUT, "replay record: -o CAPTURE is required");
    if (!c->o.tls_cert != !c->o.tls_key)
        return err_set(e, ERR_INPUT, "replay record: --tls-cert and --tls-key go together");
    return 0;
}

int cli_replay_record_parse(int argc, char **argv, struct err *e)
{
    struct record_cli c;
    int rc = parse_record(argc, argv, &c, e);
    pg_connopts_free(&c.conn);
    return rc < 0 ? -1 : 0;
}

static void print_recorded(const char *output, const struct record_stats *s)
{
    printf("recorded %s: %llu sessions, %llu statements (%llu simple, %llu extended-unnamed, "
           "%llu extended-named)\n",
           output, (unsigned long long)s->sessions, (unsigned long long)s->statements,
           (unsigned long long)s->by_protocol[CAPTURE_SIMPLE],
           (unsigned long long)s->by_protocol[CAPTURE_EXTENDED_UNNAMED],
           (unsigned long long)s->by_protocol[CAPTURE_EXTENDED_NAMED]);
    printf("  outcomes: %llu ok, %llu failed; %llu cancel requests forwarded\n",
           (unsigned long long)s->ok, (unsigned long long)s->failed,
           (unsigned long long)s->cancels);
    if (s->sessions_failed)
        printf("  failed sessions: %llu closed on a fault (a message that does not read or cut "
               "short, the server gone), kept up to it\n",
               (unsigned long long)s->sessions_failed);
    printf("  skipped: %llu carrying a password, %llu unsupported, %llu still running at the "
           "end; %llu connections never logged in\n",
           (unsigned long long)s->skipped_secret, (unsigned long long)s->skipped_unsupported,
           (unsigned long long)s->incomplete, (unsigned long long)s->refused);
    if (s->secrets_cut)
        printf("  kept with the password cut out: %llu (the replay sets one of its own)\n",
               (unsigned long long)s->secrets_cut);
    cli_replay_print_kept("  ", s->unsupported, &s->copy_in, s->portal_fetches, s->pipelined,
                          s->same_sync, s->param_status);
}

int cli_replay_record(int argc, char **argv, struct err *e)
{
    struct record_cli c;
    int rc = parse_record(argc, argv, &c, e);
    if (rc != 0) {
        pg_connopts_free(&c.conn);
        return rc > 0 ? 0 : -1;
    }
    char host[256], sslmode[32], rootcert[1024];
    int port;
    rc = pg_connopts_server(&c.conn, host, sizeof host, &port, e);
    if (rc == 0)
        rc = pg_connopts_tls(&c.conn, sslmode, sizeof sslmode, rootcert, sizeof rootcert, e);
    if (rc < 0) {
        pg_connopts_free(&c.conn);
        return -1;
    }
    c.o.server_host = host;
    c.o.server_port = port;
    c.o.sslmode = sslmode;
    c.o.sslrootcert = rootcert;
    c.o.conn = &c.conn;
    struct record_stats stats;
    rc = proxy_run(&c.o, &stats, e);
    pg_connopts_free(&c.conn);
    if (rc < 0)
        return -1;
    print_recorded(c.o.output, &stats);
    return 0;
}
