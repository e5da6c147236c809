#include "capture/prepare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capture/prepare_int.h"
#include "capture/sqltext.h"

/* How far back in time events may still change order: a statement logged with its duration
 * starts before the line that tells of it, and an ERROR arrives when its statement ends. */
#define WINDOW_US 10000000LL

/* ---- the reorder heap, by (time, sequence) ---- */

static int ev_before(const struct pev *a, const struct pev *b)
{
    return a->abs_us < b->abs_us || (a->abs_us == b->abs_us && a->seq < b->seq);
}

void prep_push(struct prep *p, struct pev *ev)
{
    if (p->heap_len == p->heap_cap) {
        p->heap_cap = p->heap_cap ? p->heap_cap * 2 : 1024;
        p->heap = xrealloc(p->heap, p->heap_cap * sizeof *p->heap);
    }
    ev->seq = p->seq++;
    ev->s->refs++;
    size_t i = p->heap_len++;
    while (i > 0 && ev_before(ev, p->heap[(i - 1) / 2])) {
        p->heap[i] = p->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    p->heap[i] = ev;
}

static struct pev *heap_pop(struct prep *p)
{
    struct pev *top = p->heap[0], *last = p->heap[--p->heap_len];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= p->heap_len)
            break;
        if (c + 1 < p->heap_len && ev_before(p->heap[c + 1], p->heap[c]))
            c++;
        if (!ev_before(p->heap[c], last))
            break;
        p->heap[i] = p->heap[c];
        i = c;
    }
    if (p->heap_len)
        p->heap[i] = last;
    return top;
}

/* ---- sessions, by the log's session id ---- */

static void table_grow(struct prep *p)
{
    size_t n = p->n_buckets ? p->n_buckets * 2 : 1024;
    struct psess **b = xcalloc(n, sizeof *b);
    for (size_t i = 0; i < p->n_buckets; i++) {
        for (struct psess *s = p->buckets[i], *next; s; s = next) {
            next = s->next;
            size_t k = hash_str(s->log_id) & (n - 1);
            s->next = b[k];
            b[k] = s;
        }
    }
    free(p->buckets);
    p->buckets = b;
    p->n_buckets = n;
}

struct psess *prep_session_find(struct prep *p, const char *id)
{
    if (!p->n_buckets)
        return NULL;
    for (struct psess *s = p->buckets[hash_str(id) & (p->n_buckets - 1)]; s; s = s->next)
        if (strcmp(s->log_id, id) == 0)
            return s;
    return NULL;
}

static struct psess *session_add(struct prep *p, const struct log_entry *le)
{
    if (p->n_open >= p->n_buckets)
        table_grow(p);
    struct psess *s = xcalloc(1, sizeof *s);
    s->log_id = xstrdup(le->session);
    s->user = xstrdup(le->user);
    s->database = xstrdup(le->database);
    size_t k = hash_str(s->log_id) & (p->n_buckets - 1);
    s->next = p->buckets[k];
    p->buckets[k] = s;
    p->n_open++;
    s->in_table = 1;
    return s;
}

static void session_unlink(struct prep *p, struct psess *s)
{
    if (!s->in_table)
        return;
    struct psess **at = &p->buckets[hash_str(s->log_id) & (p->n_buckets - 1)];
    while (*at != s)
        at = &(*at)->next;
    *at = s->next;
    s->in_table = 0;
    p->n_open--;
}

void prep_session_close(struct prep *p, struct psess *s)
{
    session_unlink(p, s);
}

static void session_free(struct psess *s)
{
    free(s->log_id);
    free(s->user);
    free(s->database);
    free(s);
}

static void set_text(char **field, const char *v)
{
    if (**field == '\0' && *v && strcmp(v, "[unknown]") != 0) {
        free(*field);
        *field = xstrdup(v);
    }
}

struct psess *prep_session_of(struct prep *p, const struct log_entry *le, int64_t t)
{
    struct psess *s = prep_session_find(p, le->session);
    if (!s) {
        s = session_add(p, le);
        struct pev *ev = xcalloc(1, sizeof *ev);
        ev->kind = CAPTURE_EV_SESSION_START;
        ev->abs_us = t;
        ev->s = s;
        prep_push(p, ev);
    }
    set_text(&s->user, le->user);
    set_text(&s->database, le->database);
    return s;
}

/* ---- events to the writer ---- */

void prep_event_free(struct pev *ev)
{
    free(ev->name);
    free(ev->text);
    free(ev->error);
    for (int i = 0; i < ev->n_params; i++)
        free(ev->params[i]);
    free(ev->params);
    free(ev);
}

