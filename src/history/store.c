#include "history/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "os/os.h"
#include "pg/pg.h"
#include "result/run_id.h"

struct store {
    struct pg_conn *pg;
    char *where; /* for messages: the store's database */
};

/* The schema at each version: migrations[v - 1] takes version v - 1 (0: none) to v. */
static const char *const migrations[STORE_SCHEMA_VERSION] = {
    "CREATE SCHEMA IF NOT EXISTS pgarena_results;"
    "CREATE TABLE pgarena_results.version (version int NOT NULL);"
    "INSERT INTO pgarena_results.version VALUES (0);"
    "CREATE TABLE pgarena_results.runs ("
    " run_id text PRIMARY KEY, stored_at timestamptz NOT NULL DEFAULT now(),"
    " started_at timestamptz, label text, workload text, scale bigint, clients int,"
    " rate double precision, protocol text, server_version text, settings_hash text,"
    " client_host text, tps double precision, p50_us double precision,"
    " p95_us double precision, p99_us double precision, failure_rate double precision,"
    " meta jsonb NOT NULL DEFAULT '{}', result jsonb NOT NULL);"
    "CREATE INDEX ON pgarena_results.runs (workload, started_at);"
    "CREATE TABLE pgarena_results.accepted (run_id text PRIMARY KEY,"
    " accepted_at timestamptz NOT NULL DEFAULT now());",
    /* 2: runs written while they go on (complete false until their result is stored), and
     * their intervals as they close. */
    "ALTER TABLE pgarena_results.runs ADD COLUMN complete boolean NOT NULL DEFAULT true;"
    "CREATE TABLE pgarena_results.intervals (run_id text NOT NULL,"
    " t_s double precision NOT NULL, figures jsonb NOT NULL, PRIMARY KEY (run_id, t_s));",
};

static int fail(struct store *s)
{
    (void)pg_exec(s->pg, "ROLLBACK", &(struct err){0});
    return -1;
}

/* The schema's version: 0 when there is none. -1 with e set. */
static int schema_version(struct store *s, int *version, struct err *e)
{
    struct pg_result *r =
        pg_query(s->pg, "SELECT to_regclass('pgarena_results.version') IS NOT NULL", 0, NULL, e);
    if (!r)
        return -1;
    int exists = strcmp(pg_result_value(r, 0, 0), "t") == 0;
    pg_result_free(r);
    *version = 0;
    if (!exists)
        return 0;
    r = pg_query(s->pg, "SELECT max(version) FROM pgarena_results.version", 0, NULL, e);
    if (!r)
        return -1;
    *version = pg_result_isnull(r, 0, 0) ? 0 : atoi(pg_result_value(r, 0, 0));
    pg_result_free(r);
    return 0;
}

/* Make (create), migrate or check the schema, one writer at a time. */
static int prepare_schema(struct store *s, int create, struct err *e)
{
    int version;
    if (pg_exec(s->pg, "BEGIN; SELECT pg_advisory_xact_lock(hashtext('pgarena_results'))", e) < 0)
        return fail(s);
    if (schema_version(s, &version, e) < 0)
        return fail(s);
    if (version > STORE_SCHEMA_VERSION) {
        fail(s);
        return err_set(e, ERR_INPUT,
                       "%s: the results store is schema version %d, newer than this pgarena "
                       "knows (%d)",
                       s->where, version, STORE_SCHEMA_VERSION);
    }
    if (version == 0 && !create) {
        fail(s);
        return err_set(e, ERR_INPUT,
                       "%s: no results store there (schema pgarena_results; pgarena store "
                       "--into makes it)",
                       s->where);
    }
    for (int v = version; v < STORE_SCHEMA_VERSION; v++) {
        char set[96];
        snprintf(set, sizeof set, "UPDATE pgarena_results.version SET version = %d", v + 1);
        if (pg_exec(s->pg, migrations[v], e) < 0 || pg_exec(s->pg, set, e) < 0)
            return fail(s);
    }
    return pg_exec(s->pg, "COMMIT", e) < 0 ? fail(s) : 0;
}

