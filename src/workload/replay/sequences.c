/* Which sequences the capture's statements take from, and the keys they gave (sequences.h). */
#include "workload/replay/sequences.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/mem.h"
#include "workload/replay/replay_int.h"

void replay_draw_keys_init(struct replay_draw_keys *k)
{
    memset(k, 0, sizeof *k);
}

void replay_draw_keys_free(struct replay_draw_keys *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->text[i]);
    free(k->text);
    free(k->len);
    free(k->slots);
    memset(k, 0, sizeof *k);
}

static size_t slot_of(const struct replay_draw_keys *k, const char *text, size_t len)
{
    size_t i = (size_t)hash_bytes(text, len) & (k->n_slots - 1);
    for (; k->slots[i]; i = (i + 1) & (k->n_slots - 1)) {
        uint32_t x = k->slots[i] - 1;
        if (k->len[x] == len && memcmp(k->text[x], text, len) == 0)
            break;
    }
    return i;
}

uint32_t replay_draw_key(struct replay_draw_keys *k, int db, const char *names, size_t len)
{
    struct buf t;
    buf_init(&t);
    buf_printf(&t, "%d\n", db);
    buf_append(&t, names, len);
    if (2 * (k->n + 1) > k->n_slots) { /* half full at most: grow and rehash */
        size_t old = k->n_slots;
        uint32_t *slots = k->slots;
        k->n_slots = old ? 2 * old : 64;
        k->slots = xcalloc(k->n_slots, sizeof *k->slots);
        for (size_t i = 0; i < old; i++)
            if (slots[i])
                k->slots[slot_of(k, k->text[slots[i] - 1], k->len[slots[i] - 1])] = slots[i];
        free(slots);
    }
    size_t i = slot_of(k, t.data, t.len);
    if (k->slots[i]) {
        buf_free(&t);
        return k->slots[i] - 1;
    }
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 16;
        k->text = xrealloc(k->text, k->cap * sizeof *k->text);
        k->len = xrealloc(k->len, k->cap * sizeof *k->len);
    }
    k->text[k->n] = xmalloc(t.len + 1);
    memcpy(k->text[k->n], t.data, t.len + 1);
    k->len[k->n] = t.len;
    k->slots[i] = (uint32_t)++k->n;
    buf_free(&t);
    return (uint32_t)(k->n - 1);
}

/* One database's catalog, one row a thing: ('t', schema, table, sequence's oid, column) for a
 * column a sequence feeds, ('s', schema, sequence, its oid, '') for each sequence, ('k', '',
 * name, '', '') for a unique index or a foreign key on a key a sequence gave (an error names it
 * so). */
static const char CATALOG_SQL[] =
    "WITH fed(rel, att, seq) AS ("
    " SELECT ad.adrelid, ad.adnum::int, d.refobjid FROM pg_attrdef ad"
    " JOIN pg_depend d ON d.classid = 'pg_attrdef'::regclass AND d.objid = ad.oid"
    "  AND d.refclassid = 'pg_class'::regclass"
    " JOIN pg_class s ON s.oid = d.refobjid AND s.relkind = 'S'"
    " WHERE pg_get_expr(ad.adbin, ad.adrelid) LIKE '%nextval(%'"
    " UNION"
    " SELECT d.refobjid, d.refobjsubid, d.objid FROM pg_depend d"
    " JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid"
    " WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass"
    "  AND d.deptype = 'i' AND a.attidentity <> ''),"
    " refs(rel, att) AS ("
    " SELECT c.conrelid, k.att FROM pg_constraint c, unnest(c.conkey, c.confkey) AS k(att, ref)"
    " WHERE c.contype = 'f'"
    "  AND EXISTS (SELECT 1 FROM fed WHERE fed.rel = c.confrelid AND fed.att = k.ref)),"
    " keyed(rel, att) AS (SELECT rel, att FROM fed UNION SELECT rel, att FROM refs)"
    " SELECT 't', n.nspname, c.relname, f.seq::text, a.attname::text FROM fed f"
    " JOIN pg_class c ON c.oid = f.rel JOIN pg_namespace n ON n.oid = c.relnamespace"
    " JOIN pg_attribute a ON a.attrelid = f.rel AND a.attnum = f.att"
    " UNION ALL"
    " SELECT 's', n.nspname, c.relname, c.oid::text, '' FROM pg_class c"
    " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'S'"
    " UNION ALL"
    " SELECT 'k', '', ic.relname, '', '' FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid"
    " WHERE i.indisunique"
    "  AND EXISTS (SELECT 1 FROM keyed k WHERE k.rel = i.indrelid AND k.att = ANY (i.indkey))"
    " UNION ALL"
    " SELECT 'k', '', c.conname, '', '' FROM pg_constraint c WHERE c.contype = 'f'"
    "  AND EXISTS (SELECT 1 FROM refs r WHERE r.rel = c.conrelid AND r.att = ANY (c.conkey))";

