#include "capture/capture.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/mem.h"
#include "base/sqllex.h"
#include "capture/sqltext.h"
#include "os/os.h"

/*
 * Records after the header line, each a type byte then its fields (u: unsigned LEB128,
 * s: u length then bytes; offsets are deltas from the previous record's offset):
 *   'S' session start: u id, u delta, s log_id, s user, s database
 *   'Q' statement:     u session, u delta, byte protocol, byte outcome, s name, s text,
 *                      u n_params, per param u (0 = NULL, else length + 1) then bytes,
 *                      u duration_us + 1 (0 unknown), s sqlstate, s error, u cancel_us + 1
 *   'E' session end:   u id, u delta
 *   'Z' the end:       u n_sessions, u n_statements (a file without it is truncated)
 * and in version 2 (written only when an event needs it, so a log's capture stays version 1):
 *   'T' session start with its startup parameters: 'S''s fields, u n, n times s name, s value
 *   'R' statement with more:  'Q''s fields, then tagged fields, each a tag byte and its value,
 *                             ended by a 0 byte: 'c' u length + bytes (the COPY FROM STDIN's
 *                             rows), 'v' s (the value it returned); an unknown tag is corrupt
 * and in version 3 (written only when a statement has one):
 *   'R''s tag 'i' s: the value it returned, an id a sequence gave (replayed in a later
 *                    statement where a value stands, not anywhere a number does); of
 *                    several rows, each row's in order, a '\n' between them
 *             tag 't' u n, n times u: the parameter type OIDs of its Parse
 *             tag 'b' u n_params, n_params bytes: its parameters' formats (1 binary), when
 *                    one is binary
 *             tag 'r' u n, n bytes: its Bind's result-column formats, when one is binary
 *             tag 'g': no Sync between it and its session's previous Execute
 *             tag 'p' u n, n times s name, s value: the settings the server reported
 *                    changed with it (ParameterStatus after the login)
 *             tag 'y' u n, n times u oid, s schema, s name, byte kind, u inner: the user's
 *                    types its parameters hold, named (capture_type_name)
 *             tag 'k' u n, n times u length: of a statement holding several COPY FROM STDIN,
 *                    each one's part of tag 'c''s rows in order (n >= 2, summing to its length)
 *             tag 'f' u copy, s message: the client ended its COPY FROM STDIN numbered copy
 *                    (from 0, of tag 'k''s parts, 0 without them) with a CopyFail carrying
 *                    message (the server's error ends the statement there); only with tag 'c'
 *   'U' session start with more: 'T''s fields, then tagged fields as 'R''s, ended by a 0
 *       byte: 'n' u newest minor, u n, n times s option (the server's
 *       NegotiateProtocolVersion: the protocol options it did not recognise)
 */
enum {
    REC_SESSION = 'S',
    REC_STATEMENT = 'Q',
    REC_END_SESSION = 'E',
    REC_END = 'Z',
    REC_SESSION_STARTUP = 'T',
    REC_STATEMENT_MORE = 'R',
    REC_SESSION_MORE = 'U',
};
enum {
    MORE_END = 0,
    MORE_COPY = 'c',
    MORE_RETURNED = 'v',
    MORE_RETURNED_ID = 'i',
    MORE_PARAM_TYPES = 't',
    MORE_PARAM_FORMATS = 'b',
    MORE_RESULT_FORMATS = 'r',
    MORE_SAME_SYNC = 'g',
    MORE_PARAM_STATUS = 'p',
    MORE_NEGOTIATE = 'n', /* a session's */
    MORE_TYPE_NAMES = 'y',
    MORE_COPY_PARTS = 'k',
    MORE_COPY_FAIL = 'f',
};

/* The longest string or parameter list a reader accepts: a corrupt length must not make it
 * allocate gigabytes. */
#define MAX_STRING  (256u << 20)
#define MAX_PARAMS  65535u
#define MAX_STARTUP 1024u
#define MAX_HEADER  65536

/* ---- what a capture leaves out or keeps without its data ---- */

const char *const capture_unsupported_names[CAPTURE_UNSUP__COUNT] = {
    "fetch",          "parameters_not_logged", "parameters_unreadable", "out_of_order",
    "parameters_cut", "binary_parameters",     "function_call"};

void capture_count_unsupported(struct capture_unsupported_kind *kinds, enum capture_unsupported k,
                               const char *text)
{
    if (kinds[k].count++ == 0)
        snprintf(kinds[k].example, sizeof kinds[k].example, "%s", text ? text : "");
}

int capture_copy_table_of(const char *text, char *table, size_t size)
{
    const char *s = text;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    if (strncasecmp(s, "copy", 4) != 0)
        return -1;
    s += 4;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t n = 0;
    for (;;) {
        if (*s == '"') {
            for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                if (*s == '"')
                    s++;
                if (n + 1 >= size)
                    return -1;
                table[n++] = *s;
            }
            if (*s != '"')
                return -1;
            s++;
        } else {
            size_t start = n;
            for (;
                 isalnum((unsigned char)*s) || *s == '_' || *s == '$' || (unsigned char)*s >= 0x80;
                 s++) {
                if (n + 1 >= size)
                    return -1;
                table[n++] = (char)tolower((unsigned char)*s);
            }
            if (n == start)
                return -1; /* "COPY (query) TO ...", or no name */
        }
        if (*s != '.')
            break;
        if (n + 1 >= size)
            return -1;
        table[n++] = *s++;
    }
    table[n] = '\0';
    return 0;
}

void capture_count_copy(struct capture_copy_in *c, const char *table)
{
    c->kept = 1;
    for (size_t i = 0; i < c->n_tables; i++) {
        if (strcmp(c->tables[i].table, table) == 0) {
            c->tables[i].count++;
            return;
        }
    }
    if (c->n_tables == CAPTURE_COPY_TABLES || strlen(table) >= sizeof c->tables[0].table) {
        c->other++;
        return;
    }
    struct capture_copy_table *t = &c->tables[c->n_tables++];
    snprintf(t->table, sizeof t->table, "%s", table);
    t->count = 1;
}

void capture_count_copy_of(struct capture_copy_in *c, const char *text)
{
    char table[128];
    if (sqltext_is_copy_from_stdin(text) && capture_copy_table_of(text, table, sizeof table) == 0)
        capture_count_copy(c, table);
}

/* The first COPY ... FROM STDIN among text's statements (its "copy"), or NULL. */
static const char *first_copy_from_stdin(const char *text)
{
    for (const char *s = text; s;) {
        const char *at;
        if (sql_copy_client(s, &at, &s) == SQL_COPY_IN)
            return at;
    }
    return NULL;
}

void capture_count_copy_statement(struct capture_copy_in *c, const struct capture_statement *st)
{
    c->kept = 1;
    const char *copy = sqltext_is_copy_from_stdin(st->text) ? st->text
                       : st->copy_kept                      ? first_copy_from_stdin(st->text)
                                                            : NULL;
    char table[128];
    if (copy && capture_copy_table_of(copy, table, sizeof table) == 0)
        capture_count_copy(c, table);
    c->with_rows += st->copy_kept != 0;
}

/* ---- writer ---- */

struct capture_writer {
    char *path;      /* CAPTURE */
    char *tmp_path;  /* the events, until close (a live writer's: CAPTURE itself) */
    int live;        /* capture_writer_open_live's */
    int live_fd;     /* a live writer's CAPTURE until its header is written, else -1 */
    off_t events_at; /* where the events start in tmp_path */
    gzFile body;
    struct buf rec; /* the record being built */
    int64_t last_offset_us;
    uint64_t n_sessions, n_statements;
    unsigned char *state; /* per session: 1 started, 2 ended */
    size_t state_cap;
    int version; /* the highest version a record written needs */
};

