/* The recording proxy's messages to capture events (capture/record.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "base/mem.h"
#include "capture/fncall.h"
#include "capture/record.h"
#include "capture/sqltext.h"
#include "capture/typenames.h"

/* An event, held until recorder_write; a statement's strings and params are its own. */
struct rev {
    int64_t t; /* its start (monotonic µs) */
    uint64_t seq;
    enum capture_event_kind kind;
    struct rec_session *s;
    struct capture_statement st; /* session and offset_us set when written */
    struct buf copy;             /* st.copy_kept: the rows the client sent */
    int copy_too_big;            /* more than RECORD_COPY_MAX: kept without its rows */
    /* Where each COPY FROM STDIN's rows start in copy, one per CopyInResponse (a Query may
     * hold several); at its completion, each one's length (st.copy_parts). */
    size_t *copy_parts;
    int n_copies, cap_copies;
    /* The result being read: what its first column may hand back (RET_*), whether in binary
     * format, and its rows so far; its one row's value is st.returned. */
    int ret, ret_binary, rows;
    char **status_names, **status_values; /* st's settings reported, its own */
};

/* A result's value a later statement may carry: the OID of a one-column result (lo_create,
 * lo_import, lo_from_bytea; RET_FUNCTION: a FunctionCall's), or an id a sequence gave: the
 * first integer column of one row (RET_ID), kept when the command's tag says INSERT (its
 * RETURNING) or SELECT of currval, lastval, nextval, txid_current or pg_current_xact_id. */
enum { RET_NONE, RET_OID, RET_FUNCTION, RET_ID };

/* pg_type's OIDs of the types such a value has */
enum { INT8_TYPE = 20, INT2_TYPE = 21, INT4_TYPE = 23, OID_TYPE = 26, XID8_TYPE = 5069 };

/* The most COPY FROM STDIN data a statement keeps (what a capture's reader takes): a larger
 * COPY is kept without its rows, as a log's would be. */
#define RECORD_COPY_MAX ((256u << 20) - 1)

/* What the server answers, in the order the client asked. */
enum pend_kind { PEND_QUERY, PEND_EXECUTE, PEND_SYNC };
struct pend {
    enum pend_kind kind;
    struct rev *ev; /* the statement, NULL when it is left out */
};

/* A prepared statement (Parse), by name ("" the unnamed one). */
struct rstmt {
    struct rstmt *next;
    char *name, *text;
    int secret; /* sqltext_secret_replace's: -1 never kept */
    int n_types;
    uint32_t *types; /* its parameters' type OIDs as Parse gave them (0: inferred) */
};

/* A portal (Bind), by name. */
struct rportal {
    struct rportal *next;
    char *name, *stmt;
    char **params; /* values as bound (a binary one's bytes, NUL terminated) */
    int *lens;     /* their lengths, -1 NULL */
    int n_params;
    int *formats; /* NULL: all text */
    int n_result_formats;
    int *result_formats;
    int executed; /* a further Execute fetches more of its rows */
};

struct rec_session {
    struct rec_session *next;
    char *user, *database;
    int n_startup;
    char **startup; /* names then values, as the client sent them */
    uint32_t pid;
    uint8_t key[PGWIRE_CANCEL_KEY_MAX];
    size_t key_len;
    int logged_in, ended, failed;
    uint32_t cap_id;
    int64_t last_t;
    struct rev *start_ev;
    struct pend *q;
    size_t q_head, q_len, q_cap;
    struct rstmt *stmts;
    struct rportal *portals;
    int64_t ext_start;   /* the first Parse or Bind of the next Execute, -1 none */
    int unsynced;        /* an Execute since the last Sync (or Query) */
    struct rev *copy_in; /* the statement whose COPY FROM STDIN takes the CopyData, or NULL */
    uint32_t queued;     /* its events kept and not written yet */
    /* The last Execute completed since the last ReadyForQuery (NULL: none, or left out): the
     * settings the server reports at the Sync group's end go with it, so it is not written
     * before that ReadyForQuery. */
    struct rev *last_done;
    /* The server's NegotiateProtocolVersion (negotiated 1): its newest minor, the options of
     * the startup it did not recognise. */
    int negotiated, negotiated_minor, n_unrecognised;
    char **unrecognised;
};

struct recorder {
    int64_t wall_us, mono_us; /* the capture's start: its first event, once written */
    int started;              /* an event was written */
    struct capture_writer *w;
    struct capture_header source; /* the live capture's first header: address and port */
    uint32_t next_id;
    uint64_t seq;
    struct rev **ev;
    size_t n_ev, cap_ev;
    struct rec_session *sessions;
    struct record_stats st;
    struct typenames *type_names; /* NULL: the user's types stay unnamed */
};

struct recorder *recorder_new(const char *path, const struct capture_header *source,
                              int64_t wall_us, int64_t mono_us, struct err *e)
{
    struct capture_writer *w = capture_writer_open_live(path, e);
    if (!w)
        return NULL;
    struct recorder *r = xcalloc(1, sizeof *r);
    r->w = w;
    if (source)
        r->source = *source;
    r->wall_us = wall_us;
    r->mono_us = mono_us;
    return r;
}

