#include "coord/coord.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/mem.h"

/*
 * The schema. runs.state: gathering (agents register and connect) -> started (agent 0 set
 * start_at) -> finished (agent 0 merged) | lost (an agent fell silent; why says which).
 * agents.state: running -> done (its result stored). A run that is finished or lost is never
 * run again under the same id.
 */
static const char schema_sql[] =
    "CREATE SCHEMA IF NOT EXISTS pgarena;"
    "CREATE TABLE IF NOT EXISTS pgarena.runs ("
    " run_id text PRIMARY KEY, agents int NOT NULL, options text NOT NULL,"
    " state text NOT NULL DEFAULT 'gathering', start_at timestamptz, why text,"
    " created_at timestamptz NOT NULL DEFAULT now());"
    "CREATE TABLE IF NOT EXISTS pgarena.agents ("
    " run_id text NOT NULL REFERENCES pgarena.runs ON DELETE CASCADE, idx int NOT NULL,"
    " host text, pid int, ready boolean NOT NULL DEFAULT false,"
    " heartbeat timestamptz NOT NULL DEFAULT clock_timestamp(),"
    " state text NOT NULL DEFAULT 'running', complete boolean, result text,"
    " PRIMARY KEY (run_id, idx));";

struct coord {
    struct pg_connopts conn; /* a copy: the heartbeat thread connects with it */
    struct pg_conn *pg;      /* the main thread's */
    int index, count;
    char *run_id;
    char index_text[16];
    double offset_us; /* server minus own clock, once measured */
    double wait_s;    /* at the barrier */
    int listening;    /* LISTEN pgarena_coord worked: waits wake on a NOTIFY */
    pthread_t beat;
    int beating;
    atomic_int stop_beat;
    atomic_int lost;
    pthread_mutex_t mu;
    char why[512]; /* under mu, as on_lost and its arg */
    void (*on_lost)(const char *error, void *arg);
    void *on_lost_arg;
};

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static int64_t real_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* One statement with parameters $1 = run_id, $2 = index, then more. */
static struct pg_result *query(struct pg_conn *pg, const struct coord *c, const char *sql,
                               int n_more, const char *const *more, char *state, struct err *e)
{
    const char *values[6] = {c->run_id, c->index_text};
    for (int i = 0; i < n_more && i < 4; i++)
        values[2 + i] = more[i];
    return pg_query_state(pg, sql, 2 + n_more, values, state, e);
}

/* A statement that must work: the result freed, -1 with e set. */
static int command(struct pg_conn *pg, const struct coord *c, const char *sql, int n_more,
                   const char *const *more, struct err *e)
{
    char state[6];
    struct pg_result *r = query(pg, c, sql, n_more, more, state, e);
    pg_result_free(r);
    return r ? 0 : -1;
}

/* Wake the agents waiting on the run (LISTEN pgarena_coord): best effort, polling covers a
 * notification lost or not delivered (a pooler in transaction mode). */
static void notify(struct pg_conn *pg, const struct coord *c)
{
    struct err e = {0};
    command(pg, c, "SELECT pg_notify('pgarena_coord', $1 || ':' || $2::int)", 0, NULL, &e);
}

/* Wait up to ms for a change of the run: a notification, else the time to poll again. */
static void wait_change(struct coord *c, int ms)
{
    if (!c->listening || pg_wait_notify(c->pg, ms) < 0)
        sleep_ms(ms);
}

static int not_writable(const char *state)
{
    return strcmp(state, "25006") == 0 || strcmp(state, "42501") == 0;
}

static int create_schema(struct coord *c, struct err *e)
{
    char ro[16] = "";
    struct err qe = {0};
    if (pg_query_value(c->pg, "SELECT current_setting('transaction_read_only')", ro, sizeof ro,
                       &qe) == 0 &&
        strcmp(ro, "on") == 0)
        return err_set(e, ERR_INPUT,
                       "run: the coordination database is read-only (a standby?): give a "
                       "writable one with --coord");
    /* Agents starting together may race on CREATE ... IF NOT EXISTS: one of them then fails
     * on a unique catalog row, and the next try finds the schema made. */
    for (int tries = 0;; tries++) {
        if (pg_exec(c->pg, schema_sql, &qe) == 0)
            return 0;
        if (tries == 4)
            break;
        sleep_ms(100 + 50 * c->index % 200);
    }
    return err_set(e, ERR_INPUT,
                   "run: cannot create the pgarena schema on the coordination "
                   "database (not writable? use --coord): %s",
                   qe.msg);
}