/* The sequences met so far, each "db\noid" (or "db\n'name" for one the catalog lacks): their
 * numbers for the draws' links. */
struct seq_ids {
    struct buf names; /* each with its NUL */
    uint32_t n;
};

static uint32_t seq_id(struct seq_ids *ids, int db, const char *what)
{
    char key[300];
    int n = snprintf(key, sizeof key, "%d\n%s", db, what);
    size_t len = (size_t)(n < (int)sizeof key ? n : (int)sizeof key - 1);
    uint32_t i = 0;
    for (size_t at = 0; at < ids->names.len; i++) {
        size_t l = strlen(ids->names.data + at);
        if (l == len && memcmp(ids->names.data + at, key, len) == 0)
            return i;
        at += l + 1;
    }
    buf_append(&ids->names, key, len);
    buf_putc(&ids->names, '\0');
    return ids->n++;
}

/* Whether name (as the statement wrote it: "schema.rel" or "rel") is the row's relation. */
static int names_row(const char *name, const char *schema, const char *rel)
{
    const char *dot = strchr(name, '.');
    if (!dot)
        return strcmp(name, rel) == 0;
    size_t ns = (size_t)(dot - name);
    return strlen(schema) == ns && strncmp(name, schema, ns) == 0 && strcmp(dot + 1, rel) == 0;
}

/* Whether col is one of cols ("a,b,c"): an INSERT that gives the column its value does not
 * draw for it. */
static int listed(const char *cols, const char *col)
{
    size_t n = strlen(col);
    for (const char *c = cols; *c;) {
        const char *comma = strchr(c, ',');
        size_t len = comma ? (size_t)(comma - c) : strlen(c);
        if (len == n && strncmp(c, col, n) == 0)
            return 1;
        if (!comma)
            break;
        c = comma + 1;
    }
    return 0;
}

/* The keys of database db linked to the sequences its catalog (r) says they draw from (a
 * table's column that an INSERT's column list gives a value: not drawn for). */
static void link_keys(struct replay_state *s, int db, const struct pg_result *r,
                      struct seq_ids *ids)
{
    char prefix[16];
    int pl = snprintf(prefix, sizeof prefix, "%d\n", db);
    for (size_t k = 0; k < s->draw_keys.n; k++) {
        const char *t = s->draw_keys.text[k], *end = t + s->draw_keys.len[k];
        if (strncmp(t, prefix, (size_t)pl) != 0)
            continue;
        for (const char *name = t + pl; name < end; name += strlen(name) + 1) {
            int found = 0;
            const char *next = name + strlen(name) + 1;
            const char *cols = name[0] == 't' && next < end && next[0] == 'c' ? next + 1 : NULL;
            for (int row = 0; row < pg_result_rows(r); row++) {
                const char *kind = pg_result_value(r, row, 0);
                if (kind[0] == name[0] &&
                    names_row(name + 1, pg_result_value(r, row, 1), pg_result_value(r, row, 2)) &&
                    !(cols && listed(cols, pg_result_value(r, row, 4)))) {
                    replay_draws_build_link(&s->draws_build, (uint32_t)k,
                                            seq_id(ids, db, pg_result_value(r, row, 3)));
                    found = 1;
                }
            }
            if (!found && name[0] == 's') { /* made during the capture: ordered by its name */
                char by_name[260];
                snprintf(by_name, sizeof by_name, "'%s", name + 1);
                replay_draws_build_link(&s->draws_build, (uint32_t)k, seq_id(ids, db, by_name));
            }
        }
    }
}

