#include "engine/client_int.h"
#include "engine/client_feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"

/* The feed client's driver (engine/feed.h): the sessions of its stream, each connected when it
 * starts, its statements sent at their offsets, one after the other. Its states and their
 * arrows: client_feed.h. */

static inline struct client_feed *feed_of(const struct client *c)
{
    return (struct client_feed *)c->kind;
}

/* How soon to look again whether the sessions before ours have started (speed max). */
#define FEED_RETRY_NS (200 * NS_PER_US)
/* How soon to ask a feed again that had nothing yet, unless another client's statement ends
 * first (which wakes it). */
#define FEED_EMPTY_NS (5 * NS_PER_MS)

static void forget_prepared(struct client_feed *f)
{
    for (int i = 0; i < f->n_prepared; i++)
        free(f->prepared[i].name);
    f->n_prepared = 0;
}

/* The session's statement prepared under name, or NULL. */
static struct feed_prepared *find_prepared(struct client_feed *f, const char *name)
{
    for (int i = f->n_prepared - 1; i >= 0; i--)
        if (strcmp(f->prepared[i].name, name) == 0)
            return &f->prepared[i];
    return NULL;
}

static void add_prepared(struct client_feed *f, const char *name, const char *text)
{
    if (f->n_prepared == f->cap_prepared) {
        f->cap_prepared = f->cap_prepared ? 2 * f->cap_prepared : 8;
        f->prepared = xrealloc(f->prepared, (size_t)f->cap_prepared * sizeof *f->prepared);
    }
    f->prepared[f->n_prepared++] = (struct feed_prepared){xstrdup(name), hash_str(text)};
}

static void drop_prepared(struct client_feed *f, const char *name)
{
    struct feed_prepared *p = find_prepared(f, name);
    if (!p)
        return;
    free(p->name);
    *p = f->prepared[--f->n_prepared];
}

/* A statement that succeeded: the named statements it deallocated are forgotten. */
static void follow_unprepare(struct client_feed *f, const struct engine_feed_item *it)
{
    if (it->unprepare == FEED_UNPREPARE_ALL)
        forget_prepared(f);
    else if (it->unprepare == FEED_UNPREPARE_NAMES)
        for (const char *n = it->unprepare_names; *n; n += strlen(n) + 1)
            drop_prepared(f, n);
}

/* The helpers below return the next state, as the steps do (client_int.h). */
static int wait_until(struct client *c, time_ns when)
{
    client_set_timer(c, when);
    return rest(FS_WAIT);
}

/* How soon a client the feed's ready held back asks again when the run has several workers
 * and its worker has no feed_wake (what it waits for may end on another). */
#define FEED_HELD_NS (200 * NS_PER_US)

/* The feed had nothing for c yet: wait to be woken by another client's statement end, or
 * retry_ns. */
static int wait_for_feed(struct client *c, time_ns now, time_ns retry_ns)
{
    struct worker *w = c->w;
    int next = wait_until(c, now + retry_ns);
    if (feed_of(c)->waiting)
        return next;
    if (w->n_feed_waiting == w->cap_feed_waiting) {
        w->cap_feed_waiting = w->cap_feed_waiting ? 2 * w->cap_feed_waiting : 8;
        w->feed_waiting =
            xrealloc(w->feed_waiting, (size_t)w->cap_feed_waiting * sizeof *w->feed_waiting);
    }
    w->feed_waiting[w->n_feed_waiting++] = c;
    feed_of(c)->waiting = 1;
    return next;
}

/* A statement ended: the clients waiting for the feed ask again now. */
static void wake_feed_waiting(struct worker *w, time_ns now)
{
    for (int i = 0; i < w->n_feed_waiting; i++) {
        struct client *c = w->feed_waiting[i];
        feed_of(c)->waiting = 0;
        if (c->state == FS_WAIT)
            client_set_timer(c, now);
    }
    w->n_feed_waiting = 0;
}

void client_feed_woken(struct worker *w, time_ns now)
{
    evwake_clear(&w->feed_wake);
    if (w->n_feed_waiting > 0)
        wake_feed_waiting(w, now);
}