static void put_u(struct buf *b, uint64_t v)
{
    char tmp[10];
    int n = 0;
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        tmp[n++] = (char)(v ? c | 0x80 : c);
    } while (v);
    buf_append(b, tmp, (size_t)n);
}

static void put_s(struct buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u(b, n);
    if (n)
        buf_append(b, s, n);
}

/* n name, value pairs (a session's startup parameters, a statement's settings reported) */
static void put_pairs(struct buf *b, int n, const char *const *names, const char *const *values)
{
    put_u(b, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        put_s(b, names[i]);
        put_s(b, values[i]);
    }
}

/* The delta from the previous event, never negative: a late event takes the previous offset. */
static uint64_t offset_delta(struct capture_writer *w, int64_t offset_us)
{
    if (offset_us < w->last_offset_us)
        offset_us = w->last_offset_us;
    uint64_t d = (uint64_t)(offset_us - w->last_offset_us);
    w->last_offset_us = offset_us;
    return d;
}

static int flush_record(struct capture_writer *w, struct err *e)
{
    if (!w->body)
        return err_set(e, ERR_RUNTIME, "%s: an event before capture_writer_begin", w->path);
    if (w->rec.len && gzwrite(w->body, w->rec.data, (unsigned)w->rec.len) != (int)w->rec.len) {
        int zerr;
        const char *msg = gzerror(w->body, &zerr);
        return err_set(e, ERR_RUNTIME, "%s: write failed: %s", w->tmp_path,
                       zerr == Z_ERRNO ? strerror(errno) : msg);
    }
    buf_reset(&w->rec);
    return 0;
}

struct capture_writer *capture_writer_open(const char *path, struct err *e)
{
    struct capture_writer *w = xcalloc(1, sizeof *w);
    w->path = xstrdup(path);
    w->version = 1;
    w->tmp_path = xasprintf("%s.tmp-XXXXXX", path);
    int fd = os_mkstemp(w->tmp_path);
    if (fd < 0) {
        err_set(e, ERR_INPUT, "%s: cannot create: %s", path, strerror(errno));
        free(w->tmp_path);
        free(w->path);
        free(w);
        return NULL;
    }
    /* Level 1: the events compress about 5x at a fraction of level 6's CPU. */
    w->body = gzdopen(fd, "wb1");
    if (!w->body) {
        close(fd);
        os_unlink(w->tmp_path);
        err_set(e, ERR_RUNTIME, "%s: cannot start compression", path);
        free(w->tmp_path);
        free(w->path);
        free(w);
        return NULL;
    }
    gzbuffer(w->body, 1 << 17);
    buf_init(&w->rec);
    w->live_fd = -1;
    return w;
}

struct capture_writer *capture_writer_open_live(const char *path, struct err *e)
{
    int fd = os_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        err_set(e, ERR_INPUT, "%s: cannot create: %s", path, strerror(errno));
        return NULL;
    }
    struct capture_writer *w = xcalloc(1, sizeof *w);
    w->path = xstrdup(path);
    w->tmp_path = xstrdup(path);
    w->live = 1;
    w->live_fd = fd;
    buf_init(&w->rec);
    return w;
}

static char *header_json(const struct capture_header *h, int open);

int capture_writer_begin(struct capture_writer *w, const struct capture_header *h, struct err *e)
{
    if (w->live_fd < 0)
        return 0;
    int fd = w->live_fd, hfd = dup(fd);
    w->live_fd = -1;
    gzFile hz = hfd >= 0 ? gzdopen(hfd, "wb6") : NULL;
    if (!hz) {
        if (hfd >= 0)
            close(hfd);
        close(fd);
        return err_set(e, ERR_RUNTIME, "%s: cannot start compression", w->path);
    }
    struct capture_header open = *h;
    open.version = CAPTURE_VERSION;
    char *text = header_json(&open, 1);
    size_t n = strlen(text);
    int wrote = gzwrite(hz, text, (unsigned)n) == (int)n && gzputc(hz, '\n') == '\n';
    free(text);
    if (gzclose(hz) != Z_OK || !wrote) {
        close(fd);
        return err_set(e, ERR_RUNTIME, "%s: write failed", w->path);
    }
    w->events_at = lseek(fd, 0, SEEK_CUR);
    /* Level 1, as capture_writer_open's. */
    w->body = w->events_at >= 0 ? gzdopen(fd, "wb1") : NULL;
    if (!w->body) {
        close(fd);
        return err_set(e, ERR_RUNTIME, "%s: cannot start compression", w->path);
    }
    gzbuffer(w->body, 1 << 17);
    return 0;
}

int capture_writer_sync(struct capture_writer *w, struct err *e)
{
    if (!w->live || !w->body)
        return 0;
    if (gzflush(w->body, Z_SYNC_FLUSH) != Z_OK)
        return err_set(e, ERR_RUNTIME, "%s: write failed: %s", w->path, strerror(errno));
    return 0;
}

/* Per-session states (0: not started), grown to hold id; its slot. */
static unsigned char *state_slot(unsigned char **state, size_t *cap, uint32_t id)
{
    if (id >= *cap) {
        size_t n = *cap ? *cap : 1024;
        while (n <= id)
            n *= 2;
        *state = xrealloc(*state, n);
        memset(*state + *cap, 0, n - *cap);
        *cap = n;
    }
    return &(*state)[id];
}

static unsigned char *session_state(struct capture_writer *w, uint32_t id)
{
    return state_slot(&w->state, &w->state_cap, id);
}

int capture_write_session_start(struct capture_writer *w, const struct capture_session *s,
                                struct err *e)
{
    if (s->id != w->n_sessions)
        return err_set(e, ERR_RUNTIME, "capture: session %u started out of order (expected %llu)",
                       s->id, (unsigned long long)w->n_sessions);
    *session_state(w, s->id) = 1;
    w->n_sessions++;
    int startup = s->n_startup > 0 || s->negotiated;
    buf_putc(&w->rec, s->negotiated ? REC_SESSION_MORE
                      : startup     ? REC_SESSION_STARTUP
                                    : REC_SESSION);
    put_u(&w->rec, s->id);
    put_u(&w->rec, offset_delta(w, s->offset_us));
    put_s(&w->rec, s->log_id);
    put_s(&w->rec, s->user);
    put_s(&w->rec, s->database);
    if (startup) {
        if (w->version < 2) /* a version 3 record written before stays readable */
            w->version = 2;
        put_pairs(&w->rec, s->n_startup, s->startup_names, s->startup_values);
    }
    if (s->negotiated) {
        w->version = 3;
        buf_putc(&w->rec, MORE_NEGOTIATE);
        put_u(&w->rec, (uint64_t)s->negotiated_minor);
        put_u(&w->rec, (uint64_t)s->n_unrecognised);
        for (int i = 0; i < s->n_unrecognised; i++)
            put_s(&w->rec, s->unrecognised[i]);
        buf_putc(&w->rec, MORE_END);
    }
    return flush_record(w, e);
}

static int check_open_session(struct capture_writer *w, uint32_t id, struct err *e)
{
    if (id >= w->n_sessions || *session_state(w, id) != 1)
        return err_set(e, ERR_RUNTIME, "capture: session %u is not open", id);
    return 0;
}

