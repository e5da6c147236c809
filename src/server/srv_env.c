#include "server/server.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "os/net.h"
#include "server/server_int.h"

/* What is read once before the run. Every query is a catalog or statistics read on the
 * caller's own connection: nothing here writes or takes a lock a benchmark would feel. */

const char *const srv_setting_names[] = {
    /* durability and WAL */
    "fsync", "synchronous_commit", "full_page_writes", "wal_level", "wal_buffers",
    "wal_compression", "wal_sync_method", "commit_delay", "data_checksums",
    /* checkpoints */
    "max_wal_size", "min_wal_size", "checkpoint_timeout", "checkpoint_completion_target",
    /* memory */
    "shared_buffers", "effective_cache_size", "work_mem", "maintenance_work_mem", "huge_pages",
    /* connections */
    "max_connections", "superuser_reserved_connections", "reserved_connections",
    /* planner, executor, I/O */
    "autovacuum", "default_transaction_isolation", "jit", "random_page_cost",
    "effective_io_concurrency", "io_method", "max_parallel_workers_per_gather",
    "max_parallel_workers", "max_worker_processes",
    /* preloaded modules: --local preloads pg_stat_statements */
    "shared_preload_libraries", NULL};

struct pg_result *srv_query(struct pg_conn *c, const char *sql, struct err *e)
{
    return pg_query(c, sql, 0, NULL, e);
}

int64_t srv_value_int(const struct pg_result *r, int row, int col)
{
    if (row >= pg_result_rows(r) || pg_result_isnull(r, row, col))
        return -1;
    const char *s = pg_result_value(r, row, col);
    char *end;
    long long v = strtoll(s, &end, 10); /* a numeric may follow with ".0" */
    return end == s || v < 0 ? -1 : (int64_t)v;
}

char *srv_value_dup(const struct pg_result *r, int row, int col)
{
    if (row >= pg_result_rows(r) || pg_result_isnull(r, row, col))
        return NULL;
    return xstrdup(pg_result_value(r, row, col));
}

static void add_setting(struct srv_env *env, const struct pg_result *r, int row)
{
    char *source = srv_value_dup(r, row, 4), *boot = srv_value_dup(r, row, 5);
    struct srv_setting *s = &env->settings[env->n_settings++];
    s->name = srv_value_dup(r, row, 0);
    s->raw = srv_value_dup(r, row, 1);
    s->unit = srv_value_dup(r, row, 2);
    s->value = srv_value_dup(r, row, 3);
    s->non_default = srv_setting_is_changed(s->raw, boot, source);
    free(source);
    free(boot);
}

static int read_settings(struct pg_conn *c, struct srv_env *env, struct err *e)
{
    struct buf sql;
    buf_init(&sql);
    buf_puts(&sql, "SELECT name, setting, unit, current_setting(name), source, boot_val "
                   "FROM pg_settings WHERE name IN (");
    size_t n_names = 0;
    for (; srv_setting_names[n_names]; n_names++)
        buf_printf(&sql, "%s'%s'", n_names ? ", " : "", srv_setting_names[n_names]);
    buf_puts(&sql, ")");
    struct pg_result *r = srv_query(c, sql.data, e);
    buf_free(&sql);
    if (!r)
        return -1;
    env->settings = xcalloc(n_names, sizeof *env->settings);
    /* In the list's order, so related settings stay together in the result file. */
    for (size_t i = 0; i < n_names; i++)
        for (int row = 0; row < pg_result_rows(r); row++)
            if (strcmp(pg_result_value(r, row, 0), srv_setting_names[i]) == 0)
                add_setting(env, r, row);
    pg_result_free(r);
    return 0;
}

