#include "capture/logread.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/buf.h"
#include "base/mem.h"
#include "capture/logread_int.h"
#include "os/os.h"

/* A message longer than this is refused as corrupt rather than buffered without end. */
#define MAX_ENTRY (64u << 20)
#define CHUNK     (1u << 18)

/* One logical stderr line: the prefixed line with its continuation lines. */
struct raw_line {
    struct buf text;
    long line;
    int have;
};

struct log_reader {
    char *path;
    gzFile in;
    enum log_format fmt;
    struct log_prefix prefix;
    int prefix_known, prefix_given;
    uint64_t unmatched;
    long line; /* physical lines read */
    int eof;
    char *chunk; /* read buffer */
    size_t pos, len;
    struct buf phys; /* the physical line being read */
    int phys_ready;  /* phys holds a line not yet consumed */
    long phys_line;
    struct raw_line cur, next; /* stderr: the entry's line and the one after it */
    struct buf out;            /* the entry's strings, NUL-separated */
    json_t *json;              /* the current jsonlog entry */
};

/* ---- time ---- */

static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int digits_at(const char *s, size_t n, size_t at, int count, int *out)
{
    int v = 0;
    for (int i = 0; i < count; i++) {
        if (at + (size_t)i >= n || s[at + i] < '0' || s[at + i] > '9')
            return -1;
        v = v * 10 + (s[at + i] - '0');
    }
    *out = v;
    return 0;
}

int log_parse_time(const char *s, size_t n, int64_t *us, size_t *end)
{
    int y, mo, d, h, mi, se;
    if (digits_at(s, n, 0, 4, &y) < 0 || n < 19 || s[4] != '-' || digits_at(s, n, 5, 2, &mo) < 0 ||
        s[7] != '-' || digits_at(s, n, 8, 2, &d) < 0 || (s[10] != ' ' && s[10] != 'T') ||
        digits_at(s, n, 11, 2, &h) < 0 || s[13] != ':' || digits_at(s, n, 14, 2, &mi) < 0 ||
        s[16] != ':' || digits_at(s, n, 17, 2, &se) < 0)
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return -1;
    size_t i = 19;
    int64_t frac = 0;
    if (i < n && s[i] == '.') {
        int64_t scale = 1000000;
        i++;
        size_t start = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            if (scale > 1) {
                scale /= 10;
                frac += (s[i] - '0') * scale;
            }
            i++;
        }
        if (i == start)
            return -1;
    }
    int64_t t = (days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se) * 1000000 + frac;
    /* The zone: a numeric one moves the time to UTC; a name is taken as it is (offsets
     * within one log stay right; only a change of daylight saving time shifts them). */
    if (i + 1 < n && s[i] == ' ' && s[i + 1] != ' ') {
        size_t z = i + 1, k = z;
        while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '+' || s[k] == '-' ||
                         s[k] == ':' || s[k] == '_' || s[k] == '/'))
            k++;
        if (k > z && (s[z] == '+' || s[z] == '-')) {
            int zh = 0, zm = 0;
            if (digits_at(s, n, z + 1, 2, &zh) == 0) {
                size_t at = z + 3;
                if (at < n && s[at] == ':')
                    at++;
                if (digits_at(s, n, at, 2, &zm) < 0)
                    zm = 0;
                int64_t off = ((int64_t)zh * 3600 + zm * 60) * 1000000;
                t += s[z] == '+' ? -off : off;
            }
        }
        if (k > z)
            i = k;
    }
    *us = t;
    if (end)
        *end = i;
    return 0;
}

/* ---- lines ---- */

/* The next physical line into r->phys (without its newline): 1, 0 at the end, -1 on error. */
static int read_phys(struct log_reader *r, struct err *e)
{
    buf_reset(&r->phys);
    for (;;) {
        if (r->pos == r->len) {
            if (r->eof)
                return r->phys.len ? 1 : 0;
            int got = gzread(r->in, r->chunk, CHUNK);
            if (got < 0) {
                int zerr;
                const char *msg = gzerror(r->in, &zerr);
                return err_set(e, ERR_INPUT, "%s:%ld: %s", r->path, r->line + 1,
                               zerr == Z_ERRNO ? strerror(errno) : msg);
            }
            if (got == 0) {
                r->eof = 1;
                if (r->phys.len) {
                    r->line++;
                    return 1;
                }
                return 0;
            }
            r->pos = 0;
            r->len = (size_t)got;
        }
        char *nl = memchr(r->chunk + r->pos, '\n', r->len - r->pos);
        size_t take = nl ? (size_t)(nl - (r->chunk + r->pos)) : r->len - r->pos;
        if (r->phys.len + take > MAX_ENTRY)
            return err_set(e, ERR_INPUT, "%s:%ld: line too long", r->path, r->line + 1);
        buf_append(&r->phys, r->chunk + r->pos, take);
        r->pos += take;
        if (nl) {
            r->pos++;
            r->line++;
            if (r->phys.len && r->phys.data[r->phys.len - 1] == '\r')
                r->phys.data[--r->phys.len] = '\0';
            return 1;
        }
    }
}