#define STORE_TIMEOUT_MS 30000

struct store *store_open(const char *conninfo, int create, struct err *e)
{
    return store_open_within(conninfo, create, STORE_TIMEOUT_MS, e);
}

struct store *store_open_within(const char *conninfo, int create, int timeout_ms, struct err *e)
{
    struct pg_connopts o = {.dbname = xstrdup(conninfo)};
    struct store *s = xcalloc(1, sizeof *s);
    s->where = xstrdup(create ? "store" : "history");
    /* An auxiliary connection: a frozen store must not hold up the end of a run. Its bound is
     * longer than the sampler's, since a store waits for another writer's lock and a history
     * reads every run of a series. */
    s->pg = pg_connect_aux(&o, timeout_ms, e);
    pg_connopts_free(&o);
    if (!s->pg || pg_exec(s->pg, "SET client_min_messages = warning", e) < 0 ||
        prepare_schema(s, create, e) < 0) {
        store_close(s);
        return NULL;
    }
    return s;
}

void store_close(struct store *s)
{
    if (!s)
        return;
    if (s->pg)
        pg_finish(s->pg);
    free(s->where);
    free(s);
}

static char *num_text(double v)
{
    return v == v ? xasprintf("%.17g", v) : NULL;
}

/* A hash of the non-default settings (name=value, in the file's order, which is sorted). */
static char *settings_hash(const struct result *r)
{
    struct run_id_hash h;
    char id[RUN_ID_LEN + 1];
    run_id_hash_init(&h);
    for (size_t i = 0; i < r->server.n_settings; i++) {
        const struct result_setting *st = &r->server.settings[i];
        if (!st->non_default)
            continue;
        run_id_hash_add(&h, st->name, strlen(st->name) + 1);
        if (st->value)
            run_id_hash_add(&h, st->value, strlen(st->value) + 1);
    }
    run_id_hash_uuid(&h, id);
    return xstrndup(id, 16);
}

static char *meta_text(const struct result *r)
{
    struct buf b;
    buf_init(&b);
    buf_puts(&b, "{");
    for (size_t i = 0; i < r->n_meta; i++) {
        buf_printf(&b, "%s", i ? "," : "");
        /* $n::jsonb: keys and values escaped by to_jsonb on the server would need a query per
         * pair; JSON-escape here the few characters that need it */
        for (int part = 0; part < 2; part++) {
            const char *t = part ? r->meta[i].value : r->meta[i].key;
            buf_puts(&b, "\"");
            for (const char *p = t; *p; p++) {
                if (*p == '"' || *p == '\\')
                    buf_printf(&b, "\\%c", *p);
                else if ((unsigned char)*p < 0x20)
                    buf_printf(&b, "\\u%04x", (unsigned char)*p);
                else
                    buf_printf(&b, "%c", *p);
            }
            buf_puts(&b, part ? "\"" : "\":");
        }
    }
    buf_puts(&b, "}");
    return b.data;
}

#define N_ROW_PARAMS 18

/* The runs row's values, as text for $1..$18 (NULL: SQL null). */
static void row_params(const struct result *r, const char *text, size_t len, char *v[N_ROW_PARAMS])
{
    uint64_t all = r->summary.transactions + r->summary.failed;
    char *const w[N_ROW_PARAMS] = {
        xstrdup(r->run_id),
        r->started_at ? xstrdup(r->started_at) : NULL,
        r->label ? xstrdup(r->label) : NULL,
        r->workload.name ? xstrdup(r->workload.name) : NULL,
        xasprintf("%lld", (long long)r->workload.scale),
        xasprintf("%d", r->options.clients),
        num_text(r->options.rate),
        r->options.protocol ? xstrdup(r->options.protocol) : NULL,
        r->server.version ? xstrdup(r->server.version) : NULL,
        settings_hash(r),
        r->client.hostname ? xstrdup(r->client.hostname) : NULL,
        num_text(r->summary.tps),
        num_text(r->summary.latency_us.p50),
        num_text(r->summary.latency_us.p95),
        num_text(r->summary.latency_us.p99),
        num_text(all ? (double)r->summary.failed / (double)all : 0),
        meta_text(r),
        xstrndup(text, len),
    };
    memcpy(v, w, sizeof w);
}

