#include "result/result_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"

/* The sections of a result that describe where and how it was measured. Everything else
 * (summary, intervals, histograms) is measurement, not environment. */
static const char *const env_sections[] = {"client", "server", "workload", "options", NULL};

static void push(struct result *r, size_t *cap, const char *path, char *value)
{
    if (r->n_env == *cap) {
        *cap = *cap ? 2 * *cap : 32;
        r->env = xrealloc(r->env, *cap * sizeof *r->env);
    }
    r->env[r->n_env].path = xstrdup(path);
    r->env[r->n_env].value = value;
    r->n_env++;
}

/* A scalar as text: strings as they are, numbers, booleans and null as JSON writes them. */
static char *scalar_text(const json_t *v)
{
    if (json_is_string(v))
        return xstrdup(json_string_value(v));
    char *s = json_dumps(v, JSON_ENCODE_ANY);
    char *out = xstrdup(s ? s : "?");
    free(s);
    return out;
}

static void flatten(struct result *r, size_t *cap, struct buf *path, const json_t *v)
{
    if (json_is_object(v)) {
        const char *key;
        json_t *child;
        size_t len = path->len;
        json_object_foreach((json_t *)v, key, child)
        {
            buf_printf(path, ".%s", key);
            flatten(r, cap, path, child);
            path->len = len;
            path->data[len] = '\0';
        }
    } else if (json_is_array(v)) {
        /* Elements share their array's path (objects in it add their keys): the diff compares
         * what an array holds as a set, whatever its order. */
        size_t i;
        json_t *el;
        json_array_foreach(v, i, el)
        {
            flatten(r, cap, path, el);
        }
    } else {
        push(r, cap, path->data, scalar_text(v));
    }
}

void result_env_read(const json_t *root, struct result *r)
{
    size_t cap = 0;
    struct buf path;
    buf_init(&path);
    for (const char *const *s = env_sections; *s; s++) {
        json_t *section = json_object_get(root, *s);
        if (!section)
            continue;
        buf_reset(&path);
        buf_puts(&path, *s);
        flatten(r, &cap, &path, section);
    }
    buf_free(&path);
}

void result_env_free(struct result *r)
{
    for (size_t i = 0; i < r->n_env; i++) {
        free(r->env[i].path);
        free(r->env[i].value);
    }
    free(r->env);
    r->env = NULL;
    r->n_env = 0;
}
