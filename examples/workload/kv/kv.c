/* kv: an example workload (examples/workload/kv/README.md), one table of keys and counters.
 * init -w kv -s S [-F FILLFACTOR] makes table kv of 1000 * S keys, every value 0 (-F: the
 * table's fillfactor, an init option of its own); run -w kv's one script adds 1 to a random
 * key's value and reads it back, so the values sum to the transactions run. Its result part,
 * summary.kv {"rows": N, "added": A}, is the table's rows when the run started and what the
 * run added to the values (the server's count of its committed transactions). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/num.h"
#include "result/part.h"
#include "workload/workload_int.h"

#define KV_ROWS_PER_SCALE 1000
#define KV_STR(x)         #x
#define KV_XSTR(x)        KV_STR(x) /* the number as the script's text */

/* The part: read from and written to the result file, freed with the result. */
struct kv_figures {
    int64_t rows;
    int64_t before, added; /* the values' sum when the run started; added: -1 unknown */
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
    const json_t *added = json_object_get(o, "added");
    struct kv_figures *f = xmalloc(sizeof *f);
    f->rows = (int64_t)json_integer_value(rows);
    f->before = 0;
    f->added = json_is_integer(added) ? (int64_t)json_integer_value(added) : -1;
    return f;
}

static json_t *part_write(const void *data, json_t *summary)
{
    (void)summary;
    const struct kv_figures *f = data;
    json_t *o = json_pack("{s:I}", "rows", (json_int_t)f->rows);
    if (f->added >= 0)
        json_object_set_new(o, "added", json_integer((json_int_t)f->added));
    return o;
}

static void part_free(void *data)
{
    free(data);
}

static void part_rows(const struct result *r, const void *data, enum result_part_place at,
                      struct result_rows *out)
{
    (void)r;
    const struct kv_figures *f = data;
    if (at != RESULT_PLACE_SHOW_SUMMARY)
        return;
    result_row_count(result_rows_add(out, at, "kv rows", "%v"), RESULT_FMT_INT, (uint64_t)f->rows,
                     NULL);
    if (f->added >= 0)
        result_row_count(result_rows_add(out, at, "kv added", "%v"), RESULT_FMT_INT,
                         (uint64_t)f->added, NULL);
}

static const struct result_part_ops kv_part = {
    .key = "kv",
    .at = RESULT_PART_SUMMARY,
    .read = part_read,
    .write = part_write,
    .free = part_free,
    .rows = part_rows,
};

static int foreign_option(const struct workload *w, const char *name, struct err *e)
{
    if (workload_group_has(&sysbench_size_options, name))
        return err_set(e, ERR_INPUT, "run: %s's table is sized by -s, not --tables or --table-size",
                       w->name);
    return 0;
}

/* init's options: -s, the table's thousands of keys, and -F, its fillfactor (0: the
 * server's default). */
struct kv_init_opts {
    int scale, fillfactor;
};

static const char *const init_names[] = {"scale", "fillfactor", NULL};
static const struct workload_option_group init_group = {init_names, "-w kv"};
static const struct workload_option_group *const init_groups[] = {&init_group, NULL};

static void init_options_init(void *opts)
{
    *(struct kv_init_opts *)opts = (struct kv_init_opts){.scale = 1};
}

static int init_option(void *opts, const char *name, const char *arg, struct err *e)
{
    struct kv_init_opts *o = opts;
    if (strcmp(name, "scale") == 0)
        return workload_parse_scale(arg, &o->scale, e);
    int64_t v;
    if (num_int("-F", arg, 10, 100, &v, e) < 0)
        return -1;
    o->fillfactor = (int)v;
    return 0;
}

/* run --local's load: at run's -s. */
static void load_sizes(const void *opts, int64_t scale, void *init_opts)
{
    (void)opts;
    if (scale)
        ((struct kv_init_opts *)init_opts)->scale = (int)scale;
}

static int check_init(const struct workload *w, const struct workload_init_given *g, struct err *e)
{
    if (workload_refuse_warehouses(w, g, e) < 0)
        return -1;
    for (int k = 0; k < g->n; k++) /* pgbench -i's, but -F: kv's too */
        if (strcmp(g->opt[k].name, "fillfactor") != 0 &&
            workload_group_has(&pgbench_init_options, g->opt[k].name))
            return err_set(e, ERR_INPUT,
                           "init: -I, -n, --foreign-keys, --unlogged-tables and the tablespaces "
                           "are for pgbench's tables, not %s",
                           w->name);
    if (workload_given_any(g, &sysbench_size_options))
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
    f->added = -1;
    p->state = f;
    if (pg_query_value(c, "SELECT coalesce(sum(v), 0) FROM kv", value, sizeof value, e) < 0)
        return -1;
    f->before = atoll(value);
    if (p->scale == 0 && (p->scale = f->rows / KV_ROWS_PER_SCALE) < 1)
        return err_set(e, ERR_INPUT, "run: table kv holds fewer than %d rows (run pgarena init)",
                       KV_ROWS_PER_SCALE);
    return 0;
}

/* The part: the rows, and what the run added to the values (read on a connection of its own;
 * unknown when it cannot be read). */
static void result(const struct workload *w, const struct workload_params *p, struct result *r)
{
    (void)w;
    struct kv_figures *f = xmalloc(sizeof *f);
    *f = *(const struct kv_figures *)p->state;
    struct err e = {0};
    char value[64];
    struct pg_conn *c = pg_connect(p->conn, &e);
    if (c && pg_query_value(c, "SELECT coalesce(sum(v), 0) FROM kv", value, sizeof value, &e) == 0)
        f->added = atoll(value) - f->before;
    if (c)
        pg_finish(c);
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
    const struct kv_init_opts *o = opt->opts;
    if (rc == 0) {
        char with[64] = "";
        if (o->fillfactor)
            snprintf(with, sizeof with, " WITH (fillfactor = %d)", o->fillfactor);
        snprintf(sql, sizeof sql,
                 "BEGIN; DROP TABLE IF EXISTS kv; CREATE TABLE kv (k int PRIMARY KEY, v bigint NOT "
                 "NULL)%s; INSERT INTO kv SELECT g, 0 FROM generate_series(1, %d) g; COMMIT",
                 with, KV_ROWS_PER_SCALE * o->scale);
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
    .foreign_option = foreign_option,
    .check_init = check_init,
    .init_options = init_groups,
    .init_options_init = init_options_init,
    .init_option = init_option,
    .load_sizes = load_sizes,
    .detect = detect,
    .load = load,
    .interrupted = interrupted,
    .result = result,
    .free_state = free_state,
    .part = &kv_part,
};
