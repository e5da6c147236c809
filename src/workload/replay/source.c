/* The engine's feed over a capture: each worker reads the capture itself and keeps, per
 * client of its own, the items read ahead (at most REPLAY_LOOKAHEAD of them), so a capture
 * of any size replays in bounded memory and no lock is taken on the hot path. */
#include "workload/replay/replay_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/clock.h"
#include "base/mem.h"
#include "capture/normalize.h"
#include "capture/pgwire.h"
#include "capture/sqltext.h"
#include "os/os.h"
#include "workload/replay/generated.h"
#include "workload/replay/giveway.h"
#include "workload/replay/returned.h"

/* A client whose items are not read yet waits while the look-ahead is full of the others'
 * (the others consume them: a fast session goes at the pace of a slow one rather than
 * memory growing), unless every other client of the worker waits too or is done, or it has
 * waited this long: then it reads on. The wait is short because the clients holding the
 * items may themselves be waiting (for their due time, or at speed max for another worker's
 * sessions to start), which the source cannot see; the look-ahead then grows by the items
 * up to the waiting client's next, and drains as their owners catch up. */
#define STUCK_READ_ANYWAY_NS (5 * NS_PER_MS)
/* Events read at most per call of next: a client whose next item lies far ahead in the
 * capture (its next session starts much later) reads on a part at a time, in turns with the
 * worker's other clients, instead of holding up their statements for the whole read. */
#define READ_PER_CALL 256

/* A worker hands its figures over to the run's this often (and at its end), so the journal's
 * snapshots of them (for recover) are at most about this old while it works. */
#define HAND_OVER_NS NS_PER_S

/* --order capture: a statement held back by the order for GIVE_WAY_CHECK_NS while its session
 * may hold locks (inside a transaction block, or after it took an advisory lock, which
 * outlives blocks) looks whether its session blocks another (a snapshot of the server's lock
 * waits: giveway.h): then the order and a lock wait may form a cycle (the replay took a lock in
 * another order than the capture, which the log's milliseconds cannot prevent), and the order
 * gives way. While it does not, it looks again at doubling intervals up to
 * GIVE_WAY_CHECK_MAX_NS (a statement merely slow is not looked at every half millisecond), and
 * its client is asked again by then (GIVE_WAY_ASK_MIN_NS at the soonest): a cycle stops every
 * statement's end, which would otherwise wake it first. */
#define GIVE_WAY_CHECK_NS     (500 * NS_PER_US)
#define GIVE_WAY_CHECK_MAX_NS (8 * NS_PER_MS)
#define GIVE_WAY_ASK_MIN_NS   (100 * NS_PER_US)

struct qitem {
    struct qitem *next;
    struct engine_feed_item it;
    const char *text; /* as captured (it.text may be a mapped copy: mapped), of text_len bytes */
    size_t text_len;
    const char *returned; /* the value the capture's server returned (recorded), or NULL */
    int returned_id;      /* it is an id a sequence gave (capture.h) */
    char *mapped;         /* the text with the replay's values for the capture's (returned.h) */
    struct pg_param_forms *forms; /* it.forms, with its arrays in the same allocation */
    char *binary_mapped;          /* room for its binary integers' mapped values: 8 bytes each */
    enum capture_outcome outcome; /* the original's */
    char sqlstate[6];
    uint64_t seq;        /* the statement's number in the capture (order.h) */
    int same_sync;       /* no Sync between it and its session's previous statement (capture.h) */
    int64_t duration_us; /* the original's, -1 when unknown */
    int shares_sync;     /* a Sync group or a pipeline may hold it (may_share_sync, worked out
                          * once at its reading, when the capture has either) */
    int held;            /* the order holds it back, since held_since */
    time_ns held_since;  /* (the engine's clock) */
    time_ns check_at;    /* the next give-way check, while the mark stays */
    time_ns check_step;  /* the interval after it */
};

struct wclient {
    struct qitem *head, *tail;
    struct qitem *cur; /* a session's start or end handed out, freed at the next call */
    /* Statements handed out, in order, each freed at its done (the engine may take the next
     * ones before: feed.h's next_pipelined). */
    struct qitem *given, *given_tail;
    time_ns blocked_since;
    int blocked, finished; /* waiting for the look-ahead to drain; no more items */
    int ro_refused;        /* --read-only refused a statement of the open transaction block */
    int advisory;         /* its session took an advisory lock: it may hold locks outside a block */
    int generated_failed; /* a statement failed now on a value the capture's server generated,
                           * and none has succeeded since: a 25P02 is its cascade */
};