/* A statement ended (its outcome with the source): the other workers' held clients may start
 * now. The fence pairs with the one between a client's hold and its asking (the source's
 * state and n_feed_held: either the holder sees the end, or the ender sees the hold). */
static void wake_other_workers(struct worker *w)
{
    struct engine_state *run = w->run;
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < run->n_workers; i++) {
        struct worker *o = &run->workers[i];
        if (o != w && atomic_load_explicit(&o->n_feed_held, memory_order_relaxed) > 0)
            evwake_raise(&o->feed_wake);
    }
}

/* The connection's message into line: 0 when it has none (pg.h's "unknown error", which
 * names nothing: a connect that timed out, a connection that is fine). */
static int conn_message(const struct client *c, char *line, size_t size)
{
    pg_conn_error(c->conn, line, size);
    return strcmp(line, "unknown error") != 0;
}

static int feed_connect_failed(struct client *c, const char *what, time_ns now)
{
    struct client_feed *f = feed_of(c);
    char line[200], why[300];
    if (conn_message(c, line, sizeof line))
        snprintf(why, sizeof why, "%s: %s", what, line);
    else
        snprintf(why, sizeof why, "%s", what);
    client_note_error(c, why);
    client_close(c);
    f->session_failed = 1;
    c->w->run->cfg->feed->session_failed(c->w->feed_ws, c->id, f->item.session, why);
    return wait_until(c, now); /* on with the stream at the next timer pass */
}

static int take_ahead(struct client *c);

/* The statement is over (or was never sent): its outcome to the source, and to the run's
 * figures when the source counts it. Then the next one taken ahead, if any, is the statement. */
static int statement_done(struct client *c, time_ns now, int sent, int ok, enum pg_failure why)
{
    struct client_feed *f = feed_of(c);
    const struct engine_feed *feed = c->w->run->cfg->feed;
    struct engine_feed_outcome o = {
        .sent = sent,
        .ok = ok,
        .why = why,
        .sqlstate = f->sqlstate,
        .message = f->message,
        .latency_us = sent ? (now - c->tx_start) / NS_PER_US : 0,
        .lag_us = sent ? (c->cmd_start - c->tx_start) / NS_PER_US : 0,
        .client_lag_us = sent ? f->client_lag / NS_PER_US : 0,
        .measured = now >= c->w->run->start_ns,
        .copy_empty = f->copy_empty,
        .prepared = f->prepared_now,
        .not_run = f->not_run,
        .sent_ahead = f->sent_ahead,
        .returned = f->item.want_returned && f->returned.len ? f->returned.data : NULL,
    };
    if (feed->done(c->w->feed_ws, c->id, &f->item, &o) && sent &&
        worker_record(c, c->tx_start, now, !ok, why)) {
        if (ok)
            c->n_tx++;
        else
            c->n_failed++;
    }
    c->n_done++;
    if (feed->ready && c->w->run->n_workers > 1)
        wake_other_workers(c->w);
    timers_cancel(&c->w->timers, &c->timer_slot);
    c->tx_deadline = 0;
    f->have_item = 0;
    f->ready_at = now;
    if (f->held) /* (a statement held back, then not sent: its session failed) */
        f->held = 0, atomic_fetch_sub(&c->w->n_feed_held, 1);
    if (c->w->n_feed_waiting > 0)
        wake_feed_waiting(c->w, now);
    if (f->n_ahead > 0)
        return take_ahead(c);
    f->ahead_at = 0;
    return FS_NEXT;
}

/* The session is lost (next: statement_done's answer for the statement that saw it): the
 * statements sent ahead of their results go with it; the connection is closed. */
static int lose_session(struct client *c, time_ns now, int next, const char *why)
{
    struct client_feed *f = feed_of(c);
    while (next == FS_RESULT) {
        snprintf(f->message, sizeof f->message, "%s", why);
        next = statement_done(c, now, 1, 0, PGF_CONNECTION);
    }
    client_close(c);
    f->session_failed = 1;
    f->pipeline = f->group_open = f->await_sync = 0;
    c->w->run->cfg->feed->session_failed(c->w->feed_ws, c->id, f->item.session, why);
    return next;
}

