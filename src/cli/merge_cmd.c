#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "os/os.h"
#include "report/text.h"
#include "result/merge.h"
#include "result/result.h"

struct merge_opts {
    const char *output;
    int force;
    int first, n; /* argv[first .. first + n): the files */
};

/* 1 when --help was printed, -1 with e set. */
static int parse_options(int argc, char **argv, struct merge_opts *o, struct err *e)
{
    int opt;
    *o = (struct merge_opts){0};
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_MERGE, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (opt) {
        case 'o':
            o->output = optarg;
            break;
        case OPT_FORCE:
            o->force = 1;
            break;
        case OPT_HELP:
            cli_help(CLI_MERGE, stdout);
            return 1;
        default:
            return args_bad_option("merge", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    o->first = optind;
    o->n = argc - optind;
    if (o->n < 2)
        return err_set(e, ERR_INPUT,
                       "merge: expected two result files or more (see pgarena "
                       "merge --help)");
    if (!o->output)
        return err_set(e, ERR_INPUT, "merge: -o ALL.json is required");
    struct stat st;
    if (!o->force && os_stat(o->output, &st) == 0)
        return err_set(e, ERR_INPUT, "merge: %s exists (--force overwrites it)", o->output);
    return 0;
}

int cli_merge_parse(int argc, char **argv, struct err *e)
{
    struct merge_opts o;
    return parse_options(argc, argv, &o, e) < 0 ? -1 : 0;
}

int cli_merge(int argc, char **argv, struct err *e)
{
    struct merge_opts o;
    int rc = parse_options(argc, argv, &o, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    struct result *in = xcalloc((size_t)o.n, sizeof *in);
    const char *const *names = (const char *const *)&argv[o.first];
    int n_read = 0;
    rc = 0;
    for (; n_read < o.n && rc == 0; n_read++)
        rc = result_read(names[n_read], &in[n_read], e);
    struct result out;
    if (rc == 0)
        rc = result_merge(in, names, (size_t)o.n, o.force, &out, e);
    for (int i = 0; i < n_read; i++)
        result_free(&in[i]);
    free(in);
    if (rc < 0)
        return -1;
    rc = result_write(&out, o.output, e);
    if (rc == 0) {
        report_text_summary(stdout, &out);
        printf("result:              %s\n", o.output);
    }
    result_free(&out);
    return rc;
}
