/* summary.tpcc as a part of the result file (tpcc_result.h). */
#include "workload/tpcc/tpcc_result.h"

#include <stdlib.h>

#include "base/mem.h"
#include "result/result.h"

static void *read_part(const json_t *o, const json_t *root, const json_t *summary, int *bad)
{
    (void)root, (void)summary, (void)bad;
    if (!json_is_object(o))
        return NULL;
    struct tpcc_figures *t = xcalloc(1, sizeof *t);
    t->warehouses = (int)result_part_count(o, "warehouses");
    t->nopm = result_part_num(o, "nopm");
    t->nopm_client = result_part_num(o, "nopm_client");
    t->tpm = result_part_num(o, "tpm");
    t->new_order_rollbacks = result_part_count(o, "new_order_rollbacks");
    const char *mode = json_string_value(json_object_get(o, "mode"));
    t->mode = mode ? xstrdup(mode) : NULL;
    t->keying_thinking = json_is_true(json_object_get(o, "keying_thinking"));
    return t;
}

static json_t *write_part(const void *data, json_t *summary)
{
    (void)summary;
    const struct tpcc_figures *t = data;
    json_t *o = json_object();
    json_object_set_new(o, "warehouses", json_integer(t->warehouses));
    json_object_set_new(o, "nopm", result_part_real(t->nopm));
    json_object_set_new(o, "nopm_client", result_part_real(t->nopm_client));
    json_object_set_new(o, "tpm", result_part_real(t->tpm));
    json_object_set_new(o, "new_order_rollbacks", json_integer((json_int_t)t->new_order_rollbacks));
    json_object_set_new(o, "mode", result_part_str(t->mode));
    json_object_set_new(o, "keying_thinking", json_boolean(t->keying_thinking));
    return o;
}

static void free_part(void *data)
{
    struct tpcc_figures *t = data;
    if (t)
        free(t->mode);
    free(t);
}

/* nopm is the server's count, which every agent read: the first agent's; the clients' figures
 * add up. */
static void *merge_part(void *const *parts, size_t n)
{
    struct tpcc_figures *out = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct tpcc_figures *t = parts[i];
        if (!t)
            continue;
        if (!out) {
            out = xmalloc(sizeof *out);
            *out = *t;
            out->mode = t->mode ? xstrdup(t->mode) : NULL;
            continue;
        }
        out->nopm_client += t->nopm_client;
        out->tpm += t->tpm;
        out->new_order_rollbacks += t->new_order_rollbacks;
    }
    return out;
}

/* show: NOPM first, as HammerDB users read them; report: a sentence after the outcome's. */
static void rows(const struct result *r, const void *data, enum result_part_place at,
                 struct result_rows *out)
{
    (void)r;
    const struct tpcc_figures *t = data;
    const char *mode = t->mode ? t->mode : "?";
    struct result_row *row;
    if (at == RESULT_PLACE_SHOW_RATE) {
        row = result_rows_add(out, at, "NOPM", "%v (server: sum of d_next_o_id), %v (clients)");
        result_row_num(row, RESULT_FMT_FIXED, 0, t->nopm, NULL);
        result_row_num(row, RESULT_FMT_FIXED, 0, t->nopm_client, NULL);
        row = result_rows_add(out, at, "TPM",
                              "%v (all five transactions), %v New-Orders rolled back");
        result_row_num(row, RESULT_FMT_FIXED, 0, t->tpm, NULL);
        result_row_count(row, RESULT_FMT_INT, t->new_order_rollbacks, NULL);
        row = result_rows_add(out, at, "TPC-C",
                              t->keying_thinking
                                  ? "%v warehouses, %v, keying and thinking times"
                                  : "%v warehouses, %v, no keying or thinking times: not TPC-C "
                                    "compliant");
        result_row_num(row, RESULT_FMT_FIXED, 0, t->warehouses, NULL);
        result_row_text(row, mode);
    } else if (at == RESULT_PLACE_HTML_SUMMARY) {
        row = result_rows_add(out, at, "TPC-C",
                              t->keying_thinking
                                  ? " TPC-C, %v warehouses, %v: NOPM %v (server), %v (clients)."
                                  : " TPC-C, %v warehouses, %v: NOPM %v (server), %v (clients); "
                                    "without keying and thinking times: not TPC-C compliant.");
        result_row_num(row, RESULT_FMT_FIXED, 0, t->warehouses, NULL);
        result_row_text(row, mode);
        result_row_num(row, RESULT_FMT_SIG, 4, t->nopm, NULL);
        result_row_num(row, RESULT_FMT_SIG, 4, t->nopm_client, NULL);
    }
}

/* A side's NOPM (server-side, the mean over its trials); -1 when a trial has none. */
static double side_nopm(const struct result_part_side *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct tpcc_figures *t = result_part_get(s->runs[i], tpcc_result_part.key);
        if (!t)
            return -1;
        sum += t->nopm;
    }
    return s->n ? sum / (double)s->n : -1;
}

/* compare: each side's NOPM and its change against A; informational, no interval (compare's
 * verdicts are on tps and latency). */
static void compare_rows(const struct result_part_side *sides, size_t n, struct result_rows *out)
{
    double a = side_nopm(&sides[0]);
    if (!(a >= 0))
        return;
    result_rows_add(out, RESULT_PLACE_COMPARE, "NOPM (TPC-C, server-side, mean of the trials)",
                    NULL);
    struct result_row *row = result_rows_add(out, RESULT_PLACE_COMPARE, sides[0].label, NULL);
    result_row_num(row, RESULT_FMT_FIXED, 0, a, NULL);
    for (size_t i = 1; i < n; i++) {
        double b = side_nopm(&sides[i]);
        if (!(b >= 0))
            continue;
        row = result_rows_add(out, RESULT_PLACE_COMPARE, sides[i].label, NULL);
        result_row_num(row, RESULT_FMT_FIXED, 0, b, NULL);
        if (a > 0)
            result_row_num(row, RESULT_FMT_CHANGE, 1, 100.0 * (b - a) / a, "%");
    }
}

const struct result_part_ops tpcc_result_part = {
    .key = "tpcc",
    .at = RESULT_PART_SUMMARY,
    .read = read_part,
    .write = write_part,
    .free = free_part,
    .merge = merge_part,
    .rows = rows,
    .compare_rows = compare_rows,
};