/* The session's connection broke under a statement. */
static int session_broken(struct client *c, time_ns now)
{
    struct client_feed *f = feed_of(c);
    char line[200];
    /* What broke it when the drain said (a COPY FROM STDIN it cannot feed), else the
     * connection's own message: never libpq's empty one on a connection that is fine. */
    if (f->message[0])
        snprintf(line, sizeof line, "%s", f->message);
    else if (!conn_message(c, line, sizeof line))
        snprintf(line, sizeof line, "the connection broke without a message");
    client_note_error(c, line);
    if (!f->message[0])
        snprintf(f->message, sizeof f->message, "%s", line);
    return lose_session(c, now, statement_done(c, now, 1, 0, PGF_CONNECTION), line);
}

/* In pipeline mode, what follows a statement: a Flush when its Sync group goes on (its
 * results now), else its Sync (*await_sync: the Sync's result follows the statement's). 0/-1. */
static int pipeline_tail(struct client *c, const struct engine_feed_item *it, int *await_sync)
{
    struct client_feed *f = feed_of(c);
    if (!f->pipeline)
        return 0;
    f->group_open = it->sync_open;
    if (it->sync_open)
        return pg_pipeline_flush_request(c->conn);
    *await_sync = 1;
    return pg_pipeline_sync(c->conn);
}

/* A Parse or a DEALLOCATE in pipeline mode: a Flush after it (its result now). 0/-1. */
static int pipeline_flush(struct client *c)
{
    return feed_of(c)->pipeline ? pg_pipeline_flush_request(c->conn) : 0;
}

static int send_statement(struct client *c, const struct engine_feed_item *it, int *await_sync)
{
    int sent;
    switch (it->proto) {
    case FEED_SIMPLE:
        sent = pg_send_simple(c->conn, it->text);
        break;
    case FEED_UNNAMED:
        sent = pg_send_params(c->conn, it->text, it->n_params, it->params, it->forms);
        break;
    default:
        sent = pg_send_prepared(c->conn, it->name, it->n_params, it->params, it->forms);
        break;
    }
    return sent < 0 || pipeline_tail(c, it, await_sync) < 0 || client_flush(c) < 0 ? -1 : 0;
}

/* The statement's timer: the earliest of its cancel time, its --timeout and the next look at
 * the statements taken ahead (ahead_at). */
static void arm_statement_timer(struct client *c)
{
    struct client_feed *f = feed_of(c);
    time_ns t = f->cancel_at && !f->cancel_sent ? f->cancel_at : 0;
    if (c->tx_deadline && (!t || c->tx_deadline < t))
        t = c->tx_deadline;
    if (f->ahead_at && (!t || f->ahead_at < t))
        t = f->ahead_at;
    if (t)
        client_set_timer(c, t);
    else
        timers_cancel(&c->w->timers, &c->timer_slot);
}

static int send_prepare(struct client *c)
{
    const struct engine_feed_item *it = &feed_of(c)->item;
    const uint32_t *types = it->forms && it->n_prepare_types ? it->forms->types : NULL;
    return pg_send_prepare(c->conn, it->name, it->text, types ? it->n_prepare_types : 0, types) <
                       0 ||
                   pipeline_flush(c) < 0 || client_flush(c) < 0
               ? -1
               : 0;
}

/* The statement's figures and state from its sending (sent at now, intended at due). */
static void begin_statement(struct client *c, time_ns due, time_ns now)
{
    struct client_feed *f = feed_of(c);
    const struct engine_feed_item *it = &f->item;
    const struct engine_config *cfg = c->w->run->cfg;
    c->tx_start = due; /* latency counts from the intended start */
    c->cmd_start = now;
    c->cancelled = 0;
    f->cancel_sent = 0;
    f->sqlstate[0] = f->message[0] = '\0';
    f->copy_out = f->copy_in = f->copy_given = f->copy_empty = 0;
    buf_reset(&f->returned);
    c->failure = PGF_NONE;
    c->tx_deadline = cfg->timeout_us > 0 ? now + cfg->timeout_us * NS_PER_US : 0;
    f->cancel_at = it->cancel_us >= 0 ? now + it->cancel_us * NS_PER_US : 0;
    f->prepared_now = f->closing = f->not_run = f->sent_ahead = 0;
}