/* Take the next physical line (the one peeked, or a new one). */
static int next_phys(struct log_reader *r, struct err *e)
{
    if (r->phys_ready) {
        r->phys_ready = 0;
        return 1;
    }
    int rc = read_phys(r, e);
    r->phys_line = r->line;
    return rc;
}

/* ---- stderr ---- */

/* The next logical line (prefixed, with its tab-indented continuations) into rl. */
static int read_logical(struct log_reader *r, struct raw_line *rl, struct err *e)
{
    rl->have = 0;
    buf_reset(&rl->text);
    for (;;) {
        int rc = next_phys(r, e);
        if (rc <= 0)
            return rc;
        if (r->phys.len && r->phys.data[0] == '\t') {
            r->unmatched++; /* a continuation without its first line */
            continue;
        }
        if (!r->prefix_known) {
            if (log_prefix_infer(&r->prefix, r->phys.data, r->phys.len) == 0)
                r->prefix_known = 1;
        }
        struct log_prefix_match m;
        if (!r->prefix_known || log_prefix_match(&r->prefix, r->phys.data, r->phys.len, &m) < 0) {
            r->unmatched++;
            continue;
        }
        buf_append(&rl->text, r->phys.data, r->phys.len);
        rl->line = r->phys_line;
        rl->have = 1;
        break;
    }
    for (;;) {
        int rc = read_phys(r, e);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return 1;
        r->phys_line = r->line;
        if (r->phys.len && r->phys.data[0] == '\t') {
            if (rl->text.len + r->phys.len > MAX_ENTRY)
                return err_set(e, ERR_INPUT, "%s:%ld: message too long", r->path, r->line);
            buf_putc(&rl->text, '\n');
            buf_append(&rl->text, r->phys.data + 1, r->phys.len - 1);
            continue;
        }
        r->phys_ready = 1;
        return 1;
    }
}

static size_t out_put(struct log_reader *r, const char *s, size_t n)
{
    size_t at = r->out.len;
    buf_append(&r->out, s, n);
    buf_putc(&r->out, '\0');
    return at;
}

static int attached(const struct log_prefix_match *m, const char *what)
{
    return m->severity_len == strlen(what) && memcmp(m->severity, what, m->severity_len) == 0;
}

static int next_stderr(struct log_reader *r, struct log_entry *out, struct err *e)
{
    struct raw_line tmp;
    if (!r->next.have) {
        int rc = read_logical(r, &r->next, e);
        if (rc <= 0) {
            if (rc == 0 && !r->prefix_known && r->line > 0 && !r->prefix_given)
                return err_set(
                    e, ERR_INPUT,
                    "%s:1: no usable log_line_prefix: no line holds a millisecond "
                    "timestamp and a session id (%%m or %%n, and %%c or %%p); give --prefix",
                    r->path);
            if (rc == 0 && r->prefix_given && r->unmatched && r->line == (long)r->unmatched)
                return err_set(e, ERR_INPUT, "%s:1: no line matches log_line_prefix '%s'", r->path,
                               r->prefix.spec);
            return rc;
        }
    }
    tmp = r->cur;
    r->cur = r->next;
    r->next = tmp;
    struct log_prefix_match m;
    log_prefix_match(&r->prefix, r->cur.text.data, r->cur.text.len, &m);
    buf_reset(&r->out);
    size_t session = out_put(r, m.session, m.session_len);
    size_t user = out_put(r, m.user, m.user_len);
    size_t db = out_put(r, m.database, m.database_len);
    size_t sev = out_put(r, m.severity, m.severity_len);
    size_t state = out_put(r, m.sqlstate, m.sqlstate_len);
    size_t msg = out_put(r, m.message, (size_t)(r->cur.text.data + r->cur.text.len - m.message));
    size_t detail = out_put(r, "", 0), statement = detail;
    /* DETAIL, HINT, CONTEXT, STATEMENT... lines of the same session belong to this entry. */
    for (;;) {
        int rc = read_logical(r, &r->next, e);
        if (rc < 0)
            return -1;
        if (rc == 0)
            break;
        struct log_prefix_match a;
        log_prefix_match(&r->prefix, r->next.text.data, r->next.text.len, &a);
        int same = a.session_len == m.session_len &&
                   memcmp(a.session, r->out.data + session, a.session_len) == 0;
        int is_detail = attached(&a, "DETAIL"), is_statement = attached(&a, "STATEMENT");
        if (!same ||
            !(is_detail || is_statement || attached(&a, "HINT") || attached(&a, "CONTEXT") ||
              attached(&a, "QUERY") || attached(&a, "LOCATION")))
            break;
        size_t n = (size_t)(r->next.text.data + r->next.text.len - a.message);
        if (is_detail)
            detail = out_put(r, a.message, n);
        else if (is_statement)
            statement = out_put(r, a.message, n);
        r->next.have = 0;
    }
    out->time_us = m.time_us;
    out->session = r->out.data + session;
    out->user = r->out.data + user;
    out->database = r->out.data + db;
    out->severity = r->out.data + sev;
    out->sqlstate = r->out.data + state;
    out->message = r->out.data + msg;
    out->detail = r->out.data + detail;
    out->statement = r->out.data + statement;
    out->line = r->cur.line;
    out->session_line = 0; /* %l is not read from a prefix */
    return 1;
}

