#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "report/text.h"
#include "result/journal.h"
#include "result/result.h"
#include "os/os.h"

/* 1 when --help was printed, -1 with e set. */
static int parse_options(int argc, char **argv, const char **path, struct err *e)
{
    int opt;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_RECOVER, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt != OPT_HELP)
            return args_bad_option("recover", argc, argv, optind, optopt, opt == ':', e);
        cli_help(CLI_RECOVER, stdout);
        return 1;
    }
    if (optind != argc - 1)
        return err_set(e, ERR_INPUT,
                       "recover: expected one result file (see pgarena recover --help)");
    *path = argv[optind];
    return 0;
}

int cli_recover_parse(int argc, char **argv, struct err *e)
{
    const char *path;
    return parse_options(argc, argv, &path, e) < 0 ? -1 : 0;
}

/* 1 when the result at path exists and was written after its journal's last interval: it is
 * that journal's run's already. An older one is an earlier run's. */
static int already_written(const char *path)
{
    struct stat rs, js;
    char *journal = journal_path(path);
    int journal_there = os_stat(journal, &js) == 0;
    free(journal);
    if (os_stat(path, &rs) != 0)
        return 0;
    if (!journal_there)
        return 1;
    return os_mtime_ns(&rs) >= os_mtime_ns(&js);
}

/* The next word of a command line as args_masked_command quotes it ('...', and '\'' for a
 * quote), from *p on; NULL at its end. Caller frees. */
static char *next_word(const char **p)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (!*s)
        return NULL;
    struct buf w;
    buf_init(&w);
    while (*s && *s != ' ') {
        if (*s == '\'') {
            for (s++; *s && *s != '\''; s++)
                buf_putc(&w, *s);
            if (*s)
                s++;
        } else if (*s == '\\' && s[1]) {
            buf_putc(&w, s[1]);
            s += 2;
        } else {
            buf_putc(&w, *s++);
        }
    }
    *p = s;
    char *word = xstrdup(w.data);
    buf_free(&w);
    return word;
}

/* The run's --store CONN in its command line (passwords masked there), or NULL. */
static char *store_of(const char *command)
{
    char *prev = NULL, *word, *conn = NULL;
    while (command && !conn && (word = next_word(&command)) != NULL) {
        if (prev && strcmp(prev, "--store") == 0)
            conn = xstrdup(word);
        else if (strncmp(word, "--store=", 8) == 0)
            conn = xstrdup(word + 8);
        free(prev);
        prev = word;
    }
    free(prev);
    return conn;
}

/* A run with --store left its row incomplete in the store: the command that completes it
 * (the recovered file replaces the row), its password masked. */
static void print_store_command(const struct result *r, const char *path)
{
    char *conn = store_of(r->command);
    if (!conn)
        return;
    char *argv[] = {"pgarena", "store", "--into", conn, (char *)path};
    char *line = args_masked_command(5, argv);
    printf("store it:            %s\n", line);
    free(line);
    free(conn);
}

int cli_recover(int argc, char **argv, struct err *e)
{
    const char *path;
    int rc = parse_options(argc, argv, &path, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    if (already_written(path))
        return err_set(e, ERR_INPUT, "recover: %s already exists: nothing to recover", path);
    struct result r;
    if (journal_recover(path, &r, e) < 0)
        return -1;
    if (result_write(&r, path, e) < 0) {
        result_free(&r);
        return -1;
    }
    char *journal = journal_path(path);
    os_unlink(journal);
    free(journal);
    report_text_summary(stdout, &r);
    printf("intervals recovered: %zu\n", r.n_journal);
    printf("result:              %s\n", path);
    print_store_command(&r, path);
    result_free(&r);
    return 0;
}