int prep_keep_session(const struct prep *p, const struct psess *s)
{
    return (!p->o->database || strcmp(p->o->database, s->database) == 0) &&
           (!p->o->user || strcmp(p->o->user, s->user) == 0);
}

static int emit_start(struct prep *p, struct psess *s, int64_t abs_us, struct err *e)
{
    if (!p->started) {
        p->started = 1;
        p->origin_us = abs_us;
    }
    struct capture_session cs = {.id = p->next_id++,
                                 .offset_us = abs_us - p->origin_us,
                                 .log_id = s->log_id,
                                 .user = s->user,
                                 .database = s->database};
    s->cap_id = cs.id;
    s->emitted = 1;
    return capture_write_session_start(p->w, &cs, e);
}

/* An event of s is done with: the last one frees a closed session. */
static void release(struct psess *s)
{
    if (--s->refs == 0 && !s->in_table)
        session_free(s);
}

static int write_statement(struct prep *p, struct pev *ev, struct err *e)
{
    struct psess *s = ev->s;
    if (s->ended) {
        /* Logged as starting after its session's end: the log's times are out of order. */
        p->stats->skipped_unsupported++;
        capture_count_unsupported(p->stats->unsupported, CAPTURE_UNSUP_OUT_OF_ORDER, ev->text);
        return 0;
    }
    if (s->dropped || ev->abs_us < p->o->from_us || ev->abs_us > p->o->to_us ||
        !prep_keep_session(p, s)) {
        p->stats->filtered++;
        return 0;
    }
    if (!s->emitted && emit_start(p, s, ev->abs_us, e) < 0)
        return -1;
    struct capture_statement st = {.session = s->cap_id,
                                   .offset_us = ev->abs_us - p->origin_us,
                                   .protocol = ev->protocol,
                                   .name = ev->name,
                                   .text = ev->text,
                                   .n_params = ev->n_params,
                                   .params = (const char *const *)ev->params,
                                   .duration_us = ev->duration_us,
                                   .outcome = ev->outcome,
                                   .error = ev->error,
                                   .cancel_us = ev->cancel_us};
    memcpy(st.sqlstate, ev->sqlstate, sizeof st.sqlstate);
    int64_t end = ev->abs_us + (ev->duration_us > 0 ? ev->duration_us : 0);
    if (end > s->last_us)
        s->last_us = end;
    p->stats->statements++;
    p->stats->portal_fetches += ev->fetches;
    capture_count_copy_of(&p->stats->copy_in, ev->text); /* kept without its data */
    return capture_write_statement(p->w, &st, e);
}

static int write_event(struct prep *p, struct pev *ev, struct err *e)
{
    struct psess *s = ev->s;
    int rc = 0;
    switch (ev->kind) {
    case CAPTURE_EV_SESSION_START:
        /* A statement timed back from its duration (and its parse and bind) may come out
         * before its session's start: then that statement started the session. */
        if (!prep_keep_session(p, s))
            s->dropped = 1;
        else if (!s->emitted && ev->abs_us >= p->o->from_us && ev->abs_us <= p->o->to_us)
            rc = emit_start(p, s, ev->abs_us, e);
        /* before --from: started at its first statement kept */
        break;
    case CAPTURE_EV_STATEMENT:
        if (s->pending == ev) {
            /* No ERROR within the window: it succeeded. Should one still come (a statement
             * running longer than the window), it is known for this one, not a new one. */
            s->pending = NULL;
            if (ev->outcome == CAPTURE_OUTCOME_UNKNOWN)
                ev->outcome = CAPTURE_OUTCOME_OK;
            s->late_valid = ev->duration_us < 0;
            if (s->late_valid)
                s->late_hash = hash_str(ev->text);
        }
        rc = write_statement(p, ev, e);
        break;
    case CAPTURE_EV_SESSION_END:
        if (s->emitted && !s->ended) {
            int64_t at = ev->abs_us > p->o->to_us ? p->o->to_us : ev->abs_us;
            rc = capture_write_session_end(p->w, s->cap_id, at - p->origin_us, e);
        }
        s->ended = 1;
        break;
    }
    if (p->started && ev->abs_us > p->last_us)
        p->last_us = ev->abs_us;
    prep_event_free(ev);
    release(s);
    return rc;
}

