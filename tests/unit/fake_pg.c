#include "fake_pg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef _WIN32
#include <winsock2.h>
#else
#include <sys/eventfd.h>
#include <unistd.h>
#endif

#include "base/buf.h"
#include "base/mem.h"
#include "engine/evwait.h"
#include "pg/pg_driver.h"

/* The fake connection's socket: a descriptor always ready for reading and writing (an
 * eventfd; on Windows, where WSAPoll watches sockets only, the read end of a loopback socket
 * pair that holds a byte). */
static int ready_fd_open(void)
{
#ifdef _WIN32
    static int started;
    if (!started) {
        WSADATA wsa;
        WSAStartup(MAKEWORD(2, 2), &wsa);
        started = 1;
    }
    struct evwake w;
    if (evwake_open(&w) < 0)
        return -1;
    evwake_raise(&w);
    closesocket((SOCKET)w.h[1]);
    return (int)w.h[0];
#else
    return eventfd(1, EFD_NONBLOCK | EFD_CLOEXEC);
#endif
}

static void ready_fd_close(int fd)
{
#ifdef _WIN32
    closesocket((SOCKET)fd);
#else
    close(fd);
#endif
}

#define MAX_QUEUE 256
#define MAX_SENT  4096
#define MAX_PREP  64

static const char lost_message[] = "server closed the connection unexpectedly\n"
                                   "\tThis probably means the server terminated abnormally\n"
                                   "\tbefore or while processing the request.\n";

struct fake_result {
    struct pg_result base;
    enum pg_status status;
    char *sqlstate;
    char *message;
    int n_cols, n_rows;
    char *cols[4];
    char *values[4];
};

/* A connection's results to come: a result, the end of a statement's results (NULL), the
 * same end still on its way (late_end: it arrives at the consume after the one that saw it),
 * a statement held by FAKE_HANG, a COPY TO STDOUT's row (readable once seen by a consume)
 * and its end, or a COPY FROM STDIN waiting for its data's end. */
enum entry_kind { E_RESULT, E_END, E_LATE_END, E_HOLD, E_COPY_ROW, E_COPY_DONE, E_COPY_IN };
struct entry {
    enum entry_kind kind;
    struct fake_result *r;
    int in_tx; /* E_HOLD: the statement began a transaction block */
    int seen;  /* E_LATE_END: a consume has passed since it was queued */
};

struct fake_conn {
    struct pg_conn base;
    int fd;
    enum fake_connect how;
    int polls;
    int connected, broken, pipeline;
    enum pg_txn txn;
    char error[512];
    struct entry q[MAX_QUEUE];
    int qh, qt;
    char *prep_name[MAX_PREP], *prep_sql[MAX_PREP];
    int n_prep;
};

static struct {
    enum fake_connect connects[64];
    int n_connects_queued, connects_head;
    struct fake_reply replies[MAX_QUEUE];
    int n_replies, replies_head;
    struct fake_reply prep_replies[MAX_PREP];
    int n_prep_replies, prep_replies_head;
    char *sent[MAX_SENT];
    int n_sent;
    int n_started, n_open, n_cancels;
    struct fake_conn *last;
    int copy_rows_read, put_refused;
    struct buf copy_in;
    size_t copy_in_ended; /* of copy_in, the bytes before the last COPY's end */
} F;

extern const struct pg_driver fake_driver;