/* Heap plus TOAST and indexes of every user table; the largest ones listed by name. */
static void read_tables(struct pg_conn *c, struct srv_env *env)
{
    struct err ignored = {0};
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT CASE WHEN n.nspname = 'public' THEN c.relname::text "
             "ELSE n.nspname || '.' || c.relname END, pg_table_size(c.oid), "
             "pg_indexes_size(c.oid), sum(pg_total_relation_size(c.oid)) OVER () "
             "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
             "WHERE c.relkind IN ('r', 'm') AND n.nspname <> 'information_schema' "
             "AND n.nspname !~ '^pg_' "
             "ORDER BY pg_total_relation_size(c.oid) DESC, 1 LIMIT %d",
             SRV_MAX_TABLES);
    struct pg_result *r = srv_query(c, sql, &ignored);
    if (!r)
        return;
    int n = pg_result_rows(r);
    env->tables = xcalloc((size_t)n, sizeof *env->tables);
    for (int i = 0; i < n; i++)
        env->tables[env->n_tables++] = (struct srv_table){
            srv_value_dup(r, i, 0), srv_value_int(r, i, 1), srv_value_int(r, i, 2)};
    env->dataset_bytes = n > 0 ? srv_value_int(r, 0, 3) : 0;
    pg_result_free(r);
}

/* Local when reached over a unix socket, or when the address either side sees is loopback
 * or one of the client's own. */
static enum srv_location locate(struct pg_conn *c, const char *server_addr)
{
    const char *host = pg_host(c);
    if (host && (host[0] == '/' || host[0] == '@'))
        return SRV_LOCATION_LOCAL;
    const char *client_side = pg_hostaddr(c);
    if (!server_addr && !(client_side && *client_side))
        return SRV_LOCATION_UNKNOWN;
    char **own;
    size_t n_own = os_own_addresses(&own);
    int local = (server_addr && srv_addr_is_local(server_addr, (const char *const *)own, n_own)) ||
                (client_side && *client_side &&
                 srv_addr_is_local(client_side, (const char *const *)own, n_own));
    for (size_t i = 0; i < n_own; i++)
        free(own[i]);
    free(own);
    return local ? SRV_LOCATION_LOCAL : SRV_LOCATION_REMOTE;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of a few trivial queries: the network and protocol cost of every statement. */
static double round_trip_us(struct pg_conn *c)
{
    enum { N = 11 };
    double t[N];
    struct err ignored = {0};
    for (int i = 0; i < N; i++) {
        time_ns start = clock_now_ns();
        if (pg_exec(c, "SELECT 1", &ignored) < 0)
            return -1;
        t[i] = (double)(clock_now_ns() - start) / NS_PER_US;
    }
    qsort(t, N, sizeof t[0], cmp_double);
    return t[N / 2];
}

/* Size, the server's own address (NULL over a unix socket) and the other client backends,
 * in one round trip. */
static void read_database(struct pg_conn *c, struct srv_env *env)
{
    struct err ignored = {0};
    struct pg_result *r =
        srv_query(c,
                  "SELECT pg_database_size(current_database()), "
                  "host(inet_server_addr()), (SELECT count(*) FROM pg_stat_activity "
                  "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                  "AND backend_type = 'client backend')",
                  &ignored);
    char *server_addr = NULL;
    if (r) {
        env->database_size_bytes = srv_value_int(r, 0, 0);
        server_addr = srv_value_dup(r, 0, 1);
        env->n_other_backends = (int)srv_value_int(r, 0, 2);
        pg_result_free(r);
    }
    env->location = locate(c, server_addr);
    free(server_addr);
}

int srv_env_capture(struct pg_conn *c, struct srv_env *env, struct err *e)
{
    memset(env, 0, sizeof *env);
    env->database_size_bytes = env->dataset_bytes = -1;
    env->n_other_backends = -1;
    const char *v = pg_parameter(c, "server_version");
    env->version = v ? xstrdup(v) : NULL;
    env->version_num = pg_server_version(c);
    const char *host = pg_host(c);
    env->host = host && *host ? xstrdup(host) : NULL;
    env->ssl = pg_ssl_in_use(c);
    int rc = read_settings(c, env, e);
    read_database(c, env);
    read_tables(c, env);
    env->rtt_us = round_trip_us(c);
    return rc;
}

void srv_env_free(struct srv_env *env)
{
    free(env->version);
    free(env->host);
    for (size_t i = 0; i < env->n_settings; i++) {
        free(env->settings[i].name);
        free(env->settings[i].value);
        free(env->settings[i].raw);
        free(env->settings[i].unit);
    }
    free(env->settings);
    for (size_t i = 0; i < env->n_tables; i++)
        free(env->tables[i].name);
    free(env->tables);
    memset(env, 0, sizeof *env);
}