/* The run's row by a query on it: NULL with e set when the query fails or the row is gone. */
static struct pg_result *run_row(struct coord *c, const char *sql, struct err *e)
{
    char state[6];
    struct pg_result *r = query(c->pg, c, sql, 0, NULL, state, e);
    if (r && pg_result_rows(r) != 1) {
        pg_result_free(r);
        err_set(e, ERR_RUNTIME, "run: run %s vanished from the coordination database", c->run_id);
        return NULL;
    }
    return r;
}

/* The first line of a that differs from b, as "NAME (A here, B there)"; NULL when equal. */
static char *first_difference(const char *a, const char *b)
{
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la) != 0) {
            size_t name = strcspn(a, "=");
            if (name > la)
                name = la;
            const char *va = a + (name < la ? name + 1 : la), *vb = b + strcspn(b, "=");
            vb += *vb == '=';
            int lva = (int)(a + la - va), lvb = (int)(b + lb - vb);
            if (lvb < 0)
                lvb = 0;
            return xasprintf("%.*s (%.*s here, %.*s in the run's first agent)", (int)name, a, lva,
                             va, lvb, vb);
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
    return NULL;
}

/* The run's row against this agent's: a finished or lost run, another agent count, an
 * option that differs (named), a run started without it. */
static int check_run(struct coord *c, const struct coord_agent *a, const struct pg_result *r,
                     struct err *e)
{
    int agents = atoi(pg_result_value(r, 0, 0));
    const char *run_state = pg_result_value(r, 0, 2);
    char *diff = first_difference(a->options, pg_result_value(r, 0, 1));
    int rc = 0;
    if (strcmp(run_state, "finished") == 0)
        rc = err_set(e, ERR_INPUT, "run: run %s has finished already: choose another --run-id",
                     c->run_id);
    else if (strcmp(run_state, "lost") == 0)
        rc = err_set(e, ERR_INPUT, "run: run %s was lost (%.300s): choose another --run-id",
                     c->run_id,
                     *pg_result_value(r, 0, 4) ? pg_result_value(r, 0, 4) : "an agent fell silent");
    else if (agents != a->count)
        rc = err_set(e, ERR_INPUT,
                     "run: option --agents differs (%d here, %d in the run's first agent of run "
                     "%s)",
                     a->count, agents, c->run_id);
    else if (diff)
        rc = err_set(e, ERR_INPUT, "run: option %s differs from run %s: %s", diff, c->run_id,
                     "every agent of a run must be given the same options");
    else if (strcmp(run_state, "gathering") != 0)
        rc = err_set(e, ERR_INPUT, "run: run %s has started already without agent %d", c->run_id,
                     c->index);
    free(diff);
    return rc;
}

/* The run's row: made by the first agent, checked by the others. */
static int join_run(struct coord *c, const struct coord_agent *a, struct err *e)
{
    char count[16], state[6];
    snprintf(count, sizeof count, "%d", a->count);
    const char *more[2] = {count, a->options};
    struct pg_result *r =
        query(c->pg, c,
              "INSERT INTO pgarena.runs (run_id, agents, options) SELECT $1, $3::int, $4 "
              "WHERE $2::int >= 0 ON CONFLICT (run_id) DO NOTHING",
              2, more, state, e);
    if (!r && not_writable(state)) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        return err_set(e, ERR_INPUT,
                       "run: the coordination database is not writable (%s): use "
                       "--coord",
                       why);
    }
    if (!r)
        return -1;
    pg_result_free(r);
    r = run_row(c,
                "SELECT agents, options, state, $2::int, coalesce(why, '') FROM pgarena.runs "
                "WHERE run_id = $1",
                e);
    if (!r)
        return -1;
    int rc = check_run(c, a, r, e);
    pg_result_free(r);
    return rc;
}

static int register_agent(struct coord *c, const struct coord_agent *a, struct err *e)
{
    char pid[16], state[6];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    const char *more[2] = {a->host ? a->host : "", pid};
    struct pg_result *r = query(c->pg, c,
                                "INSERT INTO pgarena.agents (run_id, idx, host, pid) "
                                "VALUES ($1, $2::int, $3, $4::int)",
                                2, more, state, e);
    if (r) {
        pg_result_free(r);
        return 0;
    }
    if (strcmp(state, "23505") != 0)
        return -1;
    r = query(c->pg, c, "SELECT host, pid FROM pgarena.agents WHERE run_id = $1 AND idx = $2", 0,
              NULL, state, e);
    char who[200] = "";
    if (r && pg_result_rows(r) == 1)
        snprintf(who, sizeof who, " (host %s, pid %s)", pg_result_value(r, 0, 0),
                 pg_result_value(r, 0, 1));
    pg_result_free(r);
    return err_set(e, ERR_INPUT, "run: agent %d of run %s is taken by another agent%s", c->index,
                   c->run_id, who);
}

