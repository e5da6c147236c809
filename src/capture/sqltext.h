#ifndef PGARENA_CAPTURE_SQLTEXT_H
#define PGARENA_CAPTURE_SQLTEXT_H

#include <stddef.h>

/* What prepare needs to know of a statement's text before it keeps it. Pure. */

/* 1 when text carries a password, so it must never be written: any of its statements begins
 * with CREATE or ALTER and holds the word PASSWORD (roles and users, \password's ALTER USER,
 * user mappings, servers, subscriptions' connection strings). Errs on the side of secrecy:
 * quotes are not parsed. */
int sqltext_is_secret(const char *text);

/* 1 when text is COPY ... FROM STDIN (its data is not in the log). */
int sqltext_is_copy_from_stdin(const char *text);

/* 1 when text is COPY ... TO STDOUT (the replay does not read COPY data). */
int sqltext_is_copy_to_stdout(const char *text);

#endif
