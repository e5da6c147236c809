/* The sweep command's options: its axes and setups, and run's options passed through. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "cli/args.h"
#include "cli/opts.h"
#include "cli/run_opts.h"
#include "compare/sweep_figs.h"
#include "sweep/sweep.h"
#include "capture/capture.h"
#include "local/local.h"

static int int_list(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t **out,
                    size_t *n, struct err *e)
{
    double *v;
    if (sweep_parse_list(opt, text, 1, (double)lo, (double)hi, &v, n, e) < 0)
        return -1;
    free(*out);
    *out = xmalloc(*n * sizeof **out);
    for (size_t i = 0; i < *n; i++)
        (*out)[i] = (int64_t)v[i];
    free(v);
    return 0;
}

static int add_setup(struct sweep_opts *o, const char *arg, struct err *e)
{
    struct sweep_doc *d = &o->plan;
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return err_set(e, ERR_INPUT, "invalid value for --setup: '%s' (expected LABEL=CONN)", arg);
    if (d->n_setups == SWEEP_MAX_SETUPS)
        return err_set(e, ERR_INPUT, "sweep: at most %d setups", SWEEP_MAX_SETUPS);
    char *label = xstrndup(arg, (size_t)(eq - arg));
    for (size_t i = 0; i < d->n_setups; i++)
        if (strcmp(d->setups[i].label, label) == 0) {
            err_set(e, ERR_INPUT, "sweep: two setups are labelled '%s'", label);
            free(label);
            return -1;
        }
    d->setups = xrealloc(d->setups, (d->n_setups + 1) * sizeof *d->setups);
    d->setups[d->n_setups] = (struct sweep_setup){label, args_mask_password(eq + 1)};
    o->setup_conn[d->n_setups++] = eq + 1;
    return 0;
}

static int add_set(struct sweep_opts *o, const char *arg, struct err *e)
{
    struct sweep_doc *d = &o->plan;
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1] || eq[strlen(eq) - 1] == ',' || strstr(eq, ",,") || eq[1] == ',')
        return err_set(e, ERR_INPUT, "invalid value for --set: '%s' (expected NAME=V1,V2...)", arg);
    for (const char *p = arg; p < eq; p++)
        if (!(*p == '_' || *p == '.' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9')))
            return err_set(e, ERR_INPUT, "invalid value for --set: '%s' (not a setting name)", arg);
    struct sweep_set_axis a = {xstrndup(arg, (size_t)(eq - arg)), 0, NULL};
    for (const char *p = eq + 1; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        const char *comma = strchr(p, ',');
        a.values = xrealloc(a.values, (a.n + 1) * sizeof *a.values);
        a.values[a.n++] = comma ? xstrndup(p, (size_t)(comma - p)) : xstrdup(p);
    }
    d->sets = xrealloc(d->sets, (d->n_sets + 1) * sizeof *d->sets);
    d->sets[d->n_sets++] = a;
    if (a.n < 2)
        return err_set(e, ERR_INPUT,
                       "sweep: --set %s has one value; a setting axis needs two or more to compare",
                       a.name);
    for (size_t i = 0; i + 1 < d->n_sets; i++)
        if (strcmp(d->sets[i].name, a.name) == 0)
            return err_set(e, ERR_INPUT, "sweep: --set %s is given twice", a.name);
    return 0;
}

/* The sweep axis called name that a workload declares, or NULL. */
static const struct workload_sweep_axis *declared_axis(const char *name)
{
    for (const struct workload *const *w = workload_all(); *w; w++)
        if ((*w)->sweep_axis && strcmp((*w)->sweep_axis->name, name) == 0)
            return (*w)->sweep_axis;
    return NULL;
}

/* A replay sweep's options as given (--replay CAPTURE and the replay's own): the capture goes
 * into the base plan as the workload's option, so the sweep holds none of them. */
struct replay_given {
    const char *capture, *reset_from;
    int opts_given; /* --map-db, --map-user, --session-set, --reset-from or --read-only */
};

