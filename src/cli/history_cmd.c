/* pgarena history CONN|DIR: series, change points and the CI gate. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/num.h"
#include "cli/args.h"
#include "cli/cli.h"
#include "cli/cli_int.h"
#include "cli/opts.h"
#include "cli/store_cmd.h"
#include "history/history.h"
#include "history/store.h"

struct history_cmd {
    struct history_opts h;
    const char *source, *accept;
    int json, gate;
};

static int option(int opt, const char *arg, struct history_cmd *o, struct err *e)
{
    double pct;
    int64_t seed;
    switch (opt) {
    case OPT_WHERE:
        return history_add_filter(&o->h, arg, e);
    case OPT_BY:
        return history_set_by(&o->h, arg, e);
    case OPT_ORDER:
        return history_set_order(&o->h, arg, e);
    case OPT_METRIC:
        return history_set_metrics(&o->h, arg, e);
    case OPT_MIN_EFFECT:
        if (num_double("--min-effect", arg, 0, 1000, &pct, e) < 0)
            return -1;
        o->h.detect.min_effect = pct / 100;
        return 0;
    case OPT_SEED:
        if (num_int("--seed", arg, 0, INT64_MAX, &seed, e) < 0)
            return -1;
        o->h.detect.seed = (uint64_t)seed;
        return 0;
    case OPT_JSON:
        o->json = 1;
        return 0;
    case OPT_FAIL_IF_REGRESSED:
        o->gate = 1;
        return 0;
    default: /* OPT_ACCEPT */
        o->accept = arg;
        return 0;
    }
}

/* 1 when --help was printed, -1 with e set. */
static int parse_options(int argc, char **argv, struct history_cmd *o, struct err *e)
{
    int opt;
    memset(o, 0, sizeof *o);
    history_opts_init(&o->h);
    opterr = 0;
    const char *shortopts;
    const struct option *longopts = cli_getopt_table(CLI_HISTORY, &shortopts);
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (opt == OPT_HELP) {
            cli_help(CLI_HISTORY, stdout);
            return 1;
        }
        if (opt == '?' || opt == ':')
            return args_bad_option("history", argc, argv, optind, optopt, opt == ':', e);
        if (option(opt, optarg, o, e) < 0)
            return -1;
    }
    if (argc - optind != 1)
        return err_set(e, ERR_INPUT,
                       "history: expected one CONN or DIR (see pgarena history --help)");
    o->source = argv[optind];
    return 0;
}

int cli_history_parse(int argc, char **argv, struct err *e)
{
    struct history_cmd o;
    int rc = parse_options(argc, argv, &o, e);
    history_opts_free(&o.h);
    return rc < 0 ? -1 : 0;
}

/* --accept's id: the full one of the single run it names (a prefix of at least 8). */
static const char *resolve(const struct result *runs, size_t n, const char *id, struct err *e)
{
    const char *found = NULL;
    size_t len = strlen(id);
    for (size_t i = 0; i < n; i++)
        if (runs[i].run_id && len >= 8 && strncmp(runs[i].run_id, id, len) == 0) {
            if (found && strcmp(found, runs[i].run_id) != 0) {
                err_set(e, ERR_INPUT, "history: --accept %s names more than one run", id);
                return NULL;
            }
            found = runs[i].run_id;
        }
    if (!found)
        err_set(e, ERR_INPUT, "history: --accept %s: no such run", id);
    return found;
}

static void text_num(char *out, size_t size, double v)
{
    if (isnan(v))
        snprintf(out, size, "-");
    else
        snprintf(out, size, "%.6g", v);
}

static const char *short_id(const char *id)
{
    static char s[9];
    snprintf(s, sizeof s, "%s", id ? id : "?");
    return s;
}

