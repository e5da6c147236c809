#include "pg/pg_libpq.h"

#include <stdlib.h>

#include "base/mem.h"

/* libpq's driver: each pg_* call of pg.h is the libpq call of the same meaning. */

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

struct pg_conn *pg_libpq_wrap(PGconn *c)
{
    struct pg_libpq_conn *w = xmalloc(sizeof *w);
    w->base.drv = &pg_libpq_driver;
    w->c = c;
    w->aux_timeout_ms = 0;
    w->timed_out = 0;
    /* Server notices (NOTICE, WARNING) would be printed by libpq from every connection. */
    PQsetNoticeProcessor(c, ignore_notice, NULL);
    return &w->base;
}

static struct pg_conn *lp_start(const struct pg_connopts *o)
{
    const char *kw[PG_CONN_PARAMS], *val[PG_CONN_PARAMS];
    pg_connopts_params(o, kw, val);
    PGconn *c = PQconnectStartParams(kw, val, 1);
    return c ? pg_libpq_wrap(c) : NULL;
}

static enum pg_poll lp_poll(struct pg_conn *c)
{
    PGconn *pc = PG_LIBPQ(c);
    if (PQstatus(pc) == CONNECTION_BAD)
        return PG_POLL_FAILED;
    switch (PQconnectPoll(pc)) {
    case PGRES_POLLING_READING:
        return PG_POLL_READ;
    case PGRES_POLLING_WRITING:
        return PG_POLL_WRITE;
    case PGRES_POLLING_OK:
        return PG_POLL_OK;
    default:
        return PG_POLL_FAILED;
    }
}

static void lp_finish(struct pg_conn *c)
{
    PQfinish(PG_LIBPQ(c));
    free(c);
}

static int lp_socket(const struct pg_conn *c)
{
    return PQsocket(PG_LIBPQ(c));
}

static int lp_ok(const struct pg_conn *c)
{
    return !((const struct pg_libpq_conn *)c)->timed_out && PQstatus(PG_LIBPQ(c)) == CONNECTION_OK;
}

static int lp_set_nonblocking(struct pg_conn *c)
{
    return PQsetnonblocking(PG_LIBPQ(c), 1) == 0 ? 0 : -1;
}

static int lp_send_simple(struct pg_conn *c, const char *sql)
{
    return PQsendQuery(PG_LIBPQ(c), sql) ? 0 : -1;
}

/* pg_param_forms' type OIDs are libpq's Oid */
_Static_assert(sizeof(Oid) == sizeof(uint32_t), "Oid is 32 bits");

static int lp_send_params(struct pg_conn *c, const char *sql, int n, const char *const *values,
                          const struct pg_param_forms *f)
{
    if (!f)
        return PQsendQueryParams(PG_LIBPQ(c), sql, n, NULL, values, NULL, NULL, 0) ? 0 : -1;
    return PQsendQueryParams(PG_LIBPQ(c), sql, n, (const Oid *)f->types, values, f->lengths,
                             f->formats, f->result_binary)
               ? 0
               : -1;
}

static int lp_send_prepared(struct pg_conn *c, const char *name, int n, const char *const *values,
                            const struct pg_param_forms *f)
{
    if (!f)
        return PQsendQueryPrepared(PG_LIBPQ(c), name, n, values, NULL, NULL, 0) ? 0 : -1;
    return PQsendQueryPrepared(PG_LIBPQ(c), name, n, values, f->lengths, f->formats,
                               f->result_binary)
               ? 0
               : -1;
}

static int lp_send_prepare(struct pg_conn *c, const char *name, const char *sql, int n_params,
                           const uint32_t *types)
{
    return PQsendPrepare(PG_LIBPQ(c), name, sql, n_params, (const Oid *)types) ? 0 : -1;
}

static int lp_flush(struct pg_conn *c)
{
    return PQflush(PG_LIBPQ(c));
}

