/* Values a capture's server handed back, mapped to the replay's (returned.h). */
#include "workload/replay/returned.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/mem.h"

void replay_returned_init(struct replay_returned *m)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    atomic_init(&m->count, 0);
}

void replay_returned_free(struct replay_returned *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        free(m->slots[i].captured);
        free(m->slots[i].now);
    }
    free(m->slots);
    for (size_t i = 0; i < m->n_retired; i++)
        free(m->retired[i]);
    free(m->retired);
    pthread_mutex_destroy(&m->mu);
}

/* Under mu: the slot of the len bytes at v, the one it would take when absent (cap > 0). */
static struct replay_returned_pair *slot_of(const struct replay_returned *m, const char *v,
                                            size_t len)
{
    size_t i = (size_t)hash_bytes(v, len) & (m->cap - 1);
    for (;; i = (i + 1) & (m->cap - 1)) {
        struct replay_returned_pair *s = &m->slots[i];
        if (!s->captured || (strncmp(s->captured, v, len) == 0 && s->captured[len] == '\0'))
            return s;
    }
}

/* Under mu: twice the slots, the pairs moved into them. */
static void grow(struct replay_returned *m)
{
    struct replay_returned old = *m;
    m->cap = old.cap ? 2 * old.cap : 64;
    m->slots = xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < old.cap; i++)
        if (old.slots[i].captured)
            *slot_of(m, old.slots[i].captured, strlen(old.slots[i].captured)) = old.slots[i];
    free(old.slots);
}

void replay_returned_learn(struct replay_returned *m, const char *captured, const char *now,
                           int is_id, int64_t session)
{
    int differ = strcmp(captured, now) != 0;
    if (!differ && atomic_load(&m->count) == 0)
        return;
    pthread_mutex_lock(&m->mu);
    if (2 * (m->used + 1) > m->cap)
        grow(m);
    struct replay_returned_pair *s = slot_of(m, captured, strlen(captured));
    if (s->captured) { /* learnt before: the later value wins */
        size_t n = atomic_load(&m->count);
        int before = strcmp(s->captured, s->now) != 0;
        atomic_store(&m->count, n - (size_t)before + (size_t)differ);
        m->retired = xrealloc(m->retired, (m->n_retired + 1) * sizeof *m->retired);
        m->retired[m->n_retired++] = s->now;
    } else if (!differ) {
        pthread_mutex_unlock(&m->mu);
        return;
    } else {
        s->captured = xstrdup(captured);
        m->used++;
        atomic_store(&m->count, atomic_load(&m->count) + 1);
    }
    s->now = xstrdup(now);
    s->is_id = is_id;
    s->session = session;
    pthread_mutex_unlock(&m->mu);
}

static size_t count_rows(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

void replay_returned_learn_rows(struct replay_returned *m, const char *captured, const char *now,
                                int is_id, int64_t session)
{
    if (!strchr(captured, '\n') && !strchr(now, '\n')) {
        replay_returned_learn(m, captured, now, is_id, session);
        return;
    }
    if (count_rows(captured) != count_rows(now))
        return; /* other rows: which is which cannot be told */
    char *c = xstrdup(captured), *n = xstrdup(now);
    char *c_at = c, *n_at = n;
    for (;;) {
        char *c_end = strchr(c_at, '\n'), *n_end = strchr(n_at, '\n');
        if (c_end)
            *c_end = '\0', *n_end = '\0';
        replay_returned_learn(m, c_at, n_at, is_id, session);
        if (!c_end)
            break;
        c_at = c_end + 1;
        n_at = n_end + 1;
    }
    free(c);
    free(n);
}

/* Under mu: the pair for the len bytes at v whose values differ, mapped in session's
 * statements, or NULL. */
static const struct replay_returned_pair *lookup(const struct replay_returned *m, const char *v,
                                                 size_t len, uint32_t session)
{
    if (m->cap == 0)
        return NULL;
    const struct replay_returned_pair *s = slot_of(m, v, len);
    return s->captured && strcmp(s->captured, s->now) != 0 &&
                   (s->session < 0 || s->session == (int64_t)session)
               ? s
               : NULL;
}

const char *replay_returned_map_value(struct replay_returned *m, const char *v, uint32_t session)
{
    if (!v || atomic_load(&m->count) == 0)
        return NULL;
    pthread_mutex_lock(&m->mu);
    const struct replay_returned_pair *s = lookup(m, v, strlen(v), session);
    const char *now = s ? s->now : NULL;
    pthread_mutex_unlock(&m->mu);
    return now;
}

static int word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

/* Whether the number at p stands where a value does: after one of = < > ( , [ with spaces
 * and an opening quote between. */
static int value_stands(const char *text, const char *p)
{
    const char *q = p;
    if (q > text && q[-1] == '\'')
        q--;
    while (q > text && isspace((unsigned char)q[-1]))
        q--;
    return q > text && strchr("=<>(,[", q[-1]) != NULL;
}

/* Whether the digits from p to end are a value of their own: not a field of a date or a time
 * ('2010-02-01', 12:30, 1/2), and, after an opening quote, the whole quoted value ('2010', not
 * '2010 rows'). */
static int whole_value(const char *text, const char *p, const char *end)
{
    if (strchr("-:/", *end) && *end && isdigit((unsigned char)end[1]))
        return 0;
    if (p > text + 1 && strchr("-:/", p[-1]) && isdigit((unsigned char)p[-2]))
        return 0;
    return !(p > text && p[-1] == '\'') || *end == '\'';
}

int replay_returned_map_text(struct replay_returned *m, const char *text, uint32_t session,
                             struct buf *out)
{
    if (atomic_load(&m->count) == 0)
        return 0;
    int made = 0;
    const char *copied = text; /* text before it is in out (once something is replaced) */
    pthread_mutex_lock(&m->mu);
    for (const char *p = text; *p;) {
        if (!isdigit((unsigned char)*p) || (p > text && word_char(p[-1]))) {
            p++;
            continue;
        }
        const char *end = p;
        while (isdigit((unsigned char)*end))
            end++;
        const struct replay_returned_pair *s = word_char(*end) || !whole_value(text, p, end)
                                                   ? NULL
                                                   : lookup(m, p, (size_t)(end - p), session);
        if (s && (!s->is_id || value_stands(text, p))) {
            if (!made)
                buf_reset(out);
            buf_append(out, copied, (size_t)(p - copied));
            buf_puts(out, s->now);
            copied = end;
            made++;
        }
        p = end;
    }
    pthread_mutex_unlock(&m->mu);
    if (made)
        buf_puts(out, copied);
    return made;
}
