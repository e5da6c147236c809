/* The first pass over a capture: sessions, the clients that replay them, their connections. */
#include "workload/replay/replay_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/mem.h"
#include "capture/sqltext.h"
#include "os/os.h"

/* A client takes a session only when its previous one ended this long before, in the
 * capture's time: a replayed session that runs late then seldom delays the next. */
#define SLOT_GAP_US 1000000

const char *replay_mapped(const struct replay_map *maps, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strlen(name) == maps[i].from_len && strncmp(maps[i].from, name, maps[i].from_len) == 0)
            return maps[i].to;
    return name;
}

void replay_conninfo_value(struct buf *b, const char *key, const char *v)
{
    pg_conninfo_append(b, key, v);
}

static int is_uri(const char *s)
{
    return s && (strncmp(s, "postgresql://", 13) == 0 || strncmp(s, "postgres://", 11) == 0);
}

/* A recorded session's startup parameters besides user and database, as libpq sends them:
 * application_name, client_encoding and options as they are (into b's conninfo, options into
 * opt first), every other as "-c NAME=VALUE" in opt (DateStyle, TimeZone, search_path...);
 * protocol extensions (_pq_.*) are not libpq's to send and are left out. */
static void startup_conninfo(const struct capture_session *cs, struct buf *b, struct buf *opt)
{
    for (int i = 0; cs && i < cs->n_startup; i++) {
        const char *name = cs->startup_names[i], *v = cs->startup_values[i];
        if (!strcmp(name, "user") || !strcmp(name, "database") || !strncmp(name, "_pq_.", 5))
            continue;
        if (!strcmp(name, "application_name") || !strcmp(name, "client_encoding")) {
            replay_conninfo_value(b, name, v);
        } else if (!strcmp(name, "options")) {
            buf_printf(opt, "%s%s", opt->len ? " " : "", v);
        } else {
            buf_printf(opt, "%s-c %s=", opt->len ? " " : "", name);
            for (; *v; v++) {
                if (isspace((unsigned char)*v) || *v == '\\')
                    buf_putc(opt, '\\');
                buf_putc(opt, *v);
            }
        }
    }
}

/* The session's connection: CONN's host and port, the session's user and database (mapped),
 * a recorded session's startup parameters, then --read-only's and --session-set's settings
 * (the later setting wins), as a conninfo in dbname (libpq expands it). */
static void make_conn(const struct replay_state *s, const struct pg_connopts *base,
                      const struct capture_session *cs, struct pg_connopts *out)
{
    const char *user = cs->user, *db = cs->database;
    const struct replay_opts *o = &s->opts;
    struct buf b;
    buf_init(&b);
    if (base->dbname && strchr(base->dbname, '='))
        buf_puts(&b, base->dbname);
    const char *d = db[0] ? replay_mapped(o->map_db, o->n_map_db, db) : NULL;
    if (!d && base->dbname && !strchr(base->dbname, '='))
        d = base->dbname;
    if (d)
        replay_conninfo_value(&b, "dbname", d);
    struct buf opt;
    buf_init(&opt);
    startup_conninfo(cs, &b, &opt);
    if (o->read_only)
        buf_printf(&opt, "%s-c default_transaction_read_only=on", opt.len ? " " : "");
    for (int i = 0; i < o->n_sets; i++) { /* libpq options: a space or \ in a value escaped */
        buf_printf(&opt, "%s-c %.*s=", opt.len ? " " : "", (int)o->sets[i].from_len,
                   o->sets[i].from);
        for (const char *v = o->sets[i].to; *v; v++) {
            if (isspace((unsigned char)*v) || *v == '\\')
                buf_putc(&opt, '\\');
            buf_putc(&opt, *v);
        }
    }
    if (opt.len)
        replay_conninfo_value(&b, "options", opt.data);
    buf_free(&opt);
    memset(out, 0, sizeof *out);
    out->host = base->host ? xstrdup(base->host) : NULL;
    out->port = base->port ? xstrdup(base->port) : NULL;
    const char *u = user[0] ? replay_mapped(o->map_user, o->n_map_user, user) : base->user;
    out->user = u ? xstrdup(u) : NULL;
    out->dbname = xstrdup(b.data);
    buf_free(&b);
}

