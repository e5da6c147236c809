/* One log entry to capture events: the messages PostgreSQL writes for statements, their
 * durations and errors, and for connections. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "capture/prepare_int.h"
#include "capture/sqltext.h"

static const char *after(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* "NAME=VALUE" in a connection message ("user=app database=shop ..."), into out. */
static void conn_field(const char *msg, const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    out[0] = '\0';
    for (const char *s = msg; (s = strstr(s, name)) != NULL; s += n) {
        if ((s == msg || s[-1] == ' ') && s[n] == '=') {
            const char *v = s + n + 1, *end = strchr(v, ' ');
            size_t len = end ? (size_t)(end - v) : strlen(v);
            if (len >= size)
                len = size - 1;
            memcpy(out, v, len);
            out[len] = '\0';
            return;
        }
    }
}

/* The values after the DETAIL's label: "parameters: " up to PostgreSQL 16, "Parameters: "
 * from 17. NULL when the DETAIL is something else. */
static const char *params_list(const char *detail)
{
    const char *s = after(detail, "parameters: ");
    return s ? s : after(detail, "Parameters: ");
}

/* A value log_parameter_max_length cut: it ends in "..." inside its quotes. (A value that
 * really ends so reads the same: it is taken as cut too.) */
static int cut_value(const struct buf *b)
{
    return b->len >= 3 && memcmp(b->data + b->len - 3, "...", 3) == 0;
}

/* "parameters: $1 = '...', $2 = NULL" into ev's params; -1 when it does not read so, -2 when
 * a value was cut by log_parameter_max_length. */
static int parse_params(struct pev *ev, const char *detail)
{
    const char *s = params_list(detail);
    int cut = 0;
    if (!s)
        return -1;
    while (*s) {
        if (*s != '$')
            return -1;
        char *end;
        long idx = strtol(s + 1, &end, 10);
        if (idx < 1 || idx > 65535 || strncmp(end, " = ", 3) != 0)
            return -1;
        s = end + 3;
        char *value = NULL;
        if (strncmp(s, "NULL", 4) == 0) {
            s += 4;
        } else if (*s == '\'') {
            struct buf b;
            buf_init(&b);
            for (s++;; s++) {
                if (!*s) {
                    buf_free(&b);
                    return -1;
                }
                if (*s == '\'') {
                    if (s[1] != '\'')
                        break;
                    s++;
                }
                buf_putc(&b, *s);
            }
            s++;
            cut |= cut_value(&b);
            value = b.data;
        } else {
            return -1;
        }
        if (idx > ev->n_params) {
            ev->params = xrealloc(ev->params, (size_t)idx * sizeof *ev->params);
            for (int i = ev->n_params; i < idx; i++)
                ev->params[i] = NULL;
            ev->n_params = (int)idx;
        }
        free(ev->params[idx - 1]);
        ev->params[idx - 1] = value;
        if (*s == ',' && s[1] == ' ')
            s += 2;
        else if (*s)
            return -1;
    }
    return cut ? -2 : 0;
}

/* 1 when text holds a parameter reference ($1...) outside a string. */
static int has_param_ref(const char *text)
{
    int quoted = 0;
    for (const char *s = text; *s; s++) {
        if (*s == '\'')
            quoted = !quoted;
        else if (!quoted && *s == '$' && s[1] >= '1' && s[1] <= '9' &&
                 (s == text || !(s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') ||
                                 (s[-1] >= 'A' && s[-1] <= 'Z') || (s[-1] >= '0' && s[-1] <= '9'))))
            return 1;
    }
    return 0;
}

/* The session's queued statement has no ERROR: it succeeded. */
static void settle(struct psess *s)
{
    if (s->pending && s->pending->outcome == CAPTURE_OUTCOME_UNKNOWN)
        s->pending->outcome = CAPTURE_OUTCOME_OK;
    s->pending = NULL;
}

static void unsupported(struct prep *p, enum capture_unsupported k, const char *text)
{
    p->stats->skipped_unsupported++;
    capture_count_unsupported(p->stats->unsupported, k, text);
}