/* Whether one of n formats (NULL: none) is binary. */
static int any_binary(const int *formats, int n)
{
    for (int i = 0; formats && i < n; i++)
        if (formats[i] == 1)
            return 1;
    return 0;
}

static void put_formats(struct buf *b, char tag, const int *formats, int n)
{
    buf_putc(b, tag);
    put_u(b, (uint64_t)n);
    for (int i = 0; i < n; i++)
        buf_putc(b, (char)(formats[i] == 1));
}

static void put_type_names(struct buf *b, const struct capture_type_name *t, int n)
{
    buf_putc(b, MORE_TYPE_NAMES);
    put_u(b, (uint64_t)n);
    for (int i = 0; i < n; i++) {
        put_u(b, t[i].oid);
        put_s(b, t[i].schema);
        put_s(b, t[i].name);
        buf_putc(b, t[i].kind);
        put_u(b, t[i].inner);
    }
}

int capture_write_statement(struct capture_writer *w, const struct capture_statement *st,
                            struct err *e)
{
    if (check_open_session(w, st->session, e) < 0)
        return -1;
    w->n_statements++;
    int binary_params = any_binary(st->param_formats, st->n_params);
    int binary_results = any_binary(st->result_formats, st->n_result_formats);
    int copy_parts = st->copy_kept && st->n_copy_parts > 1;
    int copy_fail = st->copy_kept && st->copy_fail;
    int v3 = st->n_param_types > 0 || binary_params || binary_results || st->same_sync ||
             st->n_type_names > 0 || st->n_param_status > 0 || copy_parts || copy_fail;
    int more = st->copy_kept || st->returned || v3;
    buf_putc(&w->rec, more ? REC_STATEMENT_MORE : REC_STATEMENT);
    put_u(&w->rec, st->session);
    put_u(&w->rec, offset_delta(w, st->offset_us));
    buf_putc(&w->rec, (char)st->protocol);
    buf_putc(&w->rec, (char)st->outcome);
    put_s(&w->rec, st->name);
    put_s(&w->rec, st->text);
    put_u(&w->rec, (uint64_t)(st->n_params > 0 ? st->n_params : 0));
    for (int i = 0; i < st->n_params; i++) {
        const char *p = st->params[i];
        if (!p) {
            put_u(&w->rec, 0);
            continue;
        }
        size_t n = st->param_lengths ? (size_t)st->param_lengths[i] : strlen(p);
        put_u(&w->rec, n + 1);
        buf_append(&w->rec, p, n);
    }
    put_u(&w->rec, st->duration_us < 0 ? 0 : (uint64_t)st->duration_us + 1);
    put_s(&w->rec, st->sqlstate);
    put_s(&w->rec, st->error);
    put_u(&w->rec, st->cancel_us < 0 ? 0 : (uint64_t)st->cancel_us + 1);
    if (more) {
        if (w->version < 2)
            w->version = 2;
        if (st->copy_kept) {
            buf_putc(&w->rec, MORE_COPY);
            put_u(&w->rec, (uint64_t)st->copy_len);
            if (st->copy_len)
                buf_append(&w->rec, (const char *)st->copy_data, st->copy_len);
        }
        if (st->returned) {
            buf_putc(&w->rec, st->returned_id ? MORE_RETURNED_ID : MORE_RETURNED);
            put_s(&w->rec, st->returned);
            if (st->returned_id)
                w->version = 3;
        }
        if (st->n_param_types > 0) {
            buf_putc(&w->rec, MORE_PARAM_TYPES);
            put_u(&w->rec, (uint64_t)st->n_param_types);
            for (int i = 0; i < st->n_param_types; i++)
                put_u(&w->rec, st->param_types[i]);
        }
        if (binary_params)
            put_formats(&w->rec, MORE_PARAM_FORMATS, st->param_formats, st->n_params);
        if (binary_results)
            put_formats(&w->rec, MORE_RESULT_FORMATS, st->result_formats, st->n_result_formats);
        if (st->same_sync)
            buf_putc(&w->rec, MORE_SAME_SYNC);
        if (st->n_param_status > 0) {
            buf_putc(&w->rec, MORE_PARAM_STATUS);
            put_pairs(&w->rec, st->n_param_status, st->param_status_names, st->param_status_values);
        }
        if (st->n_type_names > 0)
            put_type_names(&w->rec, st->type_names, st->n_type_names);
        if (copy_parts) {
            buf_putc(&w->rec, MORE_COPY_PARTS);
            put_u(&w->rec, (uint64_t)st->n_copy_parts);
            for (int i = 0; i < st->n_copy_parts; i++)
                put_u(&w->rec, (uint64_t)st->copy_parts[i]);
        }
        if (copy_fail) {
            buf_putc(&w->rec, MORE_COPY_FAIL);
            put_u(&w->rec, (uint64_t)st->copy_fail_at);
            put_s(&w->rec, st->copy_fail);
        }
        if (v3)
            w->version = 3;
        buf_putc(&w->rec, MORE_END);
    }
    return flush_record(w, e);
}

int capture_write_session_end(struct capture_writer *w, uint32_t session, int64_t offset_us,
                              struct err *e)
{
    if (check_open_session(w, session, e) < 0)
        return -1;
    *session_state(w, session) = 2;
    buf_putc(&w->rec, REC_END_SESSION);
    put_u(&w->rec, session);
    put_u(&w->rec, offset_delta(w, offset_us));
    return flush_record(w, e);
}

static void free_writer(struct capture_writer *w)
{
    buf_free(&w->rec);
    free(w->state);
    free(w->tmp_path);
    free(w->path);
    free(w);
}

void capture_writer_abort(struct capture_writer *w)
{
    if (!w)
        return;
    if (w->body)
        gzclose(w->body);
    if (w->live_fd >= 0)
        close(w->live_fd);
    if (!w->live)
        os_unlink(w->tmp_path); /* a live capture stays: whole up to its last event */
    free_writer(w);
}

