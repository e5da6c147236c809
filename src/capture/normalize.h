#ifndef PGARENA_CAPTURE_NORMALIZE_H
#define PGARENA_CAPTURE_NORMALIZE_H

#include <stddef.h>

#include "base/buf.h"

/*
 * The statement normaliser: a statement's class is its text with every constant replaced by a
 * placeholder, as pg_stat_statements shows it, so that statements differing only in their
 * values fall into one class. Pure: no server, no state.
 *
 * - Numbers (with a sign that is a unary minus), strings ('..', E'..', B'..', X'..', N'..',
 *   U&'..') and dollar-quoted strings become $n, numbered from one past the highest $n
 *   parameter already in the statement, in order of appearance (pg_stat_statements' rule).
 * - A list of constants or parameters after IN or in ARRAY[...] (casts allowed) becomes one
 *   placeholder, whatever its length, as PostgreSQL 18 squashes it (the placeholder followed
 *   by PostgreSQL's comment of a comma and three dots); unlike PostgreSQL, a list of one is
 *   squashed too, so every length is one class.
 * - Comments are dropped, each run of white space becomes one space, leading and trailing
 *   space and trailing semicolons go. Identifiers, keywords and their case stay as written.
 *
 * Ownership: the caller owns out.
 */

/* Append the class of the len bytes at sql to out (reset first). Never fails: input that is
 * not valid SQL (an unterminated string or comment) is normalised as far as it reads. */
void normalize_statement(const char *sql, size_t len, struct buf *out);

#endif