/* sweep's own options; 1 when opt was one, -1 on a bad value. */
static int own_option(struct sweep_opts *o, struct replay_given *rp, int opt, const char *arg,
                      struct err *e)
{
    struct sweep_doc *d = &o->plan;
    int64_t v;
    double *rates;
    switch (opt) {
    case OPT_SETUP:
        return add_setup(o, arg, e) < 0 ? -1 : 1;
    case OPT_SET:
        return add_set(o, arg, e) < 0 ? -1 : 1;
    case OPT_TRIALS:
        if (num_int("--trials", arg, 1, 1000, &v, e) < 0)
            return -1;
        d->trials = (int)v;
        return 1;
    case OPT_FORCE:
        o->force = 1;
        return 1;
    case OPT_INIT:
        o->init = 1;
        return 1;
    case OPT_MAX_RATE:
        o->max_rate = 1;
        return 1;
    case OPT_DUET:
        o->duet = d->duet = 1;
        return 1;
    case OPT_SLO:
        return sweep_parse_slo(arg, &o->slo, e) < 0 ? -1 : 1;
    case OPT_JSON:
        o->json = 1;
        return 1;
    case OPT_SWEEP_COMPARE:
        free(d->compare_axis);
        d->compare_axis = xstrdup(arg);
        return 1;
    case 'c':
        /* 0: -w ch's analytic streams alone (the power test), checked as run checks -c 0 */
        return int_list("-c", arg, 0, 100000, &d->clients, &d->n_clients, e) < 0 ? -1 : 1;
    case 's':
        return int_list("-s", arg, 1, 1000000, &d->scales, &d->n_scales, e) < 0 ? -1 : 1;
    case 'R':
        if (sweep_parse_list("-R", arg, 0, 0.001, 1e9, &rates, &d->n_rates, e) < 0)
            return -1;
        free(d->rates);
        d->rates = rates;
        return 1;
    case 'j':
        return num_int("-j", arg, 1, 1024, &o->jobs, e) < 0 ? -1 : 1;
    case 'o':
        o->dir = arg;
        return 1;
    case 'q':
        o->quiet = 1;
        return 1;
    case OPT_LABEL:
        o->label = arg;
        return 1;
    case OPT_LOCAL:
        o->local = 1;
        return local_available(e) < 0 ? -1 : 1;
    case OPT_STORE:
        o->store = arg;
        return 1;
    case OPT_NO_STATEMENTS:
        o->no_statements = 1;
        return 1;
    case OPT_REPLAY:
        rp->capture = arg;
        return 1;
    case OPT_SPEED:
        free(d->speeds);
        return sweep_parse_axis(declared_axis("speed"), arg, &d->speeds, &d->n_speeds, e) < 0 ? -1
                                                                                              : 1;
    case OPT_RESET_FROM:
        rp->reset_from = arg;
        /* fall through */
    case OPT_MAP_DB:
    case OPT_MAP_USER:
    case OPT_SESSION_SET:
    case OPT_READ_ONLY:
        rp->opts_given = 1;
        return 0; /* the workload's options: into the base plan as run takes them */
    default:
        return 0;
    }
}

/* The run options a replay sweep's cells take (as replay run does); any other is refused. */
static int replay_run_option(int opt)
{
    static const int ok[] = {OPT_WARMUP,    OPT_TIMEOUT,
                             OPT_SAMPLE_MS, OPT_NO_SAMPLING,
                             OPT_META,      'h',
                             'p',           'U',
                             'P',           OPT_MAP_DB,
                             OPT_MAP_USER,  OPT_RESET_FROM,
                             OPT_READ_ONLY, OPT_SESSION_SET};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (ok[i] == opt)
            return 1;
    return 0;
}

/* The name of run option opt, for a refusal. */
static void option_name(int opt, char *buf, size_t size)
{
    for (const struct option *o = cli_getopt_table(CLI_RUN, NULL); o->name; o++)
        if (o->val == opt) {
            snprintf(buf, size, "--%s", o->name);
            return;
        }
    snprintf(buf, size, "-%c", opt > 32 && opt < 127 ? opt : '?');
}