/* Pipeline mode: the statements taken ahead (feed.h's next_pipelined), of which at most this
 * many, and how soon to look again at one the feed or its order held back. */
#define FEED_AHEAD_MAX      64
#define FEED_AHEAD_RETRY_NS (1 * NS_PER_MS)

/* Whether a statement may be sent before the one before it has its results: no Parse before
 * it (a named one is prepared with its text), no COPY, the extended protocol. */
static int may_go_ahead(struct client_feed *f, const struct engine_feed_item *it)
{
    if (it->kind != FEED_STATEMENT || it->proto == FEED_SIMPLE || it->copy_data)
        return 0;
    if (it->proto == FEED_UNNAMED)
        return 1;
    const struct feed_prepared *p = find_prepared(f, it->name);
    return p && p->text_hash == hash_str(it->text);
}

/* While the statement's results are awaited: the statements its client sent before they came,
 * taken from the feed and each sent once it is due and the source's order lets it go (else
 * ahead_at says when to look again). 0, or -1 when the connection broke. */
static int send_ahead(struct client *c, time_ns now)
{
    struct client_feed *f = feed_of(c);
    struct engine_state *run = c->w->run;
    const struct engine_feed *feed = run->cfg->feed;
    f->ahead_at = 0;
    while (f->pipeline) {
        struct feed_ahead *a = f->n_ahead ? &f->ahead[f->n_ahead - 1] : NULL;
        if (!a || a->sent) {
            if (!(a ? a->item : f->item).next_pipelined || f->n_ahead == FEED_AHEAD_MAX)
                return 0;
            if (f->n_ahead == f->cap_ahead) {
                f->cap_ahead = f->cap_ahead ? 2 * f->cap_ahead : 4;
                f->ahead = xrealloc(f->ahead, (size_t)f->cap_ahead * sizeof *f->ahead);
            }
            struct engine_feed_item *last = f->n_ahead ? &f->ahead[f->n_ahead - 1].item : &f->item;
            a = &f->ahead[f->n_ahead];
            int r = feed->next(c->w->feed_ws, c->id, &a->item);
            if (r != 1) {
                if (r < 0) /* (none after all: FS_NEXT hears it again) */
                    last->next_pipelined = 0;
                else
                    f->ahead_at = now + FEED_AHEAD_RETRY_NS;
                return 0;
            }
            last->next_pipelined = 0; /* taken */
            f->n_ahead++;
            a->sent = a->await_sync = 0;
            a->due =
                feed->speed > 0
                    ? run->go_ns + (time_ns)((double)a->item.offset_us * NS_PER_US / feed->speed)
                    : 0;
        }
        if (!may_go_ahead(f, &a->item)) /* it waits for its turn (FS_NEXT) */
            return 0;
        if (a->due > now) {
            f->ahead_at = a->due;
            return 0;
        }
        if (feed->ready) {
            /* (The statement before it runs: the session may hold locks.) */
            struct engine_feed_due d = {now, 1, pg_backend_pid(c->conn), 0};
            if (!feed->ready(c->w->feed_ws, c->id, &a->item, &d)) {
                f->ahead_at = now + (d.ask_again_ns > 0 ? d.ask_again_ns : FEED_AHEAD_RETRY_NS);
                return 0;
            }
        }
        if (feed->before_send)
            feed->before_send(c->w->feed_ws, c->id, &a->item);
        if (send_statement(c, &a->item, &a->await_sync) < 0)
            return -1;
        a->cmd_start = now;
        if (!a->due)
            a->due = now;
        a->sent = 1;
    }
    return 0;
}

/* The first statement taken ahead is now the statement: its results are next (FS_RESULT), or
 * it was not sent yet (FS_NEXT). */
static int take_ahead(struct client *c)
{
    struct client_feed *f = feed_of(c);
    struct feed_ahead a = f->ahead[0];
    memmove(f->ahead, f->ahead + 1, (size_t)--f->n_ahead * sizeof *f->ahead);
    f->item = a.item;
    f->have_item = 1;
    f->due = a.due;
    if (!a.sent) {
        f->ahead_at = 0;
        return FS_NEXT;
    }
    begin_statement(c, a.due, a.cmd_start);
    f->sent_ahead = 1;
    f->client_lag = a.cmd_start - a.due;
    f->await_sync = a.await_sync;
    arm_statement_timer(c);
    return FS_RESULT;
}

