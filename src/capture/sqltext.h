#ifndef PGARENA_CAPTURE_SQLTEXT_H
#define PGARENA_CAPTURE_SQLTEXT_H

#include <stddef.h>

#include "base/buf.h"

/* What prepare needs to know of a statement's text before it keeps it. Pure. */

/* A statement's password, found as the SQL reads (quotes, comments and dollar quotes
 * understood), in any statement of text (they are separated by semicolons) that begins with
 * CREATE or ALTER: the string constant after the word PASSWORD (roles, users and groups,
 * ENCRYPTED PASSWORD, \\password's ALTER USER, a user mapping's OPTIONS (password '...')).
 * 1: text has one or more; out (when not NULL) holds text with each replaced by 'with'
 * (with holds no quote). 0: none (a column called password is no password); out is empty.
 * -1: a CREATE or ALTER with the word password inside a string constant (a subscription's
 * connection string, a function's body): a secret that cannot be cut out, never to be kept. */
#define SQLTEXT_SECRET_PLACEHOLDER "pgarena-replaced"
int sqltext_secret_replace(const char *text, const char *with, struct buf *out);

/* 1 when text carries a password (sqltext_secret_replace is not 0). */
int sqltext_is_secret(const char *text);

/* 1 when text is CREATE/ALTER ROLE|USER|GROUP NAME ... PASSWORD '...': NAME (as the server
 * folds it: lower case unless quoted) into role (size bytes). 0 otherwise. */
int sqltext_password_role(const char *text, char *role, size_t size);

/* 1 when text's first word is SET (SET name, SET LOCAL, SET ROLE, SET SESSION ...). */
int sqltext_is_set(const char *text);

/* 1 when text's first statement is COPY ... FROM STDIN (its data is not in the log), as
 * base/sqllex.h's sql_copy_client reads it. */
int sqltext_is_copy_from_stdin(const char *text);

/* 1 when text's first statement is COPY ... TO STDOUT (the replay does not read COPY data). */
int sqltext_is_copy_to_stdout(const char *text);

/* What a statement does to its session's prepared statements: DEALLOCATE [PREPARE] name or
 * ALL, DISCARD ALL or PLANS, in any statement of text. */
enum sqltext_unprepare {
    SQLTEXT_UNPREPARE_NONE,  /* none of them */
    SQLTEXT_UNPREPARE_PLANS, /* DISCARD PLANS alone: plans dropped, every name kept */
    SQLTEXT_UNPREPARE_NAMES, /* DEALLOCATE name: names dropped */
    SQLTEXT_UNPREPARE_ALL,   /* DEALLOCATE ALL or DISCARD ALL: every name dropped */
};
/* Which of them text is; with NAMES, when names is not NULL, the names dropped (as the
 * server folds them: lower case unless quoted) appended to it, each with its NUL, an empty
 * one last. */
enum sqltext_unprepare sqltext_unprepare(const char *text, struct buf *names);

/* What a statement may take from a sequence through, in any statement of text: the tables it
 * inserts into (INSERT INTO, MERGE INTO, COPY ... FROM STDIN) and the sequences it names in
 * nextval('name') or setval('name', ...), as the server reads the names (lower case unless
 * quoted, "schema.name" when qualified). Each appended to names as 't' or 's' then the name
 * with its NUL; an INSERT's column list follows its table as 'c' then the columns, comma-
 * separated, with a NUL (a column it gives a value is not drawn for). How many tables and
 * sequences. A draw through a function, a trigger or a rule is not seen. */
int sqltext_draws(const char *text, struct buf *names);

#endif
