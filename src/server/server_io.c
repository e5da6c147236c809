#include "server/server_io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "server/server_int.h"

/* A standby applying WAL more than this far behind is an event. */
#define LAG_EVENT_S 1.0

/* ---- The statement, by version ---- */

/* Every part answers (k text, v text). The comment marks it as pgarena's own. */
static const char sql_wal14[] =
    "SELECT k, v FROM pg_stat_wal, LATERAL (VALUES ('wal_bytes', wal_bytes::text), "
    "('wal_records', wal_records::text), ('wal_fpi', wal_fpi::text)) x(k, v)";
/* Before pg_stat_wal: the growth of the WAL position. */
static const char sql_wal10[] =
    "SELECT 'wal_bytes', pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN "
    "pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END, '0/0')::text";
static const char sql_bgwriter10[] =
    "SELECT k, v FROM pg_stat_bgwriter, LATERAL (VALUES ('ckpt_timed', checkpoints_timed::text), "
    "('ckpt_req', checkpoints_req::text), ('ckpt_write_ms', round(checkpoint_write_time)::text), "
    "('ckpt_sync_ms', round(checkpoint_sync_time)::text), "
    "('buf_written.checkpointer', buffers_checkpoint::text), "
    "('buf_written.bgwriter', buffers_clean::text), "
    "('buf_written.backend', buffers_backend::text)) x(k, v)";
/* 17 moved the checkpointer's counters to pg_stat_checkpointer and dropped buffers_backend:
 * the client backends' writes of shared buffers in pg_stat_io stand for it (not of temporary
 * tables' local buffers, nor 18's WAL). %s: timed, requested (server_int.h). */
static const char sql_checkpointer17[] =
    "SELECT k, v FROM pg_stat_checkpointer, pg_stat_bgwriter, "
    "LATERAL (VALUES ('ckpt_timed', %s::text), ('ckpt_req', %s::text), "
    "('ckpt_write_ms', round(write_time)::text), ('ckpt_sync_ms', round(sync_time)::text), "
    "('buf_written.checkpointer', pg_stat_checkpointer.buffers_written::text), "
    "('buf_written.bgwriter', buffers_clean::text), ('buf_written.backend', "
    "(SELECT coalesce(sum(writes), 0) FROM pg_stat_io WHERE backend_type = 'client backend' "
    "AND object = 'relation')"
    "::text)) x(k, v)";
static const char sql_io16[] =
    "SELECT 'io.' || backend_type || k, coalesce(v, 0)::text FROM (SELECT backend_type, "
    "sum(reads) r, sum(writes) w, sum(extends) e, sum(fsyncs) f FROM pg_stat_io GROUP BY 1) t, "
    "LATERAL (VALUES ('.reads', r), ('.writes', w), ('.extends', e), ('.fsyncs', f)) x(k, v)";
/* 18 adds WAL's I/O (object 'wal': its writes are not buffers', its fsyncs are WAL's) and
 * counts a read of several blocks combined as one: the bytes count the blocks. */
static const char sql_io18[] =
    "SELECT 'io.' || backend_type || k, coalesce(v, 0)::text FROM (SELECT backend_type, "
    "sum(reads) r, sum(writes) w, sum(extends) e, sum(fsyncs) f, sum(read_bytes) rb, "
    "sum(write_bytes) wb, sum(extend_bytes) eb FROM pg_stat_io WHERE object <> 'wal' "
    "GROUP BY 1) t, LATERAL (VALUES ('.reads', r), ('.writes', w), ('.extends', e), "
    "('.fsyncs', f), ('.read_bytes', rb), ('.write_bytes', wb), ('.extend_bytes', eb)) x(k, v)";
/* The tables and the database through the statistics functions their views call: the views
 * compute every column (pg_stat_all_tables groups by table, so nothing is left out), which
 * made this statement ten times dearer. pg_stat_activity is read once. */
