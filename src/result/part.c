/* The registry of workloads' result sections and a result's parts (result/part.h). */
#include "result/part.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "result/result.h"
#include "result/result_int.h"

static const struct result_part_ops *const *registered;

/* The registered parts' fields by full name ("KEY.NAME"), and whose each is. */
#define MAX_FIELDS 16
static char field_names[MAX_FIELDS][64];
static const struct result_part_ops *field_ops[MAX_FIELDS];
static size_t n_fields;

void result_parts_register(const struct result_part_ops *const *ops)
{
    registered = ops;
    n_fields = 0;
    for (size_t k = 0; ops && ops[k]; k++)
        for (size_t f = 0; ops[k]->fields && ops[k]->fields[f] && n_fields < MAX_FIELDS; f++) {
            snprintf(field_names[n_fields], sizeof field_names[0], "%s.%s", ops[k]->key,
                     ops[k]->fields[f]);
            field_ops[n_fields++] = ops[k];
        }
}

const char *result_part_field_name(size_t i)
{
    return i < n_fields ? field_names[i] : NULL;
}

int result_part_field(const struct result *r, const char *name, char **value)
{
    *value = NULL;
    for (size_t i = 0; i < n_fields; i++) {
        if (strcmp(field_names[i], name) != 0)
            continue;
        const struct result_part_ops *ops = field_ops[i];
        void *data = result_part_get(r, ops->key);
        return data && ops->field(data, name + strlen(ops->key) + 1, value);
    }
    return -1;
}

static int find(const struct result_parts *p, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->at[i].ops->key, key) == 0)
            return (int)i;
    return -1;
}

void *result_part_get(const struct result *r, const char *key)
{
    int i = find(&r->parts, key);
    return i < 0 ? NULL : r->parts.at[i].data;
}

void result_part_set(struct result *r, const struct result_part_ops *ops, void *data)
{
    struct result_parts *p = &r->parts;
    int i = find(p, ops->key);
    if (i >= 0) {
        p->at[i].ops->free(p->at[i].data);
        if (data) {
            p->at[i].data = data;
            return;
        }
        memmove(&p->at[i], &p->at[i + 1], (p->n - (size_t)i - 1) * sizeof p->at[0]);
        p->n--;
        return;
    }
    if (!data || p->n == RESULT_MAX_PARTS)
        return;
    p->at[p->n].ops = ops;
    p->at[p->n++].data = data;
}

void result_parts_free(struct result *r)
{
    for (size_t i = 0; i < r->parts.n; i++)
        r->parts.at[i].ops->free(r->parts.at[i].data);
    memset(&r->parts, 0, sizeof r->parts);
}

int result_parts_read(const json_t *root, struct result *r, const char **what)
{
    const json_t *summary = json_object_get(root, "summary");
    for (size_t k = 0; registered && registered[k]; k++) {
        const struct result_part_ops *ops = registered[k];
        const json_t *parent = ops->at == RESULT_PART_SUMMARY ? summary : root;
        int bad = 0;
        void *data = ops->read(json_object_get(parent, ops->key), root, summary, &bad);
        if (bad) {
            *what = ops->what ? ops->what : "workload section";
            return -1;
        }
        result_part_set(r, ops, data);
    }
    return 0;
}

void result_parts_read_snapshot(const json_t *snap, struct result *r)
{
    const json_t *summary = json_object_get(snap, "summary");
    double t_s = json_number_value(json_object_get(snap, "t_s"));
    for (size_t k = 0; registered && registered[k]; k++) {
        const struct result_part_ops *ops = registered[k];
        const json_t *o =
            json_object_get(ops->at == RESULT_PART_SUMMARY ? summary : snap, ops->key);
        if (!o)
            continue;
        int bad = 0;
        void *data = ops->read(o, snap, summary, &bad);
        if (bad) { /* cannot be: pgarena wrote it whole */
            if (data)
                ops->free(data);
            data = NULL;
        }
        if (data && ops->recovered)
            ops->recovered(data, t_s);
        result_part_set(r, ops, data);
    }
}

void result_parts_json(const struct result *r, enum result_part_at at, json_t *parent,
                       json_t *summary)
{
    for (size_t i = 0; i < r->parts.n; i++) {
        const struct result_part_ops *ops = r->parts.at[i].ops;
        if (ops->at != at)
            continue;
        json_t *o = ops->write(r->parts.at[i].data, summary);
        if (o)
            json_object_set_new(parent, ops->key, o);
    }
}

void result_parts_merge(struct result *const *in, size_t n, struct result *out)
{
    for (size_t k = 0; registered && registered[k]; k++) {
        const struct result_part_ops *ops = registered[k];
        void **parts = calloc(n, sizeof *parts);
        int any = 0;
        for (size_t i = 0; i < n; i++)
            any |= (parts[i] = result_part_get(in[i], ops->key)) != NULL;
        if (any && ops->merge)
            result_part_set(out, ops, ops->merge(parts, n));
        free(parts);
    }
}

void result_parts_compare_rows(const struct result_part_side *sides, size_t n,
                               struct result_rows *out)
{
    for (size_t k = 0; registered && registered[k]; k++)
        if (registered[k]->compare_rows)
            registered[k]->compare_rows(sides, n, out);
}

const char *result_parts_unit(const struct result *r)
{
    for (size_t i = 0; i < r->parts.n; i++)
        if (r->parts.at[i].ops->unit)
            return r->parts.at[i].ops->unit;
    return NULL;
}

void result_parts_warn(const struct result *r, const char *path,
                       void (*say)(void *ctx, const char *text), void *ctx)
{
    for (size_t i = 0; i < r->parts.n; i++)
        if (r->parts.at[i].ops->warn)
            r->parts.at[i].ops->warn(r->parts.at[i].data, path, say, ctx);
}
