/* The stderr log's log_line_prefix: compiled from its spec, matched against lines, or
 * inferred from a line when the user did not give it. */
#include "capture/logread_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "capture/logread.h"

static const char *const severities[] = {
    "LOG",   "ERROR",  "FATAL",   "PANIC",    "WARNING",   "NOTICE", "INFO",
    "DEBUG", "DEBUG1", "DEBUG2",  "DEBUG3",   "DEBUG4",    "DEBUG5", "DETAIL",
    "HINT",  "QUERY",  "CONTEXT", "LOCATION", "STATEMENT",
};

size_t log_severity_at(const char *s, size_t n)
{
    size_t w = 0;
    while (w < n && w < 10 && ((s[w] >= 'A' && s[w] <= 'Z') || (s[w] >= '0' && s[w] <= '9')))
        w++;
    if (w == 0 || w + 3 > n || s[w] != ':' || s[w + 1] != ' ' || s[w + 2] != ' ')
        return 0;
    for (size_t i = 0; i < sizeof severities / sizeof severities[0]; i++)
        if (strlen(severities[i]) == w && memcmp(severities[i], s, w) == 0)
            return w;
    return 0;
}

static void add_lit(struct log_prefix *p, char c)
{
    struct log_prefix_item *it = p->n_items ? &p->items[p->n_items - 1] : NULL;
    if (!it || it->field || it->lit_len + 1 >= sizeof it->lit) {
        if (p->n_items == LOG_PREFIX_MAX_ITEMS)
            return;
        it = &p->items[p->n_items++];
        memset(it, 0, sizeof *it);
    }
    it->lit[it->lit_len++] = c;
}

static void add_field(struct log_prefix *p, char f)
{
    if (p->n_items == LOG_PREFIX_MAX_ITEMS)
        return;
    struct log_prefix_item *it = &p->items[p->n_items++];
    memset(it, 0, sizeof *it);
    it->field = f;
}

int log_prefix_compile(struct log_prefix *p, const char *spec, char *msg, size_t msg_size)
{
    memset(p, 0, sizeof *p);
    snprintf(p->spec, sizeof p->spec, "%s", spec);
    int has_time = 0, has_session = 0, has_pid = 0;
    for (const char *s = spec; *s; s++) {
        if (*s != '%') {
            add_lit(p, *s);
            continue;
        }
        s++;
        /* A padding width (%-10u) changes spacing only: free fields absorb it. */
        while (*s == '-' || isdigit((unsigned char)*s))
            s++;
        if (!*s)
            break;
        if (*s == '%') {
            add_lit(p, '%');
            continue;
        }
        if (p->n_items == LOG_PREFIX_MAX_ITEMS) {
            snprintf(msg, msg_size, "log_line_prefix '%s' has too many parts", spec);
            return -1;
        }
        add_field(p, *s);
        has_time |= *s == 'm' || *s == 'n';
        has_session |= *s == 'c';
        has_pid |= *s == 'p';
    }
    if (!has_time || (!has_session && !has_pid)) {
        snprintf(msg, msg_size,
                 "log_line_prefix '%s' lacks %s (replay needs %%m or %%n, and %%c or %%p)", spec,
                 !has_time ? "a millisecond timestamp" : "the session id");
        return -1;
    }
    p->session_field = has_session ? 'c' : 'p';
    return 0;
}

static size_t span(const char *s, size_t n, const char *set)
{
    size_t i = 0;
    while (i < n && strchr(set, s[i]) && s[i])
        i++;
    return i;
}

