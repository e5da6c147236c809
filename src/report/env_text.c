#include "report/text.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "report/fmt.h"

/* Environment entries under a path prefix, as "name = value" lines (the prefix left out). */
static void print_prefixed(FILE *out, const struct result *r, const char *title, const char *prefix)
{
    size_t len = strlen(prefix);
    int first = 1;
    for (size_t i = 0; i < r->n_env; i++) {
        if (strncmp(r->env[i].path, prefix, len) != 0)
            continue;
        char line[100 - 21 + 1]; /* "name = value" cut to fit 100 columns */
        char *text = xasprintf("%s = %s", r->env[i].path + len, r->env[i].value);
        fprintf(out, "%-21s%s\n", first ? title : "", report_fmt_cut(line, sizeof line, text));
        free(text);
        first = 0;
    }
}

void report_text_environment(FILE *out, const struct result *r)
{
    if (r->started_at)
        fprintf(out, "started:             %s%s%s\n", r->started_at,
                r->finished_at ? ", finished " : "", r->finished_at ? r->finished_at : "");
    if (r->command)
        fprintf(out, "command:             %s\n", r->command);
    if (r->client.hostname)
        fprintf(out, "client:              %s (%s, %d cpus, %.1f GiB), pgarena %s, libpq %s\n",
                r->client.hostname, r->client.os ? r->client.os : "?", r->client.cpus,
                (double)r->client.memory_bytes / (1 << 30),
                r->client.pgarena_version ? r->client.pgarena_version : "?",
                r->client.libpq_version ? r->client.libpq_version : "?");
    /* Whatever the file records of the server beyond its version (settings, warnings),
     * generically: files of later versions may hold more. */
    print_prefixed(out, r, "server settings:", "server.settings.");
    /* server.warnings are in the summary already. */
}