/* The error of an agent whose run was lost before it started. */
static int lost_before_start(const struct coord *c, const char *why, struct err *e)
{
    return err_set(e, ERR_RUNTIME, "run: run %s was lost before it started: %s", c->run_id, why);
}

static void mark_lost(struct coord *c, const char *why)
{
    pthread_mutex_lock(&c->mu);
    if (!c->why[0])
        snprintf(c->why, sizeof c->why, "%s", why);
    struct err e = {0};
    lost_before_start(c, c->why[0] ? c->why : "an agent was lost", &e);
    void (*fn)(const char *, void *) = c->on_lost;
    void *arg = c->on_lost_arg;
    pthread_mutex_unlock(&c->mu);
    if (atomic_exchange(&c->lost, 1) == 0 && fn)
        fn(e.msg, arg);
}

/* One heartbeat, and a look for agents silent too long (marking the run lost) or a run lost
 * by another agent. */
static void beat_once(struct coord *c, struct pg_conn *pg, int beat)
{
    char secs[16];
    snprintf(secs, sizeof secs, "%d", COORD_SILENT_S);
    const char *more[1] = {secs};
    struct err e = {0};
    if (beat)
        command(pg, c,
                "UPDATE pgarena.agents SET heartbeat = clock_timestamp() "
                "WHERE run_id = $1 AND idx = $2 AND state = 'running'",
                0, NULL, &e);
    char state[6];
    struct pg_result *r =
        query(pg, c,
              "SELECT r.state, coalesce(r.why, ''), (SELECT string_agg(a.idx::text, ', ' "
              "ORDER BY a.idx) FROM pgarena.agents a WHERE a.run_id = r.run_id "
              "AND a.state = 'running' AND a.idx <> $2 AND a.heartbeat < clock_timestamp() - "
              "make_interval(secs => $3::int)) FROM pgarena.runs r WHERE r.run_id = $1",
              1, more, state, &e);
    if (!r || pg_result_rows(r) != 1) {
        pg_result_free(r);
        return;
    }
    if (strcmp(pg_result_value(r, 0, 0), "lost") == 0) {
        mark_lost(c, pg_result_value(r, 0, 1));
    } else if (!pg_result_isnull(r, 0, 2)) {
        char *why = xasprintf("agent %s silent for %d s", pg_result_value(r, 0, 2), COORD_SILENT_S);
        const char *w[1] = {why};
        command(pg, c,
                "UPDATE pgarena.runs SET state = 'lost', why = $3 WHERE run_id = $1 "
                "AND state IN ('gathering', 'started') AND $2::int >= 0",
                1, w, &e);
        notify(pg, c);
        mark_lost(c, why);
        free(why);
    }
    pg_result_free(r);
}

static void *heartbeat_main(void *arg)
{
    struct coord *c = arg;
    struct err e = {0};
    struct pg_conn *pg = NULL;
    time_ns next_beat = 0;
    /* A heartbeat every COORD_HEARTBEAT_S, a look at the others twice as often: a silent
     * agent is seen soon after its COORD_SILENT_S. */
    while (!atomic_load(&c->stop_beat)) {
        if (!pg)
            pg = pg_connect_aux(&c->conn, PG_AUX_TIMEOUT_MS, &e);
        if (pg) {
            time_ns now = clock_now_ns();
            int beat = now >= next_beat;
            if (beat)
                next_beat = now + COORD_HEARTBEAT_S * NS_PER_S;
            beat_once(c, pg, beat);
            if (!pg_conn_ok(pg)) { /* connect anew next time */
                pg_finish(pg);
                pg = NULL;
            }
        }
        for (int i = 0; i < 5 * COORD_HEARTBEAT_S && !atomic_load(&c->stop_beat); i++)
            sleep_ms(100);
    }
    pg_finish(pg);
    return NULL;
}

static void copy_connopts(struct pg_connopts *dst, const struct pg_connopts *src)
{
    dst->host = dup_or_null(src->host);
    dst->port = dup_or_null(src->port);
    dst->user = dup_or_null(src->user);
    dst->dbname = dup_or_null(src->dbname);
}

