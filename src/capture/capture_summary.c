/* replay show's figures: a capture read through once, its statements counted by protocol,
 * outcome and class. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "capture/capture.h"
#include "capture/normalize.h"
#include "capture/prepare_int.h"
#include "capture/sqltext.h"

/* The classes while reading: a chained hash table over the entries' indexes. */
struct class_table {
    struct capture_class *all;
    size_t n, cap;
    size_t *next;    /* per entry: the next index in its bucket, or SIZE_MAX */
    size_t *buckets; /* the first index of each bucket, or SIZE_MAX */
    size_t n_buckets;
    size_t max; /* entries kept apart at most */
};

#define NONE SIZE_MAX

static struct capture_class *class_get(struct class_table *t, struct capture_class *other,
                                       const char *text)
{
    if (!t->n_buckets) {
        t->n_buckets = 4096;
        t->buckets = xmalloc(t->n_buckets * sizeof *t->buckets);
        memset(t->buckets, 0xff, t->n_buckets * sizeof *t->buckets);
    }
    size_t k = hash_str(text) & (t->n_buckets - 1);
    for (size_t i = t->buckets[k]; i != NONE; i = t->next[i])
        if (strcmp(t->all[i].text, text) == 0)
            return &t->all[i];
    if (t->n >= t->max)
        return other;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->all = xrealloc(t->all, t->cap * sizeof *t->all);
        t->next = xrealloc(t->next, t->cap * sizeof *t->next);
    }
    struct capture_class *c = &t->all[t->n];
    memset(c, 0, sizeof *c);
    c->text = xstrdup(text);
    t->next[t->n] = t->buckets[k];
    t->buckets[k] = t->n++;
    return c;
}

static int by_count(const void *a, const void *b)
{
    const struct capture_class *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return strcmp(x->text, y->text);
}

/* A SET statement into the sets' table, as written, trimmed of white space and a final
 * semicolon. */
static void count_set(struct capture_summary *s, struct class_table *t, const char *text,
                      struct buf *b)
{
    while (isspace((unsigned char)*text))
        text++;
    size_t n = strlen(text);
    while (n > 0 && (isspace((unsigned char)text[n - 1]) || text[n - 1] == ';'))
        n--;
    buf_reset(b);
    buf_append(b, text, n);
    class_get(t, &s->other_sets, b->data)->count++;
}

/* Per session, the named statements a replay holds prepared (as hashes of name and text),
 * to count the prepares it sends as the engine does (engine/client_feed.c). */
struct held_names {
    struct held_name {
        uint64_t name, text;
    } * v;
    size_t n, cap;
};

struct named_state {
    struct class_table names; /* the distinct names */
    struct capture_class other_names;
    struct held_names *held; /* by session id */
    size_t n_sessions;
    struct buf unprepared; /* a DEALLOCATE's names */
};

static void count_named(struct capture_summary *s, struct named_state *ns,
                        const struct capture_statement *st)
{
    struct capture_class *c = class_get(&ns->names, &ns->other_names, st->name);
    s->named_names += c != &ns->other_names && c->count++ == 0;
    if (st->session >= ns->n_sessions)
        return;
    struct held_names *h = &ns->held[st->session];
    uint64_t name = hash_str(st->name), text = hash_str(st->text);
    for (size_t i = 0; i < h->n; i++) {
        if (h->v[i].name == name) {
            s->named_prepares += h->v[i].text != text; /* deallocated and prepared anew */
            h->v[i].text = text;
            return;
        }
    }
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 8;
        h->v = xrealloc(h->v, h->cap * sizeof *h->v);
    }
    h->v[h->n++] = (struct held_name){name, text};
    s->named_prepares++;
}

/* A DEALLOCATE or DISCARD: counted, and what it drops forgotten (unless it failed). */
static void count_unprepare(struct capture_summary *s, struct named_state *ns,
                            const struct capture_statement *st)
{
    buf_reset(&ns->unprepared);
    enum sqltext_unprepare u = sqltext_unprepare(st->text, &ns->unprepared);
    if (u == SQLTEXT_UNPREPARE_NONE)
        return;
    s->unprepare[u]++;
    if (st->outcome == CAPTURE_OUTCOME_ERROR || st->session >= ns->n_sessions)
        return;
    struct held_names *h = &ns->held[st->session];
    if (u == SQLTEXT_UNPREPARE_ALL)
        h->n = 0;
    for (const char *n = ns->unprepared.data; u == SQLTEXT_UNPREPARE_NAMES && *n;
         n += strlen(n) + 1) {
        uint64_t name = hash_str(n);
        for (size_t i = 0; i < h->n; i++)
            if (h->v[i].name == name) {
                h->v[i] = h->v[--h->n];
                break;
            }
    }
}

