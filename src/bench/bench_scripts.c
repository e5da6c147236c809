#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/num.h"
#include "bench/bench_int.h"
#include "os/os.h"

int bench_read_file(const char *path, char **out, struct err *e)
{
    FILE *f = os_fopen(path, "r");
    if (!f)
        return err_set(e, ERR_INPUT, "cannot read %s: %s", path, strerror(errno));
    struct buf b;
    buf_init(&b);
    int failed = buf_read_all(&b, f);
    fclose(f);
    if (failed || memchr(b.data, '\0', b.len)) {
        buf_free(&b);
        return err_set(e, ERR_INPUT, "cannot read %s: %s", path,
                       failed ? "read error" : "not a text file");
    }
    *out = b.data;
    return 0;
}

/* Split "NAME@WEIGHT": the weight, or 1 without one. */
static int split_weight(const char *arg, char **name, int64_t *weight, struct err *e)
{
    const char *at = strrchr(arg, '@');
    *weight = 1;
    if (!at || !at[1] || strspn(at + 1, "0123456789") != strlen(at + 1)) {
        *name = xstrdup(arg);
        return 0;
    }
    if (num_int("script weight", at + 1, 0, 1000000, weight, e) < 0)
        return -1;
    *name = xstrndup(arg, (size_t)(at - arg));
    return 0;
}

/* A built-in by its name or a unique prefix of it, as pgbench's -b. */
static const struct workload *builtin_named(const char *name, struct err *e)
{
    int n;
    const struct workload *hit = workload_by_prefix(name, &n);
    if (!hit)
        err_set(e, ERR_INPUT, "%s built-in script '%s'", n ? "ambiguous" : "unknown", name);
    return hit;
}

static int add_spec(struct bench *b, const struct bench_script_spec *sp, struct script_set *set,
                    struct err *e)
{
    char *name;
    int64_t weight;
    if (split_weight(sp->arg, &name, &weight, e) < 0)
        return -1;
    int rc = -1;
    if (sp->kind == 'b') {
        const struct workload *w = builtin_named(name, e);
        /* Scripts made from the tables come once the tables are known. */
        if (w && !w->script) {
            err_set(e, ERR_INPUT, "-b %s: %s: use -w %s", w->name, w->why_no_b, w->name);
        } else if (w) {
            char *label = xasprintf("builtin: %s", w->name);
            rc = script_set_add(set, label, w->script, (int)weight, e);
            free(label);
            b->tables_of = w;
            if (b->p.n_specs == 1)
                b->workload_name = w->name;
        }
    } else {
        char *text;
        if (bench_read_file(name, &text, e) == 0) {
            rc = script_set_add(set, name, text, (int)weight, e);
            free(text);
        }
    }
    free(name);
    return rc;
}

int bench_build_scripts(struct bench *b, struct script_set *set, int read_files, struct err *e)
{
    for (int i = 0; !read_files && i < b->p.n_specs; i++)
        if (b->p.specs[i].kind == 'f')
            return 0; /* a fuzzed file name could be /dev/zero: checked when a run starts */
    if (b->p.n_specs == 0) {
        b->workload_name = b->p.workload->name;
        b->tables_of = b->p.workload;
        if (!b->p.workload->script) /* made from the tables, once they are known */
            return 0;
        char *label = xasprintf("builtin: %s", b->p.workload->name);
        int rc = script_set_add(set, label, b->p.workload->script, 1, e);
        free(label);
        if (rc < 0)
            return -1;
    }
    b->workload_name = b->workload_name ? b->workload_name : "custom";
    for (int i = 0; i < b->p.n_specs; i++)
        if (add_spec(b, &b->p.specs[i], set, e) < 0)
            return -1;
    if (b->p.n_specs > 1)
        b->workload_name = "custom";
    if (set->total_weight <= 0)
        return err_set(e, ERR_INPUT, "run: the scripts' weights add up to zero");
    for (int i = 0; i < b->p.n_defines; i++) {
        const char *eq = strchr(b->p.defines[i], '=');
        char *var = xstrndup(b->p.defines[i], (size_t)(eq - b->p.defines[i]));
        script_set_define(set, var, eq + 1);
        free(var);
    }
    return script_set_check_protocol(set, b->p.protocol == PROTO_SIMPLE, e);
}
