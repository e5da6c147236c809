/* The workload "replay": a capture replayed as a run. Before the run:
 * the capture read once, the capture's own server refused, the targets reset from their
 * template; during it, the feed (source.c); after it, replay {...} and summary.classes[]. */
#include "workload/replay/replay_int.h"
#include "workload/replay/replay_result.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/num.h"
#include "os/os.h"
#include "workload/workload_int.h"

#define WORKLOAD_OPTIONS_FILE "workload/replay/options.def"
#include "workload/option_names.h"

_Static_assert(sizeof(struct replay_opts) <= WORKLOAD_OPTS_SIZE, "replay's options fit");

/* --order and --force are shared (history's --order, init's --force: cli/options.def). */
static const char *const option_names[] = {option_CAPTURE,
                                           option_SPEED,
                                           "order",
                                           option_MAP_DB,
                                           option_MAP_USER,
                                           option_SESSION_SET,
                                           option_RESET_FROM,
                                           option_READ_ONLY,
                                           "force",
                                           option_COPY_FROM,
                                           NULL};
static const struct workload_option_group option_group = {option_names, "-w replay"};
static const struct workload_option_group *const option_groups[] = {&option_group, NULL};

static void options_init(void *opts)
{
    *(struct replay_opts *)opts = (struct replay_opts){.speed = 1};
}

static int add_map(struct replay_map *maps, int *n, const char *opt, const char *arg, struct err *e)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return err_set(e, ERR_INPUT, "invalid value for %s: '%s' (expected FROM=TO)", opt, arg);
    if (*n == REPLAY_MAX_MAPS)
        return err_set(e, ERR_INPUT, "too many %s options (at most %d)", opt, REPLAY_MAX_MAPS);
    maps[(*n)++] = (struct replay_map){arg, (size_t)(eq - arg), eq + 1};
    return 0;
}

/* --session-set NAME=VALUE: NAME a parameter's name (letters, digits, _ and ., as the server
 * spells them: DateStyle, extra_float_digits, myapp.tenant), VALUE anything, even empty. */
static int add_set(struct replay_opts *r, const char *arg, struct err *e)
{
    const char *eq = strchr(arg, '=');
    int ok = eq && eq > arg;
    for (const char *p = arg; ok && p < eq; p++)
        ok = isalnum((unsigned char)*p) || *p == '_' || *p == '.';
    if (!ok)
        return err_set(e, ERR_INPUT,
                       "invalid value for --session-set: '%s' (expected NAME=VALUE, NAME a "
                       "parameter's name)",
                       arg);
    if (r->n_sets == REPLAY_MAX_SETS)
        return err_set(e, ERR_INPUT, "too many --session-set options (at most %d)",
                       REPLAY_MAX_SETS);
    r->sets[r->n_sets++] = (struct replay_map){arg, (size_t)(eq - arg), eq + 1};
    return 0;
}

