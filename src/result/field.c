#include "result/field.h"

#include <inttypes.h>
#include <string.h>

#include "base/mem.h"
#include "result/part.h"

static const char settings_prefix[] = "server.settings.";
static const char meta_prefix[] = "meta.";

/* The fixed fields; the families are matched by prefix. */
enum field {
    F_LABEL,
    F_RUN_ID,
    F_STARTED_AT,
    F_WORKLOAD_NAME,
    F_WORKLOAD_SCALE,
    F_CLIENTS,
    F_RATE,
    F_PROTOCOL,
    F_SERVER_VERSION,
    F_N
};

static const char *const field_names[F_N] = {
    "label",           "run_id",       "started_at",       "workload.name",  "workload.scale",
    "options.clients", "options.rate", "options.protocol", "server.version",
};

const char *result_field_names(void)
{
    static char names[1024];
    size_t n = 0;
    names[0] = 0;
    for (int f = 0; f < F_N; f++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s, ", field_names[f]);
    for (size_t i = 0; result_part_field_name(i) && n < sizeof names; i++)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s, ", result_part_field_name(i));
    if (n < sizeof names)
        snprintf(names + n, sizeof names - n, "%s", "server.settings.NAME, meta.KEY");
    return names;
}

static int fixed_field(const char *name)
{
    for (int f = 0; f < F_N; f++)
        if (strcmp(name, field_names[f]) == 0)
            return f;
    return -1;
}

/* The NAME after prefix, or NULL when name is not prefix followed by a non-empty NAME. */
static const char *after(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(name, prefix, n) == 0 && name[n] ? name + n : NULL;
}

/* Whether name is a part's field (result/part.h). */
static int part_field(const char *name)
{
    for (size_t i = 0; result_part_field_name(i); i++)
        if (strcmp(result_part_field_name(i), name) == 0)
            return 1;
    return 0;
}

int result_field_valid(const char *name)
{
    return name && (fixed_field(name) >= 0 || after(name, settings_prefix) ||
                    after(name, meta_prefix) || part_field(name));
}

static int text(const char *s, char **value)
{
    *value = s ? xstrdup(s) : NULL;
    return s != NULL;
}

static int fixed_value(const struct result *r, int f, char **value)
{
    switch (f) {
    case F_LABEL:
        return text(r->label, value);
    case F_RUN_ID:
        return text(r->run_id, value);
    case F_STARTED_AT:
        return text(r->started_at, value);
    case F_WORKLOAD_NAME:
        return text(r->workload.name, value);
    case F_WORKLOAD_SCALE:
        if (r->workload.scale <= 0)
            return 0;
        *value = xasprintf("%" PRId64, r->workload.scale);
        return 1;
    case F_CLIENTS:
        if (r->options.clients <= 0)
            return 0;
        *value = xasprintf("%d", r->options.clients);
        return 1;
    case F_RATE:
        *value = xasprintf("%.15g", r->options.rate > 0 ? r->options.rate : 0.0);
        return 1;
    case F_PROTOCOL:
        return text(r->options.protocol, value);
    default:
        return text(r->server.version, value);
    }
}

int result_field_value(const struct result *r, const char *name, char **value)
{
    *value = NULL;
    if (!name)
        return 0;
    int f = fixed_field(name);
    if (f >= 0)
        return fixed_value(r, f, value);
    f = result_part_field(r, name, value);
    if (f >= 0)
        return f;
    const char *key = after(name, settings_prefix);
    if (key) {
        for (size_t i = 0; i < r->server.n_settings; i++)
            if (strcmp(r->server.settings[i].name, key) == 0)
                return text(r->server.settings[i].value, value);
        return 0;
    }
    key = after(name, meta_prefix);
    if (key)
        for (size_t i = 0; i < r->n_meta; i++)
            if (strcmp(r->meta[i].key, key) == 0)
                return text(r->meta[i].value, value);
    return 0;
}
