/* summary.ch as a part of the result file (ch_result.h). */
#include "workload/ch/ch_result.h"

#include <math.h>
#include <stdlib.h>

#include "base/buf.h"
#include "base/mem.h"
#include "report/fmt.h"

static void *read_part(const json_t *o, const json_t *root, const json_t *summary, int *bad)
{
    (void)root, (void)summary, (void)bad;
    if (!json_is_object(o))
        return NULL;
    struct ch_figures *c = xcalloc(1, sizeof *c);
    c->analytic_clients = (int)result_part_count(o, "analytic_clients");
    c->queries_per_hour = result_part_num(o, "queries_per_hour");
    const json_t *g = json_object_get(o, "power_geomean_ms");
    c->power_geomean_ms = json_is_number(g) ? json_number_value(g) : NAN; /* null: unknown */
    return c;
}

static json_t *write_part(const void *data, json_t *summary)
{
    (void)summary;
    const struct ch_figures *c = data;
    json_t *o = json_object();
    json_object_set_new(o, "analytic_clients", json_integer(c->analytic_clients));
    json_object_set_new(o, "queries_per_hour", result_part_real(c->queries_per_hour));
    json_object_set_new(o, "power_geomean_ms", result_part_real(c->power_geomean_ms));
    return o;
}

/* show: after the tps line (the queries' own figures are in the per-script table). */
static int text(const struct result *r, const void *data, enum result_part_place at, FILE *out)
{
    (void)r;
    const struct ch_figures *c = data;
    if (at != RESULT_PLACE_SHOW_RATE)
        return 0;
    fprintf(out, "CH-benCHmark:        analytic clients %d, %.0f queries per hour",
            c->analytic_clients, c->queries_per_hour);
    if (isfinite(c->power_geomean_ms))
        fprintf(out, ", geometric mean %.3f ms", c->power_geomean_ms);
    else if (c->analytic_clients > 0)
        fprintf(out, ", no geometric mean (a query did not complete)");
    fputc('\n', out);
    if (c->analytic_clients > 0)
        fprintf(out, "                     tps, latency and TPM are the terminals' (-c) only\n");
    return 1;
}

/* report: a sentence after the outcome's when streams ran. */
static int html(const struct result *r, const void *data, enum result_part_place at, struct buf *b)
{
    (void)r;
    const struct ch_figures *c = data;
    if (at != RESULT_PLACE_HTML_SUMMARY || c->analytic_clients <= 0)
        return 0;
    char n[48], g[32];
    buf_printf(b,
               " CH-benCHmark, %d analytic clients: %s queries per hour, geometric mean of "
               "the queries' latencies %s (the figures above are the terminals' only).",
               c->analytic_clients, report_fmt_sig(n, sizeof n, c->queries_per_hour, 4),
               isfinite(c->power_geomean_ms)
                   ? report_fmt_latency(g, sizeof g, c->power_geomean_ms * 1000)
                   : "unknown");
    return 1;
}

/* merge: none (a merged file has no summary.ch). */
const struct result_part_ops ch_result_part = {
    .key = "ch",
    .at = RESULT_PART_SUMMARY,
    .read = read_part,
    .write = write_part,
    .free = free,
    .text = text,
    .html = html,
};