static struct rev *rev_new(struct recorder *r, struct rec_session *s, enum capture_event_kind kind,
                           int64_t t)
{
    struct rev *ev = xcalloc(1, sizeof *ev);
    ev->t = t;
    ev->seq = r->seq++;
    ev->kind = kind;
    ev->s = s;
    ev->st.duration_us = -1;
    ev->st.cancel_us = -1;
    return ev;
}

static void rev_free(struct rev *ev)
{
    if (!ev)
        return;
    free((char *)ev->st.name);
    free((char *)ev->st.text);
    free((char *)ev->st.error);
    free((char *)ev->st.returned);
    free((char *)ev->st.copy_fail);
    buf_free(&ev->copy);
    free(ev->copy_parts);
    for (int i = 0; i < ev->st.n_params; i++)
        free((char *)ev->st.params[i]);
    free((void *)ev->st.params);
    free((void *)ev->st.param_lengths);
    free((void *)ev->st.param_formats);
    free((void *)ev->st.param_types);
    free((void *)ev->st.result_formats);
    for (int i = 0; i < ev->st.n_param_status; i++) {
        free(ev->status_names[i]);
        free(ev->status_values[i]);
    }
    free(ev->status_names);
    free(ev->status_values);
    typenames_names_free((struct capture_type_name *)ev->st.type_names, ev->st.n_type_names);
    free(ev);
}

static void keep(struct recorder *r, struct rev *ev)
{
    if (r->n_ev == r->cap_ev) {
        r->cap_ev = r->cap_ev ? 2 * r->cap_ev : 256;
        r->ev = xrealloc(r->ev, r->cap_ev * sizeof *r->ev);
    }
    r->ev[r->n_ev++] = ev;
    ev->s->queued++;
}

struct rec_session *recorder_session_start(struct recorder *r, const struct pgwire_startup *su,
                                           int64_t t)
{
    struct rec_session *s = xcalloc(1, sizeof *s);
    const char *user = pgwire_startup_param(su, "user");
    const char *db = pgwire_startup_param(su, "database");
    s->user = xstrdup(user ? user : "");
    s->database = xstrdup(db && *db ? db : s->user);
    s->n_startup = su->n_params;
    s->startup = xcalloc(2 * (size_t)su->n_params + 1, sizeof *s->startup);
    for (int i = 0; i < su->n_params; i++) {
        s->startup[i] = xstrdup(su->names[i]);
        s->startup[su->n_params + i] = xstrdup(su->values[i]);
    }
    s->ext_start = -1;
    s->last_t = t;
    s->start_ev = rev_new(r, s, CAPTURE_EV_SESSION_START, t);
    s->next = r->sessions;
    r->sessions = s;
    return s;
}

/* ---- the client's side ---- */

/* Whether the server has yet to answer something the client sent: a statement sent now is
 * pipelined (sent before the previous one's result). */
static int pending(const struct rec_session *s)
{
    return s->q_len > s->q_head;
}

static void push(struct rec_session *s, enum pend_kind kind, struct rev *ev)
{
    if (s->q_head > 0 && s->q_head == s->q_len) {
        s->q_head = s->q_len = 0;
    }
    if (s->q_len == s->q_cap) {
        if (s->q_head > 0) {
            memmove(s->q, s->q + s->q_head, (s->q_len - s->q_head) * sizeof *s->q);
            s->q_len -= s->q_head;
            s->q_head = 0;
        }
        if (s->q_len == s->q_cap) {
            s->q_cap = s->q_cap ? 2 * s->q_cap : 16;
            s->q = xrealloc(s->q, s->q_cap * sizeof *s->q);
        }
    }
    s->q[s->q_len].kind = kind;
    s->q[s->q_len].ev = ev;
    s->q_len++;
}

static struct pend *head(struct rec_session *s)
{
    return s->q_head < s->q_len ? &s->q[s->q_head] : NULL;
}

static void pop(struct rec_session *s)
{
    s->q_head++;
}

/* text with a password cut out into *out (xstrdup'd); the secret's kind (sqltext's). */
static int cut_secret(const char *text, char **out)
{
    struct buf cut;
    buf_init(&cut);
    int secret = sqltext_secret_replace(text, SQLTEXT_SECRET_PLACEHOLDER, &cut);
    *out = xstrdup(secret > 0 ? cut.data : secret < 0 ? "" : text);
    buf_free(&cut);
    return secret;
}

static void unsupported(struct recorder *r, enum capture_unsupported k, const char *text)
{
    r->st.skipped_unsupported++;
    capture_count_unsupported(r->st.unsupported, k, text);
}

static void on_query(struct recorder *r, struct rec_session *s, const uint8_t *body, size_t len,
                     int64_t t)
{
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    const char *text = pgwire_get_str(&rd);
    s->ext_start = -1;
    s->unsynced = 0; /* (a Query is a Sync of its own) */
    char *cut;
    int secret = cut_secret(text, &cut);
    if (secret < 0 || rd.bad) {
        r->st.skipped_secret += secret < 0;
        free(cut);
        push(s, PEND_QUERY, NULL);
        return;
    }
    r->st.secrets_cut += secret > 0;
    struct rev *ev = rev_new(r, s, CAPTURE_EV_STATEMENT, t);
    ev->st.protocol = CAPTURE_SIMPLE;
    ev->st.name = xstrdup("");
    ev->st.text = cut;
    r->st.pipelined += pending(s);
    push(s, PEND_QUERY, ev);
}

/* libpq's large-object calls become the statements that do the same (capture/fncall.h);
 * another function's call is left out as unsupported. */