/* open: a live capture's first header, without the counts (capture_reader_open counts). */
static char *header_json(const struct capture_header *h, int open)
{
    char start[64] = "";
    time_t secs = (time_t)(h->start_us / 1000000);
    struct tm tm;
    if (gmtime_r(&secs, &tm)) {
        size_t n = strftime(start, sizeof start, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(start + n, sizeof start - n, ".%06lldZ", (long long)(h->start_us % 1000000));
    }
    json_t *o = json_object();
    json_object_set_new(o, "format", json_string(CAPTURE_FORMAT));
    /* A live capture's first header cannot know which records will come: the newest. */
    json_object_set_new(o, "version", json_integer(h->version ? h->version : CAPTURE_VERSION));
    if (open)
        json_object_set_new(o, "open", json_true());
    json_t *src = json_object();
    json_object_set_new(src, "system_identifier", json_string(h->system_identifier));
    json_object_set_new(src, "address", json_string(h->address));
    json_object_set_new(src, "port", json_integer(h->port));
    json_object_set_new(o, "source", src);
    json_object_set_new(o, "start_us", json_integer(h->start_us));
    json_object_set_new(o, "start", json_string(start));
    json_object_set_new(o, "duration_us", json_integer(h->duration_us));
    json_object_set_new(o, "time_resolution_us", json_integer(h->time_resolution_us));
    json_object_set_new(o, "sessions", json_integer((json_int_t)h->n_sessions));
    json_object_set_new(o, "statements", json_integer((json_int_t)h->n_statements));
    json_t *sk = json_object();
    json_object_set_new(sk, "copy", json_integer((json_int_t)h->skipped_copy));
    json_object_set_new(sk, "secret", json_integer((json_int_t)h->skipped_secret));
    json_object_set_new(sk, "unsupported", json_integer((json_int_t)h->skipped_unsupported));
    json_t *kinds = json_object();
    for (int k = 0; k < CAPTURE_UNSUP__COUNT; k++) {
        if (!h->unsupported[k].count)
            continue;
        json_t *kind = json_object();
        json_object_set_new(kind, "count", json_integer((json_int_t)h->unsupported[k].count));
        json_object_set_new(kind, "example", json_string(h->unsupported[k].example));
        json_object_set_new(kinds, capture_unsupported_names[k], kind);
    }
    json_object_set_new(sk, "unsupported_kinds", kinds);
    json_object_set_new(o, "skipped", sk);
    json_object_set_new(o, "portal_fetches", json_integer((json_int_t)h->portal_fetches));
    if (h->pipelined)
        json_object_set_new(o, "pipelined", json_integer((json_int_t)h->pipelined));
    if (h->same_sync)
        json_object_set_new(o, "same_sync", json_integer((json_int_t)h->same_sync));
    if (h->copy_in.kept) {
        json_t *ci = json_object(), *tables = json_object();
        for (size_t i = 0; i < h->copy_in.n_tables; i++)
            json_object_set_new(tables, h->copy_in.tables[i].table,
                                json_integer((json_int_t)h->copy_in.tables[i].count));
        json_object_set_new(ci, "tables", tables);
        json_object_set_new(ci, "other", json_integer((json_int_t)h->copy_in.other));
        if (h->copy_in.with_rows)
            json_object_set_new(ci, "with_rows", json_integer((json_int_t)h->copy_in.with_rows));
        json_object_set_new(o, "copy_from_stdin", ci);
    }
    if (h->missing_files) {
        json_t *m = json_object();
        json_object_set_new(m, "files", json_integer((json_int_t)h->missing_files));
        json_object_set_new(m, "bytes", json_integer((json_int_t)h->missing_bytes));
        json_object_set_new(o, "missing", m);
    }
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

/* CAPTURE = a gzip member with the header line, then the events' members byte for byte
 * (gzip readers read concatenated members as one stream). */
static int assemble(struct capture_writer *w, const char *header, struct err *e)
{
    char *final_tmp = xasprintf("%s.tmp-XXXXXX", w->path);
    int rc = -1;
    int fd = os_mkstemp(final_tmp), in = -1;
    if (fd < 0) {
        err_set(e, ERR_RUNTIME, "%s: cannot create: %s", w->path, strerror(errno));
        goto out;
    }
    int hfd = dup(fd);
    gzFile hz = hfd >= 0 ? gzdopen(hfd, "wb6") : NULL;
    if (!hz) {
        if (hfd >= 0)
            close(hfd);
        err_set(e, ERR_RUNTIME, "%s: cannot start compression", w->path);
        goto out;
    }
    size_t n = strlen(header);
    int wrote = gzwrite(hz, header, (unsigned)n) == (int)n && gzputc(hz, '\n') == '\n';
    if (gzclose(hz) != Z_OK || !wrote) {
        err_set(e, ERR_RUNTIME, "%s: write failed", w->path);
        goto out;
    }
    in = os_open(w->tmp_path, O_RDONLY, 0);
    if (in < 0 || lseek(fd, 0, SEEK_END) < 0 || lseek(in, w->events_at, SEEK_SET) < 0) {
        err_set(e, ERR_RUNTIME, "%s: %s", w->tmp_path, strerror(errno));
        goto out;
    }
    char chunk[1 << 16];
    ssize_t got;
    while ((got = read(in, chunk, sizeof chunk)) > 0) {
        for (ssize_t off = 0; off < got;) {
            ssize_t put = write(fd, chunk + off, (size_t)(got - off));
            if (put < 0) {
                err_set(e, ERR_RUNTIME, "%s: write failed: %s", w->path, strerror(errno));
                goto out;
            }
            off += put;
        }
    }
    /* No fsync: a capture is made again from its log at will, and one cut short by a crash
     * is refused by the reader (no end record, counts that differ), never read short. */
    if (got < 0) {
        err_set(e, ERR_RUNTIME, "%s: %s", w->path, strerror(errno));
        goto out;
    }
    if (close(fd) < 0 || os_replace(final_tmp, w->path) < 0) {
        fd = -1;
        err_set(e, ERR_RUNTIME, "%s: %s", w->path, strerror(errno));
        goto out;
    }
    fd = -1;
    rc = 0;
out:
    if (in >= 0)
        close(in);
    if (fd >= 0)
        close(fd);
    if (rc < 0)
        os_unlink(final_tmp);
    free(final_tmp);
    return rc;
}

int capture_writer_close(struct capture_writer *w, const struct capture_header *h, struct err *e)
{
    if (capture_writer_begin(w, h, e) < 0) {
        free_writer(w);
        return -1;
    }
    buf_putc(&w->rec, REC_END);
    put_u(&w->rec, w->n_sessions);
    put_u(&w->rec, w->n_statements);
    int rc = flush_record(w, e);
    int zrc = gzclose(w->body);
    w->body = NULL;
    if (rc == 0 && zrc != Z_OK)
        rc = err_set(e, ERR_RUNTIME, "%s: write failed", w->tmp_path);
    if (rc == 0) {
        struct capture_header full = *h;
        full.version = w->version;
        full.duration_us = w->last_offset_us;
        full.n_sessions = w->n_sessions;
        full.n_statements = w->n_statements;
        char *text = header_json(&full, 0);
        rc = assemble(w, text, e);
        free(text);
    }
    if (!w->live)
        os_unlink(w->tmp_path);
    free_writer(w);
    return rc;
}

/* ---- reader ---- */

/* Strings of an event: where each starts in the reader's strings, then pointers to them once
 * the event's strings stop moving. */
struct str_list {
    const char **s;
    size_t *at;
    size_t cap;
};

struct capture_reader {
    char *path;
    gzFile in;
    struct capture_header h;
    uint64_t record; /* records read, for messages */
    int64_t offset_us;
    uint64_t n_sessions, n_statements;
    unsigned char *state; /* per session: 1 started, 2 ended */
    size_t state_cap;
    int done;
    /* A live capture not closed (h.cut): its whole records, counted at open; then the
     * sessions still open are ended, from next_end on. */
    uint64_t live_records;
    uint32_t next_end;
    struct buf strings; /* this event's strings, NUL-separated */
    const char **params;
    size_t *param_at; /* where each parameter starts in strings, (size_t)-1 for NULL */
    int *param_len;   /* its length, -1 for NULL */
    size_t params_cap;
    /* version 3's: the parameters' types and formats, the results' formats */
    uint32_t *types;
    size_t types_cap;
    int *param_formats, *result_formats;
    size_t result_formats_cap;
    struct str_list startup; /* a session's startup parameters, names then values */
    struct str_list options; /* its NegotiateProtocolVersion's options */
    struct str_list status;  /* a statement's settings reported, names then values */
    /* version 3's user types named, their schemas' and names' places in strings */
    struct capture_type_name *type_names;
    size_t *type_name_at;
    size_t type_names_cap;
    size_t *copy_parts; /* version 3's parts of a statement's COPY rows */
    size_t copy_parts_cap;
};

static int corrupt(struct capture_reader *r, struct err *e, const char *what)
{
    return err_set(e, ERR_INPUT, "%s: record %llu: %s", r->path, (unsigned long long)r->record + 1,
                   what);
}

static int get_u(struct capture_reader *r, uint64_t *v, struct err *e)
{
    uint64_t out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        int c = gzgetc(r->in);
        if (c < 0)
            return corrupt(r, e, "truncated");
        out |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = out;
            return 0;
        }
    }
    return corrupt(r, e, "bad number");
}