struct coord *coord_open(const struct pg_connopts *conn, const struct coord_agent *a, struct err *e)
{
    struct coord *c = xcalloc(1, sizeof *c);
    copy_connopts(&c->conn, conn);
    c->index = a->index;
    c->count = a->count;
    c->run_id = xstrdup(a->run_id);
    c->wait_s = a->wait_s;
    snprintf(c->index_text, sizeof c->index_text, "%d", a->index);
    pthread_mutex_init(&c->mu, NULL);
    c->pg = pg_connect_aux(&c->conn, PG_AUX_TIMEOUT_MS, e);
    if (!c->pg) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        err_set(e, ERR_RUNTIME, "run: the coordination database: %s", why);
    } else if (create_schema(c, e) == 0 && join_run(c, a, e) == 0 && register_agent(c, a, e) == 0) {
        struct err le = {0};
        c->listening = pg_exec(c->pg, "LISTEN pgarena_coord", &le) == 0;
        c->beating = pthread_create(&c->beat, NULL, heartbeat_main, c) == 0;
        return c;
    }
    coord_close(c, 0);
    return NULL;
}

int coord_measure_clock(struct coord *c, double *offset_us, double *uncertainty_us, struct err *e)
{
    double best_rtt = -1;
    for (int i = 0; i < 8; i++) {
        char value[32];
        int64_t t0 = real_now_us();
        if (pg_query_value(c->pg,
                           "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint",
                           value, sizeof value, e) < 0)
            return -1;
        int64_t t1 = real_now_us();
        double rtt = (double)(t1 - t0);
        if (best_rtt < 0 || rtt < best_rtt) {
            best_rtt = rtt;
            *offset_us = (double)atoll(value) - ((double)t0 + (double)t1) / 2;
        }
    }
    *uncertainty_us = best_rtt / 2;
    c->offset_us = *offset_us;
    return 0;
}

/* The barrier's look at the run: its state, its start (server us) when set, the agents not
 * ready (named), the server's time. 0, or -1 with e set. */
struct run_view {
    char state[16];
    int64_t start_us, now_us;
    char missing[512];
};

static int look(struct coord *c, struct run_view *v, struct err *e)
{
    struct pg_result *r =
        run_row(c,
                "SELECT r.state, (extract(epoch FROM r.start_at) * 1000000)::bigint, "
                "(extract(epoch FROM clock_timestamp()) * 1000000)::bigint, "
                "(SELECT string_agg(g::text || CASE WHEN a.idx IS NULL THEN ' (not registered)' "
                "ELSE ' (connecting its clients)' END, ', ' ORDER BY g) FROM generate_series(0, "
                "r.agents - 1) g LEFT JOIN pgarena.agents a ON a.run_id = r.run_id AND a.idx = g "
                "WHERE a.ready IS NOT TRUE), coalesce(r.why, '') "
                "FROM pgarena.runs r WHERE r.run_id = $1 AND $2::int >= 0",
                e);
    if (!r)
        return -1;
    snprintf(v->state, sizeof v->state, "%s", pg_result_value(r, 0, 0));
    v->start_us = pg_result_isnull(r, 0, 1) ? 0 : atoll(pg_result_value(r, 0, 1));
    v->now_us = atoll(pg_result_value(r, 0, 2));
    snprintf(v->missing, sizeof v->missing, "%s",
             pg_result_isnull(r, 0, 3) ? "" : pg_result_value(r, 0, 3));
    if (strcmp(v->state, "lost") == 0)
        mark_lost(c, pg_result_value(r, 0, 4));
    pg_result_free(r);
    return 0;
}

int coord_barrier(struct coord *c, time_ns *go_ns, int64_t *start_server_us, struct err *e)
{
    if (command(c->pg, c, "UPDATE pgarena.agents SET ready = true WHERE run_id = $1 AND idx = $2",
                0, NULL, e) < 0)
        return -1;
    notify(c->pg, c);
    time_ns deadline = clock_now_ns() + (time_ns)(c->wait_s * NS_PER_S);
    struct run_view v;
    for (;;) {
        if (look(c, &v, e) < 0)
            return -1;
        char why[sizeof c->why];
        if (coord_lost(c, why, sizeof why))
            return lost_before_start(c, why, e);
        if (v.start_us > 0)
            break;
        if (!v.missing[0] && c->index == 0) {
            char delay[16];
            snprintf(delay, sizeof delay, "%d", COORD_START_DELAY_S);
            const char *more[1] = {delay};
            if (command(c->pg, c,
                        "UPDATE pgarena.runs SET state = 'started', start_at = "
                        "clock_timestamp() + make_interval(secs => $3::int) "
                        "WHERE run_id = $1 AND state = 'gathering' AND $2::int = 0",
                        1, more, e) < 0)
                return -1;
            notify(c->pg, c);
            continue;
        }
        if (clock_now_ns() > deadline)
            return err_set(e, ERR_RUNTIME,
                           "run: not all %d agents of run %s arrived within %.0f s: missing "
                           "agent %s",
                           c->count, c->run_id, c->wait_s, v.missing);
        wait_change(c, 100);
    }
    /* The start on the own clock: where the server's start falls, by the measured offset. */
    int64_t local_start_us = v.start_us - (int64_t)c->offset_us;
    time_ns now = clock_now_ns();
    *go_ns = now + (local_start_us - real_now_us()) * NS_PER_US;
    if (*go_ns < now)
        *go_ns = now;
    *start_server_us = v.start_us;
    return 0;
}