static void on_function_call(struct recorder *r, struct rec_session *s, const uint8_t *body,
                             size_t len, int64_t t)
{
    s->ext_start = -1;
    s->unsynced = 0; /* (answered with a ReadyForQuery of its own) */
    struct fncall c;
    int known = body ? fncall_parse(body, len, &c) : -1;
    if (known <= 0) {
        if (known == 0)
            unsupported(r, CAPTURE_UNSUP_FUNCTION_CALL, "FunctionCall");
        if (body)
            fncall_free(&c);
        push(s, PEND_QUERY, NULL);
        return;
    }
    struct rev *ev = rev_new(r, s, CAPTURE_EV_STATEMENT, t);
    ev->st.protocol = CAPTURE_EXTENDED_UNNAMED;
    ev->st.name = xstrdup("");
    ev->st.text = xstrdup(c.text.data);
    ev->st.n_params = c.n_params;
    ev->st.params = (const char *const *)c.params;
    c.params = NULL; /* the statement's now */
    c.n_params = 0;
    ev->ret = c.returns_oid ? RET_FUNCTION : RET_NONE; /* its FunctionCallResponse is an OID */
    fncall_free(&c);
    push(s, PEND_QUERY, ev);
}

static struct rstmt *find_stmt(struct rec_session *s, const char *name)
{
    struct rstmt *p = s->stmts;
    while (p && strcmp(p->name, name) != 0)
        p = p->next;
    return p;
}

static struct rportal *find_portal(struct rec_session *s, const char *name)
{
    struct rportal *p = s->portals;
    while (p && strcmp(p->name, name) != 0)
        p = p->next;
    return p;
}

static void portal_clear(struct rportal *p)
{
    free(p->stmt);
    for (int i = 0; i < p->n_params; i++)
        free(p->params[i]);
    free(p->params);
    free(p->lens);
    free(p->formats);
    free(p->result_formats);
    p->stmt = NULL;
    p->params = NULL;
    p->lens = p->formats = p->result_formats = NULL;
    p->n_params = p->n_result_formats = 0;
}

static void on_parse(struct recorder *r, struct rec_session *s, const uint8_t *body, size_t len)
{
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    const char *name = pgwire_get_str(&rd);
    const char *text = pgwire_get_str(&rd);
    if (rd.bad)
        return;
    struct rstmt *st = find_stmt(s, name);
    if (!st) {
        st = xcalloc(1, sizeof *st);
        st->name = xstrdup(name);
        st->next = s->stmts;
        s->stmts = st;
    }
    free(st->text);
    st->secret = cut_secret(text, &st->text);
    free(st->types);
    st->types = NULL;
    st->n_types = pgwire_get_u16(&rd);
    if (st->n_types > 0)
        st->types = xcalloc((size_t)st->n_types, sizeof *st->types);
    for (int i = 0; i < st->n_types; i++)
        st->types[i] = pgwire_get_u32(&rd);
    if (rd.bad) /* a Parse the server will refuse: no types */
        st->n_types = 0;
    if (r->type_names) /* (nothing to do for the types it knows, or a builtin's) */
        typenames_want(r->type_names, s->database, s->user, st->types, st->n_types);
}

static void on_bind(struct rec_session *s, const uint8_t *body, size_t len)
{
    struct pgwire_bind b;
    if (pgwire_parse_bind(body, len, &b) < 0)
        return;
    struct rportal *p = find_portal(s, b.portal);
    if (!p) {
        p = xcalloc(1, sizeof *p);
        p->name = xstrdup(b.portal);
        p->next = s->portals;
        s->portals = p;
    }
    portal_clear(p);
    p->stmt = xstrdup(b.statement);
    p->executed = 0;
    p->n_params = b.n_params;
    p->params = xcalloc((size_t)b.n_params + 1, sizeof *p->params);
    p->lens = xcalloc((size_t)b.n_params + 1, sizeof *p->lens);
    for (int i = 0; i < b.n_params; i++) {
        p->lens[i] = b.values[i] ? b.lens[i] : -1;
        if (b.values[i])
            p->params[i] = xmemdupz(b.values[i], (size_t)b.lens[i]);
    }
    if (b.any_binary) {
        p->formats = b.formats;
        b.formats = NULL;
    }
    p->n_result_formats = b.n_result_formats;
    p->result_formats = b.result_formats;
    b.result_formats = NULL;
    pgwire_bind_free(&b);
}

static int *int_dup(const int *v, int n)
{
    return xmemdup(v, (size_t)n * sizeof *v);
}