static void print_metric(const struct result *runs, const struct history_metric *m)
{
    printf("  %s\n", cmp_metric_names[m->metric]);
    printf("    %4s  %-8s  %-24s  %12s  %s\n", "#", "run", "order", "figure", "95% CI");
    for (size_t i = 0; i < m->n_points; i++) {
        const struct history_point *p = &m->points[i];
        char v[32], l[32], u[32];
        text_num(v, sizeof v, p->value);
        text_num(l, sizeof l, p->ci_low);
        text_num(u, sizeof u, p->ci_high);
        printf("    %4zu  %-8s  %-24s  %12s  [%s, %s]\n", i, short_id(runs[p->run].run_id),
               p->order, v, l, u);
    }
    if (m->n_changes == 0)
        printf("    no change point\n");
    for (size_t k = 0; k < m->n_changes; k++) {
        const struct history_change *c = &m->changes[k];
        printf("    change at %zu (run %s): %.6g -> %.6g, %+.1f %% [%+.1f, %+.1f], p %.3f, %s\n",
               c->d.index, short_id(runs[m->points[c->d.index].run].run_id), c->d.before,
               c->d.after, c->d.change_pct, c->d.ci_low, c->d.ci_high, c->d.p_value,
               cmp_verdict_names[c->verdict]);
        if (c->machine)
            printf("      %s\n", c->machine);
    }
    if (m->regressed)
        printf("    newest run in a worse segment since %zu%s%s\n", m->first,
               m->by_compare ? " (compare: fewer than 5 earlier runs)" : "",
               m->accepted ? "; accepted" : "");
}

static void print_text(const struct result *runs, const struct history_out *out)
{
    for (size_t s = 0; s < out->n_series; s++) {
        const struct history_series *hs = &out->series[s];
        printf("%sseries %zu: %s (%zu run%s)\n", s ? "\n" : "", s + 1, hs->key,
               hs->n_metrics ? hs->metrics[0].n_points : 0,
               hs->n_metrics && hs->metrics[0].n_points == 1 ? "" : "s");
        for (size_t m = 0; m < hs->n_metrics; m++)
            print_metric(runs, &hs->metrics[m]);
    }
    if (out->n_series == 0)
        printf("no runs\n");
    if (out->n_unordered)
        printf("%zu run%s without the order key left out\n", out->n_unordered,
               out->n_unordered == 1 ? "" : "s");
    if (out->n_duet)
        printf("%zu duet %s left out (sweep --duet: compare each with its partner)\n", out->n_duet,
               out->n_duet == 1 ? "half" : "halves");
}

