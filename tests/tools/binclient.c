/* binclient CONNINFO DIRECT: a libpq application that sends what psql and pgbench never do,
 * for the recording proxy's tests: parameters in binary format (int8, float8, bytea holding
 * NUL and 0xff bytes) with the types its Parse names, beside a text one whose type the server
 * infers; a named statement prepared with types and executed with binary values; a result
 * asked in binary format; a parameter typed by a user's type's OID (an enum); and ids an
 * INSERT's RETURNING gave in binary, sent again as binary int8 parameters, after 1,000 ids
 * were taken on DIRECT (a connection the proxy does not see). Exits 1 with the server's
 * message on any failure. */
#include <libpq-fe.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { INT8_OID = 20, BYTEA_OID = 17, FLOAT8_OID = 701 };

static PGconn *conn;

static void check(PGresult *res, const char *what)
{
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        fprintf(stderr, "binclient: %s: %s", what, PQerrorMessage(conn));
        exit(1);
    }
}

static void exec(const char *sql)
{
    PGresult *res = PQexec(conn, sql);
    check(res, sql);
    PQclear(res);
}

/* v in network order into 8 bytes */
static void be64(uint64_t v, char out[8])
{
    for (int i = 7; i >= 0; i--, v >>= 8)
        out[i] = (char)(v & 0xff);
}

/* Parents' ids from RETURNING in binary, each sent again as a binary int8 in its child's
 * INSERT, after DIRECT took 1,000 ids the proxy did not see. */
static void inserted_ids(const char *direct)
{
    exec("CREATE TABLE bin_parent (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, tag int)");
    exec("CREATE TABLE bin_child (parent_id bigint REFERENCES bin_parent, tag int)");
    PGconn *beside = PQconnectdb(direct);
    PGresult *res = PQexec(beside, "SELECT count(nextval(pg_get_serial_sequence('bin_parent', "
                                   "'id'))) FROM generate_series(1, 1000)");
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        fprintf(stderr, "binclient: the ids beside: %s", PQerrorMessage(beside));
        exit(1);
    }
    PQclear(res);
    PQfinish(beside);
    for (int i = 1; i <= 5; i++) {
        char tag[4] = {0, 0, 0, (char)i};
        const Oid int4[1] = {23};
        const char *values[1] = {tag};
        const int four[1] = {4}, binary[2] = {1, 1};
        res = PQexecParams(conn, "INSERT INTO bin_parent (tag) VALUES ($1) RETURNING id", 1, int4,
                           values, four, binary, 1);
        check(res, "INSERT bin_parent");
        if (PQgetlength(res, 0, 0) != 8) {
            fprintf(stderr, "binclient: the id is not an int8 in binary\n");
            exit(1);
        }
        char id[8];
        memcpy(id, PQgetvalue(res, 0, 0), 8);
        PQclear(res);
        const Oid child_types[2] = {INT8_OID, 23};
        const char *child[2] = {id, tag};
        const int lengths[2] = {8, 4};
        check(PQexecParams(conn, "INSERT INTO bin_child VALUES ($1, $2)", 2, child_types, child,
                           lengths, binary, 0),
              "INSERT bin_child");
    }
    /* Three rows' ids from one INSERT's RETURNING, in text, each sent again as text. */
    res = PQexec(conn, "INSERT INTO bin_parent (tag) VALUES (6), (7), (8) RETURNING id, tag");
    check(res, "INSERT bin_parent rows");
    for (int row = 0; row < PQntuples(res); row++) {
        const char *child[2] = {PQgetvalue(res, row, 0), PQgetvalue(res, row, 1)};
        check(PQexecParams(conn, "INSERT INTO bin_child VALUES ($1, $2)", 2, NULL, child, NULL,
                           NULL, 0),
              "INSERT bin_child (text)");
    }
    PQclear(res);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: binclient CONNINFO DIRECT\n");
        return 2;
    }
    conn = PQconnectdb(argv[1]);
    if (PQstatus(conn) != CONNECTION_OK) {
        fprintf(stderr, "binclient: %s", PQerrorMessage(conn));
        return 1;
    }
    exec("CREATE TABLE bin_t (id int8 PRIMARY KEY, data bytea, note text, f float8)");
    exec("CREATE TYPE bin_mood AS ENUM ('sad', 'ok', 'happy')");
    exec("CREATE TABLE bin_moods (id int PRIMARY KEY, m bin_mood)");
    /* Unnamed, binary int8, bytea and float8 beside a text value of an inferred type. */
    const Oid types[4] = {INT8_OID, BYTEA_OID, 0, FLOAT8_OID};
    const int formats[4] = {1, 1, 0, 1};
    for (int i = 1; i <= 20; i++) {
        char id[8], data[4] = {(char)i, 0, (char)0xff, (char)(i * 7)}, f[8], note[32];
        double d = i / 4.0;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        be64((uint64_t)i, id);
        be64(bits, f);
        snprintf(note, sizeof note, "note %d", i);
        const char *values[4] = {id, data, note, f};
        const int lengths[4] = {8, 4, 0, 8};
        check(PQexecParams(conn, "INSERT INTO bin_t VALUES ($1, $2, $3, $4)", 4, types, values,
                           lengths, formats, 0),
              "INSERT");
    }
    /* Named, prepared with types, executed with binary values. */
    const Oid upd_types[2] = {BYTEA_OID, INT8_OID};
    check(PQprepare(conn, "bin_upd", "UPDATE bin_t SET data = data || $1 WHERE id = $2", 2,
                    upd_types),
          "PREPARE");
    for (int i = 1; i <= 10; i++) {
        char id[8], tail[2] = {0, (char)(0x80 + i)};
        be64((uint64_t)i, id);
        const char *values[2] = {tail, id};
        const int lengths[2] = {2, 8}, fmt[2] = {1, 1};
        check(PQexecPrepared(conn, "bin_upd", 2, values, lengths, fmt, 0), "EXECUTE bin_upd");
    }
    /* A result in binary format: the bytes of row 3's data. */
    const char *three[1] = {"3"};
    PGresult *res =
        PQexecParams(conn, "SELECT data FROM bin_t WHERE id = $1", 1, NULL, three, NULL, NULL, 1);
    check(res, "SELECT");
    if (PQntuples(res) != 1 || PQgetlength(res, 0, 0) != 6 || PQgetvalue(res, 0, 0)[1] != 0) {
        fprintf(stderr, "binclient: row 3's data in binary is not its 6 bytes\n");
        return 1;
    }
    PQclear(res);
    /* A user's type named by its OID (the replay's server has another). */
    res = PQexec(conn, "SELECT 'bin_mood'::regtype::oid");
    check(res, "the enum's OID");
    Oid mood = (Oid)strtoul(PQgetvalue(res, 0, 0), NULL, 10);
    PQclear(res);
    const Oid mood_types[2] = {0, mood};
    const char *mood_values[2] = {"1", "happy"};
    check(PQexecParams(conn, "INSERT INTO bin_moods VALUES ($1, $2)", 2, mood_types, mood_values,
                       NULL, NULL, 0),
          "INSERT bin_moods");
    inserted_ids(argv[2]);
    PQfinish(conn);
    return 0;
}