static void on_execute(struct recorder *r, struct rec_session *s, const uint8_t *body, size_t len,
                       int64_t t)
{
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    const char *portal = pgwire_get_str(&rd);
    int64_t start = s->ext_start >= 0 ? s->ext_start : t;
    s->ext_start = -1;
    int same_sync = s->unsynced; /* no Sync since the session's previous Execute */
    s->unsynced = 1;
    struct rportal *p = rd.bad ? NULL : find_portal(s, portal);
    struct rstmt *st = p ? find_stmt(s, p->stmt) : NULL;
    if (!p || !st) {
        /* A portal of a statement PREPAREd in SQL, or a Bind that did not read. */
        push(s, PEND_EXECUTE, NULL);
        return;
    }
    if (p->executed) {
        r->st.portal_fetches++; /* more rows of a portal: folded into its first Execute */
        push(s, PEND_EXECUTE, NULL);
        return;
    }
    p->executed = 1;
    if (st->secret < 0) {
        r->st.skipped_secret++;
        push(s, PEND_EXECUTE, NULL);
        return;
    }
    r->st.secrets_cut += st->secret > 0;
    r->st.pipelined += pending(s);
    r->st.same_sync += same_sync;
    struct rev *ev = rev_new(r, s, CAPTURE_EV_STATEMENT, start);
    ev->st.same_sync = same_sync;
    ev->st.protocol = *st->name ? CAPTURE_EXTENDED_NAMED : CAPTURE_EXTENDED_UNNAMED;
    ev->st.name = xstrdup(st->name);
    ev->st.text = xstrdup(st->text);
    char **params = xcalloc((size_t)p->n_params + 1, sizeof *params);
    int *lens = xcalloc((size_t)p->n_params + 1, sizeof *lens);
    for (int i = 0; i < p->n_params; i++) {
        lens[i] = p->lens[i];
        params[i] = p->params[i] ? xmemdupz(p->params[i], (size_t)p->lens[i]) : NULL;
    }
    ev->st.n_params = p->n_params;
    ev->st.params = (const char *const *)params;
    ev->st.param_lengths = lens;
    ev->st.param_formats = p->formats ? int_dup(p->formats, p->n_params) : NULL;
    ev->st.n_result_formats = p->n_result_formats;
    ev->st.result_formats =
        p->n_result_formats ? int_dup(p->result_formats, p->n_result_formats) : NULL;
    ev->st.n_param_types = st->n_types;
    ev->st.param_types =
        st->n_types ? xmemdup(st->types, (size_t)st->n_types * sizeof *st->types) : NULL;
    push(s, PEND_EXECUTE, ev);
}

void recorder_frontend(struct recorder *r, struct rec_session *s, char type, const uint8_t *body,
                       size_t len, int64_t t)
{
    s->last_t = t;
    switch (type) {
    case 'Q':
        if (body)
            on_query(r, s, body, len, t);
        break;
    case 'P':
    case 'B':
        if (s->ext_start < 0)
            s->ext_start = t;
        if (body && type == 'P')
            on_parse(r, s, body, len);
        else if (body)
            on_bind(s, body, len);
        break;
    case 'E':
        if (body)
            on_execute(r, s, body, len, t);
        break;
    case 'S':
        s->ext_start = -1;
        s->unsynced = 0;
        push(s, PEND_SYNC, NULL);
        break;
    case 'F': /* FunctionCall: answered by a FunctionCallResponse and a ReadyForQuery */
        on_function_call(r, s, body, len, t);
        break;
    case 'd': /* CopyData of the COPY FROM STDIN the server asked for */
        if (s->copy_in && body) {
            struct rev *ev = s->copy_in;
            if (ev->copy.len + len > RECORD_COPY_MAX) {
                ev->st.copy_kept = 0;
                ev->copy_too_big = 1;
                ev->n_copies = 0;
                buf_free(&ev->copy);
                buf_init(&ev->copy);
                s->copy_in = NULL;
            } else {
                buf_append(&ev->copy, (const char *)body, len);
            }
        }
        break;
    case 'f': /* CopyFail: the rows end, the COPY failed by its client (the server's error
               * follows); what the client sent before it is kept, as it was sent, and the
               * COPY marked with the client's message for the replay to fail it again */
        if (s->copy_in && !s->copy_in->st.copy_fail && s->copy_in->n_copies > 0) {
            struct rev *ev = s->copy_in;
            ev->st.copy_fail = body ? xstrndup((const char *)body, len) : xstrdup("");
            ev->st.copy_fail_at = ev->n_copies - 1;
        }
        s->copy_in = NULL;
        break;
    case 'c': /* CopyDone: the rows end */
        s->copy_in = NULL;
        break;
    default: /* Describe, Close, Flush...: nothing a capture holds yet */
        break;
    }
}

/* ---- the server's side ---- */

/* A COPY FROM STDIN of ev asked for rows: those the client sends next start a part. */
static void copy_part_start(struct rev *ev)
{
    if (!ev->st.copy_kept)
        buf_init(&ev->copy);
    ev->st.copy_kept = 1;
    if (ev->n_copies == ev->cap_copies) {
        ev->cap_copies = ev->cap_copies ? 2 * ev->cap_copies : 2;
        ev->copy_parts = xrealloc(ev->copy_parts, (size_t)ev->cap_copies * sizeof *ev->copy_parts);
    }
    ev->copy_parts[ev->n_copies++] = ev->copy.len;
}

/* The parts' starts turned into their lengths, kept when there are several (a statement of
 * one COPY keeps its rows whole, as before parts were kept). */
static void copy_parts_settle(struct rev *ev)
{
    if (ev->n_copies < 2)
        return;
    for (int i = 0; i < ev->n_copies; i++) {
        size_t end = i + 1 < ev->n_copies ? ev->copy_parts[i + 1] : ev->copy.len;
        ev->copy_parts[i] = end - ev->copy_parts[i];
    }
    ev->st.n_copy_parts = ev->n_copies;
    ev->st.copy_parts = ev->copy_parts;
}