/* ---- csvlog ---- */

/* Split one CSV record (which may span lines) into fields: their offsets into r->out. */
#define CSV_FIELDS 32
static int next_csv(struct log_reader *r, struct log_entry *out, struct err *e)
{
    int rc = next_phys(r, e);
    if (rc <= 0)
        return rc;
    long first = r->phys_line;
    buf_reset(&r->out);
    size_t at[CSV_FIELDS];
    int n_fields = 0;
    size_t i = 0;
    int in_quotes = 0, field_open = 1;
    at[0] = 0;
    for (;;) {
        if (i == r->phys.len) {
            if (!in_quotes)
                break;
            /* A newline inside quotes: the record goes on on the next line. */
            rc = read_phys(r, e);
            if (rc < 0)
                return -1;
            if (rc == 0)
                return err_set(e, ERR_INPUT, "%s:%ld: truncated csvlog record (open quote)",
                               r->path, first);
            if (r->out.len > MAX_ENTRY)
                return err_set(e, ERR_INPUT, "%s:%ld: csvlog record too long", r->path, first);
            buf_putc(&r->out, '\n');
            i = 0;
            continue;
        }
        const char *d = r->phys.data;
        size_t n = r->phys.len;
        if (in_quotes) {
            /* Copy up to the next quote in one go: "" is a quote, " alone ends the field. */
            const char *q = memchr(d + i, '"', n - i);
            size_t stop = q ? (size_t)(q - d) : n;
            buf_append(&r->out, d + i, stop - i);
            i = stop;
            if (!q)
                continue;
            i++;
            if (i < n && d[i] == '"') {
                buf_putc(&r->out, '"');
                i++;
            } else {
                in_quotes = 0;
            }
            field_open = 0;
            continue;
        }
        if (d[i] == '"' && field_open) {
            in_quotes = 1;
            field_open = 0;
            i++;
            continue;
        }
        if (d[i] == ',') {
            buf_putc(&r->out, '\0');
            if (++n_fields == CSV_FIELDS)
                return err_set(e, ERR_INPUT, "%s:%ld: csvlog record with too many fields", r->path,
                               first);
            at[n_fields] = r->out.len;
            field_open = 1;
            i++;
            continue;
        }
        /* An unquoted field, or text after a closing quote: up to the next comma. */
        size_t stop = i;
        while (stop < n && d[stop] != ',' && !(d[stop] == '"' && stop == i && field_open))
            stop++;
        buf_append(&r->out, d + i, stop - i);
        i = stop;
        field_open = 0;
    }
    buf_putc(&r->out, '\0');
    n_fields++;
    /* PostgreSQL 9.0 to 13 write 23 fields, 14 and later 26. */
    if (n_fields < 22)
        return err_set(e, ERR_INPUT, "%s:%ld: not a csvlog record (%d fields)", r->path, first,
                       n_fields);
    const char *f[CSV_FIELDS];
    for (int k = 0; k < n_fields; k++)
        f[k] = r->out.data + at[k];
    if (log_parse_time(f[0], strlen(f[0]), &out->time_us, NULL) < 0)
        return err_set(e, ERR_INPUT, "%s:%ld: csvlog record with a bad log_time", r->path, first);
    out->user = f[1];
    out->database = f[2];
    out->session = f[5];
    out->severity = f[11];
    out->sqlstate = f[12];
    out->message = f[13];
    out->detail = f[14];
    out->statement = f[19];
    out->line = first;
    out->session_line = strtol(f[6], NULL, 10);
    return 1;
}