static int lp_consume(struct pg_conn *c)
{
    return PQconsumeInput(PG_LIBPQ(c)) ? 0 : -1;
}

static int lp_is_busy(const struct pg_conn *c)
{
    return PQisBusy(PG_LIBPQ(c));
}

struct pg_result *pg_libpq_result(PGresult *r)
{
    if (!r)
        return NULL;
    struct pg_libpq_result *w = xmalloc(sizeof *w);
    w->base.drv = &pg_libpq_driver;
    w->r = r;
    return &w->base;
}

static struct pg_result *lp_next_result(struct pg_conn *c)
{
    return pg_libpq_result(PQgetResult(PG_LIBPQ(c)));
}

static int lp_get_copy_data(struct pg_conn *c)
{
    char *row = NULL;
    int n = PQgetCopyData(PG_LIBPQ(c), &row, 1);
    if (row)
        PQfreemem(row);
    return n > 0 ? 1 : n;
}

static int lp_put_copy_data(struct pg_conn *c, const char *data, int n)
{
    return PQputCopyData(PG_LIBPQ(c), data, n);
}

static int lp_put_copy_end(struct pg_conn *c, const char *errmsg)
{
    return PQputCopyEnd(PG_LIBPQ(c), errmsg);
}

static int lp_pipeline_enter(struct pg_conn *c)
{
    return PQenterPipelineMode(PG_LIBPQ(c)) ? 0 : -1;
}

static void lp_pipeline_exit(struct pg_conn *c)
{
    PQexitPipelineMode(PG_LIBPQ(c));
}

static int lp_pipeline_sync(struct pg_conn *c)
{
    return PQpipelineSync(PG_LIBPQ(c)) ? 0 : -1;
}

#ifdef LIBPQ_HAS_SEND_PIPELINE_SYNC
static int lp_pipeline_send_sync(struct pg_conn *c)
{
    return PQsendPipelineSync(PG_LIBPQ(c)) ? 0 : -1;
}
#endif

static int lp_pipeline_flush_request(struct pg_conn *c)
{
    return PQsendFlushRequest(PG_LIBPQ(c)) ? 0 : -1;
}

static int lp_in_pipeline(const struct pg_conn *c)
{
    return PQpipelineStatus(PG_LIBPQ(c)) != PQ_PIPELINE_OFF;
}

static enum pg_txn lp_txn_status(const struct pg_conn *c)
{
    switch (PQtransactionStatus(PG_LIBPQ(c))) {
    case PQTRANS_IDLE:
        return PG_TXN_IDLE;
    case PQTRANS_ACTIVE:
        return PG_TXN_ACTIVE;
    case PQTRANS_INTRANS:
        return PG_TXN_INTRANS;
    case PQTRANS_INERROR:
        return PG_TXN_INERROR;
    default:
        return PG_TXN_UNKNOWN;
    }
}

static const char *lp_error_message(const struct pg_conn *c)
{
    const struct pg_libpq_conn *w = (const struct pg_libpq_conn *)c;
    if (w->timed_out)
        return w->missed;
    return PQerrorMessage(PG_LIBPQ(c));
}

struct lp_cancel {
    struct pg_cancel base;
    PGcancel *k;
};

static struct pg_cancel *lp_cancel_new(struct pg_conn *c)
{
    PGcancel *k = PQgetCancel(PG_LIBPQ(c));
    if (!k)
        return NULL;
    struct lp_cancel *w = xmalloc(sizeof *w);
    w->base.drv = &pg_libpq_driver;
    w->k = k;
    return &w->base;
}

static void lp_cancel_send(struct pg_cancel *k)
{
    char errbuf[256];
    PQcancel(((struct lp_cancel *)k)->k, errbuf, sizeof errbuf);
}

static void lp_cancel_free(struct pg_cancel *k)
{
    PQfreeCancel(((struct lp_cancel *)k)->k);
    free(k);
}

