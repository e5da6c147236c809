/* pgarena calibrate: how noisy is this machine for this benchmark? An A/A of the given workload
 * run two ways, K sequential trials per side and a duet of the same wall time, each as a sweep
 * of two setups on the same server; then the machine's steal and stall rates, the spreads, the
 * A/A verdicts, and the smallest change each design would detect (compare/calibrate.h). */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "base/num.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "cli/session.h"
#include "cli/sweep_cmd.h"
#include "compare/calibrate.h"
#include "compare/compare.h"
#include "compare/duet.h"
#include "local/local.h"
#include "result/result.h"

#define CALIB_TRIALS  5   /* sequential trials per side, by default */
#define CALIB_SECONDS 5   /* of each, by default */
#define CALIB_MAX_K   100 /* the most trials per side the advice names */
#define CALIB_MAX_T   3600

struct calib_opts {
    int trials;
    double seconds;
    const char *out; /* -o FILE: the JSON written there */
    int json, quiet;
    int argc; /* the options passed to the sweeps, as "--name" [value] */
    char **argv;
};

/* What one of the two sweeps measured. */
struct calib_side {
    size_t n_runs;
    struct result *runs;
    char **paths;
    int *group; /* the setup: 0 A, 1 A' */
};

struct calib_figures {
    uint64_t intervals, stalled;
    double stalled_ms, steal_ms, steal_of_ms;
    /* sequential */
    double seq_sd, seq_df, seq_tps;
    struct cmp_metric seq_tps_verdict;
    int have_seq_verdict;
    /* duet */
    struct cmp_metric duet_tps;
    struct duet_ci duet_ci;
    double duet_sigma, duet_pair_sd;
    int have_duet;
};

static void push(struct calib_opts *c, const char *s)
{
    c->argv = xrealloc(c->argv, (size_t)(c->argc + 2) * sizeof *c->argv);
    c->argv[c->argc++] = xstrdup(s);
    c->argv[c->argc] = NULL;
}

/* The option that getopt_long returned as val: its long name. */
static const char *long_name(int val)
{
    for (size_t i = 0; i < cli_n_opt_defs; i++)
        if (!cli_opt_defs[i].alias && cli_opt_val(&cli_opt_defs[i]) == val)
            return cli_opt_defs[i].name;
    return NULL;
}

/* calibrate's own options; the run options go on to the sweeps as they were given. 1 --help. */
static int parse(int argc, char **argv, struct calib_opts *c, struct err *e)
{
    const char *shortopts;
    const struct option *table = cli_getopt_table(CLI_CALIBRATE, &shortopts);
    int64_t v;
    double d;
    c->trials = CALIB_TRIALS;
    c->seconds = CALIB_SECONDS;
    push(c, "calibrate");
    optind = 1;
    opterr = 0;
    for (int opt; (opt = getopt_long(argc, argv, shortopts, table, NULL)) != -1;) {
        switch (opt) {
        case OPT_HELP:
            cli_help(CLI_CALIBRATE, stdout);
            return 1;
        case OPT_TRIALS:
            if (num_int("--trials", optarg, 2, CALIB_MAX_K, &v, e) < 0)
                return -1;
            c->trials = (int)v;
            continue;
        case 'T':
            if (num_double("-T", optarg, 1, CALIB_MAX_T, &d, e) < 0)
                return -1;
            c->seconds = d;
            continue;
        case 'o':
            c->out = optarg;
            continue;
        case OPT_JSON:
            c->json = 1;
            continue;
        case 'q':
            c->quiet = 1;
            break;
        case 't':
            return err_set(e, ERR_INPUT,
                           "calibrate: -T SECONDS, not -t (a duet's halves run for one time)");
        case '?':
        case ':':
            return args_bad_option("calibrate", argc, argv, optind, optopt, opt == ':', e);
        default:
            break;
        }
        const char *name = long_name(opt);
        if (!name)
            return err_set(e, ERR_INPUT, "calibrate: unknown option");
        char *flag = xasprintf("--%s", name);
        push(c, flag);
        free(flag);
        if (optarg)
            push(c, optarg);
    }
    for (int i = optind; i < argc; i++)
        push(c, argv[i]);
    return 0;
}

/* A sweep's message as calibrate's: "sweep: " becomes "calibrate: ". */
static int as_calibrate(struct err *e)
{
    if (strncmp(e->msg, "sweep: ", 7) == 0) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "calibrate: %s", e->msg + 7);
        snprintf(e->msg, sizeof e->msg, "%s", msg);
    }
    return -1;
}