struct worker_source {
    struct replay_state *s;
    struct capture_reader *r;
    int eof;
    int first, n;
    struct wclient *clients;
    size_t queued;
    uint64_t n_statements; /* statement events read: the next one's number */
    int n_blocked, n_finished;
    struct replay_figures fig; /* since the last hand-over */
    struct buf norm;
    struct buf secret;      /* a statement with the replay's password */
    struct buf copy;        /* a COPY FROM STDIN's data (--copy-from), read from its file */
    struct buf unprepared;  /* the names a DEALLOCATE drops (sqltext_unprepare) */
    struct buf mapped;      /* a statement's text with the replay's values (returned.h) */
    time_ns handed_ns;      /* the last hand-over */
    struct giveway giveway; /* the give-way question to the server */
};

void replay_figures_init(struct replay_figures *f)
{
    memset(f, 0, sizeof *f);
    f->classes = class_table_new(REPLAY_WORKER_CLASSES);
    f->lag = hist_new();
    f->client_lag = hist_new();
}

void replay_figures_reason(struct replay_figures *f, const char *text, uint64_t n)
{
    for (size_t i = 0; i < f->n_reasons; i++) {
        if (strcmp(f->reasons[i].text, text) == 0) {
            f->reasons[i].count += n;
            return;
        }
    }
    struct replay_reason *r = &f->reasons[REPLAY_MAX_REASONS];
    if (f->n_reasons < REPLAY_MAX_REASONS)
        r = &f->reasons[f->n_reasons++];
    if (!r->text)
        r->text = xstrdup(r == &f->reasons[REPLAY_MAX_REASONS] ? "other reasons" : text);
    r->count += n;
}

void replay_figures_merge(struct replay_figures *dst, const struct replay_figures *src)
{
    dst->sent += src->sent;
    dst->prepared += src->prepared;
    dst->pipelined += src->pipelined;
    dst->skipped_copy += src->skipped_copy;
    dst->copy_loaded += src->copy_loaded;
    dst->copy_recorded += src->copy_recorded;
    dst->values_mapped += src->values_mapped;
    dst->copy_empty += src->copy_empty;
    dst->secrets_replaced += src->secrets_replaced;
    dst->order_waits += src->order_waits;
    dst->order_wait_us += src->order_wait_us;
    dst->order_given_way += src->order_given_way;
    dst->skipped_read_only += src->skipped_read_only;
    dst->skipped_unsupported += src->skipped_unsupported;
    dst->failed_now += src->failed_now;
    dst->succeeded_now += src->succeeded_now;
    dst->sessions_failed += src->sessions_failed;
    class_table_merge(dst->classes, src->classes);
    hist_add(dst->lag, src->lag);
    hist_add(dst->client_lag, src->client_lag);
    for (size_t i = 0; i <= REPLAY_MAX_REASONS; i++)
        if (src->reasons[i].text)
            replay_figures_reason(dst, src->reasons[i].text, src->reasons[i].count);
}

void replay_figures_reset(struct replay_figures *f)
{
    struct class_table *classes = f->classes;
    struct hist *lag = f->lag, *client_lag = f->client_lag;
    for (size_t i = 0; i <= REPLAY_MAX_REASONS; i++)
        free(f->reasons[i].text);
    memset(f, 0, sizeof *f);
    class_table_reset(classes);
    hist_reset(lag);
    hist_reset(client_lag);
    f->classes = classes;
    f->lag = lag;
    f->client_lag = client_lag;
}

void replay_figures_free(struct replay_figures *f)
{
    class_table_free(f->classes);
    hist_free(f->lag);
    hist_free(f->client_lag);
    for (size_t i = 0; i <= REPLAY_MAX_REASONS; i++)
        free(f->reasons[i].text);
    memset(f, 0, sizeof *f);
}

static void *source_open(void *arg, int worker, int first_client, int n_clients)
{
    (void)worker;
    struct worker_source *ws = xcalloc(1, sizeof *ws);
    ws->s = arg;
    ws->first = first_client;
    ws->n = n_clients;
    ws->clients = xcalloc((size_t)n_clients, sizeof *ws->clients);
    replay_figures_init(&ws->fig);
    buf_init(&ws->norm);
    buf_init(&ws->secret);
    buf_init(&ws->copy);
    buf_init(&ws->unprepared);
    buf_init(&ws->mapped);
    struct err e = {0};
    ws->r = capture_reader_open(ws->s->opts.capture, &e);
    ws->eof = ws->r == NULL; /* read once already: it can only have gone since */
    ws->handed_ns = clock_now_ns();
    giveway_init(&ws->giveway, &ws->s->own);
    return ws;
}

static void enqueue(struct worker_source *ws, int client, struct qitem *q)
{
    struct wclient *wc = &ws->clients[client - ws->first];
    q->it.token = q;
    if (wc->tail)
        wc->tail->next = q;
    else
        wc->head = q;
    wc->tail = q;
    ws->queued++;
}

