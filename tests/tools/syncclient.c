/* syncclient CONNINFO: a libpq application in pipeline mode, for the recording proxy's tests:
 * groups of statements that share one Sync, as drivers' batches send them. Outside a
 * transaction block a group is one implicit transaction: grp_a's three INSERTs commit
 * together; grp_b's second INSERT fails (a duplicate key), which rolls back its first and
 * skips its third; grp_c prepares a named statement and its second execution fails, rolling
 * back its first; grp_d runs inside BEGIN … COMMIT, where the Sync commits nothing. Rows left:
 * 1, 2, 3, 30, 31. Exits 1 with the reason when the server does otherwise. */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PGconn *conn;

static void die(const char *what)
{
    fprintf(stderr, "syncclient: %s: %s", what, PQerrorMessage(conn));
    exit(1);
}

static void exec(const char *sql)
{
    PGresult *res = PQexec(conn, sql);
    if (PQresultStatus(res) != PGRES_COMMAND_OK)
        die(sql);
    PQclear(res);
}

static void insert(const char *id)
{
    const char *values[1] = {id};
    if (!PQsendQueryParams(conn, "INSERT INTO grp VALUES ($1)", 1, NULL, values, NULL, NULL, 0))
        die("send INSERT");
}

static void insert_named(const char *id)
{
    const char *values[1] = {id};
    if (!PQsendQueryPrepared(conn, "grp_ins", 1, values, NULL, NULL, 0))
        die("send EXECUTE grp_ins");
}

/* The group's results up to its Sync: each statement's status in turn ('c' done, 'e' failed,
 * 'a' skipped after a failure), into got. */
static void read_group(char *got, size_t size)
{
    size_t n = 0;
    for (;;) {
        PGresult *res = PQgetResult(conn);
        if (!res)
            continue; /* between two statements' results */
        ExecStatusType st = PQresultStatus(res);
        PQclear(res);
        if (st == PGRES_PIPELINE_SYNC)
            break;
        if (n + 1 < size)
            got[n++] = st == PGRES_COMMAND_OK ? 'c' : st == PGRES_PIPELINE_ABORTED ? 'a' : 'e';
    }
    got[n] = '\0';
}

static void group(const char *name, const char *want, void (*send)(void))
{
    char got[16];
    if (!PQenterPipelineMode(conn))
        die("enter pipeline mode");
    send();
    if (!PQpipelineSync(conn))
        die("sync");
    read_group(got, sizeof got);
    if (!PQexitPipelineMode(conn))
        die("exit pipeline mode");
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "syncclient: %s: results %s, wanted %s\n", name, got, want);
        exit(1);
    }
}

static void grp_a(void)
{
    insert("1");
    insert("2");
    insert("3");
}

static void grp_b(void)
{
    insert("10");
    insert("1");
    insert("11");
}

static void grp_c(void)
{
    if (!PQsendPrepare(conn, "grp_ins", "INSERT INTO grp VALUES ($1)", 0, NULL))
        die("send PREPARE");
    insert_named("20");
    insert_named("2");
}

static void grp_d(void)
{
    insert("30");
    insert("31");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: syncclient CONNINFO\n");
        return 2;
    }
    conn = PQconnectdb(argv[1]);
    if (PQstatus(conn) != CONNECTION_OK)
        die("connect");
    exec("CREATE TABLE grp (id int PRIMARY KEY)");
    group("grp_a", "ccc", grp_a);
    group("grp_b", "cea", grp_b);
    group("grp_c", "cce", grp_c);
    exec("BEGIN");
    group("grp_d", "cc", grp_d);
    exec("COMMIT");
    PQfinish(conn);
    return 0;
}