/* Write every event older than the window before now (all with now = INT64_MAX). */
static int flush_until(struct prep *p, int64_t now, struct err *e)
{
    int64_t horizon = now == INT64_MAX ? INT64_MAX : now - WINDOW_US - 2 * p->max_duration_us;
    while (p->heap_len && p->heap[0]->abs_us < horizon)
        if (write_event(p, heap_pop(p), e) < 0)
            return -1;
    return 0;
}

/* ---- the entries ---- */

int prepare_parse_time(const char *s, int64_t *us)
{
    size_t end;
    if (log_parse_time(s, strlen(s), us, &end) < 0 || s[end] != '\0')
        return -1;
    return 0;
}

static const char *format_name(enum log_format f)
{
    return f == LOG_FORMAT_CSV ? "csvlog" : f == LOG_FORMAT_JSON ? "jsonlog" : "stderr";
}

static int same_entry(const struct prep *p, const struct log_entry *le);

static int read_log(struct prep *p, const char *path, struct err *e)
{
    struct log_reader *r = log_reader_open(path, p->o->format, p->o->prefix, e);
    if (!r)
        return -1;
    struct log_entry le;
    int rc;
    while ((rc = log_reader_next(r, &le, e)) == 1) {
        p->stats->entries++;
        p->file_last_us = le.time_us;
        if (same_entry(p, &le))
            p->watch_seen = 1;
        if (prep_entry(p, &le, e) < 0 || flush_until(p, le.time_us, e) < 0) {
            rc = -1;
            break;
        }
    }
    snprintf(p->stats->format, sizeof p->stats->format, "%s", format_name(log_reader_format(r)));
    if (log_reader_format(r) == LOG_FORMAT_STDERR)
        snprintf(p->stats->prefix, sizeof p->stats->prefix, "%s", log_reader_prefix(r));
    p->stats->unmatched_lines += log_reader_unmatched(r);
    log_reader_close(r);
    return rc < 0 ? -1 : 0;
}

/* At the end: sessions never disconnected end after their last statement. */
static int close_open_sessions(struct prep *p, struct err *e)
{
    for (size_t i = 0; i < p->n_buckets; i++) {
        for (struct psess *s = p->buckets[i], *next; s; s = next) {
            next = s->next;
            if (s->emitted && !s->ended) {
                int64_t at = s->last_us > p->o->to_us ? p->o->to_us : s->last_us;
                if (capture_write_session_end(p->w, s->cap_id, at - p->origin_us, e) < 0)
                    return -1;
            }
            session_unlink(p, s);
            session_free(s);
        }
    }
    return 0;
}

static void prep_free(struct prep *p)
{
    while (p->heap_len) {
        struct pev *ev = heap_pop(p);
        struct psess *s = ev->s;
        prep_event_free(ev);
        release(s);
    }
    for (size_t i = 0; i < p->n_buckets; i++)
        for (struct psess *s = p->buckets[i], *next; s; s = next) {
            next = s->next;
            session_free(s);
        }
    free(p->buckets);
    free(p->heap);
}

/* ---- several logs: in order of their first entries, none overlapping another ---- */

/* How far a log may start before the previous one's last entry: the collector writes the
 * messages of concurrent sessions in the order they reach it, not quite that of their times,
 * and a rotation cuts that order anywhere. Further back is another log over the same time. */
#define OVERLAP_SLACK_US 1000000LL

struct log_first {
    const char *path;
    int index;     /* as given: the order among equal first times */
    int empty;     /* no entry at all: read first, it holds nothing to order */
    int64_t us;    /* its first entry's time */
    uint64_t hash; /* its first entry (time, session, message): the same log given twice */
    long line;     /* its first entry's number in its session (0: the format has none) */
};

/* An entry as the same in any format of its log: its time, session and text. A session's two
 * statements in one millisecond with the same message ("duration: 0.051 ms") hash alike too:
 * their numbers in the session (csvlog, jsonlog) tell them apart (same_entry). */
static uint64_t entry_hash(const struct log_entry *le)
{
    return (uint64_t)le->time_us ^ (hash_str(le->session) * 31) ^ (hash_str(le->message) * 131) ^
           (hash_str(le->detail) * 137);
}

/* Entry le is the watched one: the same hash, and the same number in the session where both
 * formats have one (a stderr log has none). */
static int same_entry(const struct prep *p, const struct log_entry *le)
{
    return le->time_us == p->watch_us && entry_hash(le) == p->watch_hash &&
           (!le->session_line || !p->watch_line || le->session_line == p->watch_line);
}