/* The index of (user, database, startup parameters) among the distinct ones, added when new. */
static int conn_index(struct replay_state *s, const struct pg_connopts *base,
                      const struct capture_session *cs, char ***keys)
{
    const char *user = cs->user, *db = cs->database;
    struct buf kb;
    buf_init(&kb);
    buf_printf(&kb, "%s\n%s", user, db);
    for (int i = 0; i < cs->n_startup; i++)
        buf_printf(&kb, "\n%s=%s", cs->startup_names[i], cs->startup_values[i]);
    char *key = xstrdup(kb.data);
    buf_free(&kb);
    for (size_t i = 0; i < s->n_conns; i++) {
        if (strcmp((*keys)[i], key) == 0) {
            free(key);
            return (int)i;
        }
    }
    s->conns = xrealloc(s->conns, (s->n_conns + 1) * sizeof *s->conns);
    *keys = xrealloc(*keys, (s->n_conns + 1) * sizeof **keys);
    (*keys)[s->n_conns] = key;
    make_conn(s, base, cs, &s->conns[s->n_conns]);
    const char *target = db[0] ? replay_mapped(s->opts.map_db, s->opts.n_map_db, db) : base->dbname;
    int known = !target || strchr(target, '='), at = -1;
    for (size_t i = 0; !known && i < s->n_databases; i++)
        if (strcmp(s->databases[i], target) == 0)
            known = 1, at = (int)i;
    if (!known) {
        s->databases = xrealloc(s->databases, (s->n_databases + 1) * sizeof *s->databases);
        at = (int)s->n_databases;
        s->databases[s->n_databases++] = xstrdup(target);
    }
    s->conn_db = xrealloc(s->conn_db, (s->n_conns + 1) * sizeof *s->conn_db);
    s->conn_db[s->n_conns] = at;
    return (int)s->n_conns++;
}

/* Deal the sessions (in order of start) to clients: the client free longest, when its last
 * session ended SLOT_GAP_US before this one starts, else a new client. A min-heap on the
 * clients' free times. */
static void deal_sessions(struct replay_state *s)
{
    struct slot {
        int64_t free_at;
        int client;
    } *heap = xcalloc(s->n_sessions + 1, sizeof *heap);
    size_t n = 0;
    for (size_t i = 0; i < s->n_sessions; i++) {
        struct replay_session *ss = &s->sessions[i];
        if (ss->client == -2)
            continue; /* never started */
        struct slot take;
        if (n > 0 && heap[0].free_at + SLOT_GAP_US <= ss->start_us) {
            take = heap[0];
            heap[0] = heap[--n]; /* sift down */
            for (size_t k = 0;;) {
                size_t l = 2 * k + 1, r = l + 1, m = k;
                if (l < n && heap[l].free_at < heap[m].free_at)
                    m = l;
                if (r < n && heap[r].free_at < heap[m].free_at)
                    m = r;
                if (m == k)
                    break;
                struct slot t = heap[k];
                heap[k] = heap[m];
                heap[m] = t;
                k = m;
            }
        } else {
            take.client = s->n_clients++;
        }
        ss->client = take.client;
        take.free_at = ss->end_us;
        size_t k = n++; /* sift up */
        heap[k] = take;
        while (k > 0 && heap[(k - 1) / 2].free_at > heap[k].free_at) {
            struct slot t = heap[k];
            heap[k] = heap[(k - 1) / 2];
            heap[(k - 1) / 2] = t;
            k = (k - 1) / 2;
        }
    }
    free(heap);
}

struct client_load {
    uint64_t statements;
    int client;
};

/* Busiest first; equal loads in client order. */
static int by_load_desc(const void *a, const void *b)
{
    const struct client_load *x = a, *y = b;
    if (x->statements != y->statements)
        return x->statements < y->statements ? 1 : -1;
    return x->client - y->client;
}

/* The engine deals clients to its threads in contiguous blocks (engine/run.c): renumber the
 * clients so that each block holds about as many statements, the busiest clients first,
 * each to the block with the fewest statements so far that has room. Without it the
 * sessions that run all along (the first to start, so the lowest numbers) share one thread
 * while another idles. */