static const char sql_with[] =
    "t AS MATERIALIZED (SELECT n.nspname || '.' || c.relname AS name, "
    "pg_stat_get_tuples_inserted(c.oid) AS ins, pg_stat_get_tuples_updated(c.oid) AS upd, "
    "pg_stat_get_tuples_hot_updated(c.oid) AS hot, pg_stat_get_tuples_deleted(c.oid) AS del, "
    "pg_stat_get_dead_tuples(c.oid) AS dead, pg_stat_get_autovacuum_count(c.oid) AS av, "
    "pg_stat_get_autoanalyze_count(c.oid) AS aa FROM pg_class c JOIN pg_namespace n ON n.oid = "
    "c.relnamespace WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname NOT IN ('pg_catalog', "
    "'information_schema') AND n.nspname !~ '^pg_toast'), "
    "a AS MATERIALIZED (SELECT backend_type, wait_event_type, wait_event, datname, query "
    "FROM pg_stat_activity WHERE backend_type IN ('autovacuum worker', 'checkpointer', "
    "'walsender')) ";
static const char sql_common[] =
    "SELECT k, v::text FROM (SELECT oid FROM pg_database WHERE datname = current_database()) d, "
    "LATERAL (VALUES ('blks_hit', pg_stat_get_db_blocks_hit(d.oid)), ('blks_read', "
    "pg_stat_get_db_blocks_fetched(d.oid) - pg_stat_get_db_blocks_hit(d.oid)), "
    "('temp_files', pg_stat_get_db_temp_files(d.oid)), "
    "('temp_bytes', pg_stat_get_db_temp_bytes(d.oid)), "
    "('deadlocks', pg_stat_get_db_deadlocks(d.oid))) x(k, v) "
    "UNION ALL SELECT k, coalesce(v, 0)::text FROM (SELECT sum(ins) i, sum(upd) u, sum(hot) h, "
    "sum(del) dl, sum(dead) dt FROM t) s, LATERAL (VALUES ('tup.ins', i), ('tup.upd', u), "
    "('tup.hot', h), ('tup.del', dl), ('dead_tup', dt)) x(k, v) "
    "UNION ALL SELECT 'av.' || name, av::text FROM t "
    "UNION ALL SELECT 'aa.' || name, aa::text FROM t "
    "UNION ALL SELECT 'avw.' || query, '1' FROM a WHERE backend_type = 'autovacuum worker' AND "
    "datname = current_database() AND query LIKE 'autovacuum: %' "
    /* Busy: sleeping between a spread checkpoint's writes, or in I/O. Its short wake-ups to
     * absorb fsync requests (no wait event) are not checkpoints. */
    "UNION ALL SELECT 'ckpt_busy', CASE WHEN wait_event = 'CheckpointWriteDelay' OR "
    "wait_event_type = 'IO' THEN '1' ELSE '0' END FROM a WHERE backend_type = 'checkpointer' "
    "UNION ALL SELECT k || n, v FROM (SELECT application_name || CASE WHEN count(*) OVER "
    "(PARTITION BY application_name) > 1 THEN ':' || pid ELSE '' END n, "
    "pg_wal_lsn_diff(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE "
    "pg_current_wal_lsn() END, replay_lsn) b, extract(epoch FROM replay_lag) s "
    "FROM pg_stat_replication WHERE EXISTS (SELECT FROM a WHERE backend_type = 'walsender')) r, "
    /* (read only when a WAL sender runs: the view costs as much as the rest) */
    "LATERAL (VALUES ('lag.bytes.', coalesce(round(b), 0)::text), "
    "('lag.s.', coalesce(s, 0)::text)) x(k, v)";

char *srvio_sql(int version_num)
{
    if (version_num < 100000)
        return NULL;
    struct buf b;
    buf_init(&b);
    /* The mark after the first word: 18's pg_stat_statements drops a leading comment. */
    buf_puts(&b, "WITH /* pgarena:server_io */ ");
    buf_puts(&b, sql_with);
    buf_puts(&b, version_num >= 140000 ? sql_wal14 : sql_wal10);
    buf_puts(&b, " UNION ALL ");
    if (version_num >= 180000)
        buf_printf(&b, sql_checkpointer17, SRV_CKPT_TIMED_18, SRV_CKPT_REQ_18);
    else if (version_num >= 170000)
        buf_printf(&b, sql_checkpointer17, SRV_CKPT_TIMED_17, SRV_CKPT_REQ_17);
    else
        buf_puts(&b, sql_bgwriter10);
    if (version_num >= 160000) {
        buf_puts(&b, " UNION ALL ");
        buf_puts(&b, version_num >= 180000 ? sql_io18 : sql_io16);
    }
    buf_puts(&b, " UNION ALL ");
    buf_puts(&b, sql_common);
    return b.data;
}

