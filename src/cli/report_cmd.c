#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "cli/store_cmd.h"
#include "compare/sweep_figs.h"
#include "os/os.h"
#include "report/history_out.h"
#include "report/html.h"
#include "report/sweep_out.h"
#include "result/result.h"

struct report_opts {
    const char *output, *title;
    const char *history; /* --history CONN|DIR */
};

/* Returns 1 when --help was printed. */
static int parse_options(int argc, char **argv, struct report_opts *o, struct err *e)
{
    int opt;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_REPORT, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == 'o') {
            o->output = optarg;
        } else if (opt == OPT_TITLE) {
            o->title = optarg;
        } else if (opt == OPT_HISTORY) {
            o->history = optarg;
        } else if (opt == OPT_HELP) {
            cli_help(CLI_REPORT, stdout);
            return 1;
        } else {
            return args_bad_option("report", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (o->history && optind < argc)
        return err_set(e, ERR_INPUT, "report: --history takes no result files");
    if (optind >= argc && !o->history)
        return err_set(e, ERR_INPUT,
                       "report: expected one result file or more (see pgarena report --help)");
    if (!o->output)
        return err_set(e, ERR_INPUT, "report: -o REPORT.html is required");
    return 0;
}

int cli_report_parse(int argc, char **argv, struct err *e)
{
    struct report_opts o = {0};
    return parse_options(argc, argv, &o, e) < 0 ? -1 : 0;
}

/* The report of a sweep's directory. */
static int sweep_report(const char *dir, const struct report_opts *o, struct err *e)
{
    char *path = xasprintf("%s/sweep.json", dir);
    struct sweep_doc d;
    struct sweep_figs f;
    int rc = sweep_doc_read(path, &d, e);
    free(path);
    if (rc < 0)
        return -1;
    if ((rc = sweep_figs_build(&d, dir, &f, e)) == 0) {
        rc = report_sweep_html_write(&d, &f, o->title, o->output, e);
        sweep_figs_free(&f);
    }
    if (rc == 0)
        printf("report: %s\n", o->output);
    sweep_doc_free(&d);
    return rc;
}

/* --history: the series of a store or directory, as history finds them with its defaults. */
static int history_report(const struct report_opts *o, struct err *e)
{
    struct history_opts h;
    struct history_out out = {0};
    struct result *runs = NULL;
    size_t n = 0;
    history_opts_init(&h);
    int rc = cli_history_load(o->history, NULL, &h, &runs, &n, e);
    if (rc == 0)
        rc = history_analyse(runs, n, &h, &out, e);
    if (rc == 0)
        rc = report_history_html_write(runs, &out, o->title, o->output, e);
    if (rc == 0)
        printf("report: %s\n", o->output);
    history_out_free(&out);
    for (size_t i = 0; i < n; i++)
        result_free(&runs[i]);
    free(runs);
    history_opts_free(&h);
    return rc;
}

int cli_report(int argc, char **argv, struct err *e)
{
    struct report_opts o = {0};
    int rc = parse_options(argc, argv, &o, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    if (o.history)
        return history_report(&o, e);
    struct stat st;
    if (argc - optind == 1 && os_stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode))
        return sweep_report(argv[optind], &o, e);
    size_t n = (size_t)(argc - optind), n_read = 0;
    const char *const *paths = (const char *const *)argv + optind;
    struct result *runs = xcalloc(n, sizeof *runs);
    while (n_read < n && rc == 0)
        if ((rc = result_read(paths[n_read], &runs[n_read], e)) == 0)
            n_read++;
    if (rc == 0 && (rc = report_html_write(runs, paths, n, o.title, o.output, e)) == 0)
        printf("report: %s\n", o.output);
    for (size_t i = 0; i < n_read; i++)
        result_free(&runs[i]);
    free(runs);
    return rc;
}