static int start_statement(struct client *c, time_ns due, time_ns now)
{
    struct client_feed *f = feed_of(c);
    const struct engine_feed_item *it = &f->item;
    if (f->session_failed || !c->conn)
        return statement_done(c, now, 0, 0, PGF_CONNECTION);
    begin_statement(c, due, now);
    f->client_lag = now - (f->ready_at > f->due ? f->ready_at : f->due); /* max: due 0 */
    if (f->client_lag < 0)
        f->client_lag = 0;
    if (!f->pipeline && (it->sync_open || it->next_pipelined)) { /* a group, a pipeline */
        if (pg_pipeline_enter(c->conn) < 0) {
            snprintf(f->message, sizeof f->message, "could not enter pipeline mode");
            return session_broken(c, now);
        }
        f->pipeline = 1;
    }
    const struct feed_prepared *p = it->proto == FEED_NAMED ? find_prepared(f, it->name) : NULL;
    int r, next = FS_PREPARE;
    if (it->proto == FEED_NAMED && !p) {
        r = send_prepare(c);
    } else if (p && p->text_hash != hash_str(it->text)) {
        /* The application closed the name (a protocol Close, which no log shows) and
         * prepared another text under it: so does the replay. */
        f->closing = 1;
        char *quoted = pg_quote_ident(it->name), *sql = xasprintf("DEALLOCATE %s", quoted);
        r = (f->pipeline ? pg_send_params(c->conn, sql, 0, NULL, NULL)
                         : pg_send_simple(c->conn, sql)) < 0 ||
                    pipeline_flush(c) < 0 || client_flush(c) < 0
                ? -1
                : 0;
        free(sql);
        free(quoted);
    } else {
        r = send_statement(c, it, &f->await_sync);
        next = FS_RESULT;
        if (r == 0 && it->next_pipelined)
            r = send_ahead(c, now);
    }
    if (r < 0)
        return session_broken(c, now);
    arm_statement_timer(c);
    return rest(next);
}

static int step_next(struct client *c, time_ns now)
{
    struct client_feed *f = feed_of(c);
    struct engine_state *run = c->w->run;
    const struct engine_feed *feed = run->cfg->feed;
    if (atomic_load_explicit(&engine_stop_flag, memory_order_relaxed)) {
        client_close(c);
        return client_finish(c);
    }
    if (!f->have_item) {
        int r = feed->next(c->w->feed_ws, c->id, &f->item);
        if (r < 0) {
            client_close(c);
            return client_finish(c);
        }
        if (r == 0)
            return wait_for_feed(c, now, FEED_EMPTY_NS);
        if (r == 2) /* on after the events and timers already due */
            return wait_until(c, now + 1);
        f->have_item = 1;
        f->due = feed->speed > 0
                     ? run->go_ns + (time_ns)((double)f->item.offset_us * NS_PER_US / feed->speed)
                     : 0;
    }
    const struct engine_feed_item *it = &f->item;
    if (feed->speed <= 0 && it->kind == FEED_CONNECT &&
        it->ordinal > atomic_load_explicit(&run->feed_started, memory_order_acquire))
        return wait_until(c, now + FEED_RETRY_NS); /* sessions start in their order */
    if (feed->speed > 0 && f->due > now)
        return wait_until(c, f->due);
    time_ns due = feed->speed > 0 ? f->due : now;
    if (it->kind == FEED_STATEMENT && feed->ready && c->conn && !f->session_failed) {
        enum pg_txn tx = pg_txn_status(c->conn);
        /* (A Sync group is an implicit transaction its server reports only at its end.) */
        struct engine_feed_due d = {now,
                                    tx == PG_TXN_INTRANS || tx == PG_TXN_INERROR || f->group_open,
                                    pg_backend_pid(c->conn), 0};
        int was_held = f->held;
        if (!was_held) /* counted before asking: see wake_other_workers */
            f->held = 1, atomic_fetch_add(&c->w->n_feed_held, 1);
        atomic_thread_fence(memory_order_seq_cst);
        if (!feed->ready(c->w->feed_ws, c->id, it, &d)) { /* held back (the source's order) */
            time_ns retry =
                run->n_workers > 1 && c->w->feed_wake.h[0] < 0 ? FEED_HELD_NS : FEED_EMPTY_NS;
            return wait_for_feed(
                c, now, d.ask_again_ns > 0 && d.ask_again_ns < retry ? d.ask_again_ns : retry);
        }
        f->held = 0;
        atomic_fetch_sub(&c->w->n_feed_held, 1);
        if (was_held) /* the wait was the source's, not the client's own lag */
            f->ready_at = now;
    }
    switch (it->kind) {
    case FEED_CONNECT:
        f->have_item = 0;
        if (feed->speed <= 0)
            atomic_fetch_add_explicit(&run->feed_started, 1, memory_order_release);
        client_close(c);
        forget_prepared(f);
        f->pipeline = f->group_open = f->await_sync = 0;
        f->in_session = 1;
        f->session_failed = 0;
        c->conn_opts = it->conn;
        c->resume = FS_NEXT;
        return client_reconnect(c, now);
    case FEED_DISCONNECT:
        f->have_item = 0;
        f->in_session = 0;
        f->pipeline = f->group_open = f->await_sync = 0;
        client_close(c);
        return FS_NEXT;
    default:
        if (feed->before_send)
            feed->before_send(c->w->feed_ws, c->id, &f->item);
        return start_statement(c, due, now);
    }
}