/* ---- A snapshot ---- */

struct table_counts {
    char *name;
    int64_t av, aa;
};

struct worker {
    int kind; /* RESULT_EV_AUTOVACUUM or RESULT_EV_AUTOANALYZE */
    char *table;
};

struct srvio_snap {
    uint32_t have;
    int64_t v[SIO_N_SCALARS];
    struct result_sio levels; /* io: cumulative counters; lag: as read */
    size_t n_tab;
    struct table_counts *tab;
    size_t n_work;
    struct worker *work;
    int ckpt_busy;
};

struct srvio_snap *srvio_snap_new(void)
{
    return xcalloc(1, sizeof(struct srvio_snap));
}

void srvio_snap_free(struct srvio_snap *s)
{
    if (!s)
        return;
    result_sio_clear(&s->levels);
    for (size_t i = 0; i < s->n_tab; i++)
        free(s->tab[i].name);
    free(s->tab);
    for (size_t i = 0; i < s->n_work; i++)
        free(s->work[i].table);
    free(s->work);
    free(s);
}

static int64_t int_value(const char *v)
{
    return (int64_t)llround(strtod(v, NULL));
}

static struct table_counts *table_of(struct srvio_snap *s, const char *name)
{
    for (size_t i = 0; i < s->n_tab; i++)
        if (strcmp(s->tab[i].name, name) == 0)
            return &s->tab[i];
    s->tab = xrealloc(s->tab, (s->n_tab + 1) * sizeof *s->tab);
    s->tab[s->n_tab] = (struct table_counts){.name = xstrdup(name)};
    return &s->tab[s->n_tab++];
}

static void add_worker(struct srvio_snap *s, int kind, const char *table, size_t len)
{
    s->work = xrealloc(s->work, (s->n_work + 1) * sizeof *s->work);
    s->work[s->n_work++] = (struct worker){kind, xstrndup(table, len)};
}

/* "autovacuum: VACUUM ANALYZE public.t", "autovacuum: VACUUM public.t (to prevent
 * wraparound)", "autovacuum: ANALYZE public.t" (pg_stat_activity.query of a worker). */
static void worker_row(struct srvio_snap *s, const char *q)
{
    static const char head[] = "autovacuum: ";
    if (strncmp(q, head, sizeof head - 1) != 0)
        return;
    q += sizeof head - 1;
    int vac = 0, an = 0;
    if (strncmp(q, "VACUUM ", 7) == 0) {
        vac = 1;
        q += 7;
    }
    if (strncmp(q, "ANALYZE ", 8) == 0) {
        an = 1;
        q += 8;
    }
    size_t len = strcspn(q, " ");
    if (len == 0)
        return;
    if (vac)
        add_worker(s, RESULT_EV_AUTOVACUUM, q, len);
    if (an)
        add_worker(s, RESULT_EV_AUTOANALYZE, q, len);
}

static struct result_sio_io *io_of(struct result_sio *l, const char *type, size_t len)
{
    for (size_t i = 0; i < l->n_io; i++)
        if (strlen(l->io[i].backend_type) == len && memcmp(l->io[i].backend_type, type, len) == 0)
            return &l->io[i];
    l->io = xrealloc(l->io, (l->n_io + 1) * sizeof *l->io);
    l->io[l->n_io] = (struct result_sio_io){.backend_type = xstrndup(type, len)};
    return &l->io[l->n_io++];
}

static struct result_sio_lag *lag_of(struct result_sio *l, const char *name)
{
    for (size_t i = 0; i < l->n_lag; i++)
        if (strcmp(l->lag[i].name, name) == 0)
            return &l->lag[i];
    l->lag = xrealloc(l->lag, (l->n_lag + 1) * sizeof *l->lag);
    l->lag[l->n_lag] = (struct result_sio_lag){.name = xstrdup(name)};
    return &l->lag[l->n_lag++];
}