static void params_free(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
}

/* The row: inserted, or (complete) replacing a row still incomplete. 1 written, 0 there
 * already, -1 with e set. */
static int put_row(struct store *s, char *const v[N_ROW_PARAMS], int complete, struct err *e)
{
    char sql[1536];
    snprintf(
        sql, sizeof sql,
        "INSERT INTO pgarena_results.runs AS o (run_id, started_at, label, workload, scale,"
        " clients, rate, protocol, server_version, settings_hash, client_host, tps, p50_us,"
        " p95_us, p99_us, failure_rate, meta, result, complete) VALUES ($1, $2::timestamptz,"
        " $3, $4, $5::bigint, $6::int, $7::float8, $8, $9, $10, $11, $12::float8, $13::float8,"
        " $14::float8, $15::float8, $16::float8, $17::jsonb, $18::jsonb, %s) ON CONFLICT (run_id)"
        " %s RETURNING 1",
        complete ? "true" : "false",
        complete ? "DO UPDATE SET stored_at = now(), started_at = EXCLUDED.started_at,"
                   " label = EXCLUDED.label, workload = EXCLUDED.workload, scale = EXCLUDED.scale,"
                   " clients = EXCLUDED.clients, rate = EXCLUDED.rate,"
                   " protocol = EXCLUDED.protocol, server_version = EXCLUDED.server_version,"
                   " settings_hash = EXCLUDED.settings_hash,"
                   " client_host = EXCLUDED.client_host, tps = EXCLUDED.tps,"
                   " p50_us = EXCLUDED.p50_us, p95_us = EXCLUDED.p95_us,"
                   " p99_us = EXCLUDED.p99_us, failure_rate = EXCLUDED.failure_rate,"
                   " meta = EXCLUDED.meta, result = EXCLUDED.result, complete = true"
                   " WHERE NOT o.complete"
                 : "DO NOTHING");
    struct pg_result *res = pg_query(s->pg, sql, N_ROW_PARAMS, (const char *const *)v, e);
    if (!res)
        return -1;
    int written = pg_result_rows(res) > 0;
    pg_result_free(res);
    return written;
}

/* A statement with parameters whose rows are not read: 0, or -1 with e set. */
static int run_statement(struct store *s, const char *sql, int n, const char *const *v,
                         struct err *e)
{
    struct pg_result *res = pg_query(s->pg, sql, n, v, e);
    if (!res)
        return -1;
    pg_result_free(res);
    return 0;
}

/* The result's intervals into pgarena_results.intervals, those the run did not store as they
 * closed (one statement: the document's intervals[], expanded on the server). */
static int put_intervals(struct store *s, const char *run_id, const char *doc, struct err *e)
{
    const char *v[2] = {run_id, doc};
    return run_statement(s,
                         "INSERT INTO pgarena_results.intervals (run_id, t_s, figures)"
                         " SELECT $1, (i->>'t_s')::float8, i FROM jsonb_array_elements($2::jsonb"
                         " -> 'intervals') i WHERE i ? 't_s' ON CONFLICT DO NOTHING RETURNING 1",
                         2, v, e);
}

int store_put(struct store *s, const struct result *r, const char *text, size_t len, struct err *e)
{
    char *v[N_ROW_PARAMS];
    row_params(r, text, len, v);
    int rc = pg_exec(s->pg, "BEGIN", e) < 0 ? -1 : put_row(s, v, 1, e);
    if (rc > 0 && put_intervals(s, v[0], v[N_ROW_PARAMS - 1], e) < 0)
        rc = -1;
    if (rc >= 0 && pg_exec(s->pg, "COMMIT", e) < 0)
        rc = -1;
    if (rc < 0)
        fail(s);
    params_free(v, N_ROW_PARAMS);
    return rc;
}

