#include <getopt.h>
#include <stdio.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "report/text.h"
#include "result/result.h"

static const char usage[] = "Usage: pgarena show RESULT.json [--intervals]\n"
                            "\n"
                            "Print the summary of a result file again, and its environment.\n"
                            "\n"
                            "      --intervals   also print one line per interval\n";

int cli_show(int argc, char **argv, struct err *e)
{
    static const struct option longopts[] = {{"intervals", no_argument, NULL, 'i'},
                                             {"help", no_argument, NULL, 'H'},
                                             {NULL, 0, NULL, 0}};
    int intervals = 0, opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (opt == 'i') {
            intervals = 1;
        } else if (opt == 'H') {
            fputs(usage, stdout);
            return 0;
        } else {
            return args_bad_option("show", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (optind != argc - 1)
        return err_set(e, ERR_INPUT, "show: expected one result file (see pgarena show --help)");
    struct result r;
    if (result_read(argv[optind], &r, e) < 0)
        return -1;
    report_text_summary(stdout, &r);
    report_text_environment(stdout, &r);
    if (intervals)
        report_text_intervals(stdout, &r);
    result_free(&r);
    return 0;
}
