/* pgarena replay SUB: the dispatch by a table of subcommands. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/replay.h"

static const struct replay_subcommand subcommands[] = {
    {"run", "CAPTURE [CONN]     replay a capture as a run", cli_replay_run, cli_replay_run_parse},
};

static void replay_usage(FILE *f)
{
    fputs("Usage: pgarena replay SUBCOMMAND ...\n\n", f);
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
