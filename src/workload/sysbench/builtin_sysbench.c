#include "workload/workload_int.h"

#include "base/buf.h"

/*
 * sysbench 1.0's OLTP transactions as pgbench scripts, statement for statement as
 * oltp_common.lua prepares them for the pgsql driver (same SQL, same parameters, ranges of
 * 100 rows). Where the script language differs:
 * - ids are drawn uniformly (as `sysbench --rand-type=uniform`), not with sysbench 1.0's
 *   default "special" distribution, which the language has no function for;
 * - sysbench picks a table for each group of statements; here one script per table is
 *   picked per transaction (the language cannot choose a table name);
 * - c and pad (groups of 11 random digits joined by '-') are built from integer variables
 *   by the server, so a group never starts with 0.
 */

#define RANGE_SIZE 100
#define C_GROUPS   10 /* c: 119 characters */
#define PAD_GROUPS 5  /* pad: 59 characters */

static void set_id(struct buf *b, const char *var, int64_t table_size)
{
    buf_printf(b, "\\set %s random(1, %lld)\n", var, (long long)table_size);
}

/* \set lines for the groups of a random string, and the SQL expression joining them. */
static void digits(struct buf *b, const char *prefix, int groups, struct buf *expr)
{
    buf_reset(expr);
    for (int i = 1; i <= groups; i++) {
        buf_printf(b, "\\set %s%d random(10000000000, 99999999999)\n", prefix, i);
        buf_printf(expr, "%s:%s%d", i > 1 ? " || '-' || " : "", prefix, i);
    }
}

static void ranges(struct buf *b, int t, int64_t size)
{
    static const char *const sql[] = {
        "SELECT c FROM sbtest%d WHERE id BETWEEN :id AND :id_end;\n",
        "SELECT SUM(k) FROM sbtest%d WHERE id BETWEEN :id AND :id_end;\n",
        "SELECT c FROM sbtest%d WHERE id BETWEEN :id AND :id_end ORDER BY c;\n",
        "SELECT DISTINCT c FROM sbtest%d WHERE id BETWEEN :id AND :id_end ORDER BY c;\n",
    };
    for (int i = 0; i < 4; i++) {
        set_id(b, "id", size);
        buf_printf(b, "\\set id_end :id + %d\n", RANGE_SIZE - 1);
        buf_printf(b, sql[i], t);
    }
}

static void writes(struct buf *b, int t, int64_t size)
{
    struct buf c, pad;
    buf_init(&c);
    buf_init(&pad);
    set_id(b, "id", size);
    buf_printf(b, "UPDATE sbtest%d SET k=k+1 WHERE id=:id;\n", t);
    set_id(b, "id", size);
    digits(b, "c", C_GROUPS, &c);
    buf_printf(b, "UPDATE sbtest%d SET c=%s WHERE id=:id;\n", t, c.data);
    set_id(b, "id", size);
    set_id(b, "k", size);
    digits(b, "c", C_GROUPS, &c);
    digits(b, "pad", PAD_GROUPS, &pad);
    buf_printf(b, "DELETE FROM sbtest%d WHERE id=:id;\n", t);
    buf_printf(b, "INSERT INTO sbtest%d (id, k, c, pad) VALUES (:id, :k, %s, %s);\n", t, c.data,
               pad.data);
    buf_free(&c);
    buf_free(&pad);
}

char *sysbench_script(const struct workload *w, int table, int64_t table_size)
{
    struct buf b;
    buf_init(&b);
    if (w->sysbench & SB_TRX)
        buf_puts(&b, "BEGIN;\n");
    if (w->sysbench & SB_POINT_SELECTS) {
        int n = w->sysbench & SB_ONE_POINT ? 1 : 10;
        for (int i = 0; i < n; i++) {
            set_id(&b, "id", table_size);
            buf_printf(&b, "SELECT c FROM sbtest%d WHERE id=:id;\n", table);
        }
    }
    if (w->sysbench & SB_RANGES)
        ranges(&b, table, table_size);
    if (w->sysbench & SB_WRITES)
        writes(&b, table, table_size);
    if (w->sysbench & SB_TRX)
        buf_puts(&b, "COMMIT;\n");
    return b.data;
}