struct stmt_in {
    int64_t start_us;
    enum capture_protocol protocol;
    const char *name; /* "" for simple and unnamed */
    const char *text;
    const char *detail;
    int64_t duration_us;
    int fetch; /* an execute of a portal already started ("execute fetch from") */
};

/* An execute that fetches more rows from a portal started before ("execute fetch from"):
 * the log has no row count, and libpq sends no Execute with one, so a replay runs the portal
 * whole at its first execute and the fetches are folded into it, counted, not sent. While
 * that execute is still the session's last statement, an ERROR that follows a fetch is its
 * (a replay meets it there); else the fetch stands alone and its ERROR is left out with it. */
static void fold_fetch(struct prep *p, struct psess *s, const struct stmt_in *in)
{
    struct pev *first = s->pending;
    if (first && first->protocol == in->protocol && strcmp(first->name, in->name) == 0 &&
        strcmp(first->text, in->text) == 0) {
        first->fetches++;
        return;
    }
    settle(s);
    s->swallow_error = 1;
    s->late_valid = 0;
    if (!s->dropped && in->start_us >= p->o->from_us && in->start_us <= p->o->to_us &&
        prep_keep_session(p, s))
        p->stats->portal_fetches++;
}

/* Queue a statement (or count why it is left out). */
static struct pev *add_statement(struct prep *p, const struct log_entry *le,
                                 const struct stmt_in *in)
{
    struct psess *s = prep_session_of(p, le, in->start_us);
    if (in->fetch) {
        fold_fetch(p, s, in);
        return NULL;
    }
    settle(s);
    s->swallow_error = 1;
    s->late_valid = 0;
    /* A password is cut out here: the capture never holds it. */
    struct buf cut;
    buf_init(&cut);
    int secret = sqltext_secret_replace(in->text, SQLTEXT_SECRET_PLACEHOLDER, &cut);
    if (secret < 0) {
        buf_free(&cut);
        p->stats->skipped_secret++;
        return NULL;
    }
    char table[128]; /* a COPY FROM STDIN is kept (prepare.c counts it) when its table reads */
    if (sqltext_is_copy_from_stdin(in->text) &&
        capture_copy_table_of(in->text, table, sizeof table) < 0) {
        buf_free(&cut);
        p->stats->skipped_copy++;
        return NULL;
    }
    struct pev *ev = xcalloc(1, sizeof *ev);
    ev->kind = CAPTURE_EV_STATEMENT;
    /* A session's statements keep the log's order: a start computed from a duration (or
     * an ERROR's time) must not put one before the statement logged ahead of it. */
    ev->abs_us = in->start_us < s->last_start_us ? s->last_start_us : in->start_us;
    s->last_start_us = ev->abs_us;
    ev->s = s;
    ev->protocol = in->protocol;
    ev->name = xstrdup(in->name);
    ev->text = secret ? xstrdup(cut.data) : xstrdup(in->text);
    p->stats->secrets_cut += secret > 0;
    buf_free(&cut);
    ev->error = xstrdup("");
    ev->duration_us = in->duration_us;
    ev->cancel_us = -1;
    ev->outcome = in->duration_us >= 0 ? CAPTURE_OUTCOME_OK : CAPTURE_OUTCOME_UNKNOWN;
    int params = in->protocol != CAPTURE_SIMPLE && in->detail && *in->detail
                     ? parse_params(ev, in->detail)
                     : 0;
    if (params < 0) {
        unsupported(
            p, params == -2 ? CAPTURE_UNSUP_PARAMETERS_CUT : CAPTURE_UNSUP_PARAMETERS_UNREADABLE,
            ev->text);
        prep_event_free(ev);
        return NULL;
    }
    if (in->protocol != CAPTURE_SIMPLE && has_param_ref(in->text) && ev->n_params == 0) {
        /* log_statement shows no parameters for this one: it cannot be sent again. */
        unsupported(p, CAPTURE_UNSUP_PARAMETERS_NOT_LOGGED, ev->text);
        prep_event_free(ev);
        return NULL;
    }
    s->swallow_error = 0;
    s->pending = ev;
    prep_push(p, ev);
    return ev;
}