/* A COPY FROM STDIN's data (none for a COPY given no rows), queued without blocking: 1 all queued
 * with its end (a CopyFail for the one the item says its client failed), 0 wait until writable,
 * -1 the connection broke. */
#define COPY_CHUNK 65536
static int feed_copy_in(struct client *c)
{
    struct client_feed *f = feed_of(c);
    const struct engine_feed_item *it = &f->item;
    while (f->copy_at < f->copy_len) {
        size_t n = f->copy_len - f->copy_at;
        if (n > COPY_CHUNK)
            n = COPY_CHUNK;
        int r = pg_put_copy_data(c->conn, it->copy_data + f->copy_at, (int)n);
        if (r < 0)
            return -1;
        if (r == 0)
            return client_flush(c) < 0 ? -1 : 0;
        f->copy_at += n;
    }
    /* The COPY its client failed in the capture fails so again (f->copy_given counts it). */
    int failed = it->copy_fail && f->copy_given == it->copy_fail_at + 1;
    int r = pg_put_copy_end(c->conn, failed ? it->copy_fail : NULL);
    if (r < 0)
        return -1;
    if (r == 0)
        return client_flush(c) < 0 ? -1 : 0;
    f->copy_in = 0;
    return client_flush(c) < 0 ? -1 : 1;
}

/* The first value of each row of a result (at most FEED_RETURNED_ROWS_MAX), a '\n' between
 * them; none when it has no row or one of them no value. */
static void keep_returned(struct client_feed *f, const struct pg_result *res, enum pg_status st)
{
    buf_reset(&f->returned);
    int rows = st == PG_RES_ROWS && pg_result_cols(res) >= 1 ? pg_result_rows(res) : 0;
    if (rows > FEED_RETURNED_ROWS_MAX)
        rows = FEED_RETURNED_ROWS_MAX;
    for (int i = 0; i < rows; i++) {
        if (pg_result_isnull(res, i, 0)) {
            buf_reset(&f->returned);
            return;
        }
        if (i > 0)
            buf_putc(&f->returned, '\n');
        buf_puts(&f->returned, pg_result_value(res, i, 0));
    }
}

/* Read the statement's results: 1 all in, 0 wait, -1 the connection broke. The first error
 * is kept (SQLSTATE, message, class). A COPY TO STDOUT's rows are read (as they come) and
 * dropped; a COPY FROM STDIN is given the item's data. */