static int option(void *opts, const char *name, const char *arg, struct err *e)
{
    struct replay_opts *r = opts;
    if (strcmp(name, option_CAPTURE) == 0)
        r->capture = arg;
    else if (strcmp(name, option_SPEED) == 0) {
        if (strcmp(arg, "max") == 0)
            r->speed = 0;
        else
            return num_double("--speed", arg, 0.001, 1000000, &r->speed, e);
    } else if (strcmp(name, "order") == 0) {
        if (strcmp(arg, "capture") != 0 && strcmp(arg, "session") != 0)
            return err_set(e, ERR_INPUT,
                           "invalid value for --order: '%s' (expected capture or session)", arg);
        r->order_session = strcmp(arg, "session") == 0;
    } else if (strcmp(name, option_MAP_DB) == 0)
        return add_map(r->map_db, &r->n_map_db, "--map-db", arg, e);
    else if (strcmp(name, option_MAP_USER) == 0)
        return add_map(r->map_user, &r->n_map_user, "--map-user", arg, e);
    else if (strcmp(name, option_SESSION_SET) == 0)
        return add_set(r, arg, e);
    else if (strcmp(name, option_RESET_FROM) == 0)
        r->reset_from = arg;
    else if (strcmp(name, option_READ_ONLY) == 0)
        r->read_only = 1;
    else if (strcmp(name, "force") == 0)
        r->force = 1;
    else if (strcmp(name, option_COPY_FROM) == 0) {
        struct stat st;
        if (os_stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
            return err_set(e, ERR_INPUT, "invalid value for --copy-from: '%s' (not a directory)",
                           arg);
        r->copy_from = arg;
    }
    return 0;
}

static int check_run(const struct workload *w, struct workload_run_opts *o, struct err *e)
{
    (void)w;
    const struct replay_opts *r = o->opts;
    if (!r->capture)
        return err_set(e, ERR_INPUT,
                       "run: -w replay needs --capture CAPTURE (or: pgarena replay run CAPTURE)");
    if (r->reset_from && o->local)
        return err_set(e, ERR_INPUT,
                       "run: --reset-from needs the template on the target, not a fresh --local "
                       "server");
    return 0;
}

static int check_init(const struct workload *w, const struct workload_init_given *g, struct err *e)
{
    (void)w;
    (void)g;
    return err_set(e, ERR_INPUT,
                   "init: a replay has no dataset of its own: restore the captured database "
                   "and give it to replay run --reset-from");
}

/* Whether the server of c is the capture's own: the same system_identifier, and the same
 * address and port (a restored copy elsewhere shares the identifier and is allowed). */
static int is_capture_server(struct pg_conn *c, const struct capture_header *h)
{
    char sysid[64], port[16], addr[256];
    struct err ignored = {0};
    if (!h->system_identifier[0] ||
        pg_query_value(c, "SELECT system_identifier::text FROM pg_control_system()", sysid,
                       sizeof sysid, &ignored) < 0 ||
        strcmp(sysid, h->system_identifier) != 0)
        return 0;
    if (h->port &&
        (pg_query_value(c, "SHOW port", port, sizeof port, &ignored) < 0 || atoi(port) != h->port))
        return 0;
    if (!h->address[0])
        return 1;
    const char *host = pg_host(c);
    if (host && strcmp(host, h->address) == 0)
        return 1;
    if (pg_query_value(c, "SELECT coalesce(host(inet_server_addr()), '')", addr, sizeof addr,
                       &ignored) == 0 &&
        addr[0] && strcmp(addr, h->address) == 0)
        return 1;
    /* Both over a unix socket (a directory, or the address unknown to the server). */
    return h->address[0] == '/' && (!addr[0] || (host && host[0] == '/'));
}

/* --reset-from: each target database dropped and made anew from the template, on a
 * connection to another database (postgres, or template1 when postgres is a target). */
static int reset_targets(const struct replay_state *s, const struct pg_connopts *conn,
                         struct err *e)
{
    const char *maint = "postgres";
    for (size_t i = 0; i < s->n_databases; i++) {
        if (strcmp(s->databases[i], s->opts.reset_from) == 0)
            return err_set(e, ERR_INPUT, "replay run: --reset-from %s is also a target database",
                           s->opts.reset_from);
        if (strcmp(s->databases[i], "postgres") == 0)
            maint = "template1";
    }
    struct pg_connopts m = *conn;
    char *db = conn->dbname && strchr(conn->dbname, '=')
                   ? xasprintf("%s dbname=%s", conn->dbname, maint)
                   : xstrdup(maint);
    m.dbname = db;
    struct pg_conn *c = pg_connect(&m, e);
    free(db);
    if (!c)
        return -1;
    int rc = 0;
    char *tmpl = pg_quote_ident(s->opts.reset_from);
    for (size_t i = 0; rc == 0 && i < s->n_databases; i++) {
        char *name = pg_quote_ident(s->databases[i]);
        char *drop = xasprintf("DROP DATABASE IF EXISTS %s", name);
        char *create = xasprintf("CREATE DATABASE %s TEMPLATE %s", name, tmpl);
        if (pg_exec(c, drop, e) < 0 || pg_exec(c, create, e) < 0) {
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "%s", e->msg);
            rc = err_set(e, ERR_RUNTIME, "replay run: --reset-from %s: %s: %s", s->opts.reset_from,
                         s->databases[i], msg);
        }
        free(drop);
        free(create);
        free(name);
    }
    free(tmpl);
    pg_finish(c);
    return rc;
}

/* Whether conninfo s (key=value pairs) has key k. */
static int conninfo_has(const char *s, const char *k)
{
    size_t n = strlen(k);
    for (const char *p = s; (p = strstr(p, k)) != NULL; p += n) {
        const char *q = p + n;
        while (*q == ' ' || *q == '\t')
            q++;
        if ((p == s || p[-1] == ' ' || p[-1] == '\t') && *q == '=')
            return 1;
    }
    return 0;
}