/* One of the two sweeps: the run options, trials of `seconds`, in dir; duet or one after the
 * other. Its complete cells' results are read into *side. 0, 1 interrupted, -1 with e. */
static int sweep_aa(const struct calib_opts *c, const char *dir, int duet, int trials,
                    double seconds, struct calib_side *side, struct err *e)
{
    char t[32], k[32];
    snprintf(t, sizeof t, "%g", seconds);
    snprintf(k, sizeof k, "%d", trials);
    char **av = xcalloc((size_t)c->argc + 10, sizeof *av);
    int n = 0;
    for (int i = 0; i < c->argc; i++)
        av[n++] = c->argv[i];
    av[n++] = "-T";
    av[n++] = t;
    av[n++] = "--trials";
    av[n++] = k;
    av[n++] = "-o";
    av[n++] = (char *)dir;
    if (c->quiet)
        av[n++] = "-q";
    struct sweep_opts o;
    memset(&o, 0, sizeof o);
    int rc = sweep_parse(n, av, &o, e);
    free(av);
    if (rc != 0) {
        sweep_opts_free(&o);
        return as_calibrate(e);
    }
    struct sweep_doc *d = &o.plan;
    if (d->n_clients > 1 || d->n_rates > 1 || d->n_scales > 1) {
        sweep_opts_free(&o);
        return err_set(e, ERR_INPUT,
                       "calibrate: one -c, one -R and one -s (an A/A of one design point)");
    }
    /* The A/A: the one setup twice, A and A', on the same connection. */
    free(d->setups[0].label);
    d->setups[0].label = xstrdup("A");
    d->setups = xrealloc(d->setups, 2 * sizeof *d->setups);
    d->setups[1] = (struct sweep_setup){xstrdup("A'"), xstrdup(d->setups[0].conn)};
    d->n_setups = 2;
    o.setup_conn[1] = o.setup_conn[0];
    o.duet = d->duet = duet;
    char *command = xasprintf("pgarena calibrate (%s)", duet ? "duet" : "sequential");
    struct sweep_doc done;
    rc = sweep_command_execute(&o, command, 0, &done, e);
    sweep_opts_free(&o);
    if (rc < 0)
        return as_calibrate(e);
    side->runs = xcalloc(done.n_cells + 1, sizeof *side->runs);
    side->paths = xcalloc(done.n_cells + 1, sizeof *side->paths);
    side->group = xcalloc(done.n_cells + 1, sizeof *side->group);
    for (size_t i = 0; i < done.n_cells; i++) {
        const struct sweep_cell *cell = &done.cells[i];
        if (cell->status != SWEEP_COMPLETE)
            continue;
        char *path = xasprintf("%s/%s", dir, cell->file);
        struct err re = {0};
        if (result_read(path, &side->runs[side->n_runs], &re) < 0) {
            fprintf(stderr, "pgarena: calibrate: %s\n", re.msg);
            free(path);
            continue;
        }
        side->paths[side->n_runs] = path;
        side->group[side->n_runs++] = (int)cell->setup;
    }
    sweep_doc_free(&done);
    return rc;
}

static void side_free(struct calib_side *s)
{
    for (size_t i = 0; i < s->n_runs; i++) {
        result_free(&s->runs[i]);
        free(s->paths[i]);
    }
    free(s->runs);
    free(s->paths);
    free(s->group);
}

/* The machine: every run's client health added up. */
static void add_health(struct calib_figures *f, const struct calib_side *s)
{
    for (size_t i = 0; i < s->n_runs; i++) {
        const struct result_client_health *h = &s->runs[i].client_health;
        if (!h->present)
            continue;
        f->intervals += h->intervals;
        f->stalled += h->intervals_stalled;
        f->stalled_ms += h->stalled_ms;
        f->steal_ms += h->steal_ms;
        f->steal_of_ms += h->steal_of_ms;
    }
}

/* Sequential: the trial-to-trial spread of log tps within A and within A', and compare's
 * verdict on the A/A. */