/* Read n bytes into r->strings and NUL-terminate them; *at is where they start. */
static int get_bytes(struct capture_reader *r, uint64_t n, size_t *at, struct err *e)
{
    if (n > MAX_STRING)
        return corrupt(r, e, "string too long");
    *at = r->strings.len;
    size_t need = r->strings.len + (size_t)n + 1;
    if (need > r->strings.cap) {
        size_t cap = r->strings.cap * 2 > need ? r->strings.cap * 2 : need;
        r->strings.data = xrealloc(r->strings.data, cap);
        r->strings.cap = cap;
    }
    if (n && gzread(r->in, r->strings.data + r->strings.len, (unsigned)n) != (int)n)
        return corrupt(r, e, "truncated");
    r->strings.len += (size_t)n;
    r->strings.data[r->strings.len++] = '\0';
    return 0;
}

static int get_s(struct capture_reader *r, size_t *at, struct err *e)
{
    uint64_t n;
    if (get_u(r, &n, e) < 0)
        return -1;
    return get_bytes(r, n, at, e);
}

static int get_offset(struct capture_reader *r, int64_t *offset_us, struct err *e)
{
    uint64_t d;
    if (get_u(r, &d, e) < 0)
        return -1;
    if (d > (uint64_t)INT64_MAX - (uint64_t)r->offset_us)
        return corrupt(r, e, "offset out of range");
    r->offset_us += (int64_t)d;
    *offset_us = r->offset_us;
    return 0;
}

static unsigned char state_of(const struct capture_reader *r, uint64_t id)
{
    return id < r->state_cap ? r->state[id] : 0;
}

static void set_state(struct capture_reader *r, uint32_t id, unsigned char state)
{
    *state_slot(&r->state, &r->state_cap, id) = state;
}

static int get_session_id(struct capture_reader *r, uint32_t *id, int want, struct err *e)
{
    uint64_t v;
    if (get_u(r, &v, e) < 0)
        return -1;
    if (v >= r->h.n_sessions || state_of(r, v) != want)
        return corrupt(r, e,
                       want == 0 ? "session started twice or out of range"
                                 : "event of a session not open");
    *id = (uint32_t)v;
    return 0;
}

/* u n, then n strings (pairs: n name, value pairs, names then values in l) into l; *count n.
 * too_many: the message when n is over MAX_STARTUP. */
static int get_strings(struct capture_reader *r, struct str_list *l, int pairs, int *count,
                       const char *too_many, struct err *e)
{
    uint64_t n;
    if (get_u(r, &n, e) < 0)
        return -1;
    if (n > MAX_STARTUP)
        return corrupt(r, e, too_many);
    size_t need = (pairs ? 2 : 1) * (size_t)n;
    if (need > l->cap) {
        l->cap = need;
        l->s = xrealloc(l->s, l->cap * sizeof *l->s);
        l->at = xrealloc(l->at, l->cap * sizeof *l->at);
    }
    for (uint64_t i = 0; i < n; i++)
        if (get_s(r, &l->at[i], e) < 0 || (pairs && get_s(r, &l->at[n + i], e) < 0))
            return -1;
    *count = (int)n;
    return 0;
}

/* l's first count strings as pointers into the event's strings. */
static const char *const *strings_of(const struct capture_reader *r, struct str_list *l,
                                     size_t count)
{
    for (size_t i = 0; i < count; i++)
        l->s[i] = r->strings.data + l->at[i];
    return l->s;
}

static void str_list_free(struct str_list *l)
{
    free(l->s);
    free(l->at);
}

/* A 'U' record's tagged fields, after 'T''s. */
static int read_session_more(struct capture_reader *r, struct capture_session *s, struct err *e)
{
    for (;;) {
        int tag = gzgetc(r->in);
        if (tag == MORE_END)
            return 0;
        if (tag != MORE_NEGOTIATE || s->negotiated)
            return corrupt(r, e, tag < 0 ? "truncated" : "bad session field");
        uint64_t minor;
        if (get_u(r, &minor, e) < 0)
            return -1;
        if (minor > INT_MAX)
            return corrupt(r, e, "bad protocol version");
        s->negotiated = 1;
        s->negotiated_minor = (int)minor;
        if (get_strings(r, &r->options, 0, &s->n_unrecognised, "too many protocol options", e) < 0)
            return -1;
    }
}

/* startup: a 'T' record (its startup parameters after 'S''s fields); more: a 'U' record. */
static int read_session(struct capture_reader *r, struct capture_event *ev, int startup, int more,
                        struct err *e)
{
    struct capture_session *s = &ev->session;
    size_t log_id, user, db;
    if (get_session_id(r, &s->id, 0, e) < 0)
        return -1;
    if (s->id != r->n_sessions)
        return corrupt(r, e, "session out of order");
    if (get_offset(r, &s->offset_us, e) < 0 || get_s(r, &log_id, e) < 0 || get_s(r, &user, e) < 0 ||
        get_s(r, &db, e) < 0 ||
        (startup &&
         get_strings(r, &r->startup, 1, &s->n_startup, "too many startup parameters", e) < 0) ||
        (more && read_session_more(r, s, e) < 0))
        return -1;
    set_state(r, s->id, 1);
    r->n_sessions++;
    s->log_id = r->strings.data + log_id;
    s->user = r->strings.data + user;
    s->database = r->strings.data + db;
    s->startup_names = strings_of(r, &r->startup, 2 * (size_t)s->n_startup);
    s->startup_values = s->startup_names ? s->startup_names + s->n_startup : NULL;
    if (s->negotiated)
        s->unrecognised = strings_of(r, &r->options, (size_t)s->n_unrecognised);
    return 0;
}

static int read_params(struct capture_reader *r, struct capture_statement *st, struct err *e)
{
    uint64_t n;
    if (get_u(r, &n, e) < 0)
        return -1;
    if (n > MAX_PARAMS)
        return corrupt(r, e, "too many parameters");
    if (n > r->params_cap) {
        r->params_cap = (size_t)n;
        r->params = xrealloc(r->params, r->params_cap * sizeof *r->params);
        r->param_at = xrealloc(r->param_at, r->params_cap * sizeof *r->param_at);
        r->param_len = xrealloc(r->param_len, r->params_cap * sizeof *r->param_len);
        r->param_formats = xrealloc(r->param_formats, r->params_cap * sizeof *r->param_formats);
    }
    size_t *at = r->param_at;
    st->n_params = (int)n;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t len;
        if (get_u(r, &len, e) < 0)
            return -1;
        r->param_len[i] = len == 0 || len - 1 > INT_MAX ? -1 : (int)(len - 1);
        if (len == 0) {
            at[i] = (size_t)-1;
            continue;
        }
        if (get_bytes(r, len - 1, &at[i], e) < 0)
            return -1;
    }
    return 0;
}

/* n formats (bytes 0 or 1) into formats. */
static int get_formats(struct capture_reader *r, int *formats, uint64_t n, struct err *e)
{
    for (uint64_t i = 0; i < n; i++) {
        int f = gzgetc(r->in);
        if (f < 0)
            return corrupt(r, e, "truncated");
        if (f > 1)
            return corrupt(r, e, "bad format");
        formats[i] = f;
    }
    return 0;
}