/* The length of a shaped field at s, 0 when s does not hold one. */
static size_t shaped(char f, const char *s, size_t n, int64_t *time_us)
{
    static const char hex[] = "0123456789abcdef";
    static const char digits[] = "0123456789";
    size_t i, j;
    switch (f) {
    case 'm':
    case 't':
        if (log_parse_time(s, n, time_us, &i) < 0)
            return 0;
        return i;
    case 'n':
        i = span(s, n, digits);
        if (i == 0 || i >= n || s[i] != '.')
            return 0;
        j = span(s + i + 1, n - i - 1, digits);
        if (j == 0)
            return 0;
        {
            int64_t secs = 0, frac = 0, scale = 1000000;
            for (size_t k = 0; k < i && k < 12; k++) /* no overflow in µs */
                secs = secs * 10 + (s[k] - '0');
            for (size_t k = 0; k < j && k < 6; k++) {
                scale /= 10;
                frac += (s[i + 1 + k] - '0') * scale;
            }
            *time_us = secs * 1000000 + frac;
        }
        return i + 1 + j;
    case 'c':
        i = span(s, n, hex);
        if (i == 0 || i >= n || s[i] != '.')
            return 0;
        j = span(s + i + 1, n - i - 1, hex);
        return j ? i + 1 + j : 0;
    case 'p':
    case 'l':
        return span(s, n, digits);
    case 'e':
        i = span(s, n, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ");
        return i == 5 ? 5 : 0;
    default:
        return 0;
    }
}

static int is_shaped(char f)
{
    return strchr("mtncple", f) != NULL;
}

/* Where a free field at s ends: at the next literal, else before the severity. */
static size_t free_end(const struct log_prefix *p, int i, const char *s, size_t n)
{
    if (i + 1 < p->n_items && !p->items[i + 1].field) {
        const struct log_prefix_item *lit = &p->items[i + 1];
        for (size_t k = 0; k + lit->lit_len <= n; k++)
            if (memcmp(s + k, lit->lit, lit->lit_len) == 0)
                return k;
        return n + 1;
    }
    if (i + 1 < p->n_items) {
        size_t k = 0;
        while (k < n && s[k] != ' ')
            k++;
        return k;
    }
    for (size_t k = 0; k < n; k++)
        if (log_severity_at(s + k, n - k))
            return k;
    return n + 1;
}

static void set_field(const struct log_prefix *p, struct log_prefix_match *m, char f, const char *s,
                      size_t len)
{
    if (f == p->session_field) {
        m->session = s, m->session_len = len;
        return;
    }
    switch (f) {
    case 'u':
        m->user = s, m->user_len = len;
        break;
    case 'd':
        m->database = s, m->database_len = len;
        break;
    case 'e':
        m->sqlstate = s, m->sqlstate_len = len;
        break;
    default:
        break;
    }
}

static int finish(const char *line, size_t n, size_t pos, struct log_prefix_match *m)
{
    size_t w = log_severity_at(line + pos, n - pos);
    if (!w)
        return -1;
    m->severity = line + pos;
    m->severity_len = w;
    m->message = line + pos + w + 3;
    return 0;
}

int log_prefix_match(const struct log_prefix *p, const char *line, size_t n,
                     struct log_prefix_match *m)
{
    memset(m, 0, sizeof *m);
    m->session = m->user = m->database = m->sqlstate = "";
    size_t pos = 0;
    int have_time = 0;
    for (int i = 0; i < p->n_items; i++) {
        const struct log_prefix_item *it = &p->items[i];
        if (it->field == 'q') {
            /* What follows %q is left out for processes without a session. */
            if (finish(line, n, pos, m) == 0)
                return have_time ? 0 : -1;
            continue;
        }
        if (!it->field) {
            if (pos + it->lit_len > n || memcmp(line + pos, it->lit, it->lit_len) != 0)
                return -1;
            pos += it->lit_len;
            continue;
        }
        size_t len;
        if (is_shaped(it->field)) {
            int64_t t = 0;
            len = shaped(it->field, line + pos, n - pos, &t);
            /* %c, %e, %l and %p are empty for some processes. */
            if (len == 0 && strchr("mtn", it->field))
                return -1;
            if (strchr("mtn", it->field)) {
                m->time_us = t;
                have_time = 1;
            }
        } else {
            len = free_end(p, i, line + pos, n - pos);
            if (len > n - pos)
                return -1;
        }
        set_field(p, m, it->field, line + pos, len);
        pos += len;
    }
    if (!have_time)
        return -1;
    return finish(line, n, pos, m);
}

/* The word (run of name characters) at s. */
static size_t word_at(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '$' || s[i] == '-' ||
                     (unsigned char)s[i] >= 0x80))
        i++;
    return i;
}

static const struct {
    const char *label;
    char field;
} labels[] = {
    {"user=", 'u'},   {"usr=", 'u'},    {"db=", 'd'},          {"database=", 'd'},
    {"dbname=", 'd'}, {"app=", 'a'},    {"application=", 'a'}, {"client=", 'h'},
    {"host=", 'h'},   {"remote=", 'h'}, {"session=", 'c'},     {"pid=", 'p'},
};

static void spec_put(struct log_prefix *p, const char *s)
{
    size_t have = strlen(p->spec);
    snprintf(p->spec + have, sizeof p->spec - have, "%s", s);
}