static int first_entry(const struct prepare_opts *o, struct log_first *f, struct err *e)
{
    struct log_reader *r = log_reader_open(f->path, o->format, o->prefix, e);
    if (!r)
        return -1;
    struct log_entry le;
    int rc = log_reader_next(r, &le, e);
    if (rc == 1) {
        f->us = le.time_us;
        f->hash = entry_hash(&le);
        f->line = le.session_line;
    }
    f->empty = rc == 0;
    log_reader_close(r);
    return rc < 0 ? -1 : 0;
}

static int by_first(const void *a, const void *b)
{
    const struct log_first *x = a, *y = b;
    if (x->empty != y->empty)
        return x->empty ? -1 : 1;
    if (!x->empty && x->us != y->us)
        return x->us < y->us ? -1 : 1;
    return x->index - y->index;
}

/* The logs sorted by their first entries (rotated files given in any order, as a shell's
 * glob lists them). */
static struct log_first *order_logs(const char *const *paths, int n, const struct prepare_opts *o,
                                    struct err *e)
{
    struct log_first *f = xcalloc((size_t)n, sizeof *f);
    for (int i = 0; i < n; i++) {
        f[i] = (struct log_first){.path = paths[i], .index = i};
        if (n > 1 && first_entry(o, &f[i], e) < 0) {
            free(f);
            return NULL;
        }
    }
    qsort(f, (size_t)n, sizeof *f, by_first);
    return f;
}

/* Watch for the first entry of the log after f[i] while reading f[i]. */
static void watch_next(struct prep *p, const struct log_first *f, int n, int i)
{
    p->watch_seen = 0;
    p->watch_us = INT64_MIN;
    for (int k = i + 1; k < n; k++) {
        if (!f[k].empty) {
            p->watch_us = f[k].us;
            p->watch_hash = f[k].hash;
            p->watch_line = f[k].line;
            return;
        }
    }
}

/* Read the logs in order, each starting where the one before ended: one that starts with an
 * entry of the one before, or well before its end, covers the same time again (the same log
 * twice, or in two formats) and is refused. */
static int read_logs(struct prep *p, const struct log_first *f, int n, struct err *e)
{
    const char *before = NULL;
    for (int i = 0; i < n; i++) {
        if (before && !f[i].empty && p->watch_seen)
            return err_set(e, ERR_INPUT,
                           "replay prepare: %s overlaps %s (it starts with one of that log's "
                           "entries: give each log once)",
                           f[i].path, before);
        if (before && !f[i].empty && f[i].us < p->file_last_us - OVERLAP_SLACK_US)
            return err_set(e, ERR_INPUT,
                           "replay prepare: %s overlaps %s (it starts %.3f s before that log "
                           "ends: give each log once)",
                           f[i].path, before, (double)(p->file_last_us - f[i].us) / 1e6);
        watch_next(p, f, n, i);
        if (read_log(p, f[i].path, e) < 0)
            return -1;
        if (!f[i].empty)
            before = f[i].path;
    }
    return 0;
}

int prepare_logs(const char *const *paths, int n, const struct prepare_opts *o, const char *out,
                 struct prepare_stats *stats, struct err *e)
{
    memset(stats, 0, sizeof *stats);
    struct prep p = {.o = o, .stats = stats};
    struct log_first *order = order_logs(paths, n, o, e);
    if (!order)
        return -1;
    p.w = capture_writer_open(out, e);
    if (!p.w) {
        free(order);
        return -1;
    }
    int rc = read_logs(&p, order, n, e);
    free(order);
    if (rc == 0)
        rc = flush_until(&p, INT64_MAX, e);
    if (rc == 0)
        rc = close_open_sessions(&p, e);
    if (rc == 0) {
        struct capture_header h = o->source;
        h.start_us = p.origin_us;
        h.time_resolution_us = CAPTURE_LOG_RESOLUTION_US;
        h.skipped_copy = stats->skipped_copy;
        h.skipped_secret = stats->skipped_secret;
        h.skipped_unsupported = stats->skipped_unsupported;
        memcpy(h.unsupported, stats->unsupported, sizeof h.unsupported);
        h.copy_in = stats->copy_in;
        h.portal_fetches = stats->portal_fetches;
        stats->sessions = p.next_id;
        stats->start_us = p.origin_us;
        stats->duration_us = p.last_us - p.origin_us;
        rc = capture_writer_close(p.w, &h, e);
        p.w = NULL;
    }
    if (rc < 0)
        capture_writer_abort(p.w);
    prep_free(&p);
    return rc;
}