static void io_row(struct srvio_snap *s, const char *key, const char *value)
{
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key)
        return;
    struct result_sio_io *x = io_of(&s->levels, key, (size_t)(dot - key));
    int64_t v = int_value(value);
    const char *what = dot + 1;
    if (strcmp(what, "reads") == 0)
        x->reads = v;
    else if (strcmp(what, "writes") == 0)
        x->writes = v;
    else if (strcmp(what, "extends") == 0)
        x->extends = v;
    else if (strcmp(what, "fsyncs") == 0)
        x->fsyncs = v;
    else if (strcmp(what, "read_bytes") == 0)
        x->read_bytes = v;
    else if (strcmp(what, "write_bytes") == 0)
        x->write_bytes = v;
    else if (strcmp(what, "extend_bytes") == 0)
        x->extend_bytes = v;
    s->have |= 1u << SIO_IO;
}

void srvio_snap_row(struct srvio_snap *s, const char *key, const char *value)
{
    int f = result_sio_field_of(key);
    if (f >= 0 && f < SIO_N_SCALARS) {
        s->v[f] = int_value(value);
        s->have |= 1u << f;
    } else if (strncmp(key, "io.", 3) == 0) {
        io_row(s, key + 3, value);
    } else if (strncmp(key, "lag.bytes.", 10) == 0) {
        lag_of(&s->levels, key + 10)->bytes = int_value(value);
    } else if (strncmp(key, "lag.s.", 6) == 0) {
        lag_of(&s->levels, key + 6)->s = strtod(value, NULL);
    } else if (strncmp(key, "av.", 3) == 0) {
        table_of(s, key + 3)->av = int_value(value);
    } else if (strncmp(key, "aa.", 3) == 0) {
        table_of(s, key + 3)->aa = int_value(value);
    } else if (strncmp(key, "avw.", 4) == 0) {
        worker_row(s, key + 4);
    } else if (strcmp(key, "ckpt_busy") == 0) {
        s->ckpt_busy = value[0] == '1';
    }
}

/* ---- The tracker ---- */

static int64_t grown_by(int64_t now, int64_t before)
{
    return now > before ? now - before : 0; /* a reset (pg_stat_reset) counts from zero */
}

struct srvio {
    int version_num;
    uint32_t fields;
    char *sql;
    /* The connection the statement is prepared on (its address and backend, as a new
     * connection may take a closed one's address). */
    const struct pg_conn *prepared_on;
    int prepared_pid;
    struct srvio_snap *prev;
    double prev_t_s;
    int in_ckpt;         /* a checkpoint's start was recorded, not its end */
    int ckpt_counted;    /* its counter has grown */
    int ended_uncounted; /* one ended before its counter grew */
};

struct srvio *srvio_new(int version_num)
{
    struct srvio *io = xcalloc(1, sizeof *io);
    io->version_num = version_num;
    io->fields = result_sio_fields_for_version(version_num);
    io->sql = srvio_sql(version_num);
    return io;
}

void srvio_free(struct srvio *io)
{
    if (!io)
        return;
    srvio_snap_free(io->prev);
    free(io->sql);
    free(io);
}

uint32_t srvio_fields(const struct srvio *io)
{
    return io->fields;
}

struct events {
    struct result_event **a;
    size_t *n;
};

static void emit(struct events *ev, double t_s, int kind, int start, const char *detail)
{
    *ev->a = xrealloc(*ev->a, (*ev->n + 1) * sizeof **ev->a);
    (*ev->a)[(*ev->n)++] = (struct result_event){t_s, kind, start, detail ? xstrdup(detail) : NULL};
}

/* Checkpoints from the checkpointer's state and its counters. A spread checkpoint shows
 * busy (sleeping between writes) for most of its length and reports its count near its start;
 * an immediate one may begin and end between two snapshots and reports its count at its end.
 * Each growth of the counters no checkpoint seen busy accounts for is one that was short. */
static void checkpoint_events(struct srvio *io, const struct srvio_snap *p,
                              const struct srvio_snap *c, double t_s, struct events *ev)
{
    int64_t timed = grown_by(c->v[SIO_CKPT_TIMED], p->v[SIO_CKPT_TIMED]);
    int64_t n = timed + grown_by(c->v[SIO_CKPT_REQ], p->v[SIO_CKPT_REQ]);
    const char *why = n == 0 ? NULL : timed ? "timed" : "requested";
    if (io->in_ckpt) {
        if (!io->ckpt_counted && n > 0) {
            io->ckpt_counted = 1;
            n--;
        }
        if (!c->ckpt_busy) {
            emit(ev, t_s, RESULT_EV_CHECKPOINT, 0, NULL);
            io->ended_uncounted = !io->ckpt_counted;
            io->in_ckpt = 0;
        }
    } else if (c->ckpt_busy) {
        emit(ev, t_s, RESULT_EV_CHECKPOINT, 1, why);
        io->in_ckpt = 1;
        io->ckpt_counted = n > 0;
        n -= n > 0;
        io->ended_uncounted = 0;
    } else if (n > 0 && io->ended_uncounted) {
        io->ended_uncounted = 0; /* the count of the one that ended */
        n--;
    }
    for (int i = 0; i < n && i < 10; i++) {
        emit(ev, (io->prev_t_s + t_s) / 2, RESULT_EV_CHECKPOINT, 1, why);
        emit(ev, t_s, RESULT_EV_CHECKPOINT, 0, NULL);
    }
}

