/* The table of workloads. */
#include "workload/workload.h"

#include <string.h>

#include "base/num.h"

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
    static const struct result_size_form *forms[RESULT_MAX_SIZES * 4 + 1];
    n = 0;
    for (int i = 0; all[i]; i++)
        for (const struct result_size_form *const *f = all[i]->sizes; f && *f; f++) {
            size_t k = 0;
            while (k < n && forms[k] != *f)
                k++;
            if (k == n && n + 1 < sizeof forms / sizeof forms[0])
                forms[n++] = *f;
        }
    forms[n] = NULL;
    result_sizes_register(forms);
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

/* Whether one of groups has the option `name`; its group into *group then. */
static int in_groups(const struct workload_option_group *const *groups, const char *name,
                     const struct workload_option_group **group)
{
    for (const struct workload_option_group *const *g = groups; g && *g; g++)
        if (workload_group_has(*g, name)) {
            *group = *g;
            return 1;
        }
    return 0;
}

static int takes(const struct workload *w, const char *name,
                 const struct workload_option_group **group)
{
    return in_groups(w->options, name, group);
}

static int takes_at_init(const struct workload *w, const char *name,
                         const struct workload_option_group **group)
{
    return in_groups(w->init_options, name, group);
}

/* An option no workload or another one takes, refused (ERR_INPUT): "CMD: --a, --b and --c are
 * for WHOSE" from the first group that has it, else "CMD: NAME". */
static int refuse(const char *cmd, const char *name, int at_init, struct err *e)
{
    const struct workload_option_group *g = NULL;
    for (int i = 0;
         all[i] && !(at_init ? takes_at_init(all[i], name, &g) : takes(all[i], name, &g)); i++)
        ;
    if (!g)
        return err_set(e, ERR_INPUT, "%s: %s", cmd, name);
    char list[512];
    size_t n = 0, count = 0;
    while (g->names[count])
        count++;
    list[0] = '\0';
    for (size_t k = 0; k < count && n < sizeof list; k++)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s--%s",
                              k == 0           ? ""
                              : k + 1 == count ? " and "
                                               : ", ",
                              g->names[k]);
    return err_set(e, ERR_INPUT, "%s: %s %s for %s", cmd, list, count == 1 ? "is" : "are",
                   g->whose);
}

/* An option's value checked by the first workload that takes it, at init or at run. */
static int option_check(int at_init, const char *name, const char *arg, struct err *e)
{
    const struct workload_option_group *group;
    for (int i = 0; all[i]; i++) {
        const struct workload *w = all[i];
        if (!(at_init ? takes_at_init(w, name, &group) : takes(w, name, &group)))
            continue;
        struct workload_opts scratch;
        (at_init ? w->init_options_init : w->options_init)(scratch.bytes);
        return (at_init ? w->init_option : w->option)(scratch.bytes, name, arg, e) < 0 ? -1 : 1;
    }
    return 0;
}

int workload_option_check(const char *name, const char *arg, struct err *e)
{
    return option_check(0, name, arg, e);
}

int workload_init_option_check(const char *name, const char *arg, struct err *e)
{
    return option_check(1, name, arg, e);
}

int workload_init_options_parse(const struct workload *w, const struct workload_init_given *g,
                                struct workload_opts *out, struct err *e)
{
    if (w->check_init && w->check_init(w, g, e) < 0)
        return -1;
    const struct workload_option_group *group;
    for (int k = 0; k < g->n; k++)
        if (!takes_at_init(w, g->opt[k].name, &group))
            return refuse("init", g->opt[k].name, 1, e);
    memset(out, 0, sizeof *out);
    if (w->init_options_init)
        w->init_options_init(out->bytes);
    for (int k = 0; k < g->n; k++)
        if (w->init_option(out->bytes, g->opt[k].name, g->opt[k].arg, e) < 0)
            return -1;
    return 0;
}

const struct workload_option *workload_given(const struct workload_init_given *g, const char *name)
{
    for (int k = 0; k < g->n; k++)
        if (strcmp(g->opt[k].name, name) == 0)
            return &g->opt[k];
    return NULL;
}

int workload_given_any(const struct workload_init_given *g,
                       const struct workload_option_group *group)
{
    for (int k = 0; k < g->n; k++)
        if (workload_group_has(group, g->opt[k].name))
            return 1;
    return 0;
}

int workload_parse_scale(const char *arg, int *out, struct err *e)
{
    int64_t v;
    if (num_int("-s", arg, 1, 1000000, &v, e) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

int workload_parse_partitions(const char *arg, int *out, struct err *e)
{
    int64_t v;
    if (num_int("--partitions", arg, 0, 100000, &v, e) < 0)
        return -1;
    *out = (int)v;
    return 0;
}

int workload_options_parse(const struct workload *w, const struct workload_option *given, int n,
                           struct workload_opts *out, struct err *e)
{
    const struct workload_option_group *group;
    struct err own = {0}, later = {0};
    int own_refusal = 0; /* w refuses one in its own words, once the others are checked */
    for (int k = 0; k < n; k++) {
        if (takes(w, given[k].name, &group))
            continue;
        if (w->foreign_option &&
            w->foreign_option(w, given[k].name, own_refusal ? &later : &own) < 0) {
            own_refusal = 1;
            continue;
        }
        return refuse("run", given[k].name, 0, e);
    }
    memset(out, 0, sizeof *out);
    if (w->options_init)
        w->options_init(out->bytes);
    for (int k = 0; k < n; k++)
        if (takes(w, given[k].name, &group) &&
            w->option(out->bytes, given[k].name, given[k].arg, e) < 0)
            return -1;
    if (own_refusal) {
        *e = own;
        return -1;
    }
    return 0;
}

int workload_group_has(const struct workload_option_group *g, const char *name)
{
    for (const char *const *n = g->names; *n; n++)
        if (strcmp(*n, name) == 0)
            return 1;
    return 0;
}

int workload_refuse_warehouses(const struct workload *w, const struct workload_init_given *g,
                               struct err *e)
{
    if (workload_given(g, "warehouses"))
        return err_set(e, ERR_INPUT, "init: --warehouses is for -w tpcc, not %s", w->name);
    return 0;
}

int workload_refuse_pgbench_init(const struct workload *w, const struct workload_init_given *g,
                                 struct err *e)
{
    if (workload_given_any(g, &pgbench_init_options))
        return err_set(e, ERR_INPUT,
                       "init: -I, -F, -n, --foreign-keys, --unlogged-tables and the tablespaces "
                       "are for pgbench's tables, not %s",
                       w->name);
    return 0;
}
