#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "os/os.h"
#include "report/csv.h"
#include "report/text.h"
#include "result/result.h"

enum { SHOW_TEXT, SHOW_INTERVALS = 1, SHOW_CSV = 2, SHOW_SUMMARY = 4, SHOW_SCRIPTS = 8 };

/* 1 when --help was printed, -1 with e set; *mode is a set of SHOW_* flags. */
static int parse_options(int argc, char **argv, int *mode, const char **path, struct err *e)
{
    int opt;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_SHOW, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == OPT_INTERVALS) {
            *mode |= SHOW_INTERVALS;
        } else if (opt == OPT_CSV) {
            *mode |= SHOW_CSV;
        } else if (opt == OPT_SUMMARY) {
            *mode |= SHOW_SUMMARY;
        } else if (opt == OPT_SCRIPTS) {
            *mode |= SHOW_SCRIPTS;
        } else if (opt == OPT_HELP) {
            cli_help(CLI_SHOW, stdout);
            return 1;
        } else {
            return args_bad_option("show", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if ((*mode & SHOW_SUMMARY) && !(*mode & SHOW_CSV))
        return err_set(e, ERR_INPUT, "show: --summary goes with --csv");
    if ((*mode & SHOW_SUMMARY) && (*mode & SHOW_INTERVALS))
        return err_set(e, ERR_INPUT, "show: --csv --summary and --intervals are exclusive");
    if ((*mode & SHOW_SCRIPTS) && !(*mode & SHOW_CSV))
        return err_set(e, ERR_INPUT, "show: --scripts goes with --csv");
    if ((*mode & SHOW_SCRIPTS) && (*mode & (SHOW_SUMMARY | SHOW_INTERVALS)))
        return err_set(e, ERR_INPUT,
                       "show: --csv --scripts, --summary and --intervals are exclusive");
    if (optind != argc - 1)
        return err_set(e, ERR_INPUT, "show: expected one result file (see pgarena show --help)");
    *path = argv[optind];
    return 0;
}

int cli_show_parse(int argc, char **argv, struct err *e)
{
    int mode = SHOW_TEXT;
    const char *path;
    return parse_options(argc, argv, &mode, &path, e) < 0 ? -1 : 0;
}

/* A duet half's partner beside it: the .json file of path's directory (not path) whose first
 * bytes hold the partner's run_id (it comes near the top); NULL when none (caller frees). */
static char *partner_file(const char *path, const char *partner)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrndup(path, (size_t)(slash - path + 1)) : xstrdup("");
    struct os_dir *d = os_opendir(*dir ? dir : ".");
    char *found = NULL, *spaced = xasprintf("\"run_id\": \"%s\"", partner),
         *tight = xasprintf("\"run_id\":\"%s\"", partner);
    const char *name;
    while (d && !found && (name = os_readdir(d)) != NULL) {
        size_t n = strlen(name);
        if (n < 6 || strcmp(name + n - 5, ".json") != 0 ||
            strcmp(name, slash ? slash + 1 : path) == 0)
            continue;
        char *p = xasprintf("%s%s", dir, name);
        FILE *f = os_fopen(p, "r");
        char head[4096];
        size_t got = f ? fread(head, 1, sizeof head - 1, f) : 0;
        if (f)
            fclose(f);
        head[got] = '\0';
        if (strstr(head, spaced) || strstr(head, tight))
            found = p;
        else
            free(p);
    }
    os_closedir(d);
    free(spaced);
    free(tight);
    free(dir);
    return found;
}

int cli_show(int argc, char **argv, struct err *e)
{
    int mode = SHOW_TEXT;
    const char *path;
    int rc = parse_options(argc, argv, &mode, &path, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    struct result r;
    if (result_read(path, &r, e) < 0)
        return -1;
    if (mode & SHOW_SCRIPTS) {
        report_csv_scripts(stdout, &r);
    } else if (mode & SHOW_SUMMARY) {
        report_csv_summary(stdout, &r);
    } else if (mode & SHOW_CSV) {
        report_csv_intervals(stdout, &r);
    } else {
        report_text_summary(stdout, &r);
        char *partner = r.has_duet ? partner_file(path, r.duet.partner) : NULL;
        report_text_duet(stdout, &r, partner);
        free(partner);
        report_text_environment(stdout, &r);
        if (mode & SHOW_INTERVALS)
            report_text_intervals(stdout, &r);
    }
    result_free(&r);
    return 0;
}