/* conn as a conninfo with dbname db (a new string). */
static char *with_dbname(const struct pg_connopts *conn, const char *db)
{
    struct buf b;
    buf_init(&b);
    if (conn->dbname && *conn->dbname)
        buf_puts(&b, conn->dbname);
    replay_conninfo_value(&b, "dbname", db);
    char *s = xstrdup(b.data);
    buf_free(&b);
    return s;
}

/* The capture's first database, mapped ("" when it names none). */
static char *first_database(const struct replay_opts *o)
{
    struct err ignored = {0};
    struct capture_reader *r = capture_reader_open(o->capture, &ignored);
    struct capture_event ev;
    char *db = NULL;
    while (r && !db && capture_reader_next(r, &ev, &ignored) == 1)
        if (ev.kind == CAPTURE_EV_SESSION_START && ev.session.database[0])
            db = xstrdup(replay_mapped(o->map_db, o->n_map_db, ev.session.database));
    capture_reader_close(r);
    return db;
}

/* CONN without a database (each session connects to its own): pgarena's own connections
 * use postgres, which a replay seldom drops, when it is there, else the capture's first
 * database as mapped. */
static char *own_dbname(const struct workload *w, const struct pg_connopts *conn, const void *opts)
{
    (void)w;
    const char *env = getenv("PGDATABASE"), *d = conn->dbname;
    if ((env && *env) || getenv("PGSERVICE"))
        return NULL;
    if (d && (strchr(d, '=') ? conninfo_has(d, "dbname") || conninfo_has(d, "service") : *d))
        return NULL;
    struct pg_connopts t = *conn;
    t.dbname = with_dbname(conn, "postgres");
    struct err e = {0};
    struct pg_conn *c = pg_connect_aux(&t, PG_AUX_TIMEOUT_MS, &e);
    if (c || pg_connect_failure_of(e.msg) != PG_CONNECT_NO_DATABASE) {
        pg_finish(c); /* there, or failing for another reason: the setup says which */
        return t.dbname;
    }
    char *db = first_database(opts);
    if (!db)
        return t.dbname;
    free(t.dbname);
    char *s = with_dbname(conn, db);
    free(db);
    return s;
}

static int detect(const struct workload *w, struct pg_conn *c, struct workload_params *p,
                  struct err *e)
{
    (void)w;
    struct replay_state *s = replay_prepass(p->opts, p->conn, (int)p->threads, e);
    if (!s)
        return -1;
    p->state = s;
    s->own = (struct pg_connopts){p->conn->host ? xstrdup(p->conn->host) : NULL,
                                  p->conn->port ? xstrdup(p->conn->port) : NULL,
                                  p->conn->user ? xstrdup(p->conn->user) : NULL,
                                  p->conn->dbname ? xstrdup(p->conn->dbname) : NULL};
    if (s->n_clients == 0)
        return err_set(e, ERR_INPUT, "%s: the capture holds no session", s->opts.capture);
    if (!s->opts.force && is_capture_server(c, &s->header))
        return err_set(e, ERR_INPUT,
                       "replay run: this is the capture's own server (system_identifier %s, "
                       "%s port %d): a replay writes what the application wrote; give --force "
                       "to replay there anyway",
                       s->header.system_identifier,
                       s->header.address[0] ? s->header.address : "same address", s->header.port);
    if (s->opts.reset_from && reset_targets(s, p->conn, e) < 0)
        return -1;
    replay_sequences_learn(s); /* (on the targets as reset) */
    replay_types_learn(s);
    p->clients = s->n_clients;
    replay_source_init(s);
    return 0;
}

static int scripts(const struct workload *w, const struct workload_params *p,
                   struct script_set *set, struct err *e)
{
    (void)w;
    (void)p;
    /* The engine runs the feed; the one script names the run's unit in the per-script
     * figures. */
    return script_set_add(set, "replay", "\\set replay 1\n", 1, e);
}

static const struct engine_feed *feed(const struct workload *w, struct workload_params *p)
{
    (void)w;
    struct replay_state *s = p->state;
    return s ? &s->feed : NULL;
}