static void sequential(struct calib_figures *f, const struct calib_side *s)
{
    double *tps = xcalloc(s->n_runs + 1, sizeof *tps), sum = 0;
    for (size_t i = 0; i < s->n_runs; i++)
        sum += tps[i] = s->runs[i].summary.tps;
    f->seq_tps = s->n_runs ? sum / (double)s->n_runs : NAN;
    f->seq_sd = calib_pooled_log_sd(tps, s->group, s->n_runs, 2, &f->seq_df);
    free(tps);
    const char **names = xcalloc(s->n_runs + 1, sizeof *names);
    for (size_t i = 0; i < s->n_runs; i++)
        names[i] = s->group[i] ? "A'" : "A";
    struct cmp_config cfg = {CMP_DEFAULT_SEED, CMP_DEFAULT_MARGIN, CMP_RESAMPLES};
    struct cmp_report rep;
    struct err e = {0};
    if (cmp_compare_named(s->runs, (const char *const *)s->paths, names, s->n_runs, &cfg, &rep,
                          &e) == 0) {
        if (rep.n_outcomes)
            f->seq_tps_verdict = rep.outcomes[0].metrics[CMP_TPS];
        f->have_seq_verdict = rep.n_outcomes > 0;
        cmp_report_free(&rep);
    }
    free(names);
}

/* The duet: its trials paired (A's half against A''s, whatever role each had), tps judged by
 * the paired method; the per-second spread and its long-run deviation (what a duet of any
 * length would see: the standard error times the square root of the paired seconds). */
static void duet(struct calib_figures *f, const struct calib_side *s)
{
    size_t nt = 0;
    struct duet_run *a = xcalloc(s->n_runs + 1, sizeof *a), *b = xcalloc(s->n_runs + 1, sizeof *b);
    for (size_t i = 0; i < s->n_runs; i++) {
        if (s->group[i] != 0)
            continue;
        for (size_t k = 0; k < s->n_runs; k++) {
            if (s->group[k] != 1 || !duet_partners(&s->runs[i], &s->runs[k]))
                continue;
            struct err e = {0};
            if (duet_prepare(&a[nt], &s->runs[i], s->paths[i], &e) < 0)
                break;
            if (duet_prepare(&b[nt], &s->runs[k], s->paths[k], &e) < 0) {
                duet_run_free(&a[nt]);
                break;
            }
            nt++;
            break;
        }
    }
    if (nt) {
        struct cmp_metric m[CMP_N_METRICS];
        duet_compare(a, b, nt, CMP_DEFAULT_MARGIN, m, &f->duet_ci);
        f->duet_tps = m[CMP_TPS];
        f->have_duet = f->duet_ci.n_pairs > 0;
        f->duet_sigma = f->duet_ci.se * sqrt(f->duet_ci.seconds);
        /* the plain per-second spread, for comparison with the long-run one */
        double sum = 0, sum2 = 0;
        size_t n = 0;
        for (size_t j = 0; j < nt; j++) {
            size_t len = a[j].run.n < b[j].run.n ? a[j].run.n : b[j].run.n;
            double *d = xcalloc(len + 1, sizeof *d);
            struct duet_trial t = {.n = len, .tps_a = a[j].run.tps, .tps_b = b[j].run.tps};
            size_t np = duet_pairs(&t, CMP_TPS, d);
            for (size_t i = 0; i < np; i++) {
                sum += d[i];
                sum2 += d[i] * d[i];
            }
            n += np;
            free(d);
        }
        f->duet_pair_sd = n > 1 ? sqrt((sum2 - sum * sum / (double)n) / (double)(n - 1)) : NAN;
    }
    for (size_t j = 0; j < nt; j++) {
        duet_run_free(&a[j]);
        duet_run_free(&b[j]);
    }
    free(a);
    free(b);
}

/* The smallest change a duet of t paired seconds detects, with the duet's length rule
 * (docs/compare-method.md §3.8): under DUET_MIN_PAIRS none (NaN), under DUET_SHORT_PAIRS
 * nothing inside +-DUET_LARGE. */
static double duet_detectable(double sigma, double t)
{
    if (t < DUET_MIN_PAIRS)
        return NAN;
    double df = (double)duet_batches(2 * (size_t)t, 2) - 1; /* tps by half-second */
    double d = calib_duet_detectable(sigma, t, df, CMP_DEFAULT_MARGIN);
    return t < DUET_SHORT_PAIRS && d < DUET_LARGE ? DUET_LARGE : d;
}

/* The paired seconds a duet needs for change (0: more than CALIB_MAX_T). */
static double duet_seconds_for(double sigma, double change)
{
    for (double t = DUET_MIN_PAIRS; t <= CALIB_MAX_T; t++)
        if (duet_detectable(sigma, t) <= change)
            return t;
    return 0;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *verdict_json(const struct cmp_metric *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "change_pct", num_or_null(m->change_pct));
    json_object_set_new(o, "ci_low", num_or_null(m->ci_low_pct));
    json_object_set_new(o, "ci_high", num_or_null(m->ci_high_pct));
    json_object_set_new(o, "verdict", json_string(cmp_verdict_names[m->verdict]));
    return o;
}