/* s copied to p with its NUL; returns the end of the copy. */
static char *copy_string(char *p, const char *s, size_t n)
{
    memcpy(p, s, n + 1);
    return p + n + 1;
}

static size_t param_length(const struct capture_statement *st, int i)
{
    return st->param_lengths ? (size_t)st->param_lengths[i] : strlen(st->params[i]);
}

/* The statement's parameters sent as its client sent them: binary values (their lengths and
 * formats), binary results, the type OIDs its Parse gave; nothing when all is text and
 * inferred. A user's type is left for the server to infer (its OID here is the capture's
 * server's) until map_user_types names the target's; a statement whose result is read for a
 * returned value reads it as text. */
static void copy_forms(struct qitem *q, const struct capture_statement *st)
{
    int binary_results = st->n_result_formats > 0 && !q->returned;
    for (int i = 0; i < st->n_result_formats; i++)
        binary_results &= st->result_formats[i] == 1;
    if (!st->param_formats && !binary_results && st->n_param_types == 0)
        return;
    size_t n = (size_t)st->n_params;
    struct pg_param_forms *f = xcalloc(1, sizeof *f + n * (2 * sizeof(int) + sizeof(uint32_t)) + 1);
    int *lengths = (int *)(f + 1), *formats = lengths + n;
    uint32_t *types = (uint32_t *)(formats + n);
    for (size_t i = 0; i < n; i++) {
        lengths[i] = st->param_lengths ? st->param_lengths[i] : 0;
        formats[i] = st->param_formats ? st->param_formats[i] : 0;
    }
    int n_types = st->n_param_types < st->n_params ? st->n_param_types : st->n_params;
    for (int i = 0; i < n_types; i++)
        types[i] = st->param_types[i] < CAPTURE_FIRST_USER_OID ? st->param_types[i] : 0;
    f->lengths = st->param_formats ? lengths : NULL;
    f->formats = st->param_formats ? formats : NULL;
    f->result_binary = binary_results;
    f->types = n_types > 0 ? types : NULL;
    q->forms = f;
    q->it.forms = f;
    q->it.n_prepare_types = n_types;
}

/* A statement copied into one allocation: the item, its parameters, the parts of its COPY
 * data (a statement of several COPY FROM STDIN recorded: capture.h), their text, the COPY
 * data of a COPY FROM STDIN (data_len bytes, 0 for none) and the names a DEALLOCATE drops
 * (unprepared: sqltext_unprepare's, empty for none). Each length is taken once, and only the
 * item's fields are cleared, not the texts' room. */
static struct qitem *copy_statement(const struct capture_statement *st, const char *data,
                                    size_t data_len, const struct buf *unprepared)
{
    size_t text_len = strlen(st->text), name_len = strlen(st->name);
    size_t returned_len = st->returned ? strlen(st->returned) + 1 : 0;
    int n_parts = data && st->copy_kept ? st->n_copy_parts : 0;
    size_t fail_len = data && st->copy_kept && st->copy_fail ? strlen(st->copy_fail) + 1 : 0;
    size_t len = sizeof(struct qitem) + (size_t)st->n_params * sizeof(char *) +
                 (size_t)n_parts * sizeof(size_t);
    len += text_len + 1 + name_len + 1 + data_len + unprepared->len + returned_len + fail_len;
    for (int i = 0; i < st->n_params; i++)
        len += st->params[i] ? param_length(st, i) + 1 : 0;
    struct qitem *q = xmalloc(len);
    memset(q, 0, sizeof *q);
    const char **params = (const char **)(q + 1);
    size_t *parts = (size_t *)(params + st->n_params);
    char *p = (char *)(parts + n_parts);
    q->it.kind = FEED_STATEMENT;
    q->it.offset_us = st->offset_us;
    q->it.session = st->session;
    q->it.proto = st->protocol == CAPTURE_EXTENDED_NAMED && st->name[0] ? FEED_NAMED
                  : st->protocol == CAPTURE_SIMPLE                      ? FEED_SIMPLE
                                                                        : FEED_UNNAMED;
    q->it.cancel_us = st->cancel_us;
    q->it.text = p;
    q->text = p;
    q->text_len = text_len;
    p = copy_string(p, st->text, text_len);
    q->it.name = p;
    p = copy_string(p, st->name, name_len);
    for (int i = 0; i < st->n_params; i++) {
        params[i] = st->params[i] ? p : NULL;
        if (st->params[i])
            p = copy_string(p, st->params[i], param_length(st, i));
    }
    q->it.n_params = st->n_params;
    q->it.params = params;
    if (data) {
        memcpy(p, data, data_len);
        q->it.copy_data = p;
        q->it.copy_len = data_len;
        p += data_len;
        if (n_parts)
            memcpy(parts, st->copy_parts, (size_t)n_parts * sizeof *parts);
        q->it.n_copy_parts = n_parts;
        q->it.copy_parts = n_parts ? parts : NULL;
        if (fail_len) { /* its client failed that COPY: so does the replay */
            q->it.copy_fail = p;
            q->it.copy_fail_at = st->copy_fail_at;
            p = copy_string(p, st->copy_fail, fail_len - 1);
        }
    }
    if (unprepared->len) {
        memcpy(p, unprepared->data, unprepared->len);
        q->it.unprepare_names = p;
        p += unprepared->len;
    }
    if (st->returned) {
        q->returned = p;
        q->returned_id = st->returned_id;
        q->it.want_returned = 1;
        memcpy(p, st->returned, returned_len);
    }
    q->outcome = st->outcome;
    q->same_sync = st->same_sync;
    q->duration_us = st->duration_us;
    memcpy(q->sqlstate, st->sqlstate, sizeof q->sqlstate);
    if (st->protocol != CAPTURE_SIMPLE)
        copy_forms(q, st);
    return q;
}