struct pg_conn *replay_catalog_connect(const struct replay_state *s, const char *name)
{
    struct pg_connopts o = s->own;
    struct buf conninfo;
    buf_init(&conninfo);
    int is_conninfo = o.dbname && strchr(o.dbname, '=');
    if (is_conninfo)
        buf_puts(&conninfo, o.dbname);
    if (name || (o.dbname && !is_conninfo))
        replay_conninfo_value(&conninfo, "dbname", name ? name : o.dbname);
    size_t plain = conninfo.len;
    replay_conninfo_value(&conninfo, "options",
                          "-c pg_stat_statements.track=none -c log_statement=none "
                          "-c log_duration=off -c log_min_duration_statement=-1");
    o.dbname = conninfo.data;
    struct err e = {0};
    struct pg_conn *c = pg_connect_aux(&o, PG_AUX_TIMEOUT_MS, &e);
    if (!c) { /* not a superuser: counted */
        conninfo.data[conninfo.len = plain] = '\0';
        c = pg_connect_aux(&o, PG_AUX_TIMEOUT_MS, &e);
    }
    buf_free(&conninfo);
    return c;
}

/* The catalog of database name (NULL: the run's own connection's), NULL when it cannot be
 * read. */
static struct pg_result *read_catalog(const struct replay_state *s, const char *name)
{
    struct err e = {0};
    struct pg_conn *c = replay_catalog_connect(s, name);
    struct pg_result *r = c ? pg_query(c, CATALOG_SQL, 0, NULL, &e) : NULL;
    pg_finish(c);
    return r;
}

/* The unique indexes and foreign keys of catalog r into s->generated_keys. */
static void keep_generated_keys(struct replay_state *s, const struct pg_result *r)
{
    for (int row = 0; row < pg_result_rows(r); row++)
        if (pg_result_value(r, row, 0)[0] == 'k') {
            buf_puts(&s->generated_keys, pg_result_value(r, row, 2));
            buf_putc(&s->generated_keys, '\0');
        }
}

void replay_sequences_learn(struct replay_state *s)
{
    struct seq_ids ids = {0};
    buf_init(&ids.names);
    buf_init(&s->generated_keys);
    /* --reset-from: every target is a copy of the template, whose catalog is read once (the
     * targets' pg_stat_statements then hold the replay's statements alone). */
    struct pg_result *tmpl = s->opts.reset_from ? read_catalog(s, s->opts.reset_from) : NULL;
    if (tmpl)
        keep_generated_keys(s, tmpl);
    for (int db = -1; db < (int)s->n_databases; db++) {
        char prefix[16];
        int pl = snprintf(prefix, sizeof prefix, "%d\n", db), used = db >= 0;
        for (size_t k = 0; !used && k < s->draw_keys.n; k++)
            used = strncmp(s->draw_keys.text[k], prefix, (size_t)pl) == 0;
        struct pg_result *r =
            !used || s->opts.reset_from ? NULL : read_catalog(s, db >= 0 ? s->databases[db] : NULL);
        if (s->ordered && (r || (tmpl && used)))
            link_keys(s, db, r ? r : tmpl, &ids);
        if (r)
            keep_generated_keys(s, r);
        pg_result_free(r);
    }
    pg_result_free(tmpl);
    buf_free(&ids.names);
    if (s->ordered)
        replay_draws_build_finish(&s->draws_build, &s->draws);
    replay_draw_keys_free(&s->draw_keys);
}
