#include <getopt.h>
#include <stdio.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "report/text.h"
#include "result/result.h"

static const char usage[] = "Usage: pgarena show RESULT.json [--intervals]\n"
                            "\n"
                            "Print the summary of a result file again, and its environment.\n"
                            "\n"
                            "      --intervals   also print one line per interval\n";

/* 1 when --help was printed, -1 with e set. */
static int parse_options(int argc, char **argv, int *intervals, const char **path, struct err *e)
{
    static const struct option longopts[] = {{"intervals", no_argument, NULL, 'i'},
                                             {"help", no_argument, NULL, 'H'},
                                             {NULL, 0, NULL, 0}};
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (opt == 'i') {
            *intervals = 1;
        } else if (opt == 'H') {
            fputs(usage, stdout);
            return 1;
        } else {
            return args_bad_option("show", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (optind != argc - 1)
        return err_set(e, ERR_INPUT, "show: expected one result file (see pgarena show --help)");
    *path = argv[optind];
    return 0;
}

int cli_show_parse(int argc, char **argv, struct err *e)
{
    int intervals = 0;
    const char *path;
    return parse_options(argc, argv, &intervals, &path, e) < 0 ? -1 : 0;
}

int cli_show(int argc, char **argv, struct err *e)
{
    int intervals = 0;
    const char *path;
    int rc = parse_options(argc, argv, &intervals, &path, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    struct result r;
    if (result_read(path, &r, e) < 0)
        return -1;
    report_text_summary(stdout, &r);
    report_text_environment(stdout, &r);
    if (intervals)
        report_text_intervals(stdout, &r);
    result_free(&r);
    return 0;
}