static int feed_drain(struct client *c)
{
    struct client_feed *f = feed_of(c);
    int sent = client_flush_consume(c);
    if (sent <= 0)
        return sent;
    for (;;) {
        if (f->copy_in) {
            int r = feed_copy_in(c);
            if (r <= 0)
                return r;
        }
        if (f->copy_out) {
            int r = client_copy_skip(c);
            if (r <= 0)
                return r;
            f->copy_out = 0; /* the data has ended: the COPY's result follows */
        }
        if (pg_is_busy(c->conn))
            return 0;
        struct pg_result *res = pg_next_result(c->conn);
        if (!res) {
            if (f->await_sync) /* the group's Sync follows */
                continue;
            return 1;
        }
        enum pg_status st = pg_result_status(res);
        if (st == PG_RES_PIPELINE_SYNC) { /* the statement's Sync: its group is over */
            pg_result_free(res);
            f->await_sync = 0;
            if (!f->group_open && (f->n_ahead == 0 || !f->ahead[0].sent)) { /* none in flight */
                pg_pipeline_exit(c->conn);
                f->pipeline = 0;
            }
            return 1;
        }
        if (st == PG_RES_PIPELINE_ABORTED) {
            pg_result_free(res);
            if (c->failure == PGF_NONE) {
                f->not_run = 1;
                c->failure = PGF_OTHER;
                f->sqlstate[0] = '\0';
                snprintf(f->message, sizeof f->message,
                         "not run: an earlier statement of its Sync group failed");
            }
            continue;
        }
        if (st == PG_RES_COPY_OUT) {
            pg_result_free(res);
            f->copy_out = 1;
            continue;
        }
        if (st == PG_RES_COPY_IN) {
            pg_result_free(res);
            /* Each COPY FROM STDIN takes the item's next part (without parts, the data is
             * the first one's), from where the one before ended. One beyond them (in a
             * statement of several whose data the capture does not hold) gets no rows: the
             * statement goes on, as the capture's did, and the source is told how many went
             * empty. */
            const struct engine_feed_item *it = &f->item;
            int parts = it->copy_parts ? it->n_copy_parts : it->copy_data != NULL;
            int empty = f->copy_given >= parts;
            f->copy_at = f->copy_given ? f->copy_len : 0;
            f->copy_len = f->copy_at + (empty            ? 0
                                        : it->copy_parts ? it->copy_parts[f->copy_given]
                                                         : it->copy_len);
            f->copy_empty += empty;
            f->copy_given++;
            f->copy_in = 1;
            continue;
        }
        if (st == PG_RES_ERROR && !pg_result_sqlstate(res) && pg_conn_ok(c->conn)) {
            /* No message at all (pg.h's "unknown error"): no error but a result the feed
             * does not read (COPY BOTH), which libpq would hand out again and again. */
            char line[32];
            pg_error_line(c->conn, res, line, sizeof line);
            if (strcmp(line, "unknown error") == 0) {
                pg_result_free(res);
                snprintf(f->message, sizeof f->message,
                         "COPY TO STDOUT (in a statement of several) cannot be replayed");
                return -1;
            }
        }
        if (f->item.want_returned) /* the last result's */
            keep_returned(f, res, st);
        if (st != PG_RES_COMMAND && st != PG_RES_ROWS && st != PG_RES_EMPTY &&
            c->failure == PGF_NONE) {
            c->failure = c->cancelled ? PGF_TIMEOUT : pg_classify(c->conn, res);
            const char *s = pg_result_sqlstate(res);
            snprintf(f->sqlstate, sizeof f->sqlstate, "%s", s ? s : "");
            pg_error_line(c->conn, res, f->message, sizeof f->message);
        }
        pg_result_free(res);
    }
}

