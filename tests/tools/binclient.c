/* binclient CONNINFO DIRECT: a libpq application that sends what psql and pgbench never do,
 * for the recording proxy's tests: parameters in binary format (int8, float8, bytea holding
 * NUL and 0xff bytes) with the types its Parse names, beside a text one whose type the server
 * infers; a named statement prepared with types and executed with binary values; a result
 * asked in binary format; a parameter typed by a user's type's OID (an enum); and ids an
 * INSERT's RETURNING gave in binary, sent again as binary int8 parameters, after 1,000 ids
 * were taken on DIRECT (a connection the proxy does not see). Exits 1 with the server's
 * message on any failure.
 *
 * binclient types CONNINFO: parameters typed by user types' OIDs (ut_mood, an enum; ut_only;
 * ut_pair, a composite of a ut_mood and a ut_mood[]: the test makes them) where the server
 * would infer another type (pg_typeof), and binary values that hold their OIDs: a ut_mood[]
 * and a ut_pair. */
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

/* The OID of type name, asked through the proxy (a question that a server without the type
 * answers too: no row). */
static uint32_t type_oid(const char *name)
{
    const char *values[1] = {name};
    PGresult *res = PQexecParams(conn, "SELECT oid FROM pg_type WHERE typname = $1", 1, NULL,
                                 values, NULL, NULL, 0);
    check(res, name);
    uint32_t oid = PQntuples(res) == 1 ? (uint32_t)strtoul(PQgetvalue(res, 0, 0), NULL, 10) : 0;
    PQclear(res);
    return oid;
}

static void put32(char *p, uint32_t v)
{
    for (int k = 3; k >= 0; k--, v >>= 8)
        p[k] = (char)(v & 0xff);
}

/* A one-dimensional array of elem in binary (array_send's form) of the labels into out:
 * its length. */
static int enum_array(char *out, uint32_t elem, const char *const *labels, int n)
{
    put32(out, 1);
    put32(out + 4, 0);
    put32(out + 8, elem);
    put32(out + 12, (uint32_t)n);
    put32(out + 16, 1);
    int at = 20;
    for (int i = 0; i < n; i++) {
        put32(out + at, (uint32_t)strlen(labels[i]));
        memcpy(out + at + 4, labels[i], strlen(labels[i]));
        at += 4 + (int)strlen(labels[i]);
    }
    return at;
}

/* The type a parameter arrived as, written by the server (its pg_typeof: of a parameter the
 * server would infer, "could not determine data type"), a ut_only as text, a ut_mood[] and a
 * ut_pair in binary. */
static int user_types(void)
{
    uint32_t mood = type_oid("ut_mood"), moods = type_oid("_ut_mood"), only = type_oid("ut_only"),
             pair = type_oid("ut_pair");
    const Oid mood_type[1] = {mood}, only_type[1] = {only};
    const char *happy[1] = {"happy"}, *x[1] = {"x"};
    check(PQexecParams(conn, "INSERT INTO ut_seen SELECT pg_typeof($1)::text", 1, mood_type, happy,
                       NULL, NULL, 0),
          "pg_typeof ut_mood");
    check(PQexecParams(conn, "INSERT INTO ut_seen VALUES ($1)", 1, only_type, x, NULL, NULL, 0),
          "INSERT ut_only");
    const char *labels[2] = {"happy", "sad"};
    char arr[64], rec[128];
    int arr_len = enum_array(arr, mood, labels, 2);
    const Oid arr_type[1] = {moods};
    const char *arr_value[1] = {arr};
    const int arr_lens[1] = {arr_len}, binary[1] = {1};
    check(PQexecParams(conn, "INSERT INTO ut_arr VALUES ($1)", 1, arr_type, arr_value, arr_lens,
                       binary, 0),
          "INSERT ut_arr");
    /* record_send's form: two fields, a ut_mood and a ut_mood[] */
    put32(rec, 2);
    put32(rec + 4, mood);
    put32(rec + 8, 2);
    memcpy(rec + 12, "ok", 2);
    put32(rec + 14, moods);
    put32(rec + 18, (uint32_t)arr_len);
    memcpy(rec + 22, arr, (size_t)arr_len);
    const Oid rec_type[1] = {pair};
    const char *rec_value[1] = {rec};
    const int rec_lens[1] = {22 + arr_len};
    check(PQexecParams(conn, "INSERT INTO ut_pairs VALUES ($1)", 1, rec_type, rec_value, rec_lens,
                       binary, 0),
          "INSERT ut_pairs");
    PQfinish(conn);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "types") == 0) {
        conn = PQconnectdb(argv[2]);
        if (PQstatus(conn) != CONNECTION_OK) {
            fprintf(stderr, "binclient: %s", PQerrorMessage(conn));
            return 1;
        }
        return user_types();
    }
    if (argc != 3) {
        fprintf(stderr, "usage: binclient CONNINFO DIRECT | binclient types CONNINFO\n");
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
