/* The table of workloads. */
#include "workload/workload.h"

#include <string.h>

#include "workload/workload_int.h"

static const struct workload *const all[] = {
#define W(name) &workload_##name,
#include "workload/workloads.def"
#undef W
    NULL,
};

const struct workload *workload_find(const char *name)
{
    for (int i = 0; all[i]; i++)
        if (strcmp(all[i]->name, name) == 0)
            return all[i];
    return NULL;
}

const struct workload *const *workload_all(void)
{
    return all;
}

void workload_parts_register(void)
{
    static const struct result_part_ops *parts[sizeof all / sizeof all[0]];
    size_t n = 0;
    for (int i = 0; all[i]; i++) {
        int seen = !all[i]->part;
        for (size_t k = 0; k < n && !seen; k++)
            seen = parts[k] == all[i]->part;
        if (!seen)
            parts[n++] = all[i]->part;
    }
    parts[n] = NULL;
    result_parts_register(parts);
}

/* The only match of the prefix among pgbench's built-ins, or among all. */
static const struct workload *unique_prefix(const char *name, int among_pgbench, int *n)
{
    const struct workload *hit = NULL;
    *n = 0;
    for (int i = 0; all[i]; i++)
        if ((!among_pgbench || all[i]->dataset == DATASET_PGBENCH) &&
            strncmp(all[i]->name, name, strlen(name)) == 0) {
            hit = all[i];
            (*n)++;
        }
    return *n == 1 ? hit : NULL;
}

const struct workload *workload_by_prefix(const char *name, int *n_matches)
{
    const struct workload *hit = workload_find(name);
    *n_matches = hit != NULL;
    if (hit || !*name)
        return hit;
    hit = unique_prefix(name, 1, n_matches);
    if (hit || *n_matches > 1)
        return hit;
    return unique_prefix(name, 0, n_matches);
}

/* Whether w takes the option `name`; its group's refusal into *refusal when a group has it. */
static int takes(const struct workload *w, const char *name, const char **refusal)
{
    for (const struct workload_option_group *const *g = w->options; g && *g; g++)
        for (const char *const *n = (*g)->names; *n; n++)
            if (strcmp(*n, name) == 0) {
                *refusal = (*g)->refusal;
                return 1;
            }
    return 0;
}

int workload_option_check(const char *name, const char *arg, struct err *e)
{
    const char *refusal;
    for (int i = 0; all[i]; i++)
        if (takes(all[i], name, &refusal)) {
            struct workload_opts scratch;
            all[i]->options_init(scratch.bytes);
            return all[i]->option(scratch.bytes, name, arg, e) < 0 ? -1 : 1;
        }
    return 0;
}

int workload_options_parse(const struct workload *w, const struct workload_option *given, int n,
                           struct workload_opts *out, struct err *e)
{
    const char *refusal = NULL;
    for (int k = 0; k < n; k++) {
        if (takes(w, given[k].name, &refusal))
            continue;
        refusal = NULL;
        for (int i = 0; all[i] && !takes(all[i], given[k].name, &refusal); i++)
            ;
        return err_set(e, ERR_INPUT, "run: %s", refusal ? refusal : given[k].name);
    }
    memset(out, 0, sizeof *out);
    if (w->options_init)
        w->options_init(out->bytes);
    for (int k = 0; k < n; k++)
        if (w->option(out->bytes, given[k].name, given[k].arg, e) < 0)
            return -1;
    return 0;
}

int workload_refuse_warehouses(const struct workload *w, const struct workload_init_given *g,
                               struct err *e)
{
    if (g->warehouses)
        return err_set(e, ERR_INPUT, "init: --warehouses is for -w tpcc, not %s", w->name);
    return 0;
}

int workload_refuse_pgbench_init(const struct workload *w, const struct workload_init_given *g,
                                 struct err *e)
{
    if (g->pgbench_init)
        return err_set(e, ERR_INPUT,
                       "init: -I, -F, -n, --foreign-keys, --unlogged-tables and the tablespaces "
                       "are for pgbench's tables, not %s",
                       w->name);
    return 0;
}