char **store_row_params(const struct result *header)
{
    char *doc = result_header_dumps(header);
    if (!doc)
        abort(); /* jansson fails only when out of memory */
    char **v = xcalloc(N_ROW_PARAMS, sizeof *v);
    row_params(header, doc, strlen(doc), v);
    free(doc);
    return v;
}

void store_row_params_free(char **v)
{
    if (v)
        params_free(v, N_ROW_PARAMS);
    free(v);
}

int store_begin_run(struct store *s, char *const *params, struct err *e)
{
    return put_row(s, params, 0, e) < 0 ? -1 : 0;
}

int store_put_interval(struct store *s, const char *run_id, double t_s, const char *figures,
                       struct err *e)
{
    char *t = xasprintf("%.17g", t_s);
    const char *v[3] = {run_id, t, figures};
    int rc = run_statement(s,
                           "INSERT INTO pgarena_results.intervals (run_id, t_s, figures)"
                           " VALUES ($1, $2::float8, $3::jsonb) ON CONFLICT DO NOTHING RETURNING 1",
                           3, v, e);
    free(t);
    return rc;
}

int store_drop_run(struct store *s, const char *run_id, struct err *e)
{
    const char *v[1] = {run_id};
    return run_statement(
        s,
        "WITH r AS (DELETE FROM pgarena_results.runs WHERE run_id = $1 AND NOT complete"
        " RETURNING run_id) DELETE FROM pgarena_results.intervals i USING r"
        " WHERE i.run_id = r.run_id RETURNING 1",
        1, v, e);
}

int store_file(struct store *s, const char *path, struct err *e)
{
    struct result r;
    if (result_read(path, &r, e) < 0)
        return -1;
    FILE *f = os_fopen(path, "r");
    struct buf b;
    buf_init(&b);
    int failed = f ? buf_read_all(&b, f) : errno;
    if (f)
        fclose(f);
    int rc = failed ? err_set(e, ERR_INPUT, "%s: cannot read: %s", path, strerror(failed))
                    : store_put(s, &r, b.data, b.len, e);
    buf_free(&b);
    result_free(&r);
    return rc;
}

int store_load(struct store *s, struct result **runs, size_t *n, struct err *e)
{
    *runs = NULL;
    *n = 0;
    struct pg_result *res =
        pg_query(s->pg,
                 "SELECT run_id, result::text FROM pgarena_results.runs WHERE complete"
                 " ORDER BY run_id",
                 0, NULL, e);
    if (!res)
        return -1;
    int rows = pg_result_rows(res);
    struct result *r = xcalloc((size_t)rows + 1, sizeof *r);
    for (int i = 0; i < rows; i++) {
        const char *id = pg_result_value(res, i, 0), *doc = pg_result_value(res, i, 1);
        if (result_read_text(doc, strlen(doc), id, &r[i], e) < 0) {
            for (int k = 0; k < i; k++)
                result_free(&r[k]);
            free(r);
            pg_result_free(res);
            return -1;
        }
        free(r[i].run_id); /* jsonb re-spells the text: the stored id, not its hash */
        r[i].run_id = xstrdup(id);
    }
    pg_result_free(res);
    *runs = r;
    *n = (size_t)rows;
    return 0;
}

int store_accepted(struct store *s, struct history_opts *o, struct err *e)
{
    struct pg_result *res =
        pg_query(s->pg, "SELECT run_id FROM pgarena_results.accepted", 0, NULL, e);
    if (!res)
        return -1;
    int rows = pg_result_rows(res);
    o->accepted = xrealloc(o->accepted, (o->n_accepted + (size_t)rows + 1) * sizeof *o->accepted);
    for (int i = 0; i < rows; i++)
        o->accepted[o->n_accepted++] = xstrdup(pg_result_value(res, i, 0));
    pg_result_free(res);
    return 0;
}

int store_accept(struct store *s, const char *run_id, struct err *e)
{
    const char *v[1] = {run_id};
    return run_statement(s,
                         "INSERT INTO pgarena_results.accepted (run_id) VALUES ($1)"
                         " ON CONFLICT DO NOTHING RETURNING 1",
                         1, v, e);
}