static void complete(struct recorder *r, struct rev *ev, int64_t t)
{
    if (!ev)
        return;
    if (!ev->s->logged_in) { /* no server answers a statement before the login: not kept */
        rev_free(ev);
        return;
    }
    ev->st.duration_us = t > ev->t ? t - ev->t : 0;
    if (ev->st.outcome == CAPTURE_OUTCOME_UNKNOWN)
        ev->st.outcome = CAPTURE_OUTCOME_OK;
    if (!ev->st.error)
        ev->st.error = xstrdup("");
    if (ev->s->copy_in == ev)
        ev->s->copy_in = NULL;
    /* A COPY the server refused before asking for rows got none from the client: it is kept
     * with none, as it was sent. */
    if (!ev->st.copy_kept && !ev->copy_too_big && sqltext_is_copy_from_stdin(ev->st.text))
        ev->st.copy_kept = 1;
    if (ev->st.copy_kept) {
        ev->st.copy_data = (const uint8_t *)ev->copy.data;
        ev->st.copy_len = ev->copy.len;
        copy_parts_settle(ev);
    }
    keep(r, ev);
    r->st.statements++;
    r->st.by_protocol[ev->st.protocol]++;
    if (ev->st.outcome == CAPTURE_OUTCOME_ERROR)
        r->st.failed++;
    else
        r->st.ok++;
    capture_count_copy_statement(&r->st.copy_in, &ev->st);
}

static void set_error(struct rev *ev, const uint8_t *body, size_t len)
{
    if (!ev || ev->st.outcome == CAPTURE_OUTCOME_ERROR)
        return;
    const char *msg;
    ev->st.outcome = CAPTURE_OUTCOME_ERROR;
    pgwire_parse_error(body, len, ev->st.sqlstate, &msg);
    free((char *)ev->st.error);
    ev->st.error = xstrdup(msg);
}

/* What a result of fields columns whose first is of type type may hand back (RET_*). */
static int returns(int fields, uint32_t type)
{
    if (type == OID_TYPE)
        return fields == 1 ? RET_OID : RET_NONE;
    int id = type == INT8_TYPE || type == INT4_TYPE || type == INT2_TYPE || type == XID8_TYPE;
    return id ? RET_ID : RET_NONE;
}

/* RowDescription: a result whose first column may hand back a value a later statement
 * carries. */
static void on_row_description(struct rev *ev, const uint8_t *body, size_t len)
{
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    int fields = pgwire_get_u16(&rd);
    pgwire_get_str(&rd); /* the name, then table, column, type, size, modifier, format */
    pgwire_get_u32(&rd);
    pgwire_get_u16(&rd);
    uint32_t type = pgwire_get_u32(&rd);
    pgwire_get_u16(&rd);
    pgwire_get_u32(&rd);
    ev->ret_binary = pgwire_get_u16(&rd) == 1;
    ev->ret = !rd.bad && fields >= 1 ? returns(fields, type) : RET_NONE;
    ev->rows = 0;
}

/* A binary integer of n bytes (2, 4 or 8; unsigned when an OID) as text, or NULL. */
static char *binary_integer(const uint8_t *v, uint32_t n, int is_oid)
{
    if (n != 2 && n != 4 && n != 8)
        return NULL;
    uint64_t u = pgwire_be(v, (int)n);
    if (is_oid)
        return n == 4 ? xasprintf("%llu", (unsigned long long)u) : NULL;
    int64_t x = n == 8 ? (int64_t)u : n == 4 ? (int32_t)(uint32_t)u : (int16_t)(uint16_t)u;
    return xasprintf("%lld", (long long)x);
}

static void drop_returned(struct rev *ev)
{
    free((char *)ev->st.returned);
    ev->st.returned = NULL;
    ev->ret = RET_NONE;
}

/* DataRow (its first bytes): the row's first value of such a result, an id's after the ones
 * before it (a '\n' between: an INSERT of several rows' RETURNING), up to
 * CAPTURE_RETURNED_ROWS_MAX rows. An OID's second row, a value of an earlier result of the
 * statement, or a NULL: none. */
