/* A part's rows: the set that holds them and their values (part.h). */
#include <stdlib.h>

#include "base/mem.h"
#include "result/part.h"

struct result_row *result_rows_add(struct result_rows *rs, int place, const char *label,
                                   const char *text)
{
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? 2 * rs->cap : 8;
        rs->row = xrealloc(rs->row, rs->cap * sizeof *rs->row);
    }
    struct result_row *row = &rs->row[rs->n++];
    *row = (struct result_row){.place = place, .label = label, .text = text};
    return row;
}

static struct result_value *add_value(struct result_row *row)
{
    if (row->n == RESULT_ROW_VALUES)
        return NULL;
    struct result_value *v = &row->v[row->n++];
    *v = (struct result_value){0};
    return v;
}

void result_row_num(struct result_row *row, enum result_row_fmt fmt, int digits, double v,
                    const char *unit)
{
    struct result_value *x = add_value(row);
    if (x)
        *x = (struct result_value){.fmt = fmt, .digits = digits, .num = v, .unit = unit};
}

void result_row_count(struct result_row *row, enum result_row_fmt fmt, uint64_t v, const char *unit)
{
    struct result_value *x = add_value(row);
    if (x)
        *x = (struct result_value){.fmt = fmt, .count = v, .num = (double)v, .unit = unit};
}

void result_row_text(struct result_row *row, const char *s)
{
    struct result_value *x = add_value(row);
    if (x)
        *x = (struct result_value){.fmt = RESULT_FMT_TEXT, .str = s};
}

const char *result_rows_str(struct result_rows *rs, const char *s)
{
    rs->str = xrealloc(rs->str, (rs->n_str + 1) * sizeof *rs->str);
    return rs->str[rs->n_str++] = xstrdup(s ? s : "");
}

void result_rows_free(struct result_rows *rs)
{
    for (size_t i = 0; i < rs->n_str; i++)
        free(rs->str[i]);
    free(rs->str);
    free(rs->row);
    *rs = (struct result_rows){0};
}