/* Version 3's parameter types ('t'), parameter formats ('b'), result formats ('r') of st. */
static int read_forms(struct capture_reader *r, int tag, struct capture_statement *st,
                      struct err *e)
{
    uint64_t n;
    if (get_u(r, &n, e) < 0)
        return -1;
    if (n > MAX_PARAMS)
        return corrupt(r, e, "too many parameters");
    if (tag == MORE_PARAM_FORMATS) {
        if (n != (uint64_t)st->n_params || st->param_formats)
            return corrupt(r, e, "bad parameter formats");
        st->param_formats = r->param_formats;
        return get_formats(r, r->param_formats, n, e);
    }
    if (tag == MORE_RESULT_FORMATS) {
        if (st->result_formats || n == 0)
            return corrupt(r, e, "bad result formats");
        if (n > r->result_formats_cap) {
            r->result_formats_cap = (size_t)n;
            r->result_formats =
                xrealloc(r->result_formats, r->result_formats_cap * sizeof *r->result_formats);
        }
        st->n_result_formats = (int)n;
        st->result_formats = r->result_formats;
        return get_formats(r, r->result_formats, n, e);
    }
    if (st->param_types || n == 0)
        return corrupt(r, e, "bad parameter types");
    if (n > r->types_cap) {
        r->types_cap = (size_t)n;
        r->types = xrealloc(r->types, r->types_cap * sizeof *r->types);
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t oid;
        if (get_u(r, &oid, e) < 0)
            return -1;
        if (oid > UINT32_MAX)
            return corrupt(r, e, "bad parameter type");
        r->types[i] = (uint32_t)oid;
    }
    st->n_param_types = (int)n;
    st->param_types = r->types;
    return 0;
}

/* Version 3's user types named ('y') of st; their strings' places in r->type_name_at until
 * the strings stop moving (type_names_resolve). */
static int read_type_names(struct capture_reader *r, struct capture_statement *st, struct err *e)
{
    uint64_t n;
    if (st->type_names || get_u(r, &n, e) < 0)
        return st->type_names ? corrupt(r, e, "bad type names") : -1;
    if (n == 0 || n > MAX_PARAMS)
        return corrupt(r, e, "bad type names");
    if (n > r->type_names_cap) {
        r->type_names_cap = (size_t)n;
        r->type_names = xrealloc(r->type_names, n * sizeof *r->type_names);
        r->type_name_at = xrealloc(r->type_name_at, 2 * n * sizeof *r->type_name_at);
    }
    for (uint64_t i = 0; i < n; i++) {
        struct capture_type_name *t = &r->type_names[i];
        uint64_t oid, inner;
        int kind;
        if (get_u(r, &oid, e) < 0 || get_s(r, &r->type_name_at[2 * i], e) < 0 ||
            get_s(r, &r->type_name_at[2 * i + 1], e) < 0)
            return -1;
        if ((kind = gzgetc(r->in)) < 0 || get_u(r, &inner, e) < 0)
            return kind < 0 ? corrupt(r, e, "truncated") : -1;
        if (oid > UINT32_MAX || inner > UINT32_MAX ||
            (kind != 'a' && kind != 'c' && kind != 'd' && kind != 'o'))
            return corrupt(r, e, "bad type name");
        *t = (struct capture_type_name){
            .oid = (uint32_t)oid, .kind = (char)kind, .inner = (uint32_t)inner};
    }
    st->n_type_names = (int)n;
    st->type_names = r->type_names;
    return 0;
}

/* Version 3's parts of st's COPY rows ('k'), checked against their length once it is read. */
static int read_copy_parts(struct capture_reader *r, struct capture_statement *st, struct err *e)
{
    uint64_t n;
    if (st->copy_parts || get_u(r, &n, e) < 0)
        return st->copy_parts ? corrupt(r, e, "bad COPY parts") : -1;
    if (n < 2 || n > MAX_PARAMS)
        return corrupt(r, e, "bad COPY parts");
    if (n > r->copy_parts_cap) {
        r->copy_parts_cap = (size_t)n;
        r->copy_parts = xrealloc(r->copy_parts, n * sizeof *r->copy_parts);
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t len;
        if (get_u(r, &len, e) < 0)
            return -1;
        if (len > MAX_STRING)
            return corrupt(r, e, "bad COPY parts");
        r->copy_parts[i] = (size_t)len;
    }
    st->n_copy_parts = (int)n;
    st->copy_parts = r->copy_parts;
    return 0;
}

static void type_names_resolve(struct capture_reader *r, struct capture_statement *st)
{
    for (int i = 0; i < st->n_type_names; i++) {
        r->type_names[i].schema = r->strings.data + r->type_name_at[2 * i];
        r->type_names[i].name = r->strings.data + r->type_name_at[2 * i + 1];
    }
}

/* An 'R' record's tagged fields: positions into r->strings (copy_at, returned_at: (size_t)-1
 * when absent), the rest into st. */
static int read_more(struct capture_reader *r, struct capture_statement *st, size_t *copy_at,
                     uint64_t *copy_len, size_t *returned_at, size_t *fail_at, struct err *e)
{
    for (;;) {
        int tag = gzgetc(r->in);
        if (tag == MORE_END)
            return 0;
        if (tag == MORE_COPY && *copy_at == (size_t)-1) {
            if (get_u(r, copy_len, e) < 0 || get_bytes(r, *copy_len, copy_at, e) < 0)
                return -1;
        } else if ((tag == MORE_RETURNED || (tag == MORE_RETURNED_ID && r->h.version >= 3)) &&
                   *returned_at == (size_t)-1) {
            if (get_s(r, returned_at, e) < 0)
                return -1;
            st->returned_id = tag == MORE_RETURNED_ID;
        } else if (tag == MORE_SAME_SYNC && r->h.version >= 3 && !st->same_sync) {
            st->same_sync = 1;
        } else if (tag == MORE_PARAM_STATUS && r->h.version >= 3 && !st->n_param_status) {
            if (get_strings(r, &r->status, 1, &st->n_param_status, "too many settings reported",
                            e) < 0)
                return -1;
        } else if ((tag == MORE_PARAM_TYPES || tag == MORE_PARAM_FORMATS ||
                    tag == MORE_RESULT_FORMATS) &&
                   r->h.version >= 3) {
            if (read_forms(r, tag, st, e) < 0)
                return -1;
        } else if (tag == MORE_TYPE_NAMES && r->h.version >= 3) {
            if (read_type_names(r, st, e) < 0)
                return -1;
        } else if (tag == MORE_COPY_PARTS && r->h.version >= 3) {
            if (read_copy_parts(r, st, e) < 0)
                return -1;
        } else if (tag == MORE_COPY_FAIL && r->h.version >= 3 && *fail_at == (size_t)-1) {
            uint64_t copy;
            if (get_u(r, &copy, e) < 0 || get_s(r, fail_at, e) < 0)
                return -1;
            if (copy > MAX_PARAMS)
                return corrupt(r, e, "bad COPY failed");
            st->copy_fail_at = (int)copy;
        } else {
            return corrupt(r, e, tag < 0 ? "truncated" : "bad statement field");
        }
    }
}