/* The value after key in a connection message ("user=app database=shop ..."). */
static void conn_value(const char *msg, const char *end, const char *key, char *out, size_t size)
{
    size_t kl = strlen(key);
    for (const char *s = msg; s + kl <= end; s++) {
        if ((s == msg || s[-1] == ' ') && strncmp(s, key, kl) == 0) {
            size_t n = 0;
            s += kl;
            while (s + n < end && s[n] != ' ' && n + 1 < size)
                n++;
            memcpy(out, s, n);
            out[n] = '\0';
            return;
        }
    }
}

static int same_word(const char *w, size_t len, const char *value)
{
    return *value && strlen(value) == len && memcmp(w, value, len) == 0;
}

int log_prefix_infer(struct log_prefix *p, const char *line, size_t n)
{
    /* The severity that ends the prefix: the first one followed by a client's message. */
    static const char *const starts[] = {"statement: ", "execute ",
                                         "duration: ", "connection authorized: "};
    size_t end = 0;
    int found = 0;
    for (; end < n && !found; end++) {
        size_t w = log_severity_at(line + end, n - end);
        if (!w || (end > 0 && isalnum((unsigned char)line[end - 1])))
            continue;
        const char *msg = line + end + w + 3;
        for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++)
            if ((size_t)(line + n - msg) >= strlen(starts[k]) &&
                memcmp(msg, starts[k], strlen(starts[k])) == 0)
                found = 1;
        if (found)
            break;
    }
    if (!found)
        return -1;
    /* A connection line names its user and database: the words equal to them are those. */
    char conn_user[64] = "", conn_db[64] = "";
    const char *text = line + end + log_severity_at(line + end, n - end) + 3;
    if (strncmp(text, "connection authorized: ", 23) == 0) {
        conn_value(text, line + n, "user=", conn_user, sizeof conn_user);
        conn_value(text, line + n, "database=", conn_db, sizeof conn_db);
        if (strcmp(conn_user, conn_db) == 0)
            conn_user[0] = conn_db[0] = '\0';
    }
    char spec[128] = "";
    int words = 0;
    char pending = 0; /* a label's field, for the next word */
    const char *s = line;
    for (size_t i = 0; i < end;) {
        size_t len, room = strlen(spec);
        int64_t t;
        char f = 0;
        for (size_t k = 0; !pending && k < sizeof labels / sizeof labels[0]; k++) {
            size_t ll = strlen(labels[k].label);
            if (i + ll <= end && strncmp(s + i, labels[k].label, ll) == 0 &&
                (i == 0 || !isalnum((unsigned char)s[i - 1]))) {
                snprintf(spec + room, sizeof spec - room, "%s", labels[k].label);
                pending = labels[k].field;
                i += ll;
                break;
            }
        }
        room = strlen(spec);
        if ((len = shaped('m', s + i, end - i, &t)) > 0 && memchr(s + i, '.', len))
            f = 'm';
        else if ((len = shaped('n', s + i, end - i, &t)) > 0 && len >= 12)
            f = 'n';
        else if ((len = shaped('c', s + i, end - i, &t)) > 0 && !pending)
            f = 'c';
        else if ((len = word_at(s + i, end - i)) > 0) {
            int digits = (int)span(s + i, len, "0123456789") == (int)len;
            /* On a LOG line %e is 00000; a pid of five digits is no SQLSTATE. */
            int state = len == 5 && span(s + i, 5, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 5 &&
                        (strncmp(s + i, "00000", 5) == 0 || !digits);
            if (pending)
                f = pending;
            else if (state)
                f = 'e';
            else if (digits)
                f = strstr(spec, "%p") ? 'l' : 'p';
            else
                f = same_word(s + i, len, conn_user) ? 'u'
                    : same_word(s + i, len, conn_db) ? 'd'
                    : words == 0                     ? 'u'
                    : words == 1                     ? 'd'
                                                     : 'a';
            if (!pending && !state && !digits)
                words++;
        }
        pending = 0;
        if (f) {
            snprintf(spec + room, sizeof spec - room, "%%%c", f);
            i += len;
        } else {
            char lit[3] = {s[i], 0, 0};
            if (s[i] == '%')
                lit[1] = '%';
            snprintf(spec + room, sizeof spec - room, "%s", lit);
            i++;
        }
    }
    char msg[256];
    if (log_prefix_compile(p, spec, msg, sizeof msg) < 0)
        return -1;
    struct log_prefix_match m;
    if (log_prefix_match(p, line, n, &m) < 0)
        return -1;
    memset(p->spec, 0, sizeof p->spec);
    spec_put(p, spec);
    return 0;
}