static void balance_clients(struct replay_state *s, int threads)
{
    int n = s->n_clients;
    int nw = threads < n ? threads : n;
    if (nw <= 1)
        return;
    struct client_load *load = xcalloc((size_t)n, sizeof *load);
    for (int i = 0; i < n; i++)
        load[i].client = i;
    for (size_t i = 0; i < s->n_sessions; i++)
        if (s->sessions[i].client >= 0)
            load[s->sessions[i].client].statements += s->sessions[i].statements + 1;
    qsort(load, (size_t)n, sizeof *load, by_load_desc);
    /* Block t is clients next[t] .. end[t] - 1, as the engine deals them. */
    uint64_t *block_load = xcalloc((size_t)nw, sizeof *block_load);
    int *next = xcalloc((size_t)nw, sizeof *next), *end = xcalloc((size_t)nw, sizeof *end);
    for (int t = 0, at = 0; t < nw; t++) {
        next[t] = at;
        at += n / nw + (t < n % nw);
        end[t] = at;
    }
    int *renumber = xcalloc((size_t)n, sizeof *renumber);
    for (int i = 0; i < n; i++) {
        int best = -1;
        for (int t = 0; t < nw; t++)
            if (next[t] < end[t] && (best < 0 || block_load[t] < block_load[best]))
                best = t;
        renumber[load[i].client] = next[best]++;
        block_load[best] += load[i].statements;
    }
    for (size_t i = 0; i < s->n_sessions; i++)
        if (s->sessions[i].client >= 0)
            s->sessions[i].client = renumber[s->sessions[i].client];
    free(renumber);
    free(next);
    free(end);
    free(block_load);
    free(load);
}

static const char *skip_space(const char *t)
{
    while (*t && (isspace((unsigned char)*t) || *t == '('))
        t++;
    return t;
}

/* Whether t starts with the word w (lower case, n bytes) in any case. Inline ASCII: this
 * runs for every statement, in the first pass and as each worker reads. */
static int word_at_n(const char *t, const char *w, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)t[k];
        if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != (unsigned char)w[k])
            return 0;
    }
    return !isalnum((unsigned char)t[n]) && t[n] != '_';
}

#define word_at(t, w) word_at_n(t, w "", sizeof(w) - 1)

int replay_tx_boundary(const char *text)
{
    const char *t = skip_space(text);
    switch (*t | 0x20) { /* the first letter decides which words can follow */
    case 'b':
        return word_at(t, "begin");
    case 's':
        return word_at(t, "start");
    case 'c':
        return word_at(t, "commit") ? -1 : 0;
    case 'e':
        return word_at(t, "end") ? -1 : 0;
    case 'a':
        return word_at(t, "abort") ? -1 : 0;
    case 'r':
        return word_at(t, "rollback") ? (strcasestr(t, " to ") ? 0 : -1) : 0;
    case 'p': /* PREPARE TRANSACTION: the block is over for the session */
        return word_at(t, "prepare") && word_at(skip_space(t + 7), "transaction") ? -1 : 0;
    default:
        return 0;
    }
}

int replay_schema_change(const char *text)
{
    static const char *const words[] = {"create",   "alter",    "drop",     "grant",
                                        "revoke",   "truncate", "comment",  "refresh",
                                        "reassign", "import",   "security", "reindex"};
    const char *t = skip_space(text);
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if ((*t | 0x20) == words[i][0] && word_at_n(t, words[i], strlen(words[i])))
            return 1;
    return 0;
}

