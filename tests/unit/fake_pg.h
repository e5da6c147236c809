#ifndef PGARENA_TESTS_FAKE_PG_H
#define PGARENA_TESTS_FAKE_PG_H

/*
 * A scripted fake connection behind src/pg/'s driver table, for the engine's unit tests: no
 * server, no network. A test says how the next connections go (fake_push_connect) and how
 * the statements sent will be answered, in order (fake_push_*); it reads back what the
 * clients sent (fake_sent). Each connection has a real file descriptor (an eventfd, always
 * readable and writable) so that the worker's wait-set registration can be checked.
 * Everything is process-global and single-threaded; fake_install resets it.
 */

#include "pg/pg.h"

/* How a connection attempt goes. */
enum fake_connect {
    FAKE_CONNECT_OK,         /* poll: WRITE, then READ, then OK */
    FAKE_CONNECT_AT_ONCE,    /* fails at start (no socket), as a bad conninfo */
    FAKE_CONNECT_FAIL,       /* poll: WRITE, then FAILED ("connection refused") */
    FAKE_CONNECT_HANG,       /* poll: READ forever (a server that never answers) */
    FAKE_CONNECT_NEW_SOCKET, /* as libpq moving to the next host: the first poll closes the
                              * socket and opens a new one (same number), asking for WRITE
                              * again; then as OK */
};

/* How a statement is answered. */
enum fake_kind {
    FAKE_COMMAND,  /* a command completed */
    FAKE_ROWS,     /* one row of n_cols columns */
    FAKE_ERROR,    /* an error with sqlstate and message */
    FAKE_LOST,     /* the connection breaks (libpq's multi-line message) */
    FAKE_HANG,     /* no answer until fake_release */
    FAKE_COPY_OUT, /* COPY TO STDOUT: copy_rows rows, one more readable after each consume */
    FAKE_COPY_IN,  /* COPY FROM STDIN: takes the data sent (fake_copy_in), then completes;
                    * copies of them in one statement, each after the one before (0: one) */
};

struct fake_reply {
    enum fake_kind kind;
    const char *sqlstate;
    const char *message;
    int n_cols;
    const char *cols[4];
    const char *values[4]; /* NULL: SQL NULL */
    int late_end;          /* the end of the results (ReadyForQuery) comes in a later read:
                            * busy after the result until the next consume */
    int copy_rows;         /* FAKE_COPY_OUT */
    int copies;            /* FAKE_COPY_IN */
};

/* Install the fake driver and forget everything scripted or recorded. */
void fake_install(void);
/* Back to libpq. */
void fake_uninstall(void);

/* The next connection attempt goes as how (once per call; unscripted attempts are OK). */
void fake_push_connect(enum fake_connect how);
/* The next statement sent (of any protocol; PREPARE and ROLLBACK excepted, they succeed) is
 * answered with r; unscripted statements complete as commands. */
void fake_push(struct fake_reply r);
void fake_push_error(const char *sqlstate, const char *message);
void fake_push_kind(enum fake_kind kind);
void fake_push_row(const char *col, const char *value);
/* The next PREPARE (unscripted ones succeed at once, of a name prepared already fail with
 * 42P05; DEALLOCATE "name", DEALLOCATE ALL and DISCARD ALL drop names) is answered with r. */
void fake_push_prepare(struct fake_reply r);

/* Answer the oldest statement held by FAKE_HANG on c with r. */
void fake_release(struct pg_conn *c, struct fake_reply r);

/* What the clients sent, in order: "Q sql" (simple), "X sql | v1,v2" (extended),
 * "E name | v1,v2" (prepared), "P name", "SYNC", "ROLLBACK". */
int fake_n_sent(void);
const char *fake_sent(int i);
/* Statements sent whose text contains s. */
int fake_count_sent(const char *s);

/* COPY rows read by the clients (FAKE_COPY_OUT); the COPY data they sent, all COPY FROM
 * STDINs' in order (FAKE_COPY_IN: every other put is refused as a full output buffer; each
 * COPY's end is sent as "COPY END N", N its bytes). */
int fake_copy_rows_read(void);
const char *fake_copy_in(void);

/* Connection attempts started, connections open now, cancel requests made. */
int fake_n_connects(void);
int fake_n_open(void);
int fake_n_cancels(void);
/* The last connection started (NULL when none): its socket may be checked or replaced. */
struct pg_conn *fake_last_conn(void);

#endif
