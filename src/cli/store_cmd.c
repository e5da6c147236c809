/* pgarena store RESULT.json... --into CONN; and the store run --store and sweep --store use. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/mem.h"

#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "cli/store_cmd.h"
#include "history/history.h"
#include "history/store.h"
#include "history/store_live.h"

struct store_opts {
    const char *into;
    int first, n;
};

static int parse_options(int argc, char **argv, struct store_opts *o, struct err *e)
{
    int opt;
    *o = (struct store_opts){0};
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_STORE, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_INTO:
            o->into = optarg;
            break;
        case OPT_HELP:
            cli_help(CLI_STORE, stdout);
            return 1;
        default:
            return args_bad_option("store", argc, argv, optind, optopt, opt == ':', e);
        }
    }
    o->first = optind;
    o->n = argc - optind;
    if (!o->into)
        return err_set(e, ERR_INPUT, "store: --into CONN is required");
    if (o->n < 1)
        return err_set(e, ERR_INPUT, "store: expected one result file or more");
    return 0;
}

int cli_store_parse(int argc, char **argv, struct err *e)
{
    struct store_opts o;
    return parse_options(argc, argv, &o, e) < 0 ? -1 : 0;
}

/* A file, or every result file under a directory. Counts what was inserted and what was
 * there already. */
static int store_path(struct store *s, const char *path, int *added, int *had, struct err *e)
{
    struct result *runs;
    char **paths;
    size_t n;
    int rc = 0;
    if (!history_is_dir(path)) {
        rc = store_file(s, path, e);
        if (rc >= 0)
            *(rc ? added : had) += 1;
        return rc < 0 ? -1 : 0;
    }
    if (history_load_dir(path, &runs, &paths, &n, e) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (rc >= 0) {
            rc = store_file(s, paths[i], e);
            if (rc >= 0)
                *(rc ? added : had) += 1;
        }
        result_free(&runs[i]);
        free(paths[i]);
    }
    free(runs);
    free(paths);
    return rc < 0 ? -1 : 0;
}

int cli_store_files(const char *conn, const char *const *paths, size_t n, int quiet, struct err *e)
{
    struct store *s = store_open(conn, 1, e);
    if (!s)
        return -1;
    int added = 0, had = 0, rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = store_path(s, paths[i], &added, &had, e);
    store_close(s);
    if (rc == 0 && !quiet)
        printf("stored:              %d run%s (%d already there)\n", added, added == 1 ? "" : "s",
               had);
    return rc;
}

static void live_warn(const char *line, void *arg)
{
    const struct cli_store_live *l = arg;
    char *text = xasprintf("pgarena: %s\n", line);
    l->warning(text, l->warning_arg);
    free(text);
}

static void *live_begun(const struct result *header, void *arg)
{
    struct cli_store_live *l = arg;
    return store_live_start(l->conn, header, live_warn, l);
}

static void live_interval(void *run, const struct result_interval *it)
{
    store_live_push(run, it);
}

static void live_ended(void *run, int ran)
{
    store_live_finish(run, !ran);
}

struct bench_live cli_store_live(struct cli_store_live *l)
{
    return (struct bench_live){live_begun, live_interval, live_ended, l};
}

int cli_store(int argc, char **argv, struct err *e)
{
    struct store_opts o;
    int rc = parse_options(argc, argv, &o, e);
    if (rc != 0)
        return rc > 0 ? 0 : -1;
    return cli_store_files(o.into, (const char *const *)&argv[o.first], (size_t)o.n, 0, e);
}
