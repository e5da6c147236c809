/* Failures on values the capture's server generated (generated.h). */
#include "workload/replay/generated.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

/* 1 when s starts with a run of digits (at least one). */
static int digits(const char *s)
{
    return isdigit((unsigned char)*s);
}

/* 1 when message holds, somewhere, prefix followed by a number. */
static int prefix_then_number(const char *message, const char *prefix)
{
    size_t n = strlen(prefix);
    for (const char *p = strstr(message, prefix); p; p = strstr(p + 1, prefix))
        if (digits(p + n))
            return 1;
    return 0;
}

const char *replay_generated_value(const char *message)
{
    static const struct {
        const char *prefix, *kind;
    } numbered[] = {
        {"large object ", "large object OID"},
        {"transaction ID ", "transaction ID"},
        {"schema \"pg_temp_", "temporary schema name"},
        {"schema \"pg_toast_temp_", "temporary schema name"},
        {"relation with OID ", "object OID"},
        {"function with OID ", "object OID"},
        {"type with OID ", "object OID"},
        {"cache lookup failed for ", NULL}, /* "... for relation 16384": the word, then the OID */
    };
    if (!message)
        return NULL;
    for (size_t i = 0; i < sizeof numbered / sizeof numbered[0]; i++) {
        if (numbered[i].kind) {
            if (prefix_then_number(message, numbered[i].prefix))
                return numbered[i].kind;
            continue;
        }
        const char *p = strstr(message, numbered[i].prefix);
        if (!p)
            continue;
        p += strlen(numbered[i].prefix);
        while (*p && !isspace((unsigned char)*p))
            p++;
        if (*p == ' ' && digits(p + 1))
            return "object OID";
    }
    return NULL;
}

const char *replay_generated_key(const char *sqlstate, const char *message, const char *keys,
                                 size_t len)
{
    if (!sqlstate || !message || (strcmp(sqlstate, "23505") != 0 && strcmp(sqlstate, "23503") != 0))
        return NULL;
    for (const char *k = keys, *end = keys + len; k && k < end; k += strlen(k) + 1) {
        /* "... violates unique constraint \"k\"", "... violates foreign key constraint
         * \"k\"[ on table ...]" */
        size_t n = strlen(k);
        for (const char *p = strstr(message, "constraint \""); p;
             p = strstr(p + 1, "constraint \""))
            if (strncmp(p + 12, k, n) == 0 && p[12 + n] == '"')
                return "sequence value";
    }
    return NULL;
}
