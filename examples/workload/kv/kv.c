/* kv: an example workload (examples/workload/kv/README.md), one table of keys and counters.
 * init -w kv -s S makes table kv of 1000 * S keys, every value 0; run -w kv's one script
 * adds 1 to a random key's value and reads it back, so the values sum to the transactions run.
 * Its result part, summary.kv {"rows": N}, is the table's rows when the run started. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "result/part.h"
#include "workload/workload_int.h"

#define KV_ROWS_PER_SCALE 1000
#define KV_STR(x)         #x
#define KV_XSTR(x)        KV_STR(x) /* the number as the script's text */

/* The part: read from and written to the result file, freed with the result. */
struct kv_figures {
    int64_t rows;
};

static void *part_read(const json_t *o, const json_t *root, const json_t *summary, int *bad)
{
    (void)root;
    (void)summary;
    if (!o)
        return NULL;
    const json_t *rows = json_object_get(o, "rows");
    if (!json_is_integer(rows)) {
        *bad = 1;
        return NULL;
    }
    struct kv_figures *f = xmalloc(sizeof *f);
    f->rows = (int64_t)json_integer_value(rows);
    return f;
}

static json_t *part_write(const void *data, json_t *summary)
{
    (void)summary;
    const struct kv_figures *f = data;
    return json_pack("{s:I}", "rows", (json_int_t)f->rows);
}

static void part_free(void *data)
{
    free(data);
}

static void part_rows(const struct result *r, const void *data, enum result_part_place at,
                      struct result_rows *out)
{
    (void)r;
    if (at == RESULT_PLACE_SHOW_SUMMARY)
        result_row_count(result_rows_add(out, at, "kv rows", "%v"), RESULT_FMT_INT,
                         (uint64_t)((const struct kv_figures *)data)->rows, NULL);
}

static const struct result_part_ops kv_part = {
    .key = "kv",
    .at = RESULT_PART_SUMMARY,
    .read = part_read,
    .write = part_write,
    .free = part_free,
    .rows = part_rows,
};

static int check_run(const struct workload *w, struct workload_run_opts *o, struct err *e)
{
    if (o->tables || o->table_size)
        return err_set(e, ERR_INPUT, "run: %s's table is sized by -s, not --tables or --table-size",
                       w->name);
    return 0;
}

static int check_init(const struct workload *w, const struct workload_init_given *g, struct err *e)
{
    if (workload_refuse_warehouses(w, g, e) < 0 || workload_refuse_pgbench_init(w, g, e) < 0)
        return -1;
    if (g->tables || g->size)
        return err_set(e, ERR_INPUT,
                       "init: %s's table is sized by -s, not --tables or --table-size", w->name);
    return 0;
}

/* The table's rows (the run's state, for the part) and the scale the script's :scale is. */
static int detect(const struct workload *w, struct pg_conn *c, struct workload_params *p,
                  struct err *e)
{
    (void)w;
    char value[64];
    if (pg_query_value(c, "SELECT to_regclass('kv') IS NOT NULL", value, sizeof value, e) < 0)
        return -1;
    if (strcmp(value, "t") != 0)
        return err_set(e, ERR_INPUT, "run: no table kv here: run pgarena init -w kv first");
    if (pg_query_value(c, "SELECT count(*) FROM kv", value, sizeof value, e) < 0)
        return -1;
    struct kv_figures *f = xmalloc(sizeof *f);
    f->rows = atoll(value);
    p->state = f;
    if (p->scale == 0 && (p->scale = f->rows / KV_ROWS_PER_SCALE) < 1)
        return err_set(e, ERR_INPUT, "run: table kv holds fewer than %d rows (run pgarena init)",
                       KV_ROWS_PER_SCALE);
    return 0;
}

static void result(const struct workload *w, const struct workload_params *p, struct result *r)
{
    (void)w;
    struct kv_figures *f = xmalloc(sizeof *f);
    *f = *(const struct kv_figures *)p->state;
    result_part_set(r, &kv_part, f);
}

static void free_state(const struct workload *w, struct workload_params *p)
{
    (void)w;
    free(p->state);
    p->state = NULL;
}

/* The loader: one connection, the table replaced (only when it is kv's shape, or with
 * --force) and filled by the server itself. */
static int load(const struct pg_connopts *conn, const struct load_options *opt, struct err *e)
{
    struct pg_conn *c = pg_connect(conn, e);
    if (!c)
        return -1;
    char cols[256], sql[512];
    int rc = pg_query_value(c,
                            "SELECT coalesce(string_agg(attname, ',' ORDER BY attnum), '') FROM "
                            "pg_attribute WHERE attrelid = to_regclass('kv') AND attnum > 0 AND "
                            "NOT attisdropped",
                            cols, sizeof cols, e);
    if (rc == 0 && *cols && strcmp(cols, "k,v") != 0 && !opt->force)
        rc = err_set(e, ERR_INPUT,
                     "init: table kv exists and is not kv's (k, v): --force replaces it");
    if (rc == 0) {
        snprintf(sql, sizeof sql,
                 "BEGIN; DROP TABLE IF EXISTS kv; CREATE TABLE kv (k int PRIMARY KEY, v bigint NOT "
                 "NULL); INSERT INTO kv SELECT g, 0 FROM generate_series(1, %d) g; COMMIT",
                 KV_ROWS_PER_SCALE * opt->scale);
        rc = pg_exec(c, sql, e);
    }
    if (rc == 0)
        rc = pg_exec(c, "VACUUM ANALYZE kv", e);
    pg_finish(c);
    return rc;
}

static void interrupted(const struct load_options *opt, struct err *e)
{
    (void)opt;
    err_set(e, ERR_RUNTIME, "init interrupted: table kv is incomplete; run init again");
}

const struct workload workload_kv = {
    .name = "kv",
    .description = "example: add 1 to a random key's value, read it back",
    .dataset = DATASET_OWN,
    .script =
        "\\set k random(1, " KV_XSTR(KV_ROWS_PER_SCALE) " * :scale)\n"
                                                        "UPDATE kv SET v = v + 1 WHERE k = :k;\n"
                                                        "SELECT v FROM kv WHERE k = :k;\n",
    .check_run = check_run,
    .check_init = check_init,
    .detect = detect,
    .load = load,
    .interrupted = interrupted,
    .result = result,
    .free_state = free_state,
    .part = &kv_part,
};