static void on_data_row(struct rev *ev, const uint8_t *body, size_t len)
{
    if (ev->ret == RET_NONE || ev->ret == RET_FUNCTION)
        return;
    ev->rows++;
    if ((ev->rows > 1 && ev->ret == RET_OID) || (ev->rows == 1 && ev->st.returned))
        return drop_returned(ev);
    if (ev->rows > CAPTURE_RETURNED_ROWS_MAX)
        return;
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    int cols = pgwire_get_u16(&rd);
    uint32_t n = pgwire_get_u32(&rd);
    const uint8_t *v = n <= 20 ? pgwire_get_bytes(&rd, n) : NULL;
    char *value = rd.bad || cols < 1 || !v || n == 0 ? NULL
                  : ev->ret_binary                   ? binary_integer(v, n, ev->ret == RET_OID)
                                                     : xstrndup((const char *)v, n);
    if (!value)
        return drop_returned(ev);
    if (ev->st.returned) {
        char *both = xasprintf("%s\n%s", ev->st.returned, value);
        free(value);
        free((char *)ev->st.returned);
        value = both;
    }
    ev->st.returned = value;
    ev->st.returned_id = ev->ret != RET_OID;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whether text names a function that hands out an id (in any case, as the server folds it). */
static int calls_drawing_function(const char *text)
{
    static const char *const drawing[] = {"currval", "lastval", "nextval", "txid_current",
                                          "pg_current_xact_id"};
    for (const char *p = text; *p; p++) {
        if (!strchr("clntpCLNTP", *p)) /* the names' first letters: most bytes go no further */
            continue;
        for (size_t i = 0; i < sizeof drawing / sizeof *drawing; i++) {
            size_t n = strlen(drawing[i]);
            if (strncasecmp(p, drawing[i], n) == 0 && (p == text || !ident_char(p[-1])) &&
                !ident_char(p[n]))
                return 1;
        }
    }
    return 0;
}

/* CommandComplete: an id is kept from an INSERT's RETURNING or a SELECT of a function that
 * hands one out; another command's integer is not one a sequence gave (an UPDATE's RETURNING
 * id, a SELECT of a column). */
static void on_command_complete(struct rev *ev, const uint8_t *body, size_t len)
{
    if (ev->ret != RET_ID || !ev->st.returned)
        return;
    if (body && len > 7 && memcmp(body, "INSERT ", 7) == 0)
        return;
    if (body && len > 7 && memcmp(body, "SELECT ", 7) == 0 && ev->st.text &&
        calls_drawing_function(ev->st.text))
        return;
    free((char *)ev->st.returned);
    ev->st.returned = NULL;
    ev->ret = RET_NONE;
}

/* ParameterStatus after the login: a setting the server reports changed, kept with the
 * statement it answers (a Query; an Execute on PostgreSQL 13 and older, which report at once),
 * else with the last Execute of the Sync group whose ReadyForQuery follows (14 and later report
 * just before it). None when that statement is left out. */
static void on_param_status(struct rec_session *s, const struct pend *h, const uint8_t *body,
                            size_t len)
{
    struct rev *ev = h && h->kind != PEND_SYNC ? h->ev : s->last_done;
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    const char *name = pgwire_get_str(&rd);
    const char *value = pgwire_get_str(&rd);
    if (!ev || rd.bad)
        return;
    size_t n = (size_t)ev->st.n_param_status + 1;
    ev->status_names = xrealloc(ev->status_names, n * sizeof *ev->status_names);
    ev->status_values = xrealloc(ev->status_values, n * sizeof *ev->status_values);
    ev->status_names[n - 1] = xstrdup(name);
    ev->status_values[n - 1] = xstrdup(value);
    ev->st.n_param_status = (int)n;
    ev->st.param_status_names = (const char *const *)ev->status_names;
    ev->st.param_status_values = (const char *const *)ev->status_values;
}

/* NegotiateProtocolVersion (during the login): the newest minor the server supports and the
 * options it did not recognise, kept with the session's start. */
static void on_negotiate(struct rec_session *s, const uint8_t *body, size_t len)
{
    struct pgwire_reader rd;
    pgwire_reader_init(&rd, body, len);
    /* PostgreSQL sends the whole version (3 << 16 | minor) where the protocol's documentation
     * says the minor: the low 16 bits are the minor either way. */
    int minor = (int)(pgwire_get_u32(&rd) & 0xffff);
    uint32_t n = pgwire_get_u32(&rd);
    if (rd.bad || s->negotiated || n > len) /* each option takes a byte at least */
        return;
    char **options = xcalloc((size_t)n + 1, sizeof *options);
    for (uint32_t i = 0; i < n; i++)
        options[i] = xstrdup(pgwire_get_str(&rd));
    if (rd.bad) {
        for (uint32_t i = 0; i < n; i++)
            free(options[i]);
        free(options);
        return;
    }
    s->negotiated = 1;
    s->negotiated_minor = minor;
    s->n_unrecognised = (int)n;
    s->unrecognised = options;
}

static void on_ready(struct recorder *r, struct rec_session *s, int64_t t)
{
    s->last_done = NULL;
    if (!s->logged_in) {
        s->logged_in = 1;
        keep(r, s->start_ev);
        s->start_ev = NULL;
        r->st.sessions++;
    }
    struct pend *h;
    while ((h = head(s)) != NULL) {
        pop(s);
        if (h->kind == PEND_QUERY) {
            complete(r, h->ev, t);
            return;
        }
        if (h->kind == PEND_SYNC)
            return;
        rev_free(h->ev); /* an Execute the server skipped after an error */
    }
}

void recorder_backend(struct recorder *r, struct rec_session *s, char type, const uint8_t *body,
                      size_t len, int64_t t)
{
    struct pend *h = head(s);
    s->last_t = t;
    switch (type) {
    case 'K': {
        struct pgwire_reader rd;
        pgwire_reader_init(&rd, body, len);
        s->pid = pgwire_get_u32(&rd);
        size_t n = len > 4 ? len - 4 : 0;
        if (body && n <= sizeof s->key) {
            memcpy(s->key, body + 4, n);
            s->key_len = n;
        }
        break;
    }
    case 'Z':
        s->copy_in = NULL;
        on_ready(r, s, t);
        break;
    case 'S': /* after the login only: the login's answer the startup (a replay's server
               * sends its own) */
        if (s->logged_in && body)
            on_param_status(s, h, body, len);
        break;
    case 'v':
        if (!s->logged_in && body)
            on_negotiate(s, body, len);
        break;
    case 'T':
        if (h && h->ev && h->kind != PEND_SYNC && body)
            on_row_description(h->ev, body, len);
        break;
    case 'D':
        if (h && h->ev && h->kind != PEND_SYNC && body)
            on_data_row(h->ev, body, len);
        break;
    case 'V': /* FunctionCallResponse: lo_creat's, lo_create's OID */
        if (h && h->ev && h->ev->ret == RET_FUNCTION && body && !h->ev->st.returned) {
            char oid[16];
            if (fncall_oid_result(body, len, oid) == 0)
                h->ev->st.returned = xstrdup(oid);
        }
        break;
    case 'G': /* CopyInResponse: the rows the client sends next are the statement's (a
               * COPY's of a Query of several a part of them); none kept once over the most */
        if (h && h->ev && h->kind != PEND_SYNC && !h->ev->copy_too_big) {
            s->copy_in = h->ev;
            copy_part_start(h->ev);
        }
        break;
    case 'C':
        if (h && h->ev && h->kind != PEND_SYNC)
            on_command_complete(h->ev, body, len);
        /* fall through */
    case 'I':
    case 's':
        if (h && h->kind == PEND_EXECUTE) {
            pop(s);
            complete(r, h->ev, t);
            s->last_done = s->logged_in ? h->ev : NULL;
        }
        break;
    case 'E':
        if (!body || !h)
            break;
        if (h->kind == PEND_QUERY) {
            set_error(h->ev, body, len);
        } else if (h->kind == PEND_EXECUTE) {
            pop(s);
            set_error(h->ev, body, len);
            complete(r, h->ev, t);
            s->last_done = s->logged_in ? h->ev : NULL;
        }
        break;
    default:
        break;
    }
}

struct rec_session *recorder_cancel(struct recorder *r, uint32_t pid, const uint8_t *key,
                                    size_t key_len, int64_t t)
{
    for (struct rec_session *s = r->sessions; s; s = s->next) {
        if (s->ended || !s->logged_in || s->pid != pid || s->key_len != key_len ||
            memcmp(s->key, key, key_len) != 0)
            continue;
        r->st.cancels++;
        struct pend *h = head(s);
        if (h && h->ev && h->ev->st.cancel_us < 0)
            h->ev->st.cancel_us = t > h->ev->t ? t - h->ev->t : 0;
        return s;
    }
    return NULL;
}

static void session_forget(struct rec_session *s)
{
    while (s->stmts) {
        struct rstmt *n = s->stmts->next;
        free(s->stmts->name);
        free(s->stmts->text);
        free(s->stmts->types);
        free(s->stmts);
        s->stmts = n;
    }
    while (s->portals) {
        struct rportal *n = s->portals->next;
        portal_clear(s->portals);
        free(s->portals->name);
        free(s->portals);
        s->portals = n;
    }
}

void recorder_session_failed(struct rec_session *s)
{
    s->failed = 1;
}

void recorder_session_end(struct recorder *r, struct rec_session *s, int64_t t)
{
    if (s->ended)
        return;
    s->ended = 1;
    s->last_done = NULL;
    r->st.sessions_failed += s->failed && s->logged_in;
    for (size_t i = s->q_head; i < s->q_len; i++) {
        r->st.incomplete += s->q[i].ev != NULL;
        rev_free(s->q[i].ev);
    }
    free(s->q);
    s->q = NULL;
    s->q_head = s->q_len = s->q_cap = 0;
    session_forget(s);
    if (!s->logged_in) {
        r->st.refused++;
        rev_free(s->start_ev);
        s->start_ev = NULL;
        return;
    }
    keep(r, rev_new(r, s, CAPTURE_EV_SESSION_END, t));
}

/* ---- the capture ---- */

static int by_time(const void *a, const void *b)
{
    const struct rev *x = *(const struct rev *const *)a, *y = *(const struct rev *const *)b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int write_event(struct recorder *r, struct rev *ev, struct err *e)
{
    if (!r->started) {
        /* The capture starts at its first event (a session's start), as a log's does: no
         * idle wait at a replay's start for the time the proxy listened before the
         * application came. */
        r->started = 1;
        if (ev->t > r->mono_us) {
            r->wall_us += ev->t - r->mono_us;
            r->mono_us = ev->t;
        }
        struct capture_header hd = r->source;
        hd.start_us = r->wall_us;
        hd.time_resolution_us = 0;
        if (capture_writer_begin(r->w, &hd, e) < 0)
            return -1;
    }
    int64_t off = ev->t - r->mono_us;
    if (off < 0)
        off = 0;
    if (ev->kind == CAPTURE_EV_SESSION_START) {
        char log_id[16];
        snprintf(log_id, sizeof log_id, "%u", (unsigned)ev->s->pid);
        ev->s->cap_id = r->next_id++;
        struct capture_session cs = {.id = ev->s->cap_id,
                                     .offset_us = off,
                                     .log_id = log_id,
                                     .user = ev->s->user,
                                     .database = ev->s->database,
                                     .n_startup = ev->s->n_startup,
                                     .startup_names = (const char *const *)ev->s->startup,
                                     .startup_values =
                                         (const char *const *)ev->s->startup + ev->s->n_startup,
                                     .negotiated = ev->s->negotiated,
                                     .negotiated_minor = ev->s->negotiated_minor,
                                     .n_unrecognised = ev->s->n_unrecognised,
                                     .unrecognised = (const char *const *)ev->s->unrecognised};
        return capture_write_session_start(r->w, &cs, e);
    }
    if (ev->kind == CAPTURE_EV_SESSION_END)
        return capture_write_session_end(r->w, ev->s->cap_id, off, e);
    r->st.param_status += (uint64_t)ev->st.n_param_status;
    struct capture_statement st = ev->st;
    st.session = ev->s->cap_id;
    st.offset_us = off;
    return capture_write_statement(r->w, &st, e);
}

/* The earliest time an event not kept yet can still have: a session not logged in yet, a
 * statement still running, the Parse or Bind of an Execute to come; else now. */
static int64_t settled_until(const struct recorder *r, int64_t now)
{
    int64_t until = now;
    for (const struct rec_session *s = r->sessions; s; s = s->next) {
        if (s->ended)
            continue;
        if (s->start_ev && s->start_ev->t < until)
            until = s->start_ev->t;
        if (s->ext_start >= 0 && s->ext_start < until)
            until = s->ext_start;
        if (s->last_done && s->last_done->t < until)
            until = s->last_done->t;
        for (size_t i = s->q_head; i < s->q_len; i++)
            if (s->q[i].ev && s->q[i].ev->t < until)
                until = s->q[i].ev->t;
    }
    return until;
}

static void session_free(struct rec_session *s)
{
    for (size_t i = s->q_head; i < s->q_len; i++)
        rev_free(s->q[i].ev);
    free(s->q);
    session_forget(s);
    rev_free(s->start_ev);
    free(s->user);
    free(s->database);
    for (int i = 0; i < 2 * s->n_startup; i++)
        free(s->startup[i]);
    free(s->startup);
    for (int i = 0; i < s->n_unrecognised; i++)
        free(s->unrecognised[i]);
    free(s->unrecognised);
    free(s);
}

/* The names of the user's types a statement's parameters hold (typenames.h), into ev: -1
 * while they are still being learnt (the statement waits for them). */
static int name_user_types(struct recorder *r, struct rev *ev)
{
    if (!r->type_names || ev->kind != CAPTURE_EV_STATEMENT || ev->st.type_names)
        return 0;
    struct capture_type_name *names;
    int n;
    if (typenames_collect(r->type_names, ev->s->database, ev->st.param_types, ev->st.n_param_types,
                          &names, &n) < 0)
        return -1;
    ev->st.type_names = names;
    ev->st.n_type_names = n;
    return 0;
}

/* Write the kept events before until, in the order of their start, and free the sessions
 * ended and written whole. */
static int write_until(struct recorder *r, int64_t until, struct err *e)
{
    if (r->n_ev > 1)
        qsort(r->ev, r->n_ev, sizeof *r->ev, by_time);
    size_t n = 0;
    int rc = 0;
    while (n < r->n_ev && r->ev[n]->t < until && name_user_types(r, r->ev[n]) == 0) {
        rc = write_event(r, r->ev[n], e);
        if (rc < 0)
            break;
        r->ev[n]->s->queued--;
        rev_free(r->ev[n]);
        n++;
    }
    if (n > 0) {
        memmove(r->ev, r->ev + n, (r->n_ev - n) * sizeof *r->ev);
        r->n_ev -= n;
    }
    for (struct rec_session **ps = &r->sessions; *ps;) {
        struct rec_session *s = *ps;
        if (s->ended && s->queued == 0) {
            *ps = s->next;
            session_free(s);
        } else {
            ps = &s->next;
        }
    }
    return rc;
}

int recorder_flush(struct recorder *r, int64_t now, struct err *e)
{
    if (write_until(r, settled_until(r, now), e) < 0)
        return -1;
    return capture_writer_sync(r->w, e);
}

void recorder_stats(const struct recorder *r, struct record_stats *stats)
{
    *stats = r->st;
    stats->copy_in.kept = 1;
}

int recorder_close(struct recorder *r, const struct capture_header *h, struct record_stats *stats,
                   struct err *e)
{
    for (struct rec_session *s = r->sessions; s; s = s->next)
        recorder_session_end(r, s, s->last_t);
    if (r->type_names) /* (a question still open then leaves its types unnamed) */
        typenames_settle(r->type_names, RECORD_TYPE_NAMES_WAIT_MS);
    int wrote = write_until(r, INT64_MAX, e);
    recorder_stats(r, stats); /* (the settings reported are counted as written) */
    if (wrote < 0)
        return -1;
    struct capture_header hd = *h;
    hd.start_us = r->wall_us;
    hd.time_resolution_us = 0;
    hd.skipped_secret = r->st.skipped_secret;
    hd.skipped_unsupported = r->st.skipped_unsupported;
    memcpy(hd.unsupported, r->st.unsupported, sizeof hd.unsupported);
    hd.copy_in = stats->copy_in;
    hd.portal_fetches = r->st.portal_fetches;
    hd.pipelined = r->st.pipelined;
    hd.same_sync = r->st.same_sync;
    int rc = capture_writer_close(r->w, &hd, e);
    r->w = NULL;
    return rc;
}

void recorder_type_names(struct recorder *r, struct typenames *t)
{
    r->type_names = t;
}

void recorder_free(struct recorder *r)
{
    if (!r)
        return;
    capture_writer_abort(r->w);
    for (size_t i = 0; i < r->n_ev; i++)
        rev_free(r->ev[i]);
    free(r->ev);
    while (r->sessions) {
        struct rec_session *n = r->sessions->next;
        session_free(r->sessions);
        r->sessions = n;
    }
    free(r);
}