static json_t *figures_json(const struct calib_opts *c, const struct calib_figures *f)
{
    double duet_s = 2.0 * c->trials * c->seconds; /* the sequential design's wall time */
    json_t *o = json_object(), *m = json_object(), *q = json_object(), *d = json_object();
    json_object_set_new(o, "format", json_string("pgarena-calibrate"));
    json_object_set_new(o, "trials", json_integer(c->trials));
    json_object_set_new(o, "seconds", json_real(c->seconds));
    json_object_set_new(o, "margin_pct", json_real(100 * CMP_DEFAULT_MARGIN));
    json_object_set_new(m, "intervals", json_integer((json_int_t)f->intervals));
    json_object_set_new(m, "intervals_stalled", json_integer((json_int_t)f->stalled));
    json_object_set_new(m, "stalled_ms", json_real(f->stalled_ms));
    json_object_set_new(m, "steal_share",
                        num_or_null(f->steal_of_ms > 0 ? f->steal_ms / f->steal_of_ms : NAN));
    json_object_set_new(o, "machine", m);
    json_object_set_new(q, "tps", num_or_null(f->seq_tps));
    json_object_set_new(q, "spread_pct", num_or_null(100 * expm1(f->seq_sd)));
    if (f->have_seq_verdict)
        json_object_set_new(q, "aa", verdict_json(&f->seq_tps_verdict));
    json_object_set_new(
        q, "detectable_pct",
        num_or_null(100 * calib_seq_detectable(f->seq_sd, c->trials, CMP_DEFAULT_MARGIN)));
    int k5 = calib_seq_trials_for(f->seq_sd, 0.05, CMP_DEFAULT_MARGIN, CALIB_MAX_K);
    json_object_set_new(q, "trials_for_5pct", k5 ? json_integer(k5) : json_null());
    json_object_set_new(o, "sequential", q);
    if (f->have_duet) {
        double ps = f->duet_ci.seconds;
        json_object_set_new(d, "paired_seconds",
                            ps == floor(ps) ? json_integer((json_int_t)ps) : json_real(ps));
        json_object_set_new(d, "spread_per_second_pct", num_or_null(100 * expm1(f->duet_pair_sd)));
        json_object_set_new(d, "long_run_sd_pct", num_or_null(100 * expm1(f->duet_sigma)));
        json_object_set_new(d, "aa", verdict_json(&f->duet_tps));
        json_object_set_new(d, "detectable_pct_at_T",
                            num_or_null(100 * duet_detectable(f->duet_sigma, c->seconds)));
        json_object_set_new(d, "detectable_pct_same_time",
                            num_or_null(100 * duet_detectable(f->duet_sigma, duet_s)));
        double t5 = duet_seconds_for(f->duet_sigma, 0.05);
        json_object_set_new(d, "seconds_for_5pct", t5 > 0 ? json_real(t5) : json_null());
    }
    json_object_set_new(o, "duet", f->have_duet ? d : (json_decref(d), json_null()));
    return o;
}

