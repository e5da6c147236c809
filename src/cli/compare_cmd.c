#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "compare/compare.h"
#include "report/compare_out.h"
#include "report/csv.h"
#include "result/result.h"

static const char usage[] =
    "Usage: pgarena compare A.json B.json [MORE.json...] [--json | --csv] [--fail-if-worse]\n"
    "                       [--seed N] [--margin PCT]\n"
    "\n"
    "Is B faster than A, by how much, and is it real? Files are grouped into setups by their\n"
    "label (run --label): files sharing a label are trials of one setup, and the first label\n"
    "is the baseline A. For throughput, latency p50/p95/p99 and the failure rate it prints A,\n"
    "B, the change, its 95% confidence interval and a verdict: better, worse,\n"
    "no-meaningful-difference or inconclusive.\n"
    "\n"
    "      --json           print the comparison as JSON\n"
    "      --csv            print it as CSV (RFC 4180): one row per metric and side\n"
    "      --fail-if-worse  exit with status 3 when any metric is worse\n"
    "      --seed N         seed of the bootstrap resampling (default 42)\n"
    "      --margin PCT     changes within +-PCT % are no meaningful difference (default 2)\n";

struct compare_opts {
    int json, csv, fail_if_worse;
    struct cmp_config cfg;
};

const struct option cli_compare_options[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", no_argument, NULL, OPT_CSV},
    {"fail-if-worse", no_argument, NULL, OPT_FAIL_IF_WORSE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"margin", required_argument, NULL, OPT_MARGIN},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0}};

/* Returns 1 when --help was printed. */
static int parse_options(int argc, char **argv, struct compare_opts *o, struct err *e)
{
    int opt;
    int64_t seed;
    double margin;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":", cli_compare_options, NULL)) != -1) {
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
        case OPT_HELP:
            fputs(usage, stdout);
            return 1;
        default:
            return args_bad_option("compare", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    if (o->json && o->csv)
        return err_set(e, ERR_INPUT, "compare: --json and --csv are exclusive");
    if (argc - optind < 2)
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

int cli_compare(int argc, char **argv, struct err *e)
{
    struct compare_opts o = defaults;
    int rc = parse_options(argc, argv, &o, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    size_t n = (size_t)(argc - optind), n_read = 0;
    const char *const *paths = (const char *const *)argv + optind;
    struct result *runs = xcalloc(n, sizeof *runs);
    rc = 0;
    while (n_read < n && rc == 0)
        if ((rc = result_read(paths[n_read], &runs[n_read], e)) == 0)
            n_read++;
    struct cmp_report rep;
    if (rc == 0 && (rc = cmp_compare(runs, paths, n, &o.cfg, &rep, e)) == 0) {
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
    return rc;
}