static int working(const struct srvio_snap *s, int kind, const char *table)
{
    for (size_t i = 0; i < s->n_work; i++)
        if (s->work[i].kind == kind && strcmp(s->work[i].table, table) == 0)
            return 1;
    return 0;
}

static const struct table_counts *find_table(const struct srvio_snap *s, const char *name)
{
    for (size_t i = 0; i < s->n_tab; i++)
        if (strcmp(s->tab[i].name, name) == 0)
            return &s->tab[i];
    return NULL;
}

/* Workers that began or ended, and runs seen only by their count; the counts' growth into
 * d's autovacuum and autoanalyze. */
static void autovacuum_events(struct srvio *io, const struct srvio_snap *p,
                              const struct srvio_snap *c, double t_s, struct events *ev,
                              struct result_sio *d)
{
    for (size_t i = 0; i < c->n_work; i++)
        if (!working(p, c->work[i].kind, c->work[i].table))
            emit(ev, t_s, c->work[i].kind, 1, c->work[i].table);
    for (size_t i = 0; i < p->n_work; i++)
        if (!working(c, p->work[i].kind, p->work[i].table))
            emit(ev, t_s, p->work[i].kind, 0, p->work[i].table);
    for (size_t i = 0; i < c->n_tab; i++) {
        const struct table_counts *was = find_table(p, c->tab[i].name);
        int64_t grew[2] = {c->tab[i].av - (was ? was->av : 0), c->tab[i].aa - (was ? was->aa : 0)};
        for (int k = 0; k < 2; k++) {
            int kind = k ? RESULT_EV_AUTOANALYZE : RESULT_EV_AUTOVACUUM;
            if (grew[k] <= 0)
                continue;
            d->v[k ? SIO_AUTOANALYZE : SIO_AUTOVACUUM] += grew[k];
            if (!working(p, kind, c->tab[i].name) && !working(c, kind, c->tab[i].name)) {
                emit(ev, (io->prev_t_s + t_s) / 2, kind, 1, c->tab[i].name);
                emit(ev, t_s, kind, 0, c->tab[i].name);
            }
        }
    }
}

static const struct result_sio_lag *find_lag(const struct result_sio *l, const char *name)
{
    for (size_t i = 0; i < l->n_lag; i++)
        if (strcmp(l->lag[i].name, name) == 0)
            return &l->lag[i];
    return NULL;
}

static void lag_events(const struct srvio_snap *p, const struct srvio_snap *c, double t_s,
                       struct events *ev)
{
    for (size_t i = 0; i < c->levels.n_lag; i++) {
        const struct result_sio_lag *was = find_lag(&p->levels, c->levels.lag[i].name);
        int behind = c->levels.lag[i].s > LAG_EVENT_S, was_behind = was && was->s > LAG_EVENT_S;
        if (behind != was_behind)
            emit(ev, t_s, RESULT_EV_STANDBY_LAG, behind, c->levels.lag[i].name);
    }
    for (size_t i = 0; i < p->levels.n_lag; i++)
        if (p->levels.lag[i].s > LAG_EVENT_S && !find_lag(&c->levels, p->levels.lag[i].name))
            emit(ev, t_s, RESULT_EV_STANDBY_LAG, 0, p->levels.lag[i].name);
}