static enum pg_status lp_result_status(const struct pg_result *r)
{
    switch (PQresultStatus(PG_LIBPQ_RES(r))) {
    case PGRES_COMMAND_OK:
        return PG_RES_COMMAND;
    case PGRES_TUPLES_OK:
        return PG_RES_ROWS;
    case PGRES_EMPTY_QUERY:
        return PG_RES_EMPTY;
    case PGRES_COPY_IN:
        return PG_RES_COPY_IN;
    case PGRES_COPY_OUT:
        return PG_RES_COPY_OUT;
    case PGRES_PIPELINE_SYNC:
        return PG_RES_PIPELINE_SYNC;
    case PGRES_PIPELINE_ABORTED:
        return PG_RES_PIPELINE_ABORTED;
    default:
        return PG_RES_ERROR;
    }
}

static int lp_result_rows(const struct pg_result *r)
{
    return PQntuples(PG_LIBPQ_RES(r));
}

static int lp_result_cols(const struct pg_result *r)
{
    return PQnfields(PG_LIBPQ_RES(r));
}

static const char *lp_result_value(const struct pg_result *r, int row, int col)
{
    return PQgetvalue(PG_LIBPQ_RES(r), row, col);
}

static int lp_result_isnull(const struct pg_result *r, int row, int col)
{
    return PQgetisnull(PG_LIBPQ_RES(r), row, col);
}

static const char *lp_result_colname(const struct pg_result *r, int col)
{
    return PQfname(PG_LIBPQ_RES(r), col);
}

static const char *lp_result_sqlstate(const struct pg_result *r)
{
    return PQresultErrorField(PG_LIBPQ_RES(r), PG_DIAG_SQLSTATE);
}

static const char *lp_result_detail(const struct pg_result *r)
{
    return PQresultErrorField(PG_LIBPQ_RES(r), PG_DIAG_MESSAGE_DETAIL);
}

static const char *lp_result_message(const struct pg_result *r)
{
    return PQresultErrorMessage(PG_LIBPQ_RES(r));
}

static void lp_result_free(struct pg_result *r)
{
    PQclear(PG_LIBPQ_RES(r));
    free(r);
}

const struct pg_driver pg_libpq_driver = {
    .start = lp_start,
    .poll = lp_poll,
    .finish = lp_finish,
    .socket = lp_socket,
    .ok = lp_ok,
    .set_nonblocking = lp_set_nonblocking,
    .send_simple = lp_send_simple,
    .send_params = lp_send_params,
    .send_prepared = lp_send_prepared,
    .send_prepare = lp_send_prepare,
    .flush = lp_flush,
    .consume = lp_consume,
    .is_busy = lp_is_busy,
    .next_result = lp_next_result,
    .get_copy_data = lp_get_copy_data,
    .put_copy_data = lp_put_copy_data,
    .put_copy_end = lp_put_copy_end,
    .pipeline_enter = lp_pipeline_enter,
    .pipeline_exit = lp_pipeline_exit,
    .pipeline_sync = lp_pipeline_sync,
#ifdef LIBPQ_HAS_SEND_PIPELINE_SYNC
    .pipeline_send_sync = lp_pipeline_send_sync,
#endif
    .pipeline_flush_request = lp_pipeline_flush_request,
    .in_pipeline = lp_in_pipeline,
    .txn_status = lp_txn_status,
    .error_message = lp_error_message,
    .cancel_new = lp_cancel_new,
    .cancel_send = lp_cancel_send,
    .cancel_free = lp_cancel_free,
    .result_status = lp_result_status,
    .result_rows = lp_result_rows,
    .result_cols = lp_result_cols,
    .result_value = lp_result_value,
    .result_isnull = lp_result_isnull,
    .result_colname = lp_result_colname,
    .result_sqlstate = lp_result_sqlstate,
    .result_detail = lp_result_detail,
    .result_message = lp_result_message,
    .result_free = lp_result_free,
};

int pg_lib_version(void)
{
    return PQlibVersion();
}
