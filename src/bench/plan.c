/* A run's plan: its defaults, and the checks of its options together once all are given. */
#include "bench/plan.h"

#include <ctype.h>
#include <string.h>

#include "coord/coord.h"

const char *const bench_protocol_names[] = {"simple", "extended", "prepared"};

void bench_plan_init(struct bench_plan *p)
{
    *p = (struct bench_plan){.clients = 1, .threads = 1, .protocol = PROTO_SIMPLE, .max_tries = 1};
    p->workload = workload_find("tpcb-like");
    p->sampling.sample_ms = BENCH_DEFAULT_SAMPLE_MS;
}

/* A seed every agent derives alike when --seed is not given: from the run id (FNV-1a). */
static int64_t seed_of(const char *run_id)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = run_id; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return (int64_t)(h & 0x7fffffff);
}

static int check_agents(struct bench_plan *p, struct err *e)
{
    struct bench_agents_opts *a = &p->agents;
    if (a->count == 0) {
        if (a->index_given || a->run_id || a->coord || a->merged || a->wait_s)
            return err_set(e, ERR_INPUT,
                           "run: --agent-index, --run-id, --coord, --merged and "
                           "--agent-wait need --agents N");
        return 0;
    }
    if (!a->index_given) {
        int from_env = coord_index_from_env();
        if (from_env == -2)
            return err_set(e, ERR_INPUT,
                           "run: JOB_COMPLETION_INDEX or SLURM_PROCID is not an "
                           "agent index");
        if (from_env < 0)
            return err_set(e, ERR_INPUT,
                           "run: --agents needs --agent-index (or "
                           "JOB_COMPLETION_INDEX, SLURM_PROCID)");
        a->index = from_env;
    }
    if (a->index < 0 || a->index >= a->count)
        return err_set(e, ERR_INPUT, "run: --agent-index %lld is outside 0..%lld",
                       (long long)a->index, (long long)a->count - 1);
    if (!a->run_id || !*a->run_id)
        return err_set(e, ERR_INPUT, "run: --agents needs --run-id ID (the same for every agent)");
    if (p->clients < a->count)
        return err_set(e, ERR_INPUT, "run: -c %lld gives no client to some of --agents %lld",
                       (long long)p->clients, (long long)a->count);
    if (!a->wait_s)
        a->wait_s = 60;
    /* The split: this agent's clients and rate; the seed stays the run's (recorded as such)
     * and each agent draws from its own derived one. */
    a->clients_all = p->clients;
    a->rate_all = p->rate;
    p->clients = coord_split_clients(a->clients_all, (int)a->count, (int)a->index);
    p->rate = coord_split_rate(a->rate_all, a->clients_all, p->clients);
    if (!p->seed_given) {
        p->seed = seed_of(a->run_id);
        p->seed_given = 1;
    }
    return 0;
}

/* pgbench's rules for -l and its companions, with its words. */
static int check_pgbench_options(const struct bench_plan *p, struct err *e)
{
    if (!p->log.on && p->log.prefix)
        return err_set(e, ERR_INPUT,
                       "run: log file prefix (--log-prefix) is allowed only when logging "
                       "transactions (-l)");
    if (!p->log.on && p->log.sampling_rate > 0)
        return err_set(e, ERR_INPUT,
                       "run: log sampling (--sampling-rate) is allowed only when logging "
                       "transactions (-l)");
    if (!p->log.on && p->log.aggregate_s > 0)
        return err_set(e, ERR_INPUT,
                       "run: log aggregation (--aggregate-interval) is allowed only when "
                       "logging transactions (-l)");
    if (p->log.sampling_rate > 0 && p->log.aggregate_s > 0)
        return err_set(e, ERR_INPUT,
                       "run: sampling (--sampling-rate) and aggregation (--aggregate-interval) "
                       "cannot be used at the same time");
    if (p->log.aggregate_s > 0 && p->duration_s > 0 && p->log.aggregate_s > p->duration_s)
        return err_set(e, ERR_INPUT,
                       "run: number of seconds for aggregation (%lld) must not be higher than "
                       "test duration (%lld)",
                       (long long)p->log.aggregate_s, (long long)p->duration_s);
    if (p->log.aggregate_s > 0 && p->duration_s > 0 && p->duration_s % p->log.aggregate_s != 0)
        return err_set(e, ERR_INPUT,
                       "run: duration (%lld) must be a multiple of aggregation interval (%lld)",
                       (long long)p->duration_s, (long long)p->log.aggregate_s);
    return 0;
}

static int sampling_check(const struct bench_plan *p, struct err *e)
{
    if (p->sampling.off && p->sampling.ms_given)
        return err_set(e, ERR_INPUT, "run: --sample-ms and --no-sampling cannot be used together");
    if (p->sampling.ms_given && p->sampling.sample_ms > BENCH_INTERVAL_MS)
        return err_set(e, ERR_INPUT,
                       "invalid value for --sample-ms: '%lld' (longer than the interval, %d ms)",
                       (long long)p->sampling.sample_ms, BENCH_INTERVAL_MS);
    return 0;
}