/* --replay: the sweep's axes that a replay has not, and the replay's defaults. */
static int check_replay(struct sweep_opts *o, const struct replay_given *rp, int bad_run_opt,
                        struct err *e)
{
    struct sweep_doc *d = &o->plan;
    if (!rp->capture) {
        if (d->n_speeds || rp->opts_given)
            return err_set(
                e, ERR_INPUT,
                "sweep: --speed, --map-db, --map-user, --session-set, --reset-from and --read-only "
                "are for --replay CAPTURE");
        return 0;
    }
    if (d->n_clients || d->n_rates || d->n_scales || o->init || o->max_rate)
        return err_set(e, ERR_INPUT,
                       "sweep: --replay takes its clients and pace from the capture (no -c, -R, "
                       "-s, --init or --max-rate; --speed LIST varies the pace)");
    if (bad_run_opt) {
        char name[64];
        option_name(bad_run_opt, name, sizeof name);
        return err_set(e, ERR_INPUT,
                       "sweep: --replay takes no %s (a replay's run options: -j, -P, --warmup, "
                       "--timeout, --sample-ms, --no-sampling, --meta, -h, -p, -U)",
                       name);
    }
    if (rp->reset_from && o->local)
        return err_set(e, ERR_INPUT,
                       "sweep: --reset-from needs the template on the target, not a fresh "
                       "--local server");
    if (!d->n_speeds) {
        d->speeds = xmalloc(sizeof *d->speeds);
        d->speeds[0] = 1;
        d->n_speeds = 1;
    }
    return 0;
}

/* run's options that make no sense in a sweep: one line each. */
static int refused(int opt, const char *arg, struct err *e)
{
    switch (opt) {
    case OPT_REPORT:
        return err_set(e, ERR_INPUT,
                       "sweep: --report is not a sweep option (use pgarena report "
                       "DIR after the sweep)");
    case OPT_SHOW_SCRIPT:
        return err_set(e, ERR_INPUT, "sweep: -b list and --show-script are for pgarena run");
    case 'b':
        if (strcmp(arg, "list") == 0)
            return err_set(e, ERR_INPUT, "sweep: -b list and --show-script are for pgarena run");
        return 0;
    case OPT_AGENTS:
    case OPT_AGENT_INDEX:
    case OPT_RUN_ID:
    case OPT_COORD:
    case OPT_MERGED:
    case OPT_AGENT_WAIT:
        return err_set(e, ERR_INPUT,
                       "sweep: --agents and its options are for pgarena run (a sweep runs "
                       "in one process)");
    default:
        return 0;
    }
}

static int check_options(struct sweep_opts *o, const struct replay_given *rp, int bad_run_opt,
                         struct err *e)
{
    struct sweep_doc *d = &o->plan;
    if (!o->dir)
        return err_set(e, ERR_INPUT, "sweep: -o DIR is required");
#ifdef _WIN32
    if (o->duet)
        return err_set(e, ERR_INPUT,
                       "sweep: --duet is not available on Windows (its two halves are "
                       "child processes)");
#endif
    if (o->duet && o->max_rate)
        return err_set(e, ERR_INPUT, "sweep: --duet compares two setups; it takes no --max-rate");
    if (o->duet && d->n_sets)
        return err_set(e, ERR_INPUT,
                       "sweep: --duet compares two setups; it takes no --set (each setup's "
                       "server keeps its settings)");
    if (check_replay(o, rp, bad_run_opt, e) < 0)
        return -1;
    if (o->max_rate && !o->slo.text)
        return err_set(e, ERR_INPUT, "sweep: --max-rate needs --slo, e.g. --slo 'p99<=5ms'");
    if (o->slo.text && !o->max_rate)
        return err_set(e, ERR_INPUT, "sweep: --slo is for --max-rate");
    if (o->max_rate && d->n_clients && d->clients[0] == 0)
        return err_set(e, ERR_INPUT,
                       "sweep: --max-rate paces the -c clients; -c 0 has none (the analytic "
                       "streams run closed loop)");
    if (o->max_rate &&
        (d->n_rates || d->n_clients > 1 || d->n_sets || d->n_scales > 1 || d->n_setups > 1))
        return err_set(e, ERR_INPUT,
                       "sweep: --max-rate searches the rate for one setup, one -c "
                       "and one -s (no -R, --set or several --setup)");
    if (d->n_scales > 1 && !o->init && !o->local)
        return err_set(e, ERR_INPUT, "sweep: several scales (-s) need --init to load each");
    if (d->n_setups && (o->conn || o->local || o->label))
        return err_set(e, ERR_INPUT,
                       "sweep: with --setup, give each setup's connection there "
                       "(no CONN, --local or --label)");
    if (!d->n_setups) {
        d->setups = xcalloc(1, sizeof *d->setups);
        d->setups[0] = (struct sweep_setup){xstrdup(o->label ? o->label : "default"),
                                            args_mask_password(o->conn ? o->conn : "")};
        d->n_setups = 1;
    }
    if (o->duet && d->n_setups != 2)
        return err_set(e, ERR_INPUT,
                       "sweep: --duet runs exactly two setups at the same time (--setup A=CONN "
                       "--setup B=CONN); %zu given",
                       d->n_setups);
    if (!d->n_clients && !rp->capture) {
        d->clients = xmalloc(sizeof *d->clients);
        d->clients[0] = 1;
        d->n_clients = 1;
    }
    if (!d->trials) /* a capacity search confirms its answer with three trials by default */
        d->trials = o->max_rate ? 3 : 1;
    if (o->no_statements && !o->local)
        return err_set(e, ERR_INPUT, "sweep: --no-statements is for --local");
    if (d->compare_axis && o->max_rate)
        return err_set(e, ERR_INPUT, "sweep: --compare is for matrices, not --max-rate");
    if (d->compare_axis && sweep_compare_check(d, d->compare_axis, e) < 0)
        return -1;
    return 0;
}