static int by_count_desc(const void *a, const void *b)
{
    const struct replay_reason *x = a, *y = b;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

#define REPLAY_TOP_REASONS 10

/* replay {} and summary.classes[] from the figures merged so far. */
static void fill_result(const struct replay_state *s, struct result *r)
{
    const struct replay_figures *f = &s->merged;
    struct replay_result *o = xcalloc(1, sizeof *o);
    o->capture = xstrdup(s->opts.capture);
    o->speed = s->opts.speed;
    o->sessions = s->header.n_sessions;
    o->statements = s->header.n_statements;
    o->transactions = s->transactions;
    o->sent = f->sent;
    o->skipped_copy = s->header.skipped_copy + f->skipped_copy;
    o->skipped_unsupported = s->header.skipped_unsupported + f->skipped_unsupported;
    o->skipped_read_only = f->skipped_read_only;
    o->skipped_secret = s->header.skipped_secret;
    memcpy(o->unsupported, s->header.unsupported, sizeof o->unsupported);
    o->copy_from = s->opts.copy_from != NULL;
    o->copy_loaded = f->copy_loaded;
    o->copy_recorded = f->copy_recorded;
    o->values_mapped = f->values_mapped;
    o->copy_empty = f->copy_empty;
    o->prepared = f->prepared;
    o->pipelined = f->pipelined;
    o->portal_fetches = s->header.portal_fetches;
    o->secrets_replaced = f->secrets_replaced;
    o->session_set = xcalloc((size_t)s->opts.n_sets + 1, sizeof *o->session_set);
    for (int i = 0; i < s->opts.n_sets; i++)
        o->session_set[o->n_session_set++] = xstrdup(s->opts.sets[i].from);
    o->failed_now = f->failed_now;
    o->succeeded_now = f->succeeded_now;
    o->sessions_failed = f->sessions_failed;
    o->order = s->ordered ? REPLAY_RESULT_ORDER_CAPTURE : REPLAY_RESULT_ORDER_SESSION;
    o->order_waits = f->order_waits;
    o->order_wait_ms = (double)f->order_wait_us / 1000.0;
    o->order_given_way = f->order_given_way;
    struct replay_reason sorted[REPLAY_MAX_REASONS + 1];
    size_t n = 0;
    for (size_t i = 0; i <= REPLAY_MAX_REASONS; i++)
        if (f->reasons[i].text)
            sorted[n++] = f->reasons[i];
    qsort(sorted, n, sizeof *sorted, by_count_desc);
    o->n_top = n < REPLAY_TOP_REASONS ? n : REPLAY_TOP_REASONS;
    o->top = xcalloc(o->n_top + 1, sizeof *o->top);
    for (size_t i = 0; i < o->n_top; i++)
        o->top[i] = (struct replay_result_reason){xstrdup(sorted[i].text), sorted[i].count};
    result_derive_lag(&o->lag, f->lag);
    result_derive_lag(&o->client_lag, f->client_lag);
    o->captured_s = (double)s->header.duration_us / 1e6;
    o->replayed_s = r->summary.duration_s;
    result_part_set(r, &replay_part, o);
    r->summary.has_classes = 1;
    r->summary.n_classes =
        class_table_top(f->classes, RESULT_MAX_CLASSES, r->summary.duration_s, &r->summary.classes);
}

static void result(const struct workload *w, const struct workload_params *p, struct result *r)
{
    (void)w;
    if (p->state)
        fill_result(p->state, r);
}

/* The workers hand their figures over to s->merged as they go (source.c): what they handed
 * over so far. */
static void snapshot(const struct workload *w, const struct workload_params *p, struct result *r)
{
    (void)w;
    struct replay_state *s = p->state;
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    fill_result(s, r);
    pthread_mutex_unlock(&s->mu);
}

static void free_state(const struct workload *w, struct workload_params *p)
{
    (void)w;
    replay_state_free(p->state);
    p->state = NULL;
}

/* sweep --speed LIST: each cell replays the capture at one speed. */
static const struct workload_sweep_axis speed_axis = {
    .name = option_SPEED,
    .lo = 0.001,
    .hi = 1000000,
    .top = "max",
    .expected = "speeds like 1,2,4,max or a geometric range like 0.5..8x2",
};

const struct workload workload_replay = {
    .name = "replay",
    .description = "a capture of the application's own statements (pgarena replay run)",
    .dataset = DATASET_REPLAY,
    .why_no_b = "a replay's statements come from its capture",
    .paced_by_input = 1,
    .sweep_axis = &speed_axis,
    .options = option_groups,
    .options_init = options_init,
    .option = option,
    .check_run = check_run,
    .check_init = check_init,
    .own_dbname = own_dbname,
    .detect = detect,
    .scripts = scripts,
    .result = result,
    .free_state = free_state,
    .feed = feed,
    .snapshot = snapshot,
    .part = &replay_part,
};