static int step_prepare(struct client *c, time_ns now)
{
    struct client_feed *f = feed_of(c);
    int r = feed_drain(c);
    if (r < 0)
        return session_broken(c, now);
    if (r == 0)
        return rest(FS_PREPARE);
    if (c->failure != PGF_NONE) {
        if (f->pipeline && !f->item.sync_open && !f->await_sync) { /* its Sync still */
            f->group_open = 0;
            f->await_sync = 1;
            if (pg_pipeline_sync(c->conn) < 0 || client_flush(c) < 0)
                return session_broken(c, now);
            return rest(FS_PREPARE);
        }
        return statement_done(c, now, 1, 0, c->failure);
    }
    if (f->closing) { /* the name's other text is gone: now its Parse */
        f->closing = 0;
        drop_prepared(f, f->item.name);
        if (send_prepare(c) < 0)
            return session_broken(c, now);
        return rest(FS_PREPARE);
    }
    add_prepared(f, f->item.name, f->item.text);
    f->prepared_now = 1;
    if (send_statement(c, &f->item, &f->await_sync) < 0 ||
        (f->item.next_pipelined && send_ahead(c, now) < 0))
        return session_broken(c, now);
    arm_statement_timer(c);
    return rest(FS_RESULT);
}

static int step_result(struct client *c, time_ns now)
{
    struct client_feed *f = feed_of(c);
    if (f->pipeline && !f->ahead_at && send_ahead(c, now) < 0)
        return session_broken(c, now);
    int r = feed_drain(c);
    if (r < 0)
        return session_broken(c, now);
    if (r == 0)
        return rest(FS_RESULT);
    if (c->failure == PGF_NONE)
        follow_unprepare(feed_of(c), &feed_of(c)->item);
    return statement_done(c, now, 1, c->failure == PGF_NONE, c->failure);
}

static int feed_timer(struct client *c, time_ns now)
{
    struct client_feed *f = feed_of(c);
    if (c->state == FS_WAIT)
        return FS_NEXT;
    if (c->state != FS_RESULT && c->state != FS_PREPARE)
        return rest(c->state);
    if (c->state == FS_RESULT && f->ahead_at && now >= f->ahead_at && send_ahead(c, now) < 0)
        return session_broken(c, now);
    if (f->cancel_at && !f->cancel_sent && now >= f->cancel_at) {
        f->cancel_sent = 1; /* as the original client cancelled it */
        cancel_request(c->conn);
    }
    if (c->tx_deadline && now >= c->tx_deadline) {
        if (c->cancelled) { /* nothing came back after the cancel: give up on the session */
            snprintf(f->message, sizeof f->message, "statement timed out");
            client_note_error(c, "statement timed out");
            return lose_session(c, now, statement_done(c, now, 1, 0, PGF_TIMEOUT),
                                "statement timed out");
        }
        c->cancelled = 1;
        cancel_request(c->conn);
        c->tx_deadline = now + c->w->run->cfg->timeout_us * NS_PER_US;
    }
    arm_statement_timer(c);
    return rest(c->state);
}

/* The driver (engine/client_driver.h). */

static void feed_init(struct client *c)
{
    struct client_feed *f = xcalloc(1, sizeof *f);
    buf_init(&f->returned);
    c->kind = f;
}

static void feed_free(struct client *c)
{
    struct client_feed *f = feed_of(c);
    forget_prepared(f);
    free(f->prepared);
    free(f->ahead);
    buf_free(&f->returned);
    free(f);
}

static int feed_start(struct client *c, time_ns now)
{
    (void)c;
    (void)now;
    return FS_NEXT;
}

static int feed_step(struct client *c, int state, time_ns now)
{
    switch ((enum feed_state)state) {
    case FS_NEXT:
        return step_next(c, now);
    case FS_PREPARE:
        return step_prepare(c, now);
    case FS_RESULT:
        return step_result(c, now);
    case FS_WAIT:
        break;
    }
    return rest(state); /* waits for its timer */
}

/* Its session's connection is up: the session's time runs from here. */
static int feed_connection_up(struct client *c, time_ns now)
{
    feed_of(c)->ready_at = now;
    return client_connected(c);
}

/* A feed's client waits only for its stream's time, which the end of a -T run does not end. */
static int feed_run_ended(struct client *c, time_ns now)
{
    (void)now;
    return rest(c->state);
}

const struct client_driver client_feed_driver = {
    .init = feed_init,
    .start = feed_start,
    .step = feed_step,
    .timer = feed_timer,
    .connected = feed_connection_up,
    .connect_failed = feed_connect_failed,
    .run_ended = feed_run_ended,
    .free = feed_free,
};