/* "NAME: TEXT" after "execute " (or "parse ", "bind "), into in. -1 when it is not one. */
static int split_named(const char *rest, struct stmt_in *in, char *name, size_t size)
{
    in->fetch = strncmp(rest, "fetch from ", 11) == 0;
    if (in->fetch)
        rest += 11;
    const char *colon = strstr(rest, ": ");
    if (!colon)
        return -1;
    size_t n = (size_t)(colon - rest);
    const char *slash = memchr(rest, '/', n);
    if (slash)
        n = (size_t)(slash - rest); /* "S_1/C_2": statement S_1 through portal C_2 */
    if (n >= size)
        n = size - 1;
    memcpy(name, rest, n);
    name[n] = '\0';
    if (strcmp(name, "<unnamed>") == 0) {
        name[0] = '\0';
        in->protocol = CAPTURE_EXTENDED_UNNAMED;
    } else {
        in->protocol = CAPTURE_EXTENDED_NAMED;
    }
    in->name = name;
    in->text = colon + 2;
    return 0;
}

/* "duration: 0.084 ms" and what follows it. */
static int on_duration(struct prep *p, const struct log_entry *le, const char *d)
{
    char *end;
    double ms = strtod(d, &end);
    if (end == d || strncmp(end, " ms", 3) != 0 || ms < 0 || ms > 1e12)
        return 0;
    int64_t dur_us = (int64_t)(ms * 1000.0 + 0.5);
    if (dur_us > p->max_duration_us)
        p->max_duration_us = dur_us;
    const char *rest = end + 3;
    struct psess *s;
    if (*rest == '\0') {
        /* log_statement logged the text already: this is its duration. */
        s = prep_session_find(p, le->session);
        if (s && s->pending && s->pending->duration_us < 0) {
            s->pending->duration_us = dur_us;
            s->pending->outcome = CAPTURE_OUTCOME_OK;
        }
        return 0;
    }
    if (strncmp(rest, "  ", 2) != 0)
        return 0;
    rest += 2;
    struct stmt_in in = {.duration_us = dur_us, .detail = le->detail, .name = ""};
    char name[256];
    const char *q;
    if ((q = after(rest, "statement: ")) != NULL) {
        in.protocol = CAPTURE_SIMPLE;
        in.text = q;
        in.start_us = le->time_us - dur_us;
        add_statement(p, le, &in);
        return 0;
    }
    if ((q = after(rest, "parse ")) != NULL || (q = after(rest, "bind ")) != NULL) {
        s = prep_session_of(p, le, le->time_us - dur_us);
        s->ext_us += dur_us;
        return 0;
    }
    if ((q = after(rest, "execute ")) != NULL && split_named(q, &in, name, sizeof name) == 0) {
        s = prep_session_of(p, le, le->time_us - dur_us);
        in.start_us = le->time_us - dur_us - s->ext_us;
        s->ext_us = 0;
        add_statement(p, le, &in);
    }
    return 0;
}

static void on_connect(struct prep *p, const struct log_entry *le, const char *msg)
{
    char user[256], db[256];
    conn_field(msg, "user", user, sizeof user);
    conn_field(msg, "database", db, sizeof db);
    struct log_entry named = *le;
    if (!*named.user)
        named.user = user;
    if (!*named.database)
        named.database = db;
    prep_session_of(p, &named, le->time_us);
}

static void on_disconnect(struct prep *p, const struct log_entry *le)
{
    struct psess *s = prep_session_find(p, le->session);
    if (!s)
        return;
    settle(s);
    struct pev *ev = xcalloc(1, sizeof *ev);
    ev->kind = CAPTURE_EV_SESSION_END;
    ev->abs_us = le->time_us;
    ev->s = s;
    prep_session_close(p, s);
    prep_push(p, ev);
}