/* The user's types of a statement replayed on database db as the target's (usertypes.h): its
 * Parse's OIDs of the types the capture names and the target has, and the OIDs inside its
 * binary values of them; a type the target lacks stays inferred, counted among the reasons. */
static void map_user_types(struct worker_source *ws, struct qitem *q,
                           const struct capture_statement *st, int db)
{
    struct pg_param_forms *f = q->forms;
    if (!f || !f->types || st->n_type_names == 0)
        return;
    for (int i = 0; i < q->it.n_prepare_types; i++) {
        uint32_t oid = st->param_types[i];
        const struct replay_type *t =
            oid >= CAPTURE_FIRST_USER_OID ? replay_types_find(&ws->s->types, db, oid) : NULL;
        if (!t)
            continue;
        if (!t->target) {
            char why[320];
            snprintf(why, sizeof why,
                     "a parameter's type not on the target at the start, inferred: %.120s.%.120s",
                     t->schema, t->name);
            replay_figures_reason(&ws->fig, why, 1);
            continue;
        }
        ((uint32_t *)f->types)[i] = t->target;
        if (f->formats && f->formats[i] && q->it.params[i])
            replay_types_rewrite(&ws->s->types, db, oid, (uint8_t *)q->it.params[i],
                                 (size_t)f->lengths[i]);
    }
}

/* The file at path appended to b: 0, or -1 when it cannot be read (the COPY is skipped). A
 * local file, read on the worker: the connections wait on the server, not on this. */
