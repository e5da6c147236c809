#ifndef PGARENA_CLI_REPLAY_H
#define PGARENA_CLI_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "capture/prepare.h"

/*
 * The replay subcommands (pgarena replay SUB ...), dispatched by the table in
 * cli/replay_cmd.c. Each sees its own name as argv[0]; run returns as a command does (0, -1
 * with e set, or 1), parse checks the options alone (for cli_parse_only).
 */
struct replay_subcommand {
    const char *name;
    const char *synopsis; /* for `pgarena replay --help` */
    int (*run)(int argc, char **argv, struct err *e);
    int (*parse)(int argc, char **argv, struct err *e);
};

int cli_replay_prepare(int argc, char **argv, struct err *e);
int cli_replay_prepare_parse(int argc, char **argv, struct err *e);
int cli_replay_show(int argc, char **argv, struct err *e);
int cli_replay_show_parse(int argc, char **argv, struct err *e);
int cli_replay_capture(int argc, char **argv, struct err *e);
int cli_replay_capture_parse(int argc, char **argv, struct err *e);
/* replay record (cli/replay_record.c). */
int cli_replay_record(int argc, char **argv, struct err *e);
int cli_replay_record_parse(int argc, char **argv, struct err *e);
/* replay run (cli/replay_run_cmd.c). */
int cli_replay_run(int argc, char **argv, struct err *e);
int cli_replay_run_parse(int argc, char **argv, struct err *e);

/* "YYYY-MM-DD HH:MM:SS.mmm" of µs since the epoch, in the log's own clock ("-" if none). */
void cli_replay_format_time(int64_t us, char *out, size_t size);

/* prepare's summary, on stdout. */
void cli_replay_print_prepared(const char *output, const struct prepare_stats *s);
/* What a capture left out as unsupported, by kind with an example, the COPY FROM STDIN it
 * kept, by table, the portal fetches it folded, the statements sent in pipelines and those
 * sharing their previous one's Sync, the settings the server reported changed: a line
 * each, after label (padded by the caller), none when there are none. */
void cli_replay_print_kept(const char *label, const struct capture_unsupported_kind *kinds,
                           const struct capture_copy_in *copy_in, uint64_t portal_fetches,
                           uint64_t pipelined, uint64_t same_sync, uint64_t param_status);

#endif
