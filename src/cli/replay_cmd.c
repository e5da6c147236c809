/* pgarena replay SUB: the dispatch by a table of subcommands, and `replay prepare`. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "cli/replay.h"
#include "capture/prepare.h"
#include "os/os.h"

static const struct replay_subcommand subcommands[] = {
    {"prepare", "LOG... -o CAPTURE  turn server logs into a capture", cli_replay_prepare,
     cli_replay_prepare_parse},
    {"show", "CAPTURE            summarise a capture", cli_replay_show, cli_replay_show_parse},
    {"capture", "CONN --seconds N -o CAPTURE  log a server's traffic and prepare it",
     cli_replay_capture, cli_replay_capture_parse},
    {"record", "CONN --listen [ADDR:]PORT -o CAPTURE  record through a proxy", cli_replay_record,
     cli_replay_record_parse},
    {"run", "CAPTURE [CONN]     replay a capture as a run", cli_replay_run, cli_replay_run_parse},
};

static void replay_usage(FILE *f)
{
    fputs("Usage: pgarena replay SUBCOMMAND [ARGUMENTS] [--help]\n\n", f);
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(f, "  pgarena replay %s %s\n", subcommands[i].name, subcommands[i].synopsis);
    fputs("\nEach subcommand takes --help.\n", f);
}

/* The subcommand argv[1] names; 1 when --help was printed; -1 with e set. */
static int find_subcommand(int argc, char **argv, const struct replay_subcommand **sub,
                           struct err *e)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        replay_usage(stdout);
        return 1;
    }
    if (argc < 2)
        return err_set(e, ERR_INPUT, "replay: expected a subcommand (see pgarena replay --help)");
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++) {
        if (strcmp(argv[1], subcommands[i].name) == 0) {
            *sub = &subcommands[i];
            return 0;
        }
    }
    return err_set(e, ERR_INPUT, "replay: unknown subcommand '%s' (see pgarena replay --help)",
                   argv[1]);
}

