/* pgarena replay run: a capture replayed as a run. The options are replay's and the run
 * options that apply (taken by run's own option function), into a plan whose workload is
 * "replay"; the run is carried out as run carries out its plans. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/num.h"
#include "cli/args.h"
#include "cli/opts.h"
#include "cli/replay.h"
#include "cli/run_opts.h"

static int add_map(struct replay_map *maps, int *n, const char *opt, const char *arg, struct err *e)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return err_set(e, ERR_INPUT, "invalid value for %s: '%s' (expected FROM=TO)", opt, arg);
    if (*n == REPLAY_MAX_MAPS)
        return err_set(e, ERR_INPUT, "too many %s options (at most %d)", opt, REPLAY_MAX_MAPS);
    maps[*n].from = xstrndup(arg, (size_t)(eq - arg));
    maps[(*n)++].to = eq + 1;
    return 0;
}

void cli_replay_free_maps(struct replay_opts *r)
{
    for (int i = 0; i < r->n_map_db; i++)
        free((char *)r->map_db[i].from);
    for (int i = 0; i < r->n_map_user; i++)
        free((char *)r->map_user[i].from);
    r->n_map_db = r->n_map_user = 0;
}

int cli_replay_option(int opt, const char *arg, struct replay_opts *r, struct err *e)
{
    switch (opt) {
    case OPT_SPEED:
        if (strcmp(arg, "max") == 0) {
            r->speed = 0;
            return 1;
        }
        return num_double("--speed", arg, 0.001, 1000000, &r->speed, e) < 0 ? -1 : 1;
    case OPT_MAP_DB:
        return add_map(r->map_db, &r->n_map_db, "--map-db", arg, e) < 0 ? -1 : 1;
    case OPT_MAP_USER:
        return add_map(r->map_user, &r->n_map_user, "--map-user", arg, e) < 0 ? -1 : 1;
    case OPT_RESET_FROM:
        r->reset_from = arg;
        return 1;
    case OPT_READ_ONLY:
        r->read_only = 1;
        return 1;
    case OPT_FORCE:
        r->force = 1;
        return 1;
    default:
        return 0;
    }
}

/* The whole command line into o: 0, 1 when --help was printed, -1 with e set. */
static int parse(int argc, char **argv, struct cli_run_opts *o, struct err *e)
{
    struct replay_opts *r = &o->plan.replay;
    cli_run_opts_init(o);
    o->workload = "replay";
    r->speed = 1;
    optind = 0;
    opterr = 0;
    int opt;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_REPLAY_RUN, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == OPT_HELP) {
            cli_help(CLI_REPLAY_RUN, stdout);
            return 1;
        }
        int rc = opt == '?' || opt == ':' ? 0 : cli_replay_option(opt, optarg, r, e);
        if (rc == 0 && opt != '?' && opt != ':')
            rc = cli_run_option(opt, optarg, o, e);
        if (rc < 0)
            return -1;
        if (rc != 1)
            return args_bad_option("replay run", argc, argv, optind, optopt, opt == ':', e);
    }
    if (optind >= argc)
        return err_set(e, ERR_INPUT,
                       "replay run: expected a CAPTURE (see pgarena replay run --help)");
    r->capture = argv[optind];
    if (args_positional(argc, argv, optind + 1, &o->plan.conn, "replay run", e) < 0)
        return -1;
    if (o->plan.replay.reset_from && o->local)
        return err_set(e, ERR_INPUT,
                       "replay run: --reset-from needs the template on the target, "
                       "not a fresh --local server");
    return cli_run_opts_check(o, e);
}

int cli_replay_run_parse(int argc, char **argv, struct err *e)
{
    struct cli_run_opts o;
    char fallback[256];
    int rc = parse(argc, argv, &o, e);
    if (rc == 0)
        rc = cli_run_check_output(&o, fallback, sizeof fallback, e);
    cli_replay_free_maps(&o.plan.replay);
    pg_connopts_free(&o.plan.conn);
    return rc < 0 ? -1 : 0;
}

int cli_replay_run(int argc, char **argv, struct err *e)
{
    struct cli_run_opts o;
    char fallback[256];
    int rc = parse(argc, argv, &o, e);
    if (rc == 0)
        rc = cli_run_check_output(&o, fallback, sizeof fallback, e);
    if (rc == 0)
        rc = cli_run_plan(&o, argc + 1, argv - 1, 0, e); /* from "replay": the command line */
    else if (rc > 0)
        rc = 0;
    cli_replay_free_maps(&o.plan.replay);
    pg_connopts_free(&o.plan.conn);
    return rc;
}