static int read_statement(struct capture_reader *r, struct capture_event *ev, int more,
                          struct err *e)
{
    struct capture_statement *st = &ev->statement;
    memset(st, 0, sizeof *st);
    if (get_session_id(r, &st->session, 1, e) < 0 || get_offset(r, &st->offset_us, e) < 0)
        return -1;
    int proto = gzgetc(r->in), outcome = gzgetc(r->in);
    if (proto < 0 || outcome < 0)
        return corrupt(r, e, "truncated");
    if (proto > CAPTURE_EXTENDED_UNNAMED || outcome > CAPTURE_OUTCOME_ERROR)
        return corrupt(r, e, "bad protocol or outcome");
    st->protocol = (enum capture_protocol)proto;
    st->outcome = (enum capture_outcome)outcome;
    size_t name, text, sqlstate, error, copy_at = (size_t)-1, returned_at = (size_t)-1,
                                        fail_at = (size_t)-1;
    uint64_t duration, cancel, copy_len = 0;
    /* Positions, not pointers, until the strings stop moving. */
    if (get_s(r, &name, e) < 0 || get_s(r, &text, e) < 0 || read_params(r, st, e) < 0 ||
        get_u(r, &duration, e) < 0 || get_s(r, &sqlstate, e) < 0 || get_s(r, &error, e) < 0 ||
        get_u(r, &cancel, e) < 0 ||
        (more && read_more(r, st, &copy_at, &copy_len, &returned_at, &fail_at, e) < 0))
        return -1;
    if (strlen(r->strings.data + sqlstate) > 5)
        return corrupt(r, e, "bad SQLSTATE");
    if (duration > (uint64_t)INT64_MAX || cancel > (uint64_t)INT64_MAX)
        return corrupt(r, e, "duration out of range");
    st->duration_us = (int64_t)duration - 1;
    st->cancel_us = (int64_t)cancel - 1;
    strcpy(st->sqlstate, r->strings.data + sqlstate);
    st->name = r->strings.data + name;
    st->text = r->strings.data + text;
    st->error = r->strings.data + error;
    for (int i = 0; i < st->n_params; i++)
        r->params[i] = r->param_at[i] == (size_t)-1 ? NULL : r->strings.data + r->param_at[i];
    st->params = r->params;
    st->param_lengths = r->param_len;
    type_names_resolve(r, st);
    if (returned_at != (size_t)-1)
        st->returned = r->strings.data + returned_at;
    if (st->n_param_status) {
        st->param_status_names = strings_of(r, &r->status, 2 * (size_t)st->n_param_status);
        st->param_status_values = st->param_status_names + st->n_param_status;
    }
    if (copy_at != (size_t)-1) {
        st->copy_kept = 1;
        st->copy_data = (const uint8_t *)r->strings.data + copy_at;
        st->copy_len = (size_t)copy_len;
    }
    uint64_t parts_len = 0;
    for (int i = 0; i < st->n_copy_parts; i++)
        parts_len += st->copy_parts[i];
    if (st->n_copy_parts && (!st->copy_kept || parts_len != st->copy_len))
        return corrupt(r, e, "COPY parts differ from the rows");
    if (fail_at != (size_t)-1) {
        if (!st->copy_kept || st->copy_fail_at >= (st->n_copy_parts ? st->n_copy_parts : 1))
            return corrupt(r, e, "bad COPY failed");
        st->copy_fail = r->strings.data + fail_at;
    }
    r->n_statements++;
    return 0;
}

static int read_end(struct capture_reader *r, struct err *e)
{
    uint64_t sessions, statements;
    if (get_u(r, &sessions, e) < 0 || get_u(r, &statements, e) < 0)
        return -1;
    if (sessions != r->n_sessions || statements != r->n_statements || sessions != r->h.n_sessions ||
        statements != r->h.n_statements)
        return corrupt(r, e, "counts differ from the header");
    if (gzgetc(r->in) >= 0)
        return corrupt(r, e, "data after the end");
    r->done = 1;
    return 0;
}

/* A cut capture's end: each session still open ends at the last event's offset. */
static int end_cut(struct capture_reader *r, struct capture_event *ev)
{
    while (r->next_end < r->n_sessions && state_of(r, r->next_end) != 1)
        r->next_end++;
    if (r->next_end == r->n_sessions) {
        r->done = 1;
        return 0;
    }
    ev->kind = CAPTURE_EV_SESSION_END;
    ev->session.id = r->next_end;
    ev->session.offset_us = r->offset_us;
    ev->session.log_id = ev->session.user = ev->session.database = "";
    set_state(r, r->next_end, 2);
    return 1;
}

int capture_reader_next(struct capture_reader *r, struct capture_event *ev, struct err *e)
{
    if (r->done)
        return 0;
    buf_reset(&r->strings);
    memset(ev, 0, sizeof *ev);
    if (r->h.cut && r->record == r->live_records)
        return end_cut(r, ev);
    int type = gzgetc(r->in);
    int rc;
    switch (type) {
    case REC_SESSION:
    case REC_SESSION_STARTUP:
    case REC_SESSION_MORE:
        if (type == REC_SESSION_STARTUP && r->h.version < 2)
            return corrupt(r, e, "a version 2 record in a version 1 capture");
        if (type == REC_SESSION_MORE && r->h.version < 3)
            return corrupt(r, e, "a version 3 record in an older capture");
        ev->kind = CAPTURE_EV_SESSION_START;
        rc = read_session(r, ev, type != REC_SESSION, type == REC_SESSION_MORE, e);
        break;
    case REC_STATEMENT:
    case REC_STATEMENT_MORE:
        if (type == REC_STATEMENT_MORE && r->h.version < 2)
            return corrupt(r, e, "a version 2 record in a version 1 capture");
        ev->kind = CAPTURE_EV_STATEMENT;
        rc = read_statement(r, ev, type == REC_STATEMENT_MORE, e);
        break;
    case REC_END_SESSION:
        ev->kind = CAPTURE_EV_SESSION_END;
        rc = get_session_id(r, &ev->session.id, 1, e);
        if (rc == 0)
            rc = get_offset(r, &ev->session.offset_us, e);
        if (rc == 0) {
            set_state(r, ev->session.id, 2);
            ev->session.log_id = ev->session.user = ev->session.database = "";
        }
        break;
    case REC_END:
        rc = read_end(r, e);
        return rc < 0 ? -1 : 0;
    case -1:
        return corrupt(r, e, "truncated (no end record)");
    default:
        return corrupt(r, e, "unknown record type");
    }
    if (rc < 0)
        return -1;
    r->record++;
    return 1;
}

static int header_u64(json_t *o, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int header_str(json_t *o, const char *key, char *out, size_t size)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_string(v) || strlen(json_string_value(v)) >= size)
        return -1;
    strcpy(out, json_string_value(v));
    return 0;
}

/* The header's optional parts (newer than version 1's first captures): the unsupported
 * statements' kinds, the portal fetches folded, the COPY FROM STDIN kept and the log missing.
 * -1 when present but malformed. */
