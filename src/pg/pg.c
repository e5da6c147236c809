#include "pg/pg.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "pg/pg_driver.h"

/* Options, the calls that dispatch through a connection's driver, failure classes and
 * messages. libpq itself is only in pg_libpq.c. */

static const struct pg_driver *installed;

void pg_driver_install(const struct pg_driver *d)
{
    installed = d;
}

void pg_connopts_free(struct pg_connopts *o)
{
    free(o->host);
    free(o->port);
    free(o->user);
    free(o->dbname);
    memset(o, 0, sizeof *o);
}

/* TCP defaults that make a silent peer (a partition, a host gone without a word) noticed
 * within about 11 s even without --timeout: keepalive probes after 5 s of silence, every 2 s,
 * 3 of them unanswered; and data unacknowledged for 10 s drops the connection. They come
 * before the user's conninfo, which overrides any of them. libpq ignores them on unix
 * sockets. */
static const char *const tcp_defaults[][2] = {
    {"keepalives", "1"},       {"keepalives_idle", "5"},      {"keepalives_interval", "2"},
    {"keepalives_count", "3"}, {"tcp_user_timeout", "10000"},
};

void pg_connopts_params(const struct pg_connopts *o, const char *keywords[PG_CONN_PARAMS],
                        const char *values[PG_CONN_PARAMS])
{
    int n = 0;
    for (size_t i = 0; i < sizeof tcp_defaults / sizeof tcp_defaults[0]; i++) {
        keywords[n] = tcp_defaults[i][0];
        values[n++] = tcp_defaults[i][1];
    }
    /* dbname next: with expand_dbname a conninfo or URI there is expanded (overriding the
     * defaults above), and the explicit -h/-p/-U that follow override what it says, as in
     * psql. */
    if (o->dbname) {
        keywords[n] = "dbname";
        values[n++] = o->dbname;
    }
    if (o->host) {
        keywords[n] = "host";
        values[n++] = o->host;
    }
    if (o->port) {
        keywords[n] = "port";
        values[n++] = o->port;
    }
    if (o->user) {
        keywords[n] = "user";
        values[n++] = o->user;
    }
    keywords[n] = "fallback_application_name";
    values[n++] = "pgarena";
    keywords[n] = NULL;
    values[n] = NULL;
}

struct pg_conn *pg_conn_start(const struct pg_connopts *o)
{
    return (installed ? installed : &pg_libpq_driver)->start(o);
}

enum pg_poll pg_conn_poll(struct pg_conn *c)
{
    return c->drv->poll(c);
}

void pg_finish(struct pg_conn *c)
{
    if (c)
        c->drv->finish(c);
}

int pg_socket(const struct pg_conn *c)
{
    return c->drv->socket(c);
}

int pg_conn_ok(const struct pg_conn *c)
{
    return c->drv->ok(c);
}

int pg_set_nonblocking(struct pg_conn *c)
{
    return c->drv->set_nonblocking(c);
}

int pg_send_simple(struct pg_conn *c, const char *sql)
{
    return c->drv->send_simple(c, sql);
}

int pg_send_params(struct pg_conn *c, const char *sql, int n, const char *const *values,
                   const struct pg_param_forms *forms)
{
    return c->drv->send_params(c, sql, n, values, forms);
}

int pg_send_prepared(struct pg_conn *c, const char *name, int n, const char *const *values,
                     const struct pg_param_forms *forms)
{
    return c->drv->send_prepared(c, name, n, values, forms);
}

int pg_send_prepare(struct pg_conn *c, const char *name, const char *sql, int n_params,
                    const uint32_t *types)
{
    return c->drv->send_prepare(c, name, sql, n_params, types);
}

int pg_flush(struct pg_conn *c)
{
    return c->drv->flush(c);
}

int pg_consume(struct pg_conn *c)
{
    return c->drv->consume(c);
}

int pg_is_busy(const struct pg_conn *c)
{
    return c->drv->is_busy(c);
}

struct pg_result *pg_next_result(struct pg_conn *c)
{
    return c->drv->next_result(c);
}

int pg_get_copy_data(struct pg_conn *c)
{
    return c->drv->get_copy_data(c);
}

int pg_put_copy_data(struct pg_conn *c, const char *data, int n)
{
    return c->drv->put_copy_data(c, data, n);
}

int pg_put_copy_end(struct pg_conn *c, const char *errmsg)
{
    return c->drv->put_copy_end(c, errmsg);
}

int pg_pipeline_enter(struct pg_conn *c)
{
    return c->drv->pipeline_enter(c);
}

void pg_pipeline_exit(struct pg_conn *c)
{
    c->drv->pipeline_exit(c);
}

int pg_pipeline_sync(struct pg_conn *c)
{
    return c->drv->pipeline_sync(c);
}