/* The workload's refusals and defaults (for -f and -b, -w's default: its sizes). */
static int check_workload(struct bench_plan *p, const struct bench_given *given, struct err *e)
{
    const struct workload *w = p->workload;
    if (workload_options_parse(w, p->options, p->n_options, &p->wopts, e) < 0)
        return -1;
    struct workload_run_opts o = {.scale = p->scale, .opts = p->wopts.bytes, .local = given->local};
    if (w->check_run && w->check_run(w, &o, e) < 0)
        return -1;
    p->stream_clients = o.stream_clients;
    if (p->clients == 0 && p->stream_clients == 0)
        return err_set(e, ERR_INPUT,
                       "invalid value for -c: '0' (expected an integer from 1 to 100000; 0 only "
                       "with -w ch --analytic-clients N)");
    if (p->stream_clients > 0 && p->agents.count > 0)
        return err_set(e, ERR_INPUT, "run: --analytic-clients cannot be split over --agents");
    if (o.prepared && !given->protocol)
        p->protocol = PROTO_PREPARED;
    if (o.max_tries && !given->max_tries)
        p->max_tries = o.max_tries;
    return 0;
}

int bench_plan_add_spec(struct bench_plan *p, char kind, const char *arg, struct err *e)
{
    if (kind == 'D') {
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg)
            return err_set(e, ERR_INPUT, "invalid -D '%s' (expected NAME=VALUE)", arg);
        if (p->n_defines == BENCH_MAX_SPECS)
            return err_set(e, ERR_INPUT, "too many -D options");
        p->defines[p->n_defines++] = arg;
        return 0;
    }
    if (p->n_specs == BENCH_MAX_SPECS)
        return err_set(e, ERR_INPUT, "too many -f and -b options");
    p->specs[p->n_specs++] = (struct bench_script_spec){kind, arg};
    return 0;
}

int bench_plan_add_option(struct bench_plan *p, const char *name, const char *arg, struct err *e)
{
    int rc = workload_option_check(name, arg, e);
    if (rc <= 0)
        return rc;
    if (p->n_options == BENCH_MAX_OPTIONS)
        return err_set(e, ERR_INPUT, "too many --%s options", name);
    p->options[p->n_options++] = (struct workload_option){name, arg};
    return 1;
}

int bench_plan_option_given(const struct bench_plan *p, const char *name)
{
    for (int i = 0; i < p->n_options; i++)
        if (strcmp(p->options[i].name, name) == 0)
            return 1;
    return 0;
}

int bench_plan_set_option(struct bench_plan *p, const char *name, const char *arg, struct err *e)
{
    return p->workload->option ? p->workload->option(p->wopts.bytes, name, arg, e) : 0;
}

int bench_plan_add_meta(struct bench_plan *p, const char *arg, struct err *e)
{
    const char *eq = strchr(arg, '=');
    size_t n = eq ? (size_t)(eq - arg) : 0;
    if (n == 0)
        return err_set(e, ERR_INPUT, "run: invalid --meta '%s' (expected KEY=VALUE)", arg);
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)arg[i]) && !strchr("_-.", arg[i]))
            return err_set(e, ERR_INPUT,
                           "run: invalid --meta key '%.*s' (letters, digits, '_', '-', '.')",
                           (int)n, arg);
    for (int i = 0; i < p->n_meta; i++)
        if (strncmp(p->meta[i], arg, n + 1) == 0)
            return err_set(e, ERR_INPUT, "run: --meta %.*s is given twice", (int)n, arg);
    if (p->n_meta == BENCH_MAX_SPECS)
        return err_set(e, ERR_INPUT, "run: too many --meta options");
    p->meta[p->n_meta++] = arg;
    return 0;
}

int bench_plan_check(struct bench_plan *p, const struct bench_given *given, struct err *e)
{
    if (given->duration && p->tx_per_client)
        return err_set(e, ERR_INPUT, "run: -T and -t cannot be used together");
    if (p->workload->paced_by_input &&
        (given->clients || p->rate > 0 || p->tx_per_client || given->duration))
        return err_set(e, ERR_INPUT,
                       "run: -w %s takes its clients, pace and length from its input (no -c, "
                       "-R, -t or -T)",
                       p->workload->name);
    if (!p->tx_per_client && !given->duration && !p->workload->paced_by_input)
        p->duration_s = BENCH_DEFAULT_DURATION_S;
    if (p->latency_limit_ms > 0 && p->timeout_ms > 0 && p->timeout_ms < p->latency_limit_ms)
        return err_set(e, ERR_INPUT, "run: --timeout is shorter than --latency-limit");
    if (p->workload_given && p->n_specs > 0)
        return err_set(e, ERR_INPUT, "run: -w cannot be combined with -f, -b, -S or -N");
    if (check_pgbench_options(p, e) < 0 || sampling_check(p, e) < 0)
        return -1;
    if (check_workload(p, given, e) < 0)
        return -1;
    return check_agents(p, e);
}

void bench_plan_load_options(const struct bench_plan *p, int64_t scale, struct load_options *lo,
                             struct workload_opts *load_opts)
{
    const struct workload *w = p->workload;
    memset(load_opts, 0, sizeof *load_opts);
    if (w && w->init_options_init)
        w->init_options_init(load_opts->bytes);
    if (w && w->load_sizes)
        w->load_sizes(p->wopts.bytes, scale ? scale : p->scale, load_opts->bytes);
    *lo = (struct load_options){
        .opts = load_opts->bytes,
        .jobs = load_default_jobs(),
        .seed = (uint64_t)p->seed,
    };
}