static json_t *num_json(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *metric_json(const struct result *runs, const struct history_metric *m)
{
    json_t *o = json_object(), *pts = json_array(), *chs = json_array();
    json_object_set_new(o, "metric", json_string(cmp_metric_names[m->metric]));
    for (size_t i = 0; i < m->n_points; i++) {
        const struct history_point *p = &m->points[i];
        json_array_append_new(pts,
                              json_pack("{s:s?, s:s, s:o, s:o, s:o}", "run_id", runs[p->run].run_id,
                                        "order", p->order, "value", num_json(p->value), "ci_low",
                                        num_json(p->ci_low), "ci_high", num_json(p->ci_high)));
    }
    for (size_t k = 0; k < m->n_changes; k++) {
        const struct history_change *c = &m->changes[k];
        json_array_append_new(
            chs, json_pack("{s:I, s:s?, s:o, s:o, s:o, s:o, s:o, s:o, s:s}", "index",
                           (json_int_t)c->d.index, "run_id", runs[m->points[c->d.index].run].run_id,
                           "before", num_json(c->d.before), "after", num_json(c->d.after),
                           "change_pct", num_json(c->d.change_pct), "ci_low", num_json(c->d.ci_low),
                           "ci_high", num_json(c->d.ci_high), "p_value", num_json(c->d.p_value),
                           "verdict", cmp_verdict_names[c->verdict]));
        if (c->machine) /* only when the machine changed too */
            json_object_set_new(json_array_get(chs, k), "machine", json_string(c->machine));
    }
    json_object_set_new(o, "points", pts);
    json_object_set_new(o, "changes", chs);
    json_object_set_new(o, "regressed", json_boolean(m->regressed));
    json_object_set_new(o, "accepted", json_boolean(m->accepted));
    if (m->regressed) {
        json_object_set_new(
            o, "regression",
            json_pack("{s:I, s:s?, s:o, s:o, s:o, s:b}", "index", (json_int_t)m->first, "run_id",
                      runs[m->points[m->first].run].run_id, "change_pct", num_json(m->change_pct),
                      "ci_low", num_json(m->ci_low), "ci_high", num_json(m->ci_high), "by_compare",
                      m->by_compare));
    }
    return o;
}

static void print_json(const struct result *runs, const struct history_out *out)
{
    json_t *root = json_object(), *series = json_array();
    for (size_t s = 0; s < out->n_series; s++) {
        const struct history_series *hs = &out->series[s];
        json_t *o = json_object(), *key = json_object(), *metrics = json_array();
        for (size_t f = 0; f < hs->n_fields; f++)
            json_object_set_new(key, hs->fields[f],
                                hs->values[f] ? json_string(hs->values[f]) : json_null());
        for (size_t m = 0; m < hs->n_metrics; m++)
            json_array_append_new(metrics, metric_json(runs, &hs->metrics[m]));
        json_object_set_new(o, "key", key);
        json_object_set_new(o, "runs",
                            json_integer(hs->n_metrics ? (json_int_t)hs->metrics[0].n_points : 0));
        json_object_set_new(o, "metrics", metrics);
        json_array_append_new(series, o);
    }
    json_object_set_new(root, "series", series);
    json_object_set_new(root, "unordered", json_integer((json_int_t)out->n_unordered));
    if (out->n_duet)
        json_object_set_new(root, "duet_halves", json_integer((json_int_t)out->n_duet));
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    puts(text);
    free(text);
    json_decref(root);
}

/* The gate's message: each regressed metric with its change, CI and first run. */
static void print_regressions(const struct result *runs, const struct history_out *out)
{
    for (size_t s = 0; s < out->n_series; s++)
        for (size_t k = 0; k < out->series[s].n_metrics; k++) {
            const struct history_metric *m = &out->series[s].metrics[k];
            if (!m->regressed || m->accepted)
                continue;
            fprintf(stderr,
                    "pgarena: history: %s regressed %+.1f %% [%+.1f, %+.1f] since run %s "
                    "(index %zu%s) in series %s\n",
                    cmp_metric_names[m->metric], m->change_pct, m->ci_low, m->ci_high,
                    runs[m->points[m->first].run].run_id, m->first,
                    m->by_compare ? ", by compare: fewer than 5 earlier runs" : "",
                    out->series[s].key);
            /* The regression's change point: the last one (none when judged by compare). */
            const char *machine =
                !m->by_compare && m->n_changes ? m->changes[m->n_changes - 1].machine : NULL;
            if (machine)
                fprintf(stderr, "pgarena: history: %s\n", machine);
        }
}

int cli_history_load(const char *source, const char *accept, struct history_opts *h,
                     struct result **runs, size_t *n, struct err *e)
{
    char **paths = NULL;
    struct store *s = NULL;
    int rc, dir = history_is_dir(source);
    if (dir) {
        rc = history_load_dir(source, runs, &paths, n, e);
    } else {
        s = store_open(source, 0, e);
        rc = s ? store_load(s, runs, n, e) : -1;
    }
    for (size_t i = 0; paths && i < *n; i++)
        free(paths[i]);
    free(paths);
    if (rc == 0 && accept) {
        const char *id = resolve(*runs, *n, accept, e);
        rc = !id ? -1 : dir ? history_dir_accept(source, id, e) : store_accept(s, id, e);
    }
    if (rc == 0) {
        if (dir)
            history_dir_accepted(source, h);
        else
            rc = store_accepted(s, h, e);
    }
    store_close(s);
    return rc;
}

int cli_history(int argc, char **argv, struct err *e)
{
    struct history_cmd o;
    int rc = parse_options(argc, argv, &o, e);
    struct result *runs = NULL;
    size_t n = 0;
    struct history_out out = {0};
    if (rc == 0)
        rc = cli_history_load(o.source, o.accept, &o.h, &runs, &n, e);
    if (rc == 0)
        rc = history_analyse(runs, n, &o.h, &out, e);
    if (rc == 0) {
        if (o.json)
            print_json(runs, &out);
        else
            print_text(runs, &out);
        if (o.gate && history_regressed(&out)) {
            print_regressions(runs, &out);
            rc = 3;
        }
    }
    history_out_free(&out);
    for (size_t i = 0; i < n; i++)
        result_free(&runs[i]);
    free(runs);
    history_opts_free(&o.h);
    return rc > 0 && rc != 3 ? 0 : rc;
}