static double get(const json_t *o, const char *path)
{
    char key[64];
    const char *dot;
    while ((dot = strchr(path, '.'))) {
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        o = json_object_get(o, key);
        path = dot + 1;
    }
    const json_t *v = json_object_get(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void print_verdict(FILE *f, const json_t *aa)
{
    fprintf(f, "%s, %+.1f %% [%+.1f %%, %+.1f %%]",
            json_string_value(json_object_get(aa, "verdict")), get(aa, "change_pct"),
            get(aa, "ci_low"), get(aa, "ci_high"));
}

/* The figures as text: what the machine did, each design's spread and A/A, the advice. */
static void print_text(FILE *f, const struct calib_opts *c, const json_t *o)
{
    double steal = get(o, "machine.steal_share");
    fprintf(f, "machine: %.0f of %.0f intervals client-stalled (%.1f s lost), steal ",
            get(o, "machine.intervals_stalled"), get(o, "machine.intervals"),
            get(o, "machine.stalled_ms") / 1000);
    if (isnan(steal))
        fputs("unknown\n", f);
    else
        fprintf(f, "%.1f %% of CPU time\n", 100 * steal);
    fprintf(f,
            "sequential A/A, %d trials of %g s per side: %.0f tps, trial-to-trial spread %.1f %%",
            c->trials, c->seconds, get(o, "sequential.tps"), get(o, "sequential.spread_pct"));
    const json_t *aa = json_object_get(json_object_get(o, "sequential"), "aa");
    if (aa) {
        fputs("; ", f);
        print_verdict(f, aa);
    }
    fputc('\n', f);
    const json_t *d = json_object_get(o, "duet");
    if (json_is_object(d)) {
        fprintf(f,
                "duet A/A, 2 trials of %g s: %g paired seconds, per-second spread %.1f %% "
                "(long-run %.1f %%); ",
                c->trials * c->seconds, get(d, "paired_seconds"), get(d, "spread_per_second_pct"),
                get(d, "long_run_sd_pct"));
        print_verdict(f, json_object_get(d, "aa"));
        fputc('\n', f);
    } else {
        fputs("duet A/A: no paired seconds (see above)\n", f);
    }
    fprintf(f, "smallest change detected (95 %% interval beyond the %g %% margin, 4 times in 5):\n",
            get(o, "margin_pct"));
    double k5 = get(o, "sequential.trials_for_5pct");
    fprintf(f, "  sequential, %d trials of %g s per side: %.1f %%", c->trials, c->seconds,
            get(o, "sequential.detectable_pct"));
    if (isnan(k5))
        fprintf(f, "; 5 %% needs more than %d trials per side: too noisy\n", CALIB_MAX_K);
    else
        fprintf(f, "; 5 %% needs %.0f trials per side\n", k5);
    if (json_is_object(d)) {
        double t5 = get(d, "seconds_for_5pct");
        double at_t = get(d, "detectable_pct_at_T");
        fprintf(f, "  duet of %g s: ", c->seconds);
        if (isnan(at_t))
            fprintf(f, "none (under %d paired seconds)", DUET_MIN_PAIRS);
        else
            fprintf(f, "%.1f %%", at_t);
        fprintf(f, "; of %g s (the sequential design's time): %.1f %%",
                2.0 * c->trials * c->seconds, get(d, "detectable_pct_same_time"));
        if (isnan(t5))
            fprintf(f, "; 5 %% needs more than %d s\n", CALIB_MAX_T);
        else
            fprintf(f, "; 5 %% needs %.0f s\n", t5);
    }
}

int cli_calibrate_parse(int argc, char **argv, struct err *e)
{
    struct calib_opts c = {0};
    int rc = parse(argc, argv, &c, e);
    for (int i = 0; i < c.argc; i++)
        free(c.argv[i]);
    free(c.argv);
    return rc < 0 ? -1 : 0;
}

int cli_calibrate(int argc, char **argv, struct err *e)
{
    struct calib_opts c = {0};
    struct calib_side seq = {0}, du = {0};
    struct calib_figures f = {0};
    const char *tmp = getenv("TMPDIR");
    char *base = xasprintf("%s/pgarena-calibrate.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int rc = parse(argc, argv, &c, e);
    char *seq_dir = NULL, *duet_dir = NULL;
    int help = rc == 1;
    if (rc != 0)
        goto out;
#ifdef _WIN32 /* its second sweep is a duet, whose halves are child processes */
    rc = err_set(e, ERR_INPUT, "calibrate: not available on Windows (it runs a sweep --duet)");
    goto out;
#else
    if (!mkdtemp(base)) {
        rc = err_set(e, ERR_RUNTIME, "calibrate: cannot make a directory in %s", base);
        goto out;
    }
#endif
    seq_dir = xasprintf("%s/sequential", base);
    duet_dir = xasprintf("%s/duet", base);
    rc = sweep_aa(&c, seq_dir, 0, c.trials, c.seconds, &seq, e);
    if (rc == 0)
        rc = sweep_aa(&c, duet_dir, 1, 2, c.trials * c.seconds, &du, e);
    if (rc != 0)
        goto out;
    add_health(&f, &seq);
    add_health(&f, &du);
    sequential(&f, &seq);
    duet(&f, &du);
    json_t *o = figures_json(&c, &f);
    if (c.json) {
        char *text = json_dumps(o, JSON_INDENT(2));
        puts(text);
        free(text);
    } else {
        print_text(stdout, &c, o);
    }
    if (c.out && json_dump_file(o, c.out, JSON_INDENT(2)) != 0)
        rc = err_set(e, ERR_RUNTIME, "calibrate: cannot write %s", c.out);
    json_decref(o);
out:
    side_free(&seq);
    side_free(&du);
#ifndef _WIN32
    if (seq_dir)
        local_rmtree(base);
#endif
    free(seq_dir);
    free(duet_dir);
    free(base);
    for (int i = 0; i < c.argc; i++)
        free(c.argv[i]);
    free(c.argv);
    /* 0 done (or --help), 1 interrupted or a cell failed, -1 with e */
    return help ? 0 : rc;
}
