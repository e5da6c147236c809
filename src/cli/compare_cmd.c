#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "compare/compare.h"
#include "os/os.h"
#include "report/compare_out.h"
#include "report/csv.h"
#include "result/field.h"
#include "result/result.h"
#include "result/sweep.h"

struct compare_opts {
    int json, csv, fail_if_worse;
    struct cmp_config cfg;
    const char *by; /* --by FIELD; NULL: the label */
};

/* Returns 1 when --help was printed. */
static int parse_options(int argc, char **argv, struct compare_opts *o, struct err *e)
{
    int opt;
    int64_t seed;
    double margin;
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_COMPARE, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_JSON:
            o->json = 1;
            break;
        case OPT_CSV:
            o->csv = 1;
            break;
        case OPT_FAIL_IF_WORSE:
            o->fail_if_worse = 1;
            break;
        case OPT_SEED:
            if (num_int("--seed", optarg, 0, INT64_MAX, &seed, e) < 0)
                return -1;
            o->cfg.seed = (uint64_t)seed;
            break;
        case OPT_MARGIN:
            if (num_double("--margin", optarg, 0.1, 50, &margin, e) < 0)
                return -1;
            o->cfg.margin = margin / 100;
            break;
        case OPT_COMPARE_BY:
            if (!result_field_valid(optarg))
                return err_set(e, ERR_INPUT, "compare: --by %s is not a field (%s)", optarg,
                               result_field_names());
            o->by = optarg;
            break;
        case OPT_HELP:
            cli_help(CLI_COMPARE, stdout);
            return 1;
        default:
            return args_bad_option("compare", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (o->json && o->csv)
        return err_set(e, ERR_INPUT, "compare: --json and --csv are exclusive");
    struct stat st;
    int one_dir = argc - optind == 1 && os_stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode);
    if (argc - optind < 2 && !one_dir)
        return err_set(e, ERR_INPUT,
                       "compare: expected at least two result files (see pgarena compare --help)");
    return 0;
}

static const struct compare_opts defaults = {
    .cfg = {.seed = CMP_DEFAULT_SEED, .margin = CMP_DEFAULT_MARGIN, .resamples = CMP_RESAMPLES}};

int cli_compare_parse(int argc, char **argv, struct err *e)
{
    struct compare_opts o = defaults;
    return parse_options(argc, argv, &o, e) < 0 ? -1 : 0;
}

/* The files to compare: each argument, a sweep directory standing for its complete cells'
 * files in run order, and a sweep.json among them skipped with a note. Caller frees. */
static char **input_paths(int argc, char **argv, size_t *n, struct err *e)
{
    size_t cap = (size_t)argc + 1;
    char **paths = xcalloc(cap, sizeof *paths);
    *n = 0;
    for (int i = 0; i < argc; i++) {
        struct stat st;
        const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
        int dir = os_stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode);
        struct sweep_doc d;
        char *json = dir ? xasprintf("%s/sweep.json", argv[i]) : xstrdup(argv[i]);
        if (!dir && strcmp(base, "sweep.json") != 0) {
            free(json);
            paths[(*n)++] = xstrdup(argv[i]);
            continue;
        }
        struct err se = {0};
        if (sweep_doc_read(json, &d, &se) < 0) {
            free(json);
            if (!dir) { /* named sweep.json but a result file: compared as one */
                paths[(*n)++] = xstrdup(argv[i]);
                continue;
            }
            err_set(e, ERR_INPUT, "compare: %s is a directory without a sweep (%s)", argv[i],
                    se.msg);
            for (size_t k = 0; k < *n; k++)
                free(paths[k]);
            free(paths);
            return NULL;
        }
        free(json);
        if (!dir) {
            fprintf(stderr,
                    "pgarena: compare: %s is a sweep's file, skipped (give its directory to "
                    "compare its cells)\n",
                    argv[i]);
        } else {
            cap += d.n_cells;
            paths = xrealloc(paths, cap * sizeof *paths);
            for (size_t c = 0; c < d.n_cells; c++)
                if (d.cells[c].status == SWEEP_COMPLETE)
                    paths[(*n)++] = xasprintf("%s/%s", argv[i], d.cells[c].file);
        }
        sweep_doc_free(&d);
    }
    return paths;
}

/* compare grouped by --by: each file's side is the field's value. */
static int compare_by(const char *by, const struct result *runs, const char *const *paths, size_t n,
                      const struct cmp_config *cfg, struct cmp_report *rep, struct err *e)
{
    char **names = xcalloc(n + 1, sizeof *names);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        if (!result_field_value(&runs[i], by, &names[i]))
            names[i] = xstrdup("(absent)");
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++)
            seen = strcmp(names[k], names[i]) == 0;
        distinct += !seen;
    }
    int rc;
    if (n > 0 && distinct < 2)
        rc = err_set(e, ERR_INPUT,
                     "compare: every file has %s = '%s', so they are trials of one setup: "
                     "group them by another field",
                     by, names[0]);
    else
        rc = cmp_compare_named(runs, paths, (const char *const *)names, n, cfg, rep, e);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

int cli_compare(int argc, char **argv, struct err *e)
{
    struct compare_opts o = defaults;
    int rc = parse_options(argc, argv, &o, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    size_t n = 0, n_read = 0;
    char **owned = input_paths(argc - optind, argv + optind, &n, e);
    if (!owned)
        return -1;
    const char *const *paths = (const char *const *)owned;
    struct result *runs = xcalloc(n + 1, sizeof *runs);
    rc = 0;
    if (n < 2 && !o.by)
        rc = err_set(e, ERR_INPUT,
                     "compare: expected at least two result files (see pgarena compare --help)");
    while (n_read < n && rc == 0)
        if ((rc = result_read(paths[n_read], &runs[n_read], e)) == 0)
            n_read++;
    struct cmp_report rep;
    if (rc == 0 && o.by && strcmp(o.by, "label") != 0)
        rc = compare_by(o.by, runs, paths, n, &o.cfg, &rep, e);
    else if (rc == 0)
        rc = cmp_compare(runs, paths, n, &o.cfg, &rep, e);
    if (rc == 0) {
        if (o.json)
            rc = report_compare_json(stdout, &rep, e);
        else if (o.csv)
            report_csv_compare(stdout, &rep);
        else
            report_compare_text(stdout, &rep);
        if (rc == 0 && o.fail_if_worse && cmp_any_worse(&rep))
            rc = 3; /* exit status 3: a metric significantly worse */
        cmp_report_free(&rep);
    }
    for (size_t i = 0; i < n_read; i++)
        result_free(&runs[i]);
    free(runs);
    for (size_t i = 0; i < n; i++)
        free(owned[i]);
    free(owned);
    return rc;
}