static void deltas(const struct srvio *io, const struct srvio_snap *p, const struct srvio_snap *c,
                   struct result_sio *d)
{
    d->have = SIO_HAVE_ANY | (io->fields & (c->have | (1u << SIO_REPL_LAG) |
                                            (1u << SIO_AUTOVACUUM) | (1u << SIO_AUTOANALYZE)));
    for (int f = 0; f < SIO_N_SCALARS; f++)
        if (f != SIO_AUTOVACUUM && f != SIO_AUTOANALYZE)
            d->v[f] = f == SIO_DEAD_TUP ? c->v[f] : grown_by(c->v[f], p->v[f]);
    for (size_t i = 0; i < c->levels.n_io; i++) {
        const struct result_sio_io *x = &c->levels.io[i], *was = NULL;
        for (size_t j = 0; j < p->levels.n_io; j++)
            if (strcmp(p->levels.io[j].backend_type, x->backend_type) == 0)
                was = &p->levels.io[j];
        struct result_sio_io z = {0};
        if (!was)
            was = &z;
        d->io = xrealloc(d->io, (d->n_io + 1) * sizeof *d->io);
        d->io[d->n_io++] = (struct result_sio_io){xstrdup(x->backend_type),
                                                  grown_by(x->reads, was->reads),
                                                  grown_by(x->writes, was->writes),
                                                  grown_by(x->extends, was->extends),
                                                  grown_by(x->fsyncs, was->fsyncs),
                                                  grown_by(x->read_bytes, was->read_bytes),
                                                  grown_by(x->write_bytes, was->write_bytes),
                                                  grown_by(x->extend_bytes, was->extend_bytes)};
    }
    for (size_t i = 0; i < c->levels.n_lag; i++) {
        d->lag = xrealloc(d->lag, (d->n_lag + 1) * sizeof *d->lag);
        d->lag[d->n_lag++] = (struct result_sio_lag){xstrdup(c->levels.lag[i].name),
                                                     c->levels.lag[i].bytes, c->levels.lag[i].s};
    }
}

int srvio_next(struct srvio *io, struct srvio_snap *s, double t_s, struct result_sio *delta,
               struct result_event **events, size_t *n_events)
{
    memset(delta, 0, sizeof *delta);
    struct srvio_snap *p = io->prev;
    int rc = 0;
    if (p) {
        struct events ev = {events, n_events};
        deltas(io, p, s, delta);
        checkpoint_events(io, p, s, t_s, &ev);
        autovacuum_events(io, p, s, t_s, &ev, delta);
        lag_events(p, s, t_s, &ev);
        rc = 1;
    } else {
        /* What was going on when the run began starts with it, so that its end has a start. */
        struct events ev = {events, n_events};
        if (s->ckpt_busy) {
            emit(&ev, t_s, RESULT_EV_CHECKPOINT, 1, "running at the start");
            io->in_ckpt = io->ckpt_counted = 1;
        }
        for (size_t i = 0; i < s->n_work; i++)
            emit(&ev, t_s, s->work[i].kind, 1, s->work[i].table);
        for (size_t i = 0; i < s->levels.n_lag; i++)
            if (s->levels.lag[i].s > LAG_EVENT_S)
                emit(&ev, t_s, RESULT_EV_STANDBY_LAG, 1, s->levels.lag[i].name);
    }
    srvio_snap_free(p);
    io->prev = s;
    io->prev_t_s = t_s;
    return rc;
}

int srvio_read(struct srvio *io, struct pg_conn *c, double t_s, struct result_sio *delta,
               struct result_event **events, size_t *n_events, struct err *e)
{
    memset(delta, 0, sizeof *delta);
    if (!io->sql)
        return err_set(e, ERR_RUNTIME, "server version %d has no statistics views to read",
                       io->version_num);
    /* Prepared once per connection: planning this union of views costs more than running it. */
    if (io->prepared_on != c || io->prepared_pid != pg_backend_pid(c)) {
        if (pg_prepare(c, "pgarena_server_io", io->sql, 0, e) < 0)
            return -1;
        io->prepared_on = c;
        io->prepared_pid = pg_backend_pid(c);
    }
    struct pg_result *r = pg_query_prepared(c, "pgarena_server_io", 0, NULL, e);
    if (!r) {
        io->prepared_on = NULL;
        return -1;
    }
    struct srvio_snap *s = srvio_snap_new();
    for (int i = 0; i < pg_result_rows(r); i++)
        srvio_snap_row(s, pg_result_value(r, i, 0), pg_result_value(r, i, 1));
    pg_result_free(r);
    return srvio_next(io, s, t_s, delta, events, n_events);
}
