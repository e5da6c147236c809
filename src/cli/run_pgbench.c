/* run's pgbench habits: -S, -N, -b list, --show-script, -l and its companions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/run_int.h"

/* -b list: the built-in scripts, as pgbench lists them (on stdout: it is what was asked). */
static void list_builtins(void)
{
    int width = 0;
    for (const struct builtin_workload *const *b = builtin_all(); *b; b++)
        if ((int)strlen((*b)->name) > width)
            width = (int)strlen((*b)->name);
    printf("Available builtin scripts:\n");
    for (const struct builtin_workload *const *b = builtin_all(); *b; b++)
        printf("  %*s: %s\n", width, (*b)->name, (*b)->description);
}

/* --show-script NAME: the built-in's text (a unique prefix will do, as in pgbench). */
static int show_script(const char *name, struct err *e)
{
    const struct builtin_workload *hit = builtin_find(name);
    int n = hit != NULL;
    for (const struct builtin_workload *const *b = builtin_all(); !hit && *b; b++) {
        if (strncmp((*b)->name, name, strlen(name)) == 0) {
            hit = *b;
            n++;
        }
    }
    if (n != 1)
        return err_set(e, ERR_INPUT, "run: %s built-in script '%s' (see -b list)",
                       n ? "ambiguous" : "unknown", name);
    char *text = hit->script ? NULL : builtin_sysbench_script(hit, 1, BUILTIN_SYSBENCH_TABLE_SIZE);
    printf("-- %s: %s\n%s\n", hit->name, hit->description, hit->script ? hit->script : text);
    free(text);
    return 0;
}

int run_parse_pgbench_option(int opt, const char *arg, struct run_opts *o, struct err *e)
{
    switch (opt) {
    case 'S':
        return run_add_spec(o, 'b', "select-only", e) < 0 ? -1 : 1;
    case 'N':
        return run_add_spec(o, 'b', "simple-update", e) < 0 ? -1 : 1;
    case 'b':
        if (strcmp(arg, "list") != 0)
            return 0;
        list_builtins();
        return 2;
    case RUN_OPT_SHOW_SCRIPT:
        return show_script(arg, e) < 0 ? -1 : 2;
    case 'l':
        o->log = 1;
        return 1;
    case RUN_OPT_LOG_PREFIX:
        o->log_prefix = arg;
        return 1;
    case RUN_OPT_SAMPLING_RATE:
        if (args_double("--sampling-rate", arg, 1e-9, 1, &o->sampling_rate, e) < 0)
            return -1;
        return 1;
    case RUN_OPT_AGGREGATE_INTERVAL:
        return args_int("--aggregate-interval", arg, 1, 100000000, &o->aggregate_s, e) < 0 ? -1 : 1;
    case RUN_OPT_FAILURES_DETAILED:
        o->failures_detailed = 1;
        return 1;
    case RUN_OPT_PROGRESS_TIMESTAMP:
        o->progress_timestamp = 1;
        return 1;
    default:
        return 0;
    }
}

/* pgbench's rules for -l and its companions, with its words. */
int run_check_pgbench_options(const struct run_opts *o, struct err *e)
{
    if (!o->log && o->log_prefix)
        return err_set(e, ERR_INPUT,
                       "run: log file prefix (--log-prefix) is allowed only when logging "
                       "transactions (-l)");
    if (!o->log && o->sampling_rate > 0)
        return err_set(e, ERR_INPUT,
                       "run: log sampling (--sampling-rate) is allowed only when logging "
                       "transactions (-l)");
    if (!o->log && o->aggregate_s > 0)
        return err_set(e, ERR_INPUT,
                       "run: log aggregation (--aggregate-interval) is allowed only when "
                       "logging transactions (-l)");
    if (o->sampling_rate > 0 && o->aggregate_s > 0)
        return err_set(e, ERR_INPUT,
                       "run: sampling (--sampling-rate) and aggregation (--aggregate-interval) "
                       "cannot be used at the same time");
    if (o->aggregate_s > 0 && o->duration_s > 0 && o->aggregate_s > o->duration_s)
        return err_set(e, ERR_INPUT,
                       "run: number of seconds for aggregation (%lld) must not be higher than "
                       "test duration (%lld)",
                       (long long)o->aggregate_s, (long long)o->duration_s);
    if (o->aggregate_s > 0 && o->duration_s > 0 && o->duration_s % o->aggregate_s != 0)
        return err_set(e, ERR_INPUT,
                       "run: duration (%lld) must be a multiple of aggregation interval (%lld)",
                       (long long)o->duration_s, (long long)o->aggregate_s);
    return 0;
}

void run_log_config(const struct run_opts *o, struct engine_config *cfg)
{
    if (!o->log)
        return;
    cfg->log_prefix = o->log_prefix ? o->log_prefix : "pgbench_log";
    cfg->log = (struct txlog_opts){.sampling_rate = o->sampling_rate,
                                   .aggregate_s = o->aggregate_s,
                                   .rate = o->rate > 0,
                                   .latency_limit = o->latency_limit_ms > 0,
                                   .max_tries = (int)o->max_tries,
                                   .failures_detailed = o->failures_detailed};
}
