/* copyfailclient CONNINFO: a libpq application giving up on its COPY FROM STDIN, for the
 * recording proxy's tests: it creates cf, starts `COPY cf FROM STDIN`, sends two rows and ends
 * it with a CopyFail ("aborted"); then, in one Query of two COPY FROM STDIN, gives the first
 * a row and ends it, sends the second a row and fails it ("given up"). The server fails each
 * statement (57014) and, the Query being one transaction, cf holds no row. Exits 1 with the
 * reason when the server does otherwise. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PGconn *conn;

static void die(const char *what)
{
    fprintf(stderr, "copyfailclient: %s: %s", what, PQerrorMessage(conn));
    exit(1);
}

static void want(PGresult *res, ExecStatusType st, const char *what)
{
    if (!res || PQresultStatus(res) != st)
        die(what);
    PQclear(res);
}

/* A COPY the server asks rows for: rows sent, then ended with a CopyDone (fail NULL) or a
 * CopyFail carrying fail. */
static void copy_in(const char *rows, const char *fail)
{
    want(PQgetResult(conn), PGRES_COPY_IN, "no CopyInResponse");
    if (PQputCopyData(conn, rows, (int)strlen(rows)) != 1 || PQputCopyEnd(conn, fail) != 1)
        die("send the rows");
}

/* The statement failed by the client's CopyFail: the server's 57014 carrying its message. */
static void failed(const char *message)
{
    PGresult *res = PQgetResult(conn);
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *text = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!state || strcmp(state, "57014") != 0 || !text || !strstr(text, message))
        die("the CopyFail did not fail the COPY");
    PQclear(res);
    while ((res = PQgetResult(conn)))
        PQclear(res);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: copyfailclient CONNINFO\n");
        return 2;
    }
    conn = PQconnectdb(argv[1]);
    if (PQstatus(conn) != CONNECTION_OK)
        die("connect");
    want(PQexec(conn, "CREATE TABLE cf (a int, b text)"), PGRES_COMMAND_OK, "CREATE TABLE");
    if (!PQsendQuery(conn, "COPY cf FROM STDIN"))
        die("send COPY");
    copy_in("1\tone\n2\ttwo\n", "aborted");
    failed("aborted");
    if (!PQsendQuery(conn, "COPY cf FROM STDIN; COPY cf FROM STDIN"))
        die("send COPY; COPY");
    copy_in("3\tthree\n", NULL);
    want(PQgetResult(conn), PGRES_COMMAND_OK, "the first COPY");
    copy_in("4\tfour\n", "given up");
    failed("given up");
    PGresult *res = PQexec(conn, "SELECT count(*) FROM cf");
    if (PQresultStatus(res) != PGRES_TUPLES_OK || strcmp(PQgetvalue(res, 0, 0), "0") != 0)
        die("cf holds rows");
    PQclear(res);
    PQfinish(conn);
    return 0;
}