static void set_error(struct pev *ev, const struct log_entry *le)
{
    ev->outcome = CAPTURE_OUTCOME_ERROR;
    snprintf(ev->sqlstate, sizeof ev->sqlstate, "%.5s", le->sqlstate);
    free(ev->error);
    /* stderr adds the cursor position that csvlog and jsonlog keep in a field of its own. */
    const char *at = strstr(le->message, " at character ");
    size_t n = strlen(le->message);
    if (at && strspn(at + 14, "0123456789") == strlen(at + 14) && at[14])
        n = (size_t)(at - le->message);
    ev->error = xstrndup(le->message, n);
    if (strcmp(ev->sqlstate, "57014") == 0 && strstr(le->message, "user request"))
        ev->cancel_us = le->time_us > ev->abs_us ? le->time_us - ev->abs_us : 0;
}

/* kept: the ERROR's STATEMENT as the capture keeps it (a password cut out, as add_statement
 * cuts it), to know it for the statement logged before it. */
static void on_error_kept(struct prep *p, const struct log_entry *le, int fatal, const char *kept)
{
    struct psess *s = prep_session_find(p, le->session);
    if (s && s->swallow_error) {
        s->swallow_error = 0;
        return;
    }
    if (s && s->pending && s->pending->duration_us < 0 &&
        (!*le->statement || strcmp(s->pending->text, kept) == 0)) {
        set_error(s->pending, le);
        s->pending = NULL;
        return;
    }
    if (fatal || !*le->statement)
        return;
    if (s && s->late_valid && s->late_hash == hash_str(kept)) {
        /* The ERROR of a statement already written as succeeded: not a statement of its own. */
        s->late_valid = 0;
        return;
    }
    /* Not logged before it failed (a syntax error, or log_min_duration_statement, which logs
     * only what completes): the error's STATEMENT is the statement. */
    struct stmt_in in = {.start_us = le->time_us,
                         .protocol = CAPTURE_SIMPLE,
                         .name = "",
                         .text = le->statement,
                         .duration_us = -1};
    if (has_param_ref(le->statement)) {
        s = prep_session_of(p, le, le->time_us);
        settle(s);
        if (sqltext_is_secret(le->statement))
            p->stats->skipped_secret++;
        else
            unsupported(p, CAPTURE_UNSUP_PARAMETERS_NOT_LOGGED, le->statement);
        return;
    }
    struct pev *ev = add_statement(p, le, &in);
    if (ev) {
        set_error(ev, le);
        ev->s->pending = NULL;
    } else {
        prep_session_find(p, le->session)->swallow_error = 0;
    }
}

static void on_error(struct prep *p, const struct log_entry *le, int fatal)
{
    struct buf cut;
    buf_init(&cut);
    int secret = sqltext_secret_replace(le->statement, SQLTEXT_SECRET_PLACEHOLDER, &cut);
    on_error_kept(p, le, fatal, secret > 0 ? cut.data : le->statement);
    buf_free(&cut);
}

int prep_entry(struct prep *p, const struct log_entry *le, struct err *e)
{
    (void)e;
    if (!*le->session || (p->o->exclude_session && strcmp(le->session, p->o->exclude_session) == 0))
        return 0;
    const char *msg = le->message, *q;
    if (strcmp(le->severity, "LOG") == 0) {
        struct stmt_in in = {
            .start_us = le->time_us, .duration_us = -1, .name = "", .detail = le->detail};
        char name[256];
        if ((q = after(msg, "statement: ")) != NULL) {
            in.protocol = CAPTURE_SIMPLE;
            in.text = q;
            add_statement(p, le, &in);
        } else if ((q = after(msg, "execute ")) != NULL) {
            if (split_named(q, &in, name, sizeof name) == 0)
                add_statement(p, le, &in);
        } else if ((q = after(msg, "duration: ")) != NULL) {
            on_duration(p, le, q);
        } else if (after(msg, "connection received: ")) {
            /* A session keyed by its pid (a prefix without %c): the pid serves anew. */
            on_disconnect(p, le);
        } else if ((q = after(msg, "connection authorized: ")) != NULL) {
            on_connect(p, le, q);
        } else if (after(msg, "disconnection: ")) {
            on_disconnect(p, le);
        }
    } else if (strcmp(le->severity, "ERROR") == 0) {
        on_error(p, le, 0);
    } else if (strcmp(le->severity, "FATAL") == 0 || strcmp(le->severity, "PANIC") == 0) {
        on_error(p, le, 1);
    }
    return 0;
}