static void record(const char *fmt, const char *a, int n, const char *const *values)
{
    if (F.n_sent >= MAX_SENT)
        return;
    struct buf b;
    buf_init(&b);
    buf_printf(&b, fmt, a);
    if (n >= 0) {
        buf_puts(&b, " |");
        for (int i = 0; i < n; i++)
            buf_printf(&b, "%s%s", i ? "," : " ", values[i] ? values[i] : "NULL");
    }
    F.sent[F.n_sent++] = b.data;
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

static struct fake_result *new_result(enum pg_status st)
{
    struct fake_result *r = xcalloc(1, sizeof *r);
    r->base.drv = &fake_driver;
    r->status = st;
    return r;
}

static void push_entry(struct fake_conn *c, enum entry_kind kind, struct fake_result *r)
{
    if (c->qt >= MAX_QUEUE) { /* compact */
        memmove(c->q, c->q + c->qh, (size_t)(c->qt - c->qh) * sizeof c->q[0]);
        c->qt -= c->qh;
        c->qh = 0;
    }
    c->q[c->qt++] = (struct entry){kind, r, 0, 0};
}

static int starts_with(const char *sql, const char *word)
{
    while (*sql == ' ' || *sql == '\n' || *sql == '\t')
        sql++;
    return strncasecmp(sql, word, strlen(word)) == 0;
}

/* The results of one statement answered with rep, into c's queue. */
static void answer(struct fake_conn *c, const struct fake_reply *rep, const char *sql)
{
    struct fake_result *r;
    switch (rep->kind) {
    case FAKE_ERROR:
        r = new_result(PG_RES_ERROR);
        r->sqlstate = dup_or_null(rep->sqlstate);
        r->message = xasprintf("ERROR:  %s\n", rep->message ? rep->message : "failed");
        snprintf(c->error, sizeof c->error, "%s", r->message);
        if (c->txn == PG_TXN_INTRANS)
            c->txn = PG_TXN_INERROR;
        push_entry(c, E_RESULT, r);
        break;
    case FAKE_ROWS:
        r = new_result(PG_RES_ROWS);
        r->n_cols = rep->n_cols;
        r->n_rows = 1;
        for (int i = 0; i < rep->n_cols; i++) {
            r->cols[i] = xstrdup(rep->cols[i]);
            r->values[i] = dup_or_null(rep->values[i]);
        }
        push_entry(c, E_RESULT, r);
        break;
    case FAKE_COPY_OUT:
        push_entry(c, E_RESULT, new_result(PG_RES_COPY_OUT));
        for (int i = 0; i < rep->copy_rows; i++)
            push_entry(c, E_COPY_ROW, NULL);
        push_entry(c, E_COPY_DONE, NULL);
        push_entry(c, E_RESULT, new_result(PG_RES_COMMAND));
        break;
    case FAKE_COPY_IN:
        for (int i = 0; i < (rep->copies > 1 ? rep->copies : 1); i++) {
            push_entry(c, E_RESULT, new_result(PG_RES_COPY_IN));
            push_entry(c, E_COPY_IN, NULL);
        }
        break;
    default:
        r = new_result(PG_RES_COMMAND);
        push_entry(c, E_RESULT, r);
        break;
    }
    if (rep->kind != FAKE_ERROR && sql) {
        if (starts_with(sql, "BEGIN") || starts_with(sql, "START"))
            c->txn = PG_TXN_INTRANS;
        else if (starts_with(sql, "END") || starts_with(sql, "COMMIT") ||
                 starts_with(sql, "ROLLBACK"))
            c->txn = PG_TXN_IDLE;
    }
    push_entry(c, rep->late_end ? E_LATE_END : E_END, NULL);
}

static struct fake_reply next_reply(void)
{
    if (F.replies_head < F.n_replies)
        return F.replies[F.replies_head++];
    return (struct fake_reply){.kind = FAKE_COMMAND};
}

static int send_statement(struct fake_conn *c, const char *sql)
{
    if (c->broken || !c->connected) {
        snprintf(c->error, sizeof c->error, "no connection to the server\n");
        return -1;
    }
    struct fake_reply rep = next_reply();
    if (rep.kind == FAKE_LOST) {
        c->broken = 1;
        snprintf(c->error, sizeof c->error, "%s", lost_message);
        return 0; /* noticed when reading, as with a real socket */
    }
    if (rep.kind == FAKE_HANG) {
        push_entry(c, E_HOLD, NULL);
        c->q[c->qt - 1].in_tx = sql && (starts_with(sql, "BEGIN") || starts_with(sql, "START"));
        return 0;
    }
    answer(c, &rep, sql);
    return 0;
}

static struct pg_conn *f_start(const struct pg_connopts *o)
{
    (void)o;
    struct fake_conn *c = xcalloc(1, sizeof *c);
    c->base.drv = &fake_driver;
    c->how =
        F.connects_head < F.n_connects_queued ? F.connects[F.connects_head++] : FAKE_CONNECT_OK;
    c->fd = -1;
    c->txn = PG_TXN_IDLE;
    F.n_started++;
    F.last = c;
    if (c->how == FAKE_CONNECT_AT_ONCE) {
        snprintf(c->error, sizeof c->error, "invalid connection option \"bogus\"\n");
    } else {
        c->fd = ready_fd_open();
    }
    F.n_open++;
    return &c->base;
}

#define FC(c) ((struct fake_conn *)(c))

static enum pg_poll f_poll(struct pg_conn *pc)
{
    struct fake_conn *c = FC(pc);
    int step = c->polls++;
    switch (c->how) {
    case FAKE_CONNECT_AT_ONCE:
        return PG_POLL_FAILED;
    case FAKE_CONNECT_FAIL:
        snprintf(c->error, sizeof c->error,
                 "connection to server at \"127.0.0.2\", port 5432 failed: Connection "
                 "refused\n\tIs the server running on that host and accepting TCP/IP "
                 "connections?\n");
        return PG_POLL_FAILED;
    case FAKE_CONNECT_HANG:
        return PG_POLL_READ;
    case FAKE_CONNECT_NEW_SOCKET:
        if (step == 0) {
            ready_fd_close(c->fd);
            c->fd = ready_fd_open();
            return PG_POLL_WRITE;
        }
        step--;
        /* fall through */
    case FAKE_CONNECT_OK:
        if (step == 0)
            return PG_POLL_READ;
        c->connected = 1;
        return PG_POLL_OK;
    }
    return PG_POLL_FAILED;
}

static void free_result(struct pg_result *pr)
{
    struct fake_result *r = (struct fake_result *)pr;
    free(r->sqlstate);
    free(r->message);
    for (int i = 0; i < r->n_cols; i++) {
        free(r->cols[i]);
        free(r->values[i]);
    }
    free(r);
}

static void f_finish(struct pg_conn *pc)
{
    struct fake_conn *c = FC(pc);
    if (c->fd >= 0)
        ready_fd_close(c->fd);
    for (int i = c->qh; i < c->qt; i++)
        if (c->q[i].r)
            free_result(&c->q[i].r->base);
    for (int i = 0; i < c->n_prep; i++) {
        free(c->prep_name[i]);
        free(c->prep_sql[i]);
    }
    if (F.last == c)
        F.last = NULL;
    F.n_open--;
    free(c);
}

static int f_socket(const struct pg_conn *c)
{
    return FC(c)->fd;
}

static int f_ok(const struct pg_conn *c)
{
    return FC(c)->connected && !FC(c)->broken;
}

static int f_set_nonblocking(struct pg_conn *c)
{
    (void)c;
    return 0;
}

/* DEALLOCATE ALL, DISCARD ALL and DEALLOCATE "name" (quoted, as the engine sends it) drop
 * the connection's prepared statements, as a server's do. */
static void fake_deallocate(struct fake_conn *c, const char *sql)
{
    int all = strcmp(sql, "DEALLOCATE ALL") == 0 || strcmp(sql, "DISCARD ALL") == 0;
    if (!all && !starts_with(sql, "DEALLOCATE \""))
        return;
    for (int i = c->n_prep - 1; i >= 0; i--) {
        size_t n = strlen(c->prep_name[i]);
        if (all ||
            (strncmp(sql + 12, c->prep_name[i], n) == 0 && strcmp(sql + 12 + n, "\"") == 0)) {
            free(c->prep_name[i]);
            free(c->prep_sql[i]);
            c->prep_name[i] = c->prep_name[--c->n_prep];
            c->prep_sql[i] = c->prep_sql[c->n_prep];
        }
    }
}

static int f_send_simple(struct pg_conn *pc, const char *sql)
{
    struct fake_conn *c = FC(pc);
    fake_deallocate(c, sql);
    if (strcmp(sql, "ROLLBACK") == 0) {
        record("ROLLBACK", "", -1, NULL);
        if (c->broken)
            return -1;
        struct fake_reply ok = {.kind = FAKE_COMMAND};
        answer(c, &ok, sql);
        return 0;
    }
    record("Q %s", sql, -1, NULL);
    return send_statement(c, sql);
}

static int f_send_params(struct pg_conn *c, const char *sql, int n, const char *const *values,
                         const struct pg_param_forms *forms)
{
    (void)forms;
    record("X %s", sql, n, values);
    return send_statement(FC(c), sql);
}

static int f_send_prepared(struct pg_conn *pc, const char *name, int n, const char *const *values,
                           const struct pg_param_forms *forms)
{
    (void)forms;
    struct fake_conn *c = FC(pc);
    record("E %s", name, n, values);
    const char *sql = NULL;
    for (int i = 0; i < c->n_prep; i++)
        if (strcmp(c->prep_name[i], name) == 0)
            sql = c->prep_sql[i];
    if (!sql) {
        snprintf(c->error, sizeof c->error, "prepared statement \"%s\" does not exist\n", name);
        struct fake_reply err = {.kind = FAKE_ERROR, .sqlstate = "26000", .message = c->error};
        answer(c, &err, NULL);
        return 0;
    }
    return send_statement(c, sql);
}

static int f_send_prepare(struct pg_conn *pc, const char *name, const char *sql, int n_params,
                          const uint32_t *types)
{
    (void)n_params;
    (void)types;
    struct fake_conn *c = FC(pc);
    record("P %s", name, -1, NULL);
    if (c->broken || c->n_prep >= MAX_PREP)
        return -1;
    struct fake_reply rep = {.kind = FAKE_COMMAND};
    if (F.prep_replies_head < F.n_prep_replies)
        rep = F.prep_replies[F.prep_replies_head++];
    for (int i = 0; i < c->n_prep; i++)
        if (strcmp(c->prep_name[i], name) == 0) /* as a server refuses it */
            rep = (struct fake_reply){.kind = FAKE_ERROR,
                                      .sqlstate = "42P05",
                                      .message = "prepared statement already exists"};
    if (rep.kind != FAKE_ERROR) {
        c->prep_name[c->n_prep] = xstrdup(name);
        c->prep_sql[c->n_prep++] = xstrdup(sql);
    }
    answer(c, &rep, NULL);
    return 0;
}

static int f_flush(struct pg_conn *c)
{
    return FC(c)->broken ? -1 : 0;
}

static int f_consume(struct pg_conn *pc)
{
    struct fake_conn *c = FC(pc);
    for (int i = c->qh; i < c->qt; i++) {
        if (c->q[i].kind == E_COPY_ROW && !c->q[i].seen) {
            c->q[i].seen = 1; /* one row more has come */
            break;
        }
        if (c->q[i].kind != E_LATE_END)
            continue;
        if (c->q[i].seen)
            c->q[i].kind = E_END;
        else
            c->q[i].seen = 1;
    }
    return c->broken ? -1 : 0;
}

static int f_is_busy(const struct pg_conn *pc)
{
    const struct fake_conn *c = FC(pc);
    return c->qh < c->qt && (c->q[c->qh].kind == E_HOLD || c->q[c->qh].kind == E_LATE_END);
}

static struct pg_result *f_next_result(struct pg_conn *pc)
{
    struct fake_conn *c = FC(pc);
    if (c->qh >= c->qt || c->q[c->qh].kind == E_HOLD || c->q[c->qh].kind == E_LATE_END)
        return NULL;
    enum entry_kind k = c->q[c->qh].kind;
    if (k == E_COPY_ROW || k == E_COPY_DONE || k == E_COPY_IN) /* as libpq: the COPY again */
        return &new_result(k == E_COPY_IN ? PG_RES_COPY_IN : PG_RES_COPY_OUT)->base;
    struct entry e = c->q[c->qh++];
    return e.kind == E_RESULT ? &e.r->base : NULL;
}

static int f_get_copy_data(struct pg_conn *pc)
{
    struct fake_conn *c = FC(pc);
    if (c->broken || c->qh >= c->qt)
        return -2;
    struct entry *e = &c->q[c->qh];
    if (e->kind == E_COPY_ROW) {
        if (!e->seen)
            return 0;
        c->qh++;
        F.copy_rows_read++;
        return 1;
    }
    if (e->kind == E_COPY_DONE) {
        c->qh++;
        return -1;
    }
    return -2;
}

static int copy_in_waiting(struct fake_conn *c)
{
    return !c->broken && c->qh < c->qt && c->q[c->qh].kind == E_COPY_IN;
}

static int f_put_copy_data(struct pg_conn *pc, const char *data, int n)
{
    if (!copy_in_waiting(FC(pc)))
        return -1;
    if ((F.put_refused = !F.put_refused)) /* the output is full: every other call */
        return 0;
    buf_append(&F.copy_in, data, (size_t)n);
    return 1;
}

static int f_put_copy_end(struct pg_conn *pc, const char *errmsg)
{
    struct fake_conn *c = FC(pc);
    if (!copy_in_waiting(c))
        return -1;
    /* The COPY's result in its place: before the statement's further COPYs and its end. */
    c->q[c->qh] = (struct entry){.kind = E_RESULT};
    if (!errmsg) {
        char n[32];
        snprintf(n, sizeof n, "%zu", F.copy_in.len - F.copy_in_ended);
        F.copy_in_ended = F.copy_in.len;
        record("COPY END %s", n, -1, NULL);
        c->q[c->qh].r = new_result(PG_RES_COMMAND);
        return 1;
    }
    /* Failed by the client: the server's error, as a cancel's (57014). */
    record("COPY FAIL %s", errmsg, -1, NULL);
    struct fake_result *r = new_result(PG_RES_ERROR);
    r->sqlstate = xstrdup("57014");
    r->message = xasprintf("ERROR:  COPY from stdin failed: %s\n", errmsg);
    snprintf(c->error, sizeof c->error, "%s", r->message);
    if (c->txn == PG_TXN_INTRANS)
        c->txn = PG_TXN_INERROR;
    c->q[c->qh].r = r;
    /* The statement's further COPYs do not run. */
    int end = c->qh + 1;
    for (; end < c->qt && c->q[end].kind != E_END && c->q[end].kind != E_LATE_END; end++)
        if (c->q[end].r)
            free_result(&c->q[end].r->base);
    memmove(c->q + c->qh + 1, c->q + end, (size_t)(c->qt - end) * sizeof c->q[0]);
    c->qt -= end - c->qh - 1;
    return 1;
}

static int f_pipeline_enter(struct pg_conn *c)
{
    FC(c)->pipeline = 1;
    return 0;
}

static void f_pipeline_exit(struct pg_conn *c)
{
    FC(c)->pipeline = 0;
}

static int f_pipeline_sync(struct pg_conn *pc)
{
    struct fake_conn *c = FC(pc);
    record("SYNC", "", -1, NULL);
    if (c->broken)
        return -1;
    push_entry(c, E_RESULT, new_result(PG_RES_PIPELINE_SYNC));
    return 0;
}

static int f_in_pipeline(const struct pg_conn *c)
{
    return FC(c)->pipeline;
}

static enum pg_txn f_txn_status(const struct pg_conn *c)
{
    return FC(c)->broken ? PG_TXN_UNKNOWN : FC(c)->txn;
}

static const char *f_error_message(const struct pg_conn *c)
{
    return FC(c)->error;
}

static struct pg_cancel *f_cancel_new(struct pg_conn *c)
{
    (void)c;
    F.n_cancels++;
    struct pg_cancel *k = xmalloc(sizeof *k);
    k->drv = &fake_driver;
    return k;
}

static void f_cancel_send(struct pg_cancel *k)
{
    (void)k;
}

static void f_cancel_free(struct pg_cancel *k)
{
    free(k);
}

#define FR(r) ((const struct fake_result *)(r))

static enum pg_status f_result_status(const struct pg_result *r)
{
    return FR(r)->status;
}

static int f_result_rows(const struct pg_result *r)
{
    return FR(r)->n_rows;
}

static int f_result_cols(const struct pg_result *r)
{
    return FR(r)->n_cols;
}

static const char *f_result_value(const struct pg_result *r, int row, int col)
{
    (void)row;
    return FR(r)->values[col] ? FR(r)->values[col] : "";
}

static int f_result_isnull(const struct pg_result *r, int row, int col)
{
    (void)row;
    return FR(r)->values[col] == NULL;
}

static const char *f_result_colname(const struct pg_result *r, int col)
{
    return FR(r)->cols[col];
}

static const char *f_result_sqlstate(const struct pg_result *r)
{
    return FR(r)->sqlstate;
}

static const char *f_result_detail(const struct pg_result *r)
{
    (void)r;
    return NULL;
}

static const char *f_result_message(const struct pg_result *r)
{
    return FR(r)->message ? FR(r)->message : "";
}

const struct pg_driver fake_driver = {
    .start = f_start,
    .poll = f_poll,
    .finish = f_finish,
    .socket = f_socket,
    .ok = f_ok,
    .set_nonblocking = f_set_nonblocking,
    .send_simple = f_send_simple,
    .send_params = f_send_params,
    .send_prepared = f_send_prepared,
    .send_prepare = f_send_prepare,
    .flush = f_flush,
    .consume = f_consume,
    .is_busy = f_is_busy,
    .next_result = f_next_result,
    .get_copy_data = f_get_copy_data,
    .put_copy_data = f_put_copy_data,
    .put_copy_end = f_put_copy_end,
    .pipeline_enter = f_pipeline_enter,
    .pipeline_exit = f_pipeline_exit,
    .pipeline_sync = f_pipeline_sync,
    .in_pipeline = f_in_pipeline,
    .txn_status = f_txn_status,
    .error_message = f_error_message,
    .cancel_new = f_cancel_new,
    .cancel_send = f_cancel_send,
    .cancel_free = f_cancel_free,
    .result_status = f_result_status,
    .result_rows = f_result_rows,
    .result_cols = f_result_cols,
    .result_value = f_result_value,
    .result_isnull = f_result_isnull,
    .result_colname = f_result_colname,
    .result_sqlstate = f_result_sqlstate,
    .result_detail = f_result_detail,
    .result_message = f_result_message,
    .result_free = free_result,
};

void fake_install(void)
{
    for (int i = 0; i < F.n_sent; i++)
        free(F.sent[i]);
    buf_free(&F.copy_in);
    memset(&F, 0, sizeof F);
    buf_init(&F.copy_in);
    pg_driver_install(&fake_driver);
}

void fake_uninstall(void)
{
    pg_driver_install(NULL);
}

void fake_push_connect(enum fake_connect how)
{
    F.connects[F.n_connects_queued++] = how;
}

void fake_push(struct fake_reply r)
{
    F.replies[F.n_replies++] = r;
}

void fake_push_prepare(struct fake_reply r)
{
    F.prep_replies[F.n_prep_replies++] = r;
}

void fake_push_error(const char *sqlstate, const char *message)
{
    fake_push((struct fake_reply){.kind = FAKE_ERROR, .sqlstate = sqlstate, .message = message});
}

void fake_push_kind(enum fake_kind kind)
{
    fake_push((struct fake_reply){.kind = kind});
}

void fake_push_row(const char *col, const char *value)
{
    fake_push(
        (struct fake_reply){.kind = FAKE_ROWS, .n_cols = 1, .cols = {col}, .values = {value}});
}

void fake_release(struct pg_conn *pc, struct fake_reply r)
{
    struct fake_conn *c = FC(pc);
    for (int i = c->qh; i < c->qt; i++) {
        if (c->q[i].kind != E_HOLD)
            continue;
        /* Replace the hold by the answer: answer() appends, so move what follows. */
        int in_tx = c->q[i].in_tx;
        int tail = c->qt - i - 1;
        struct entry rest[MAX_QUEUE];
        memcpy(rest, c->q + i + 1, (size_t)tail * sizeof rest[0]);
        c->qt = i;
        if (in_tx && r.kind != FAKE_ERROR)
            c->txn = PG_TXN_INTRANS;
        answer(c, &r, NULL);
        memcpy(c->q + c->qt, rest, (size_t)tail * sizeof rest[0]);
        c->qt += tail;
        return;
    }
}

int fake_n_sent(void)
{
    return F.n_sent;
}

const char *fake_sent(int i)
{
    return i >= 0 && i < F.n_sent ? F.sent[i] : "";
}

int fake_count_sent(const char *s)
{
    int n = 0;
    for (int i = 0; i < F.n_sent; i++)
        n += strstr(F.sent[i], s) != NULL;
    return n;
}

int fake_copy_rows_read(void)
{
    return F.copy_rows_read;
}

const char *fake_copy_in(void)
{
    return F.copy_in.data ? F.copy_in.data : "";
}

int fake_n_connects(void)
{
    return F.n_started;
}

int fake_n_open(void)
{
    return F.n_open;
}

int fake_n_cancels(void)
{
    return F.n_cancels;
}

struct pg_conn *fake_last_conn(void)
{
    return F.last ? &F.last->base : NULL;
}