static void named_free(struct named_state *ns)
{
    for (size_t i = 0; i < ns->names.n; i++)
        free(ns->names.all[i].text);
    free(ns->names.all);
    free(ns->names.next);
    free(ns->names.buckets);
    free(ns->other_names.text);
    for (size_t i = 0; i < ns->n_sessions; i++)
        free(ns->held[i].v);
    free(ns->held);
    buf_free(&ns->unprepared);
}

static void count_statement(struct capture_summary *s, struct class_table *t,
                            const struct capture_statement *st, struct buf *norm)
{
    s->by_protocol[st->protocol]++;
    s->ok += st->outcome == CAPTURE_OUTCOME_OK;
    s->failed += st->outcome == CAPTURE_OUTCOME_ERROR;
    s->unknown += st->outcome == CAPTURE_OUTCOME_UNKNOWN;
    s->cancelled += st->cancel_us >= 0;
    s->param_status += (uint64_t)st->n_param_status;
    normalize_statement(st->text, strlen(st->text), norm);
    struct capture_class *c = class_get(t, &s->other, norm->data);
    c->count++;
    c->failed += st->outcome == CAPTURE_OUTCOME_ERROR;
    if (st->duration_us >= 0) {
        c->total_us += st->duration_us;
        c->timed++;
    }
}

int capture_summarise(const char *path, struct capture_summary *s, struct err *e)
{
    memset(s, 0, sizeof *s);
    s->other.text = xstrdup("");
    struct capture_reader *r = capture_reader_open(path, e);
    if (!r) {
        capture_summary_free(s);
        return -1;
    }
    s->header = *capture_reader_header(r);
    s->other_sets.text = xstrdup("");
    struct class_table t = {.max = CAPTURE_SUMMARY_MAX_CLASSES};
    struct class_table sets = {.max = CAPTURE_SUMMARY_MAX_SETS};
    struct named_state ns = {.names = {.max = CAPTURE_SUMMARY_MAX_CLASSES},
                             .n_sessions = s->header.n_sessions};
    ns.other_names.text = xstrdup("");
    ns.held = xcalloc(ns.n_sessions ? ns.n_sessions : 1, sizeof *ns.held);
    buf_init(&ns.unprepared);
    struct capture_event ev;
    struct buf norm;
    buf_init(&norm);
    int rc;
    while ((rc = capture_reader_next(r, &ev, e)) == 1) {
        if (ev.kind == CAPTURE_EV_SESSION_END && ev.session.id < ns.n_sessions) {
            struct held_names *h = &ns.held[ev.session.id]; /* memory: the open sessions' */
            free(h->v);
            *h = (struct held_names){0};
        }
        if (ev.kind != CAPTURE_EV_STATEMENT)
            continue;
        count_statement(s, &t, &ev.statement, &norm);
        if (sqltext_is_set(ev.statement.text))
            count_set(s, &sets, ev.statement.text, &norm);
        if (ev.statement.protocol == CAPTURE_EXTENDED_NAMED && *ev.statement.name)
            count_named(s, &ns, &ev.statement);
        count_unprepare(s, &ns, &ev.statement);
    }
    named_free(&ns);
    buf_free(&norm);
    capture_reader_close(r);
    free(t.buckets);
    free(t.next);
    free(sets.buckets);
    free(sets.next);
    s->classes = t.all;
    s->n_classes = t.n;
    s->sets = sets.all;
    s->n_sets = sets.n;
    if (rc < 0) {
        capture_summary_free(s);
        return -1;
    }
    if (s->n_classes)
        qsort(s->classes, s->n_classes, sizeof *s->classes, by_count);
    if (s->n_sets)
        qsort(s->sets, s->n_sets, sizeof *s->sets, by_count);
    return 0;
}

void capture_summary_free(struct capture_summary *s)
{
    for (size_t i = 0; i < s->n_classes; i++)
        free(s->classes[i].text);
    free(s->classes);
    free(s->other.text);
    for (size_t i = 0; i < s->n_sets; i++)
        free(s->sets[i].text);
    free(s->sets);
    free(s->other_sets.text);
    memset(s, 0, sizeof *s);
}