static int parse_header_parts(struct capture_header *h, json_t *o, json_t *sk, json_t *ci)
{
    json_t *missing = json_object_get(o, "missing");
    if (missing && (header_u64(missing, "files", &h->missing_files) < 0 ||
                    header_u64(missing, "bytes", &h->missing_bytes) < 0))
        return -1;
    if (json_object_get(o, "portal_fetches") &&
        header_u64(o, "portal_fetches", &h->portal_fetches) < 0)
        return -1;
    if (json_object_get(o, "pipelined") && header_u64(o, "pipelined", &h->pipelined) < 0)
        return -1;
    if (json_object_get(o, "same_sync") && header_u64(o, "same_sync", &h->same_sync) < 0)
        return -1;
    json_t *kinds = json_object_get(sk, "unsupported_kinds");
    if (kinds && !json_is_object(kinds))
        return -1;
    for (int k = 0; kinds && k < CAPTURE_UNSUP__COUNT; k++) {
        json_t *kind = json_object_get(kinds, capture_unsupported_names[k]);
        if (!kind)
            continue;
        if (!json_is_object(kind) || header_u64(kind, "count", &h->unsupported[k].count) < 0)
            return -1;
        json_t *ex = json_object_get(kind, "example");
        if (ex && !json_is_string(ex))
            return -1;
        snprintf(h->unsupported[k].example, sizeof h->unsupported[k].example, "%s",
                 ex ? json_string_value(ex) : "");
    }
    if (!ci)
        return 0;
    json_t *tables = json_object_get(ci, "tables");
    if (!json_is_object(ci) || !json_is_object(tables) ||
        header_u64(ci, "other", &h->copy_in.other) < 0)
        return -1;
    h->copy_in.kept = 1;
    if (json_object_get(ci, "with_rows") && header_u64(ci, "with_rows", &h->copy_in.with_rows) < 0)
        return -1;
    const char *name;
    json_t *v;
    json_object_foreach(tables, name, v)
    {
        if (!json_is_integer(v) || json_integer_value(v) < 0 ||
            h->copy_in.n_tables == CAPTURE_COPY_TABLES ||
            strlen(name) >= sizeof h->copy_in.tables[0].table)
            return -1;
        struct capture_copy_table *t = &h->copy_in.tables[h->copy_in.n_tables++];
        strcpy(t->table, name);
        t->count = (uint64_t)json_integer_value(v);
    }
    return 0;
}

static int parse_header(struct capture_reader *r, const char *line, struct err *e)
{
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    const char *fmt = o ? json_string_value(json_object_get(o, "format")) : NULL;
    if (!fmt || strcmp(fmt, CAPTURE_FORMAT) != 0) {
        json_decref(o);
        return err_set(e, ERR_INPUT, "%s:1: not a pgarena capture (no format \"%s\")", r->path,
                       CAPTURE_FORMAT);
    }
    json_t *ver = json_object_get(o, "version");
    if (!json_is_integer(ver) || json_integer_value(ver) < 1 ||
        json_integer_value(ver) > CAPTURE_VERSION) {
        long long v = json_is_integer(ver) ? (long long)json_integer_value(ver) : -1;
        json_decref(o);
        return err_set(e, ERR_INPUT,
                       "%s:1: capture version %lld, this pgarena reads versions 1 to %d", r->path,
                       v, CAPTURE_VERSION);
    }
    r->h.version = (int)json_integer_value(ver);
    r->h.cut = json_is_true(json_object_get(o, "open"));
    json_t *src = json_object_get(o, "source");
    json_t *sk = json_object_get(o, "skipped");
    json_t *port = src ? json_object_get(src, "port") : NULL;
    json_t *start = json_object_get(o, "start_us"), *dur = json_object_get(o, "duration_us");
    int bad = !json_is_object(src) || !json_is_object(sk) || !json_is_integer(start) ||
              !json_is_integer(dur) || (port && !json_is_integer(port)) ||
              header_u64(o, "sessions", &r->h.n_sessions) < 0 ||
              header_u64(o, "statements", &r->h.n_statements) < 0 ||
              header_u64(sk, "copy", &r->h.skipped_copy) < 0 ||
              header_u64(sk, "secret", &r->h.skipped_secret) < 0 ||
              header_u64(sk, "unsupported", &r->h.skipped_unsupported) < 0 ||
              parse_header_parts(&r->h, o, sk, json_object_get(o, "copy_from_stdin")) < 0;
    if (!bad)
        bad = header_str(src, "system_identifier", r->h.system_identifier,
                         sizeof r->h.system_identifier) < 0 ||
              header_str(src, "address", r->h.address, sizeof r->h.address) < 0 ||
              r->h.n_sessions > UINT32_MAX;
    if (!bad) {
        r->h.port = port ? (int)json_integer_value(port) : 0;
        r->h.start_us = json_integer_value(start);
        r->h.duration_us = json_integer_value(dur);
        json_t *res = json_object_get(o, "time_resolution_us");
        r->h.time_resolution_us = json_is_integer(res) && json_integer_value(res) >= 0
                                      ? json_integer_value(res)
                                      : CAPTURE_LOG_RESOLUTION_US;
    }
    json_decref(o);
    if (bad)
        return err_set(e, ERR_INPUT, "%s:1: bad capture header", r->path);
    return 0;
}

/* A live capture its recorder did not close (killed): it is whole up to its last whole
 * record (the rest, cut short in the middle of one, is not read), so count those, then
 * read it again from its first event with the counts in the header. -1 with e set when
 * the file cannot be read again. */
static int count_cut(struct capture_reader *r, struct err *e)
{
    struct capture_event ev;
    struct err tail;
    r->h.n_sessions = UINT32_MAX;
    r->live_records = UINT64_MAX;
    r->h.copy_in.kept = 1;
    while (capture_reader_next(r, &ev, &tail) == 1) {
        if (ev.kind != CAPTURE_EV_STATEMENT)
            continue;
        capture_count_copy_statement(&r->h.copy_in, &ev.statement);
    }
    r->live_records = r->record;
    r->h.n_sessions = r->n_sessions;
    r->h.n_statements = r->n_statements;
    r->h.duration_us = r->offset_us;
    r->record = r->n_sessions = r->n_statements = 0;
    r->offset_us = 0;
    r->done = 0;
    if (r->state) /* (none when no session was read) */
        memset(r->state, 0, r->state_cap);
    char line[MAX_HEADER];
    if (gzrewind(r->in) != 0 || !gzgets(r->in, line, sizeof line))
        return err_set(e, ERR_INPUT, "%s: cannot read it again", r->path);
    return 0;
}

struct capture_reader *capture_reader_open(const char *path, struct err *e)
{
    gzFile in = os_gzopen(path, "rb");
    if (!in) {
        err_set(e, ERR_INPUT, "%s: %s", path, strerror(errno ? errno : ENOENT));
        return NULL;
    }
    gzbuffer(in, 1 << 17);
    struct capture_reader *r = xcalloc(1, sizeof *r);
    r->path = xstrdup(path);
    r->in = in;
    char *line = xmalloc(MAX_HEADER);
    int ok = gzgets(in, line, MAX_HEADER) != NULL && strchr(line, '\n');
    if (!ok) {
        err_set(e, ERR_INPUT, "%s:1: not a pgarena capture", path);
    } else if (parse_header(r, line, e) == 0) {
        buf_init(&r->strings);
        ok = !r->h.cut || count_cut(r, e) == 0;
    } else {
        ok = 0;
    }
    free(line);
    if (!ok) {
        capture_reader_close(r);
        return NULL;
    }
    return r;
}

const struct capture_header *capture_reader_header(const struct capture_reader *r)
{
    return &r->h;
}

void capture_reader_close(struct capture_reader *r)
{
    if (!r)
        return;
    gzclose(r->in);
    buf_free(&r->strings);
    free(r->params);
    free(r->param_at);
    free(r->param_len);
    free(r->param_formats);
    free(r->result_formats);
    free(r->types);
    str_list_free(&r->startup);
    str_list_free(&r->options);
    str_list_free(&r->status);
    free(r->type_names);
    free(r->type_name_at);
    free(r->copy_parts);
    free(r->state);
    free(r->path);
    free(r);
}