const char *replay_copy_load(const struct replay_state *s, uint64_t seq)
{
    size_t lo = 0, hi = s->n_copy_loads;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->copy_loads[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_copy_loads && s->copy_loads[lo].seq == seq ? s->copy_loads[lo].path : NULL;
}

/* The COPY FROM STDIN numbered seq (text): the Nth into its table counted in copies, and with
 * --copy-from its file DIR/TABLE.N kept in s when it exists (a quoted name holding a slash
 * has none). 1 when it has one. */
struct copy_count {
    char table[128];
    uint64_t n;
};
static int copy_file(struct replay_state *s, uint64_t seq, const char *text,
                     struct copy_count **copies, size_t *n_copies)
{
    char table[128];
    if (capture_copy_table_of(text, table, sizeof table) < 0)
        return 0;
    size_t i = 0;
    while (i < *n_copies && strcmp((*copies)[i].table, table) != 0)
        i++;
    if (i == *n_copies) {
        *copies = xrealloc(*copies, (*n_copies + 1) * sizeof **copies);
        snprintf((*copies)[i].table, sizeof(*copies)[i].table, "%s", table);
        (*copies)[i].n = 0;
        (*n_copies)++;
    }
    uint64_t n = ++(*copies)[i].n;
    if (!s->opts.copy_from || strchr(table, '/')) /* a name that is no file name: none */
        return 0;
    char *path = xasprintf("%s/%s.%llu", s->opts.copy_from, table, (unsigned long long)n);
    if (os_access(path, R_OK) != 0) {
        free(path);
        return 0;
    }
    s->copy_loads = xrealloc(s->copy_loads, (s->n_copy_loads + 1) * sizeof *s->copy_loads);
    s->copy_loads[s->n_copy_loads++] = (struct replay_copy_load){seq, path};
    return 1;
}

/* The replay's own password (replay_state.password): 32 hex digits from the system's
 * randomness. */
static void make_password(char out[33])
{
    unsigned char raw[16] = {0};
    FILE *f = os_fopen("/dev/urandom", "rb");
    size_t got = f ? fread(raw, 1, sizeof raw, f) : 0;
    if (f)
        fclose(f);
    if (got < sizeof raw) { /* no /dev/urandom: the clock and the pid, still never written */
        uint64_t x = (uint64_t)clock_now_ns() ^ ((uint64_t)getpid() << 32);
        for (size_t i = 0; i < sizeof raw; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            raw[i] = (unsigned char)x;
        }
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
}

/* The sessions that log in as a role the capture gave a password to (roles: one name a
 * line) give the replay's password, which the replayed statement set. */
static void give_password(struct replay_state *s, const char *roles)
{
    for (size_t i = 0; i < s->n_conns; i++) {
        struct pg_connopts *c = &s->conns[i];
        if (!c->user)
            continue;
        char *line = xasprintf("\n%s\n", c->user);
        if (strstr(roles, line)) {
            struct buf b;
            buf_init(&b);
            buf_puts(&b, c->dbname);
            replay_conninfo_value(&b, "password", s->password);
            free(c->dbname);
            c->dbname = xstrdup(b.data);
            buf_free(&b);
        }
        free(line);
    }
}

static int read_events(struct replay_state *s, struct capture_reader *r,
                       const struct pg_connopts *base, struct err *e)
{
    char **keys = NULL;
    struct buf roles; /* "\n" then the roles given a password, each followed by "\n" */
    buf_init(&roles);
    buf_putc(&roles, '\n');
    unsigned char *in_tx = xcalloc(s->n_sessions + 1, 1);
    struct buf names; /* a statement's sqltext_draws */
    buf_init(&names);
    struct replay_order_build ob, oc; /* statements', sessions' starts' */
    if (s->ordered) {
        replay_order_build_init(&ob, s->n_sessions, s->header.time_resolution_us);
        replay_order_build_init(&oc, s->n_sessions, s->header.time_resolution_us);
    }
    unsigned char *schema_in_tx = xcalloc(s->n_sessions + 1, 1);
    struct copy_count *copies = NULL;
    size_t n_copies = 0;
    uint64_t seq = 0; /* the statements' numbers, as source.c counts them */
    struct capture_event ev;
    int rc;
    while ((rc = capture_reader_next(r, &ev, e)) == 1) {
        uint64_t st_seq = ev.kind == CAPTURE_EV_STATEMENT ? seq++ : 0;
        uint32_t id = ev.kind == CAPTURE_EV_STATEMENT ? ev.statement.session : ev.session.id;
        if (id >= s->n_sessions) {
            rc = err_set(e, ERR_INPUT, "%s: session %u beyond the header's %zu sessions",
                         s->opts.capture, id, s->n_sessions);
            break;
        }
        struct replay_session *ss = &s->sessions[id];
        if (ev.kind == CAPTURE_EV_SESSION_START) {
            ss->client = -1;
            ss->start_us = ss->end_us = ev.session.offset_us;
            ss->conn = conn_index(s, base, &ev.session, &keys);
        } else if (ev.kind == CAPTURE_EV_SESSION_END) {
            if (ev.session.offset_us > ss->end_us)
                ss->end_us = ev.session.offset_us;
            if (s->ordered) {
                replay_order_build_session_end(&ob, id, ev.session.offset_us);
                replay_order_build_session_end(&oc, id, ev.session.offset_us);
            }
        } else {
            const struct capture_statement *st = &ev.statement;
            /* as source.c's read_one: a COPY FROM STDIN without a file, a session never
             * started: out */
            int sent = ss->client != -2;
            if (sqltext_is_copy_from_stdin(st->text)) /* the capture's rows, else a file's */
                sent =
                    (copy_file(s, st_seq, st->text, &copies, &n_copies) || st->copy_kept) && sent;
            int b = replay_tx_boundary(st->text);
            int schema = replay_schema_change(st->text);
            schema_in_tx[id] = (b > 0 ? 0 : schema_in_tx[id]) | (schema && in_tx[id]);
            /* Inside a block (its BEGIN too) nothing is visible to the others yet; its end is a
             * session's start waits for any; a statement only for the schema's (order.h). */
            int unit_end = !(b > 0 || (b == 0 && in_tx[id]));
            enum replay_order_part conn_part = !sent      ? REPLAY_ORDER_OUT
                                               : unit_end ? REPLAY_ORDER_IN
                                                          : REPLAY_ORDER_WAITS;
            enum replay_order_part part = !sent ? REPLAY_ORDER_OUT
                                          : unit_end && (b < 0 ? schema_in_tx[id] : schema)
                                              ? REPLAY_ORDER_IN
                                              : REPLAY_ORDER_WAITS;
            if (s->ordered) {
                replay_order_build_statement(&ob, id, st->offset_us, st->duration_us, part);
                replay_order_build_statement(&oc, id, st->offset_us, st->duration_us, conn_part);
            }
            buf_reset(&names);
            if (s->ordered && sent && sqltext_draws(st->text, &names) > 0) /* (sequences.h) */
                replay_draws_build_statement(
                    &s->draws_build, st_seq, st->offset_us,
                    replay_draw_key(&s->draw_keys, s->conn_db[ss->conn], names.data, names.len));
            ss->statements++;
            for (int i = 0; i < st->n_type_names; i++)
                replay_types_add(&s->types, s->conn_db[ss->conn], &st->type_names[i]);
            int64_t end = st->offset_us + (st->duration_us > 0 ? st->duration_us : 0);
            if (end > ss->end_us)
                ss->end_us = end;
            if (b >= 0 && !in_tx[id]) /* a block's BEGIN, or a statement on its own */
                s->transactions++;
            in_tx[id] = b > 0 ? 1 : b < 0 ? 0 : in_tx[id];
            char role[256];
            if (sqltext_password_role(st->text, role, sizeof role)) {
                buf_puts(&roles, role);
                buf_putc(&roles, '\n');
            }
        }
    }
    if (s->ordered) {
        replay_order_build_finish(&ob, &s->order);
        replay_order_build_finish(&oc, &s->connects);
    }
    free(schema_in_tx);
    give_password(s, roles.data);
    buf_free(&roles);
    for (size_t i = 0; i < s->n_conns; i++)
        free(keys[i]);
    free(keys);
    free(in_tx);
    buf_free(&names);
    free(copies);
    return rc < 0 ? -1 : 0;
}

struct replay_state *replay_prepass(const struct replay_opts *opts, const struct pg_connopts *conn,
                                    int threads, struct err *e)
{
    if (is_uri(conn->dbname)) {
        err_set(e, ERR_INPUT,
                "replay run: give CONN as -h/-p/-U or a key=value conninfo, not a URI: each "
                "session connects to its own database as its own user");
        return NULL;
    }
    struct capture_reader *r = capture_reader_open(opts->capture, e);
    if (!r)
        return NULL;
    struct replay_state *s = xcalloc(1, sizeof *s);
    s->opts = *opts;
    s->header = *capture_reader_header(r);
    make_password(s->password);
    s->n_sessions = (size_t)s->header.n_sessions;
    s->sessions = xcalloc(s->n_sessions + 1, sizeof *s->sessions);
    for (size_t i = 0; i < s->n_sessions; i++)
        s->sessions[i].client = -2;
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->order_mu, NULL);
    replay_returned_init(&s->returned);
    s->ordered = !opts->order_session;
    replay_draw_keys_init(&s->draw_keys);
    replay_draws_build_init(&s->draws_build, s->header.time_resolution_us);
    replay_figures_init(&s->merged);
    replay_types_init(&s->types);
    int rc = read_events(s, r, conn, e);
    capture_reader_close(r);
    if (rc < 0) {
        replay_state_free(s);
        return NULL;
    }
    deal_sessions(s);
    balance_clients(s, threads);
    return s;
}

void replay_state_free(struct replay_state *s)
{
    if (!s)
        return;
    free(s->sessions);
    for (size_t i = 0; i < s->n_conns; i++)
        pg_connopts_free(&s->conns[i]);
    free(s->conns);
    for (size_t i = 0; i < s->n_databases; i++)
        free(s->databases[i]);
    free(s->databases);
    replay_figures_free(&s->merged);
    for (size_t i = 0; i < s->n_copy_loads; i++)
        free(s->copy_loads[i].path);
    free(s->copy_loads);
    replay_order_free(&s->order);
    replay_order_free(&s->connects);
    replay_draw_keys_free(&s->draw_keys);
    replay_draws_build_free(&s->draws_build);
    replay_draws_free(&s->draws);
    buf_free(&s->generated_keys);
    free(s->conn_db);
    pg_connopts_free(&s->own);
    replay_types_free(&s->types);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->order_mu);
    replay_returned_free(&s->returned);
    free(s);
}