int cli_replay(int argc, char **argv, struct err *e)
{
    const struct replay_subcommand *sub;
    int rc = find_subcommand(argc, argv, &sub, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    return sub->run(argc - 1, argv + 1, e);
}

int cli_replay_parse(int argc, char **argv, struct err *e)
{
    const struct replay_subcommand *sub;
    int rc = find_subcommand(argc, argv, &sub, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    optind = 0;
    return sub->parse(argc - 1, argv + 1, e);
}

/* ---- replay prepare ---- */

struct prepare_cli {
    const char *output;
    struct prepare_opts o;
    int first, n;
};

static int parse_format(const char *s, enum log_format *f, struct err *e)
{
    if (strcmp(s, "csvlog") == 0 || strcmp(s, "csv") == 0)
        *f = LOG_FORMAT_CSV;
    else if (strcmp(s, "jsonlog") == 0 || strcmp(s, "json") == 0)
        *f = LOG_FORMAT_JSON;
    else if (strcmp(s, "stderr") == 0)
        *f = LOG_FORMAT_STDERR;
    else
        return err_set(e, ERR_INPUT,
                       "invalid value for --format: '%s' (expected csvlog, jsonlog or stderr)", s);
    return 0;
}

static int parse_prepare(int argc, char **argv, struct prepare_cli *c, struct err *e)
{
    memset(c, 0, sizeof *c);
    c->o.from_us = INT64_MIN;
    c->o.to_us = INT64_MAX;
    int opt;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_REPLAY_PREPARE, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (opt) {
        case 'o':
            c->output = optarg;
            break;
        case OPT_FROM:
        case OPT_TO:
            if (prepare_parse_time(optarg, opt == OPT_FROM ? &c->o.from_us : &c->o.to_us) < 0)
                return err_set(e, ERR_INPUT,
                               "invalid value for --%s: '%s' (expected YYYY-MM-DD HH:MM:SS[.fff])",
                               opt == OPT_FROM ? "from" : "to", optarg);
            break;
        case OPT_DATABASE:
            c->o.database = optarg;
            break;
        case OPT_USER:
            c->o.user = optarg;
            break;
        case OPT_FORMAT:
            if (parse_format(optarg, &c->o.format, e) < 0)
                return -1;
            break;
        case OPT_PREFIX:
            c->o.prefix = optarg;
            break;
        case OPT_HELP:
            cli_help(CLI_REPLAY_PREPARE, stdout);
            return 1;
        default:
            return args_bad_option("replay prepare", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    c->first = optind;
    c->n = argc - optind;
    if (c->n < 1)
        return err_set(e, ERR_INPUT,
                       "replay prepare: expected one log file or more (see pgarena replay "
                       "prepare --help)");
    if (!c->output)
        return err_set(e, ERR_INPUT, "replay prepare: -o CAPTURE is required");
    if (c->o.from_us > c->o.to_us)
        return err_set(e, ERR_INPUT, "replay prepare: --from is after --to");
    return 0;
}

int cli_replay_prepare_parse(int argc, char **argv, struct err *e)
{
    struct prepare_cli c;
    return parse_prepare(argc, argv, &c, e) < 0 ? -1 : 0;
}

/* "2026-12-01 11:41:16.214" from µs since the epoch. */
void cli_replay_format_time(int64_t us, char *out, size_t size)
{
    time_t secs = (time_t)(us / 1000000);
    struct tm tm;
    if (us < 0 || !gmtime_r(&secs, &tm)) {
        snprintf(out, size, "-");
        return;
    }
    size_t n = strftime(out, size, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(out + n, size - n, ".%03d", (int)(us % 1000000 / 1000));
}

void cli_replay_print_kept(const char *label, const struct capture_unsupported_kind *kinds,
                           const struct capture_copy_in *copy_in, uint64_t portal_fetches,
                           uint64_t pipelined, uint64_t same_sync, uint64_t param_status)
{
    for (int k = 0; k < CAPTURE_UNSUP__COUNT; k++)
        if (kinds[k].count)
            printf("%sunsupported %s: %llu, e.g. %s\n", label, capture_unsupported_names[k],
                   (unsigned long long)kinds[k].count, kinds[k].example);
    if (portal_fetches)
        printf("%sportal fetches folded into their portal's first execute: %llu (a replay runs "
               "each portal whole: libpq sends no Execute with a row limit)\n",
               label, (unsigned long long)portal_fetches);
    if (pipelined)
        printf("%spipelined: %llu statements sent before their session's previous one was "
               "answered (a replay sends them so, in pipeline mode, each once due)\n",
               label, (unsigned long long)pipelined);
    if (same_sync)
        printf("%ssharing a Sync: %llu statements with no Sync between them and their session's "
               "previous one (one implicit transaction, which an error ends for all; a replay "
               "sends each group with one Sync, in pipeline mode)\n",
               label, (unsigned long long)same_sync);
    if (param_status)
        printf("%sparameter changes: %llu settings the server reported changed by the "
               "statements (ParameterStatus; a replay's server reports its own)\n",
               label, (unsigned long long)param_status);
    uint64_t n = copy_in->other;
    for (size_t i = 0; i < copy_in->n_tables; i++)
        n += copy_in->tables[i].count;
    if (!n)
        return;
    if (copy_in->with_rows)
        printf("%sCOPY FROM STDIN kept with their rows: %llu\n", label,
               (unsigned long long)copy_in->with_rows);
    if (copy_in->with_rows >= n)
        return;
    printf("%sCOPY FROM STDIN kept without their data: %llu (", label,
           (unsigned long long)(n - copy_in->with_rows));
    for (size_t i = 0; i < copy_in->n_tables; i++)
        printf("%s%s %llu", i ? ", " : "", copy_in->tables[i].table,
               (unsigned long long)copy_in->tables[i].count);
    if (copy_in->other)
        printf("%sother tables %llu", copy_in->n_tables ? ", " : "",
               (unsigned long long)copy_in->other);
    printf("); replay run --copy-from DIR loads the Nth into TABLE from DIR/TABLE.N\n");
}

void cli_replay_print_prepared(const char *output, const struct prepare_stats *s)
{
    char start[64];
    cli_replay_format_time(s->start_us, start, sizeof start);
    printf("prepared %s: %llu sessions, %llu statements over %.3f s from %s\n", output,
           (unsigned long long)s->sessions, (unsigned long long)s->statements,
           (double)s->duration_us / 1e6, s->statements || s->sessions ? start : "-");
    printf("  read: %llu log messages (%s%s%s%s)", (unsigned long long)s->entries, s->format,
           *s->prefix ? ", log_line_prefix '" : "", s->prefix, *s->prefix ? "'" : "");
    if (s->unmatched_lines)
        printf(", %llu lines without the prefix", (unsigned long long)s->unmatched_lines);
    printf("\n  skipped: %llu COPY FROM STDIN, %llu carrying a password, %llu unsupported",
           (unsigned long long)s->skipped_copy, (unsigned long long)s->skipped_secret,
           (unsigned long long)s->skipped_unsupported);
    if (s->filtered)
        printf("; %llu outside --from/--to/--database/--user", (unsigned long long)s->filtered);
    if (s->secrets_cut)
        printf("\n  kept with the password cut out: %llu (the replay sets one of its own)",
               (unsigned long long)s->secrets_cut);
    printf("\n");
    cli_replay_print_kept("  ", s->unsupported, &s->copy_in, s->portal_fetches, 0, 0, 0);
}

int cli_replay_prepare(int argc, char **argv, struct err *e)
{
    struct prepare_cli c;
    int rc = parse_prepare(argc, argv, &c, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    /* The capture replaces its path by rename: never over one of the logs. */
    struct stat out_st, log_st;
    if (os_stat(c.output, &out_st) == 0)
        for (int i = 0; i < c.n; i++)
            if (os_stat(argv[c.first + i], &log_st) == 0 && log_st.st_dev == out_st.st_dev &&
                log_st.st_ino == out_st.st_ino)
                return err_set(e, ERR_INPUT, "replay prepare: -o %s is one of the logs", c.output);
    struct prepare_stats stats;
    if (prepare_logs((const char *const *)argv + c.first, c.n, &c.o, c.output, &stats, e) < 0)
        return -1;
    cli_replay_print_prepared(c.output, &stats);
    return 0;
}
