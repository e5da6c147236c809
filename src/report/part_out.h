#ifndef PGARENA_REPORT_PART_OUT_H
#define PGARENA_REPORT_PART_OUT_H

/*
 * Parts' rows (result/part.h) rendered: show's lines, the report's HTML, compare's lines and
 * CSV. The parts give data; the layout and the numbers' formatting are report/'s.
 */

#include <stddef.h>
#include <stdio.h>

#include "base/buf.h"
#include "result/part.h"

/* A value as its hint says, into buf (always NUL-terminated, cut to size); returns buf. */
char *report_fmt_value(char *buf, size_t size, const struct result_value *v);

/* A row's text with its values in place of "%v" (no text: the values, one space apart),
 * appended to b; html: text values escaped. */
void report_row_expand(struct buf *b, const struct result_row *row, int html);

/* The rows at place, each a line as show prints it ("LABEL:" in a column 21 wide). */
void report_rows_text(FILE *out, const struct result_rows *rs, int place);
/* The rows at place appended to b as HTML (their text is HTML). */
void report_rows_html(struct buf *b, const struct result_rows *rs, int place);
/* compare's lines of the rows at RESULT_PLACE_COMPARE. */
void report_rows_compare(FILE *out, const struct result_rows *rs);
/* The rows at place as CSV records "label,value,unit", a value each (no header). */
void report_rows_csv(FILE *out, const struct result_rows *rs, int place);

/* Each part of r's rows at a place, printed (text) or appended (HTML); the number of parts
 * that gave any. */
int report_parts_text(const struct result *r, enum result_part_place at, FILE *out);
int report_parts_html(const struct result *r, enum result_part_place at, struct buf *b);
/* Each registered part's compare lines for the sides of a comparison. */
void report_parts_compare(const struct result_part_side *sides, size_t n, FILE *out);

#endif
