/* Parts' rows rendered (part_out.h). */
#include "report/part_out.h"

#include <inttypes.h>
#include <string.h>

#include "report/csv.h"
#include "report/fmt.h"
#include "result/result.h"

char *report_fmt_value(char *buf, size_t size, const struct result_value *v)
{
    char num[64];
    switch (v->fmt) {
    case RESULT_FMT_TEXT:
        snprintf(buf, size, "%s", v->str ? v->str : "");
        return buf;
    case RESULT_FMT_FIXED:
        snprintf(num, sizeof num, "%.*f", v->digits, v->num);
        break;
    case RESULT_FMT_G:
        snprintf(num, sizeof num, "%g", v->num);
        break;
    case RESULT_FMT_INT:
        snprintf(num, sizeof num, "%" PRIu64, v->count);
        break;
    case RESULT_FMT_COUNT:
        report_fmt_count(num, sizeof num, v->count);
        break;
    case RESULT_FMT_SIG:
        report_fmt_sig(num, sizeof num, v->num, v->digits);
        break;
    case RESULT_FMT_LATENCY:
        report_fmt_latency(num, sizeof num, v->num);
        break;
    case RESULT_FMT_PERCENT:
        snprintf(num, sizeof num, "%.*f", v->digits, 100 * v->num);
        break;
    case RESULT_FMT_CHANGE:
        snprintf(num, sizeof num, "%+.*f", v->digits, v->num);
        break;
    default:
        snprintf(num, sizeof num, "?");
    }
    snprintf(buf, size, "%s%s", num, v->unit ? v->unit : "");
    return buf;
}

static void put_value(struct buf *b, const struct result_value *v, int html)
{
    if (v->fmt == RESULT_FMT_TEXT) {
        if (html)
            report_escape(b, v->str ? v->str : "");
        else
            buf_puts(b, v->str ? v->str : "");
        return;
    }
    char t[96];
    buf_puts(b, report_fmt_value(t, sizeof t, v));
}

void report_row_expand(struct buf *b, const struct result_row *row, int html)
{
    if (!row->text) {
        for (size_t i = 0; i < row->n; i++) {
            if (i)
                buf_putc(b, ' ');
            put_value(b, &row->v[i], html);
        }
        return;
    }
    size_t k = 0;
    for (const char *p = row->text; *p; p++) {
        if (p[0] == '%' && p[1] == 'v') {
            if (k < row->n)
                put_value(b, &row->v[k++], html);
            p++;
            continue;
        }
        buf_putc(b, *p);
    }
}

void report_rows_text(FILE *out, const struct result_rows *rs, int place)
{
    struct buf b;
    buf_init(&b);
    for (size_t i = 0; i < rs->n; i++) {
        const struct result_row *row = &rs->row[i];
        if (row->place != place)
            continue;
        char label[64] = "";
        if (row->label && *row->label)
            snprintf(label, sizeof label, "%s:", row->label);
        buf_reset(&b);
        report_row_expand(&b, row, 0);
        fprintf(out, "%-21s%s\n", label, b.data ? b.data : "");
    }
    buf_free(&b);
}

void report_rows_html(struct buf *b, const struct result_rows *rs, int place)
{
    for (size_t i = 0; i < rs->n; i++)
        if (rs->row[i].place == place)
            report_row_expand(b, &rs->row[i], 1);
}

void report_rows_compare(FILE *out, const struct result_rows *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        const struct result_row *row = &rs->row[i];
        if (row->place != RESULT_PLACE_COMPARE)
            continue;
        if (row->n == 0) {
            fprintf(out, "\n%s:\n", row->label ? row->label : "");
            continue;
        }
        char t[96];
        fprintf(out, "  %-20s %10s", row->label ? row->label : "",
                report_fmt_value(t, sizeof t, &row->v[0]));
        for (size_t k = 1; k < row->n; k++)
            fprintf(out, "  %s", report_fmt_value(t, sizeof t, &row->v[k]));
        fputc('\n', out);
    }
}

void report_rows_csv(FILE *out, const struct result_rows *rs, int place)
{
    for (size_t i = 0; i < rs->n; i++) {
        const struct result_row *row = &rs->row[i];
        if (row->place != place)
            continue;
        for (size_t k = 0; k < row->n; k++) {
            struct result_value v = row->v[k];
            const char *unit = v.unit;
            v.unit = NULL;
            char t[96];
            report_csv_field(out, row->label ? row->label : "");
            fputc(',', out);
            report_csv_field(out, report_fmt_value(t, sizeof t, &v));
            fputc(',', out);
            report_csv_field(out, unit ? unit : "");
            fputc('\n', out);
        }
    }
}

/* Each part of r's rows at a place, written to out (text) or else appended to b (HTML); the
 * number of parts that gave any. */
static int parts_out(const struct result *r, enum result_part_place at, FILE *out, struct buf *b)
{
    int n = 0;
    for (size_t i = 0; i < r->parts.n; i++) {
        const struct result_part_ops *ops = r->parts.at[i].ops;
        if (!ops->rows)
            continue;
        struct result_rows rs = {0};
        ops->rows(r, r->parts.at[i].data, at, &rs);
        if (rs.n) {
            if (out)
                report_rows_text(out, &rs, at);
            else
                report_rows_html(b, &rs, at);
            n++;
        }
        result_rows_free(&rs);
    }
    return n;
}

int report_parts_text(const struct result *r, enum result_part_place at, FILE *out)
{
    return parts_out(r, at, out, NULL);
}

int report_parts_html(const struct result *r, enum result_part_place at, struct buf *b)
{
    return parts_out(r, at, NULL, b);
}

void report_parts_compare(const struct result_part_side *sides, size_t n, FILE *out)
{
    struct result_rows rs = {0};
    result_parts_compare_rows(sides, n, &rs);
    report_rows_compare(out, &rs);
    result_rows_free(&rs);
}
