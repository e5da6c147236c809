#include <getopt.h>
#include <stdio.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "report/csv.h"
#include "report/text.h"
#include "result/result.h"

enum { SHOW_TEXT, SHOW_INTERVALS = 1, SHOW_CSV = 2, SHOW_SUMMARY = 4 };

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
    if (mode & SHOW_SUMMARY) {
        report_csv_summary(stdout, &r);
    } else if (mode & SHOW_CSV) {
        report_csv_intervals(stdout, &r);
    } else {
        report_text_summary(stdout, &r);
        report_text_environment(stdout, &r);
        if (mode & SHOW_INTERVALS)
            report_text_intervals(stdout, &r);
    }
    result_free(&r);
    return 0;
}
