/* Values a capture's server handed back, mapped to the replay's (returned.h). */
#include "workload/replay/returned.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

void replay_returned_init(struct replay_returned *m)
{
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    atomic_init(&m->count, 0);
}

void replay_returned_free(struct replay_returned *m)
{
    size_t n = atomic_load(&m->count);
    for (size_t i = 0; i < n; i++) {
        free(m->pairs[i].captured);
        free(m->pairs[i].now);
    }
    free(m->pairs);
    pthread_mutex_destroy(&m->mu);
}

void replay_returned_learn(struct replay_returned *m, const char *captured, const char *now)
{
    if (strcmp(captured, now) == 0)
        return;
    pthread_mutex_lock(&m->mu);
    size_t n = atomic_load(&m->count);
    if (n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->pairs = xrealloc(m->pairs, m->cap * sizeof *m->pairs);
    }
    m->pairs[n].captured = xstrdup(captured);
    m->pairs[n].now = xstrdup(now);
    atomic_store(&m->count, n + 1);
    pthread_mutex_unlock(&m->mu);
}

/* Under mu: the latest pair for the len bytes at v, or NULL. */
static const char *lookup(struct replay_returned *m, const char *v, size_t len)
{
    for (size_t i = atomic_load(&m->count); i-- > 0;)
        if (strncmp(m->pairs[i].captured, v, len) == 0 && m->pairs[i].captured[len] == '\0')
            return m->pairs[i].now;
    return NULL;
}

const char *replay_returned_map_value(struct replay_returned *m, const char *v)
{
    if (!v || atomic_load(&m->count) == 0)
        return NULL;
    pthread_mutex_lock(&m->mu);
    const char *now = lookup(m, v, strlen(v));
    pthread_mutex_unlock(&m->mu);
    return now;
}

static int word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$';
}

int replay_returned_map_text(struct replay_returned *m, const char *text, struct buf *out)
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
        const char *now = word_char(*end) ? NULL : lookup(m, p, (size_t)(end - p));
        if (now) {
            if (!made)
                buf_reset(out);
            buf_append(out, copied, (size_t)(p - copied));
            buf_puts(out, now);
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