int sweep_parse(int argc, char **argv, struct sweep_opts *o, struct err *e)
{
    const char *shortopts;
    const struct option *all = cli_getopt_table(CLI_SWEEP, &shortopts);
    struct cli_run_opts run;
    cli_run_opts_init(&run);
    struct replay_given rp = {0};
    int opt, rc = 0, bad_run_opt = 0;
    opterr = 0;
    optind = 0;
    while (rc == 0 && (opt = getopt_long(argc, argv, shortopts, all, NULL)) != -1) {
        if (opt == '?' || opt == ':') {
            rc = args_bad_option("sweep", argc, argv, optind, optopt, opt == ':', e);
            break;
        }
        if (opt == OPT_HELP) {
            cli_help(CLI_SWEEP, stdout);
            pg_connopts_free(&run.plan.conn);
            return 1;
        }
        int own = own_option(o, &rp, opt, optarg, e);
        if (own == 0)
            own = refused(opt, optarg, e);
        if (own == 0) {
            own = cli_run_option(opt, optarg, &run, e);
            if (own == 0)
                own = args_bad_option("sweep", argc, argv, optind, optopt, 0, e);
            else if (!bad_run_opt && !replay_run_option(opt))
                bad_run_opt = opt; /* refused if this is a replay sweep */
        }
        if (own < 0)
            rc = -1;
    }
    o->run = run.plan; /* sweep_opts_free frees its conn */
    if (rc < 0)
        return -1;
    if (optind < argc - 1)
        return err_set(e, ERR_INPUT, "sweep: unexpected argument '%s'", argv[optind + 1]);
    if (optind == argc - 1)
        o->conn = argv[optind];
    if (check_options(o, &rp, bad_run_opt, e) < 0)
        return -1;
    if (rp.capture) { /* each cell's plan is a replay run's */
        run.workload = "replay";
        if (bench_plan_add_option(&run.plan, "capture", rp.capture, e) < 0)
            return -1;
    }
    /* The cells' plans are the base plan with their axes: it is checked as run checks its
     * options, with the first scale. */
    run.plan.scale = o->plan.n_scales ? o->plan.scales[0] : 0;
    for (size_t i = 0; i < o->plan.n_clients; i++)
        if (o->plan.clients[i] == 0) /* -c 0 runs only with -w ch --analytic-clients N */
            run.plan.clients = 0;
    rc = cli_run_opts_check(&run, e);
    o->run = run.plan;
    if (rc == 0 && run.plan.workload->paced_by_input && !rp.capture)
        return err_set(e, ERR_INPUT,
                       "sweep: -w %s is swept with --replay CAPTURE (its cells vary "
                       "--speed)",
                       run.plan.workload->name);
    if (rc == 0 && rp.capture) { /* a capture that cannot be read: before any cell */
        struct capture_reader *r = capture_reader_open(rp.capture, e);
        if (!r)
            return -1;
        capture_reader_close(r);
    }
    return rc;
}

void sweep_opts_free(struct sweep_opts *o)
{
    pg_connopts_free(&o->run.conn);
    sweep_doc_free(&o->plan);
}