/* ---- jsonlog ---- */

static const char *jstr(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static int next_json(struct log_reader *r, struct log_entry *out, struct err *e)
{
    int rc;
    do {
        rc = next_phys(r, e);
        if (rc <= 0)
            return rc;
    } while (r->phys.len == 0);
    json_decref(r->json);
    json_error_t je;
    r->json = json_loadb(r->phys.data, r->phys.len, 0, &je);
    if (!json_is_object(r->json))
        return err_set(e, ERR_INPUT, "%s:%ld: not a jsonlog line: %s", r->path, r->phys_line,
                       r->json ? "not an object" : je.text);
    const char *ts = jstr(r->json, "timestamp");
    if (log_parse_time(ts, strlen(ts), &out->time_us, NULL) < 0)
        return err_set(e, ERR_INPUT, "%s:%ld: jsonlog line without a valid timestamp", r->path,
                       r->phys_line);
    out->user = jstr(r->json, "user");
    out->database = jstr(r->json, "dbname");
    out->session = jstr(r->json, "session_id");
    out->severity = jstr(r->json, "error_severity");
    out->sqlstate = jstr(r->json, "state_code");
    out->message = jstr(r->json, "message");
    out->detail = jstr(r->json, "detail");
    out->statement = jstr(r->json, "statement");
    out->line = r->phys_line;
    out->session_line = (long)json_integer_value(json_object_get(r->json, "line_num"));
    return 1;
}

/* ---- the reader ---- */

static enum log_format detect(struct log_reader *r, struct err *e)
{
    int rc = read_phys(r, e);
    if (rc < 0)
        return LOG_FORMAT_AUTO;
    r->phys_line = r->line;
    r->phys_ready = rc > 0;
    const char *s = r->phys.data;
    size_t end;
    int64_t t;
    if (rc > 0 && s[0] == '{')
        return LOG_FORMAT_JSON;
    if (rc > 0 && log_parse_time(s, r->phys.len, &t, &end) == 0 && end < r->phys.len &&
        s[end] == ',')
        return LOG_FORMAT_CSV;
    return LOG_FORMAT_STDERR;
}

struct log_reader *log_reader_open(const char *path, enum log_format fmt, const char *prefix,
                                   struct err *e)
{
    gzFile in = os_gzopen(path, "rb");
    if (!in) {
        err_set(e, ERR_INPUT, "%s: %s", path, strerror(errno ? errno : ENOENT));
        return NULL;
    }
    gzbuffer(in, 1 << 17);
    struct log_reader *r = xcalloc(1, sizeof *r);
    r->path = xstrdup(path);
    r->in = in;
    r->chunk = xmalloc(CHUNK);
    buf_init(&r->phys);
    buf_init(&r->cur.text);
    buf_init(&r->next.text);
    buf_init(&r->out);
    if (prefix) {
        char msg[256];
        if (log_prefix_compile(&r->prefix, prefix, msg, sizeof msg) < 0) {
            err_set(e, ERR_INPUT, "%s", msg);
            log_reader_close(r);
            return NULL;
        }
        r->prefix_known = r->prefix_given = 1;
    }
    r->fmt = fmt;
    if (fmt == LOG_FORMAT_AUTO) {
        r->fmt = detect(r, e);
        if (r->fmt == LOG_FORMAT_AUTO) {
            log_reader_close(r);
            return NULL;
        }
    }
    return r;
}

int log_reader_next(struct log_reader *r, struct log_entry *out, struct err *e)
{
    switch (r->fmt) {
    case LOG_FORMAT_CSV:
        return next_csv(r, out, e);
    case LOG_FORMAT_JSON:
        return next_json(r, out, e);
    default:
        return next_stderr(r, out, e);
    }
}

enum log_format log_reader_format(const struct log_reader *r)
{
    return r->fmt;
}

const char *log_reader_prefix(const struct log_reader *r)
{
    return r->prefix_known ? r->prefix.spec : "";
}

uint64_t log_reader_unmatched(const struct log_reader *r)
{
    return r->unmatched;
}

void log_reader_close(struct log_reader *r)
{
    if (!r)
        return;
    gzclose(r->in);
    json_decref(r->json);
    buf_free(&r->phys);
    buf_free(&r->cur.text);
    buf_free(&r->next.text);
    buf_free(&r->out);
    free(r->chunk);
    free(r->path);
    free(r);
}
