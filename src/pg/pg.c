#include "pg/pg.h"

#include <stdlib.h>
#include <string.h>

void pg_connopts_free(struct pg_connopts *o)
{
    free(o->host);
    free(o->port);
    free(o->user);
    free(o->dbname);
    memset(o, 0, sizeof *o);
}

void pg_connopts_params(const struct pg_connopts *o, const char *keywords[8], const char *values[8])
{
    int n = 0;
    /* dbname first: with expand_dbname a conninfo or URI there is expanded, and the explicit
     * -h/-p/-U that follow override what it says, as in psql. */
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

void pg_error_line(PGconn *c, const PGresult *res, char *out, unsigned long out_size)
{
    const char *msg = NULL;
    if (res)
        msg = PQresultErrorMessage(res);
    if ((!msg || !*msg) && c)
        msg = PQerrorMessage(c);
    if (!msg || !*msg)
        msg = "unknown error";
    if (strncmp(msg, "ERROR:  ", 8) == 0)
        msg += 8;
    size_t n = strcspn(msg, "\n");
    if (n >= out_size)
        n = out_size - 1;
    memcpy(out, msg, n);
    out[n] = '\0';
}

PGconn *pg_connect(const struct pg_connopts *o, struct err *e)
{
    const char *kw[8], *val[8];
    pg_connopts_params(o, kw, val);
    PGconn *c = PQconnectdbParams(kw, val, 1);
    if (!c) {
        err_set(e, ERR_RUNTIME, "could not connect: out of memory");
        return NULL;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        char line[512];
        pg_error_line(c, NULL, line, sizeof line);
        err_set(e, ERR_RUNTIME, "could not connect to server: %s", line);
        PQfinish(c);
        return NULL;
    }
    return c;
}

int pg_exec(PGconn *c, const char *sql, struct err *e)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok) {
        char line[512];
        pg_error_line(c, r, line, sizeof line);
        err_set(e, ERR_RUNTIME, "%s", line);
    }
    PQclear(r);
    return ok ? 0 : -1;
}

int pg_query_value(PGconn *c, const char *sql, char *out, unsigned long out_size, struct err *e)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        char line[512];
        pg_error_line(c, r, line, sizeof line);
        err_set(e, ERR_RUNTIME, "%s", line);
        PQclear(r);
        return -1;
    }
    if (PQntuples(r) < 1 || PQnfields(r) < 1) {
        err_set(e, ERR_RUNTIME, "query returned no rows: %s", sql);
        PQclear(r);
        return -1;
    }
    const char *v = PQgetvalue(r, 0, 0);
    size_t n = strlen(v);
    if (n >= out_size)
        n = out_size - 1;
    memcpy(out, v, n);
    out[n] = '\0';
    PQclear(r);
    return 0;
}

int pg_in_transaction(const PGconn *c)
{
    PGTransactionStatusType ts = PQtransactionStatus(c);
    return ts == PQTRANS_INTRANS || ts == PQTRANS_INERROR;
}

enum pg_failure pg_classify(PGconn *c, const PGresult *res)
{
    if (!res || (c && PQstatus(c) != CONNECTION_OK))
        return PGF_CONNECTION;
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_FATAL_ERROR && c && PQstatus(c) != CONNECTION_OK)
        return PGF_CONNECTION;
    const char *state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    if (!state)
        return (c && PQstatus(c) != CONNECTION_OK) ? PGF_CONNECTION : PGF_OTHER;
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