int coord_lost(struct coord *c, char *why, size_t why_size)
{
    if (!atomic_load(&c->lost))
        return 0;
    pthread_mutex_lock(&c->mu);
    snprintf(why, why_size, "%s", c->why[0] ? c->why : "an agent was lost");
    pthread_mutex_unlock(&c->mu);
    return 1;
}

void coord_on_lost(struct coord *c, void (*fn)(const char *error, void *arg), void *arg)
{
    pthread_mutex_lock(&c->mu);
    c->on_lost = fn;
    c->on_lost_arg = arg;
    pthread_mutex_unlock(&c->mu);
}

int coord_store_result(struct coord *c, const char *text, int complete, struct err *e)
{
    const char *more[2] = {text, complete ? "true" : "false"};
    if (command(c->pg, c,
                "UPDATE pgarena.agents SET result = $3, complete = $4::boolean, "
                "state = 'done' WHERE run_id = $1 AND idx = $2",
                2, more, e) < 0)
        return -1;
    notify(c->pg, c);
    return 0;
}

int coord_collect(struct coord *c, double wait_s, char ***texts, struct err *e)
{
    char secs[16], state[6];
    snprintf(secs, sizeof secs, "%d", COORD_SILENT_S);
    const char *more[1] = {secs};
    time_ns deadline = clock_now_ns() + (time_ns)(wait_s * NS_PER_S);
    *texts = xcalloc((size_t)c->count, sizeof **texts);
    for (;;) {
        /* waiting: agents still running and not silent */
        struct pg_result *r =
            query(c->pg, c,
                  "SELECT idx, state = 'done', result, state = 'running' AND heartbeat >= "
                  "clock_timestamp() - make_interval(secs => $3::int) FROM pgarena.agents "
                  "WHERE run_id = $1 AND $2::int >= 0 ORDER BY idx",
                  1, more, state, e);
        if (!r)
            return -1;
        int waiting = 0;
        for (int i = 0; i < pg_result_rows(r); i++)
            waiting += strcmp(pg_result_value(r, i, 3), "t") == 0;
        if (!waiting || clock_now_ns() > deadline) {
            for (int i = 0; i < pg_result_rows(r); i++) {
                int idx = atoi(pg_result_value(r, i, 0));
                if (idx >= 0 && idx < c->count && !pg_result_isnull(r, i, 2))
                    (*texts)[idx] = xstrdup(pg_result_value(r, i, 2));
            }
            pg_result_free(r);
            return 0;
        }
        pg_result_free(r);
        wait_change(c, 200);
    }
}

void coord_abandon(struct coord *c, const char *why)
{
    if (!c || !c->pg)
        return;
    struct err e = {0};
    char *text = xasprintf("agent %d could not take part: %s", c->index, why);
    const char *w[1] = {text};
    command(c->pg, c,
            "UPDATE pgarena.runs SET state = 'lost', why = $3 WHERE run_id = $1 "
            "AND state IN ('gathering', 'started') AND $2::int >= 0",
            1, w, &e);
    notify(c->pg, c);
    free(text);
}

void coord_close(struct coord *c, int finished)
{
    if (!c)
        return;
    if (c->beating) {
        atomic_store(&c->stop_beat, 1);
        pthread_join(c->beat, NULL);
    }
    if (c->pg && finished && c->index == 0) {
        struct err e = {0};
        command(c->pg, c,
                "UPDATE pgarena.runs SET state = 'finished' WHERE run_id = $1 "
                "AND state <> 'lost' AND $2::int = 0",
                0, NULL, &e);
    }
    pg_finish(c->pg);
    pg_connopts_free(&c->conn);
    free(c->run_id);
    pthread_mutex_destroy(&c->mu);
    free(c);
}
