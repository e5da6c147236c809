/* summary.ch as a part of the result file (ch_result.h). */
#include "workload/ch/ch_result.h"

#include <math.h>
#include <stdlib.h>

#include "base/mem.h"

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

/* show: after the tps line (the queries' own figures are in the per-script table); report: a
 * sentence after the outcome's when streams ran. */
static void rows(const struct result *r, const void *data, enum result_part_place at,
                 struct result_rows *out)
{
    (void)r;
    const struct ch_figures *c = data;
    struct result_row *row;
    if (at == RESULT_PLACE_SHOW_RATE) {
        const char *text = isfinite(c->power_geomean_ms)
                               ? "analytic clients %v, %v queries per hour, geometric mean %v"
                           : c->analytic_clients > 0
                               ? "analytic clients %v, %v queries per hour, no geometric mean (a "
                                 "query did not complete)"
                               : "analytic clients %v, %v queries per hour";
        row = result_rows_add(out, at, "CH-benCHmark", text);
        result_row_num(row, RESULT_FMT_FIXED, 0, c->analytic_clients, NULL);
        result_row_num(row, RESULT_FMT_FIXED, 0, c->queries_per_hour, NULL);
        if (isfinite(c->power_geomean_ms))
            result_row_num(row, RESULT_FMT_FIXED, 3, c->power_geomean_ms, " ms");
        if (c->analytic_clients > 0)
            result_rows_add(out, at, "", "tps, latency and TPM are the terminals' (-c) only");
    } else if (at == RESULT_PLACE_HTML_SUMMARY && c->analytic_clients > 0) {
        row = result_rows_add(out, at, "CH-benCHmark",
                              " CH-benCHmark, %v analytic clients: %v queries per hour, geometric "
                              "mean of the queries' latencies %v (the figures above are the "
                              "terminals' only).");
        result_row_num(row, RESULT_FMT_FIXED, 0, c->analytic_clients, NULL);
        result_row_num(row, RESULT_FMT_SIG, 4, c->queries_per_hour, NULL);
        if (isfinite(c->power_geomean_ms))
            result_row_num(row, RESULT_FMT_LATENCY, 0, c->power_geomean_ms * 1000, NULL);
        else
            result_row_text(row, "unknown");
    }
}

/* merge: none (a merged file has no summary.ch). */
const struct result_part_ops ch_result_part = {
    .key = "ch",
    .at = RESULT_PART_SUMMARY,
    .read = read_part,
    .write = write_part,
    .free = free,
    .rows = rows,
};