static int read_copy_file(struct buf *b, const char *path)
{
    FILE *f = os_fopen(path, "rb");
    if (!f)
        return -1;
    char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        buf_append(b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    return bad ? -1 : 0;
}

/* A statement a Sync group may hold: sent with the extended protocol, not a COPY (libpq's
 * pipeline mode takes no COPY: a COPY ends a group where it stands, as a Sync would). */
static int may_share_sync(const struct qitem *q)
{
    return q->it.kind == FEED_STATEMENT && q->it.proto != FEED_SIMPLE && !q->it.copy_data &&
           !sqltext_is_copy_from_stdin(q->text) && !sqltext_is_copy_to_stdout(q->text);
}

/* Read one event; what belongs to this worker's clients is queued. */
static void read_one(struct worker_source *ws)
{
    struct capture_event ev;
    struct err e = {0};
    if (capture_reader_next(ws->r, &ev, &e) != 1) {
        ws->eof = 1;
        return;
    }
    const struct replay_state *s = ws->s;
    uint64_t seq = ev.kind == CAPTURE_EV_STATEMENT ? ws->n_statements++ : 0;
    uint32_t id = ev.kind == CAPTURE_EV_STATEMENT ? ev.statement.session : ev.session.id;
    if (id >= s->n_sessions)
        return;
    const struct replay_session *ss = &s->sessions[id];
    if (ss->client < ws->first || ss->client >= ws->first + ws->n)
        return;
    if (ev.kind == CAPTURE_EV_STATEMENT) {
        struct buf *data = NULL;
        if (ev.statement.copy_kept) { /* the rows the proxy recorded: sent as they were (in a
                                       * statement of several, each COPY FROM STDIN's part to
                                       * it, or, without parts, all to its first) */
            buf_reset(&ws->copy);
            buf_append(&ws->copy, (const char *)ev.statement.copy_data, ev.statement.copy_len);
            data = &ws->copy;
            ws->fig.copy_recorded++;
        } else if (sqltext_is_copy_from_stdin(ev.statement.text)) {
            const char *path = replay_copy_load(s, seq); /* --copy-from's file, if any */
            buf_reset(&ws->copy);
            if (!path || read_copy_file(&ws->copy, path) < 0) {
                ws->fig.skipped_copy++;
                if (path && s->ordered) { /* the order counted on it: it is done with */
                    pthread_mutex_lock(&ws->s->order_mu);
                    replay_order_finished(&ws->s->order, seq);
                    replay_order_finished(&ws->s->connects, seq);
                    replay_draws_finished(&ws->s->draws, seq);
                    pthread_mutex_unlock(&ws->s->order_mu);
                }
                return;
            }
            data = &ws->copy;
            ws->fig.copy_loaded++;
        }
        struct capture_statement st = ev.statement;
        if (sqltext_secret_replace(st.text, s->password, &ws->secret) > 0) {
            st.text = ws->secret.data; /* the replay's password for the one cut out */
            ws->fig.secrets_replaced++;
        }
        buf_reset(&ws->unprepared);
        enum sqltext_unprepare u = sqltext_unprepare(st.text, &ws->unprepared);
        struct qitem *q =
            copy_statement(&st, data ? data->data : NULL, data ? data->len : 0, &ws->unprepared);
        map_user_types(ws, q, &st, s->conn_db[ss->conn]);
        q->it.unprepare = u == SQLTEXT_UNPREPARE_ALL     ? FEED_UNPREPARE_ALL
                          : u == SQLTEXT_UNPREPARE_NAMES ? FEED_UNPREPARE_NAMES
                                                         : FEED_UNPREPARE_NONE;
        q->seq = seq;
        q->shares_sync = (s->header.same_sync || s->header.pipelined) && may_share_sync(q);
        enqueue(ws, ss->client, q);
        return;
    }
    struct qitem *q = xcalloc(1, sizeof *q);
    q->it.session = id;
    q->it.offset_us = ev.session.offset_us;
    q->it.cancel_us = -1;
    if (ev.kind == CAPTURE_EV_SESSION_START) {
        q->seq = ws->n_statements; /* the capture's next statement, for the order */
        q->it.kind = FEED_CONNECT;
        q->it.conn = &s->conns[ss->conn];
        q->it.ordinal = id;
    } else {
        q->it.kind = FEED_DISCONNECT;
    }
    enqueue(ws, ss->client, q);
}

static void end_wait(struct worker_source *ws, struct qitem *q, time_ns now)
{
    if (!q->held)
        return;
    q->held = 0;
    ws->fig.order_waits++;
    ws->fig.order_wait_us += (now - q->held_since) / NS_PER_US;
}

/* --order capture: a session connects once the statement that followed its start in the
 * capture (on any session) may start: what had finished before the login has finished, a role
 * made for it among them (a bound: also what finished between the login and that
 * statement). The waits are counted with the statements'. */
static int connect_ready(struct worker_source *ws, struct qitem *q)
{
    time_ns now = clock_now_ns();
    if (replay_order_ready(&ws->s->connects, q->seq)) {
        end_wait(ws, q, now);
        return 1;
    }
    if (!q->held)
        q->held = 1, q->held_since = now;
    return 0;
}

static void qitem_free(struct qitem *q)
{
    if (q) {
        free(q->mapped);
        free(q->forms);
        free(q->binary_mapped);
    }
    free(q);
}

/* What the client's next statement tells the engine of the one after it (feed.h): whether its
 * Sync group goes on (sync_open), whether its client sent that one before its results came
 * (next_pipelined). The client's item after it is read first, as far as the look-ahead goes
 * (beyond, the statements get a Sync each and wait for the one before, as before groups and
 * pipelines were replayed). 0, or -1 when this call's share of reading is used up (ask
 * again). */
static int mark_what_follows(struct worker_source *ws, struct wclient *wc, int *n_read)
{
    struct qitem *q = wc->head;
    if (!q->shares_sync)
        return 0;
    while (!q->next && !ws->eof && ws->queued < REPLAY_LOOKAHEAD) {
        if ((*n_read)++ == READ_PER_CALL)
            return -1;
        read_one(ws);
    }
    const struct qitem *n = q->next;
    if (!n || n->it.session != q->it.session || !n->shares_sync)
        return 0;
    q->it.sync_open = n->same_sync;
    q->it.next_pipelined =
        q->duration_us >= 0 && n->it.offset_us < q->it.offset_us + q->duration_us;
    return 0;
}

static int source_next(void *arg, int client, struct engine_feed_item *it)
{
    struct worker_source *ws = arg;
    struct wclient *wc = &ws->clients[client - ws->first];
    qitem_free(wc->cur);
    wc->cur = NULL;
    int n_read = 0;
    for (; !wc->head; n_read++) {
        if (ws->eof) {
            if (!wc->finished)
                wc->finished = 1, ws->n_finished++;
            if (wc->blocked)
                wc->blocked = 0, ws->n_blocked--;
            return -1;
        }
        int others_wait = ws->n_blocked - wc->blocked + ws->n_finished >= ws->n - 1;
        if (ws->queued >= REPLAY_LOOKAHEAD && !others_wait) {
            time_ns now = clock_now_ns();
            if (!wc->blocked)
                wc->blocked = 1, ws->n_blocked++, wc->blocked_since = now;
            if (now - wc->blocked_since < STUCK_READ_ANYWAY_NS)
                return 0;
        }
        if (n_read == READ_PER_CALL)
            return 2;
        read_one(ws);
    }
    if (wc->blocked)
        wc->blocked = 0, ws->n_blocked--;
    if (wc->head->it.kind == FEED_CONNECT && ws->s->ordered && !connect_ready(ws, wc->head))
        return 0;
    if (mark_what_follows(ws, wc, &n_read) < 0)
        return 2;
    struct qitem *q = wc->head;
    wc->head = q->next;
    if (!wc->head)
        wc->tail = NULL;
    ws->queued--;
    q->next = NULL;
    if (q->it.kind == FEED_STATEMENT) {
        if (wc->given_tail)
            wc->given_tail->next = q;
        else
            wc->given = q;
        wc->given_tail = q;
    } else
        wc->cur = q;
    *it = q->it;
    if (it->kind == FEED_CONNECT)
        wc->advisory = wc->generated_failed = 0;
    return 1;
}

/* --read-only: the server refused a write (25006), or a statement of the block it aborted
 * (25P02), or a statement of the Sync group it failed: skipped, not a divergence. */
static int refused_read_only(struct worker_source *ws, struct wclient *wc,
                             const struct engine_feed_outcome *o)
{
    if (!ws->s->opts.read_only || o->ok)
        return 0;
    if (strcmp(o->sqlstate, "25006") == 0) {
        wc->ro_refused = 1;
        return 1;
    }
    return wc->ro_refused && (strcmp(o->sqlstate, "25P02") == 0 || o->not_run);
}

/* The worker's figures into the run's, when a second has passed since the last time (a
 * snapshot holding the lock: next time) or at the end. */
static void hand_over(struct worker_source *ws, int at_end)
{
    time_ns now = clock_now_ns();
    if (!at_end && now - ws->handed_ns < HAND_OVER_NS)
        return;
    if (at_end)
        pthread_mutex_lock(&ws->s->mu);
    else if (pthread_mutex_trylock(&ws->s->mu) != 0)
        return;
    replay_figures_merge(&ws->s->merged, &ws->fig);
    pthread_mutex_unlock(&ws->s->mu);
    replay_figures_reset(&ws->fig);
    ws->handed_ns = now;
}

/* A statement's outcome into the worker's figures. */
static int record_done(void *arg, int client, const struct engine_feed_item *it,
                       const struct engine_feed_outcome *o)
{
    struct worker_source *ws = arg;
    struct wclient *wc = &ws->clients[client - ws->first];
    const struct qitem *q = it->token;
    if (!o->sent)
        return 0;
    if (refused_read_only(ws, wc, o)) {
        ws->fig.skipped_read_only++;
        return 0;
    }
    if (ws->s->opts.read_only && o->ok && replay_tx_boundary(it->text) < 0)
        wc->ro_refused = 0; /* (read only by refused_read_only, under --read-only) */
    ws->fig.sent++;
    ws->fig.prepared += (uint64_t)o->prepared;
    ws->fig.pipelined += (uint64_t)o->sent_ahead;
    if (o->ok && strcasestr(it->text, "advisory_lock"))
        wc->advisory = 1; /* (pg_advisory_lock, _shared, pg_try_...: held past the block) */
    ws->fig.copy_empty += (uint64_t)o->copy_empty;
    if (o->measured) { /* as the summary: nothing of --warmup */
        normalize_statement(q->text, q->text_len, &ws->norm);
        class_table_record(ws->fig.classes, ws->norm.data, ws->norm.len, o->ok, o->latency_us);
        hist_record(ws->fig.lag, o->lag_us > 0 ? o->lag_us : 0);
        hist_record(ws->fig.client_lag, o->client_lag_us > 0 ? o->client_lag_us : 0);
    }
    int cascade =
        !o->ok && wc->generated_failed && (strcmp(o->sqlstate, "25P02") == 0 || o->not_run);
    if (!o->ok && q->outcome == CAPTURE_OUTCOME_OK) {
        ws->fig.failed_now++;
        char why[200];
        const char *generated = replay_generated_value(o->message);
        if (!generated)
            generated = replay_generated_key(o->sqlstate, o->message, ws->s->generated_keys.data,
                                             ws->s->generated_keys.len);
        if (generated) { /* (no mapping can help: the report says so) */
            snprintf(why, sizeof why,
                     "failed now on a value the capture's server generated (%s): %.120s", generated,
                     o->message);
            wc->generated_failed = 1;
        } else if (cascade) {
            snprintf(why, sizeof why,
                     "%s was aborted by a failure on a value the capture's server generated",
                     o->not_run ? "not run: its Sync group"
                                : "failed now with 25P02: its transaction block");
        } else
            snprintf(why, sizeof why, "failed now%s%s: %.120s", o->sqlstate[0] ? " with " : "",
                     o->sqlstate, o->message);
        replay_figures_reason(&ws->fig, why, 1);
    } else if (o->ok && q->outcome == CAPTURE_OUTCOME_ERROR) {
        ws->fig.succeeded_now++;
        char why[160];
        snprintf(why, sizeof why, "succeeded now, failed in the capture%s%s",
                 q->sqlstate[0] ? " with " : "", q->sqlstate);
        replay_figures_reason(&ws->fig, why, 1);
    }
    if (o->ok)
        wc->generated_failed = 0;
    return 1;
}

/* A statement held by the order: whether the order and a lock wait of its session's making
 * form a cycle (GIVE_WAY_CHECK_NS above), from a snapshot of the server's lock waits taken
 * after its check time (giveway.h). */
static int cycle_with_lock(struct worker_source *ws, struct qitem *q, struct engine_feed_due *d)
{
    if (d->now_ns < q->check_at)
        return 0;
    int rc = giveway_blocks(&ws->giveway, d->backend_pid, q->check_at, d->now_ns);
    if (rc == 0) { /* not now: the next look at doubling intervals */
        q->check_at = d->now_ns + q->check_step;
        if (q->check_step < GIVE_WAY_CHECK_MAX_NS)
            q->check_step *= 2;
    }
    return rc > 0;
}

static int source_ready(void *arg, int client, const struct engine_feed_item *it,
                        struct engine_feed_due *d)
{
    struct worker_source *ws = arg;
    struct qitem *q = it->token;
    int order_ready = replay_order_ready(&ws->s->order, q->seq);
    if (order_ready && replay_draws_ready(&ws->s->draws, q->seq)) {
        end_wait(ws, q, d->now_ns);
        return 1;
    }
    int may_hold_locks = d->in_tx || ws->clients[client - ws->first].advisory;
    if (!q->held) {
        q->held = 1;
        q->held_since = d->now_ns;
        q->check_at = d->now_ns + GIVE_WAY_CHECK_NS;
        q->check_step = GIVE_WAY_CHECK_NS;
    } else if (may_hold_locks && cycle_with_lock(ws, q, d)) {
        ws->fig.order_given_way++;
        end_wait(ws, q, d->now_ns);
        return 1;
    }
    if (may_hold_locks) { /* asked again by its next look (above) */
        time_ns next = q->check_at;
        d->ask_again_ns =
            next - d->now_ns > GIVE_WAY_ASK_MIN_NS ? next - d->now_ns : GIVE_WAY_ASK_MIN_NS;
    }
    return 0;
}

static int source_done(void *arg, int client, const struct engine_feed_item *it,
                       const struct engine_feed_outcome *o)
{
    struct worker_source *ws = arg;
    if (ws->s->ordered) {
        const struct qitem *q = it->token;
        pthread_mutex_lock(&ws->s->order_mu);
        replay_order_finished(&ws->s->order, q->seq);
        replay_order_finished(&ws->s->connects, q->seq);
        replay_draws_finished(&ws->s->draws, q->seq);
        pthread_mutex_unlock(&ws->s->order_mu);
    }
    const struct qitem *q = it->token;
    if (q->returned && o->returned) { /* learnt before the statements it lets go on are sent */
        int xid = q->returned_id && (strcasestr(q->text, "txid_current") ||
                                     strcasestr(q->text, "pg_current_xact_id"));
        replay_returned_learn_rows(&ws->s->returned, q->returned, o->returned, q->returned_id,
                                   xid ? (int64_t)q->it.session : -1);
    }
    int counted = record_done(arg, client, it, o);
    hand_over(arg, 0);
    /* (Done comes in the order next gave them: the first, but a list of a few is walked.) */
    struct wclient *wc = &ws->clients[client - ws->first];
    struct qitem *prev = NULL, *g = wc->given;
    while (g && g != it->token)
        prev = g, g = g->next;
    if (g) {
        *(prev ? &prev->next : &wc->given) = g->next;
        if (wc->given_tail == g)
            wc->given_tail = prev;
        qitem_free(g);
    }
    return counted;
}

/* The replay's values for the capture's, in the statement about to be sent. */
/* A binary parameter its Parse typed int2, int4 or int8 (as drivers that send integers in
 * binary name them), mapped as its value in text: the replay's value in the same width, in
 * q's room for it; 0 when not mapped (another type, not a captured value, out of range). */
static int map_binary_integer(struct worker_source *ws, struct qitem *q, const char **params, int i)
{
    const struct pg_param_forms *f = q->forms;
    if (!params[i] || !f->types || !f->lengths)
        return 0;
    int width = f->types[i] == 20 ? 8 : f->types[i] == 23 ? 4 : f->types[i] == 21 ? 2 : 0;
    if (!width || f->lengths[i] != width)
        return 0;
    uint64_t u = pgwire_be((const uint8_t *)params[i], width);
    int64_t v = width == 8 ? (int64_t)u : width == 4 ? (int32_t)(uint32_t)u : (int16_t)(uint16_t)u;
    char text[24];
    snprintf(text, sizeof text, "%lld", (long long)v);
    const char *now = replay_returned_map_value(&ws->s->returned, text, q->it.session);
    if (!now)
        return 0;
    char *end;
    errno = 0;
    long long x = strtoll(now, &end, 10);
    int64_t lo = width == 8 ? INT64_MIN : width == 4 ? INT32_MIN : INT16_MIN;
    int64_t hi = width == 8 ? INT64_MAX : width == 4 ? INT32_MAX : INT16_MAX;
    if (*end || end == now || errno || x < lo || x > hi)
        return 0;
    if (!q->binary_mapped)
        q->binary_mapped = xcalloc((size_t)q->it.n_params, 8);
    char *out = q->binary_mapped + 8 * (size_t)i;
    for (int k = width - 1; k >= 0; k--, x = (long long)((unsigned long long)x >> 8))
        out[k] = (char)(x & 0xff);
    params[i] = out;
    return 1;
}

static void source_before_send(void *arg, int client, struct engine_feed_item *it)
{
    struct worker_source *ws = arg;
    struct qitem *q = it->token;
    (void)client;
    if (atomic_load(&ws->s->returned.count) == 0)
        return;
    int mapped = 0;
    if (replay_returned_map_text(&ws->s->returned, it->text, it->session, &ws->mapped) > 0) {
        free(q->mapped);
        q->mapped = xstrdup(ws->mapped.data);
        it->text = q->mapped;
        mapped = 1;
    }
    const char **params = (const char **)it->params;
    for (int i = 0; i < it->n_params; i++) {
        if (it->forms && it->forms->formats && it->forms->formats[i]) {
            mapped |= map_binary_integer(ws, q, params, i);
            continue;
        }
        const char *now = replay_returned_map_value(&ws->s->returned, params[i], it->session);
        if (now)
            params[i] = now, mapped = 1;
    }
    ws->fig.values_mapped += mapped;
}

static void source_session_failed(void *arg, int client, uint32_t session, const char *why)
{
    struct worker_source *ws = arg;
    (void)client;
    (void)session;
    ws->fig.sessions_failed++;
    /* Why, among the reasons of divergence: the result and show name it. */
    char reason[400];
    snprintf(reason, sizeof reason, "session failed: %s", why && *why ? why : "no message");
    replay_figures_reason(&ws->fig, reason, 1);
}

static void source_close(void *arg)
{
    struct worker_source *ws = arg;
    hand_over(ws, 1);
    for (int i = 0; i < ws->n; i++) {
        struct wclient *wc = &ws->clients[i];
        qitem_free(wc->cur);
        while (wc->given) { /* taken, not done: the run stopped */
            struct qitem *q = wc->given;
            wc->given = q->next;
            qitem_free(q);
        }
        while (wc->head) {
            struct qitem *q = wc->head;
            wc->head = q->next;
            qitem_free(q);
        }
    }
    free(ws->clients);
    capture_reader_close(ws->r);
    giveway_free(&ws->giveway);
    replay_figures_free(&ws->fig);
    buf_free(&ws->norm);
    buf_free(&ws->secret);
    buf_free(&ws->copy);
    buf_free(&ws->unprepared);
    buf_free(&ws->mapped);
    free(ws);
}

void replay_source_init(struct replay_state *s)
{
    s->feed = (struct engine_feed){
        .speed = s->opts.speed,
        .arg = s,
        .open = source_open,
        .next = source_next,
        .ready = s->ordered ? source_ready : NULL,
        .done = source_done,
        .session_failed = source_session_failed,
        .close = source_close,
        .before_send = source_before_send,
    };
}