int pg_pipeline_send_sync(struct pg_conn *c)
{
    return c->drv->pipeline_send_sync ? c->drv->pipeline_send_sync(c) : c->drv->pipeline_sync(c);
}

int pg_pipeline_flush_request(struct pg_conn *c)
{
    return c->drv->pipeline_flush_request ? c->drv->pipeline_flush_request(c) : 0;
}

int pg_in_pipeline(const struct pg_conn *c)
{
    return c->drv->in_pipeline(c);
}

enum pg_txn pg_txn_status(const struct pg_conn *c)
{
    return c->drv->txn_status(c);
}

struct pg_cancel *pg_cancel_new(struct pg_conn *c)
{
    return c->drv->cancel_new(c);
}

void pg_cancel_send(struct pg_cancel *k)
{
    k->drv->cancel_send(k);
}

void pg_cancel_free(struct pg_cancel *k)
{
    if (k)
        k->drv->cancel_free(k);
}

enum pg_status pg_result_status(const struct pg_result *r)
{
    return r->drv->result_status(r);
}

int pg_result_rows(const struct pg_result *r)
{
    return r->drv->result_rows(r);
}

int pg_result_cols(const struct pg_result *r)
{
    return r->drv->result_cols(r);
}

const char *pg_result_value(const struct pg_result *r, int row, int col)
{
    return r->drv->result_value(r, row, col);
}

int pg_result_isnull(const struct pg_result *r, int row, int col)
{
    return r->drv->result_isnull(r, row, col);
}

const char *pg_result_colname(const struct pg_result *r, int col)
{
    return r->drv->result_colname(r, col);
}

const char *pg_result_sqlstate(const struct pg_result *r)
{
    return r->drv->result_sqlstate(r);
}

const char *pg_result_detail(const struct pg_result *r)
{
    return r->drv->result_detail(r);
}

void pg_result_free(struct pg_result *r)
{
    if (r)
        r->drv->result_free(r);
}

/* msg's first line with its continuation lines (libpq indents them with a tab) joined by
 * spaces, without "ERROR:  " and the trailing newline: one line for stderr and the result. */
static void fold_message(const char *msg, char *out, size_t out_size)
{
    if (!msg || !*msg)
        msg = "unknown error";
    if (strncmp(msg, "ERROR:  ", 8) == 0)
        msg += 8;
    size_t n = 0;
    for (const char *p = msg; *p && n + 1 < out_size; p++) {
        if (*p != '\n') {
            out[n++] = *p == '\t' ? ' ' : *p;
            continue;
        }
        if (p[1] != '\t' && p[1] != ' ')
            break; /* DETAIL, HINT, or the next host's message */
        while (p[1] == '\t' || p[1] == ' ')
            p++;
        out[n++] = ' ';
    }
    while (n > 0 && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

void pg_conn_error(const struct pg_conn *c, char *out, size_t out_size)
{
    fold_message(c ? c->drv->error_message(c) : NULL, out, out_size);
}

void pg_error_line(const struct pg_conn *c, const struct pg_result *r, char *out, size_t out_size)
{
    const char *msg = r ? r->drv->result_message(r) : NULL;
    if ((!msg || !*msg) && c)
        msg = c->drv->error_message(c);
    fold_message(msg, out, out_size);
}

enum pg_failure pg_sqlstate_class(const char *state)
{
    if (!state)
        return PGF_OTHER;
    if (strcmp(state, "40001") == 0)
        return PGF_SERIALIZATION;
    if (strcmp(state, "40P01") == 0)
        return PGF_DEADLOCK;
    if (strcmp(state, "57014") == 0)
        return PGF_TIMEOUT;
    /* Class 08 (connection exception) and 57P01..03 (admin shutdown, crash, cannot connect). */
    if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P0", 4) == 0)
        return PGF_CONNECTION;
    return PGF_OTHER;
}

enum pg_failure pg_classify(const struct pg_conn *c, const struct pg_result *r)
{
    if (!r || (c && !pg_conn_ok(c)))
        return PGF_CONNECTION;
    const char *state = pg_result_sqlstate(r);
    if (!state)
        return PGF_OTHER;
    return pg_sqlstate_class(state);
}

static char *quote(const char *s, char q)
{
    struct buf b;
    buf_init(&b);
    if (q == '\'' && strchr(s, '\\'))
        buf_putc(&b, 'E');
    buf_putc(&b, q);
    for (; *s; s++) {
        if (*s == q || (q == '\'' && *s == '\\'))
            buf_putc(&b, *s);
        buf_putc(&b, *s);
    }
    buf_putc(&b, q);
    return b.data;
}

char *pg_quote_ident(const char *s)
{
    return quote(s, '"');
}

char *pg_quote_literal(const char *s)
{
    return quote(s, '\'');
}
