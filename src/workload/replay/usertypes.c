/* The capture's user types mapped to the target's OIDs (usertypes.h). */
#include "workload/replay/usertypes.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/mem.h"
#include "capture/pgwire.h"
#include "workload/replay/replay_int.h"

/* Values nested deeper than this (an array of composites of arrays ...) are not walked: no
 * real type is, and a corrupt value must not recurse without end. */
#define MAX_DEPTH 32
/* PostgreSQL's MAXDIM: an array has at most 6 dimensions. */
#define MAX_DIMS 6

void replay_types_init(struct replay_types *m)
{
    memset(m, 0, sizeof *m);
}

void replay_types_free(struct replay_types *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->t[i].schema);
        free(m->t[i].name);
    }
    free(m->t);
    memset(m, 0, sizeof *m);
}

/* Where (db, oid) is or would go in m's order. */
static size_t place(const struct replay_types *m, int db, uint32_t oid)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct replay_type *t = &m->t[mid];
        if (t->db < db || (t->db == db && t->oid < oid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct replay_type *replay_types_find(const struct replay_types *m, int db, uint32_t oid)
{
    size_t i = place(m, db, oid);
    return i < m->n && m->t[i].db == db && m->t[i].oid == oid ? &m->t[i] : NULL;
}

void replay_types_add(struct replay_types *m, int db, const struct capture_type_name *t)
{
    size_t i = place(m, db, t->oid);
    if (i < m->n && m->t[i].db == db && m->t[i].oid == t->oid)
        return;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 16;
        m->t = xrealloc(m->t, m->cap * sizeof *m->t);
    }
    memmove(m->t + i + 1, m->t + i, (m->n - i) * sizeof *m->t);
    m->t[i] = (struct replay_type){.db = db,
                                   .oid = t->oid,
                                   .schema = xstrdup(t->schema),
                                   .name = xstrdup(t->name),
                                   .kind = t->kind,
                                   .inner = t->inner};
    m->n++;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)pgwire_be(p, 4);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int k = 3; k >= 0; k--, v >>= 8)
        p[k] = (uint8_t)(v & 0xff);
}

/* An OID at p of a type the capture names: the target's written when write (and it has
 * one); 1 when it is (or would be) replaced. */
static int map_oid(const struct replay_types *m, int db, uint8_t *p, int write)
{
    const struct replay_type *t = replay_types_find(m, db, get32(p));
    if (!t || !t->target || t->target == t->oid)
        return 0;
    if (write)
        put32(p, t->target);
    return 1;
}

static int walk(const struct replay_types *m, int db, uint32_t oid, uint8_t *v, size_t len,
                int write, int depth);

/* A value of each item: a length (-1 NULL) and its bytes, from *at on; -1 when one runs past
 * the end. */
static int walk_item(const struct replay_types *m, int db, uint32_t oid, uint8_t *v, size_t len,
                     size_t *at, int write, int depth)
{
    if (len - *at < 4)
        return -1;
    int32_t n = (int32_t)get32(v + *at);
    *at += 4;
    if (n == -1)
        return 0;
    if (n < 0 || (size_t)n > len - *at)
        return -1;
    int rc = walk(m, db, oid, v + *at, (size_t)n, write, depth + 1);
    *at += (size_t)n;
    return rc;
}

/* array_send's form: dimensions, a NULL flag, the element type, each dimension's size and
 * lower bound, then the elements. The element type must be the array type's. */
static int walk_array(const struct replay_types *m, int db, const struct replay_type *t, uint8_t *v,
                      size_t len, int write, int depth)
{
    if (len < 12)
        return -1;
    int32_t dims = (int32_t)get32(v), flags = (int32_t)get32(v + 4);
    if (dims < 0 || dims > MAX_DIMS || (flags != 0 && flags != 1) || get32(v + 8) != t->inner ||
        len - 12 < 8 * (size_t)dims)
        return -1;
    uint64_t items = dims > 0;
    for (int d = 0; d < dims; d++) {
        int32_t size = (int32_t)get32(v + 12 + 8 * d);
        if (size < 0 || (items *= (uint64_t)size) > len)
            return -1; /* (each item takes four bytes at least) */
    }
    int n = map_oid(m, db, v + 8, write);
    size_t at = 12 + 8 * (size_t)dims;
    for (uint64_t i = 0; i < items; i++) {
        int rc = walk_item(m, db, t->inner, v, len, &at, write, depth);
        if (rc < 0)
            return -1;
        n += rc;
    }
    return at == len ? n : -1;
}

/* record_send's form: the number of fields, then each field's type and value. */
static int walk_record(const struct replay_types *m, int db, uint8_t *v, size_t len, int write,
                       int depth)
{
    if (len < 4)
        return -1;
    int32_t fields = (int32_t)get32(v);
    if (fields < 0 || (size_t)fields > len / 8)
        return -1;
    size_t at = 4;
    int n = 0;
    for (int32_t f = 0; f < fields; f++) {
        if (len - at < 4)
            return -1;
        uint32_t oid = get32(v + at);
        n += map_oid(m, db, v + at, write);
        at += 4;
        int rc = walk_item(m, db, oid, v, len, &at, write, depth);
        if (rc < 0)
            return -1;
        n += rc;
    }
    return at == len ? n : -1;
}

/* The OIDs in a value of type oid (the capture's): counted, and replaced when write. A type
 * the capture does not name holds none it could map. */
static int walk(const struct replay_types *m, int db, uint32_t oid, uint8_t *v, size_t len,
                int write, int depth)
{
    const struct replay_type *t =
        oid >= CAPTURE_FIRST_USER_OID ? replay_types_find(m, db, oid) : NULL;
    if (!t)
        return 0;
    if (depth > MAX_DEPTH)
        return -1;
    switch (t->kind) {
    case 'd':
        return walk(m, db, t->inner, v, len, write, depth + 1);
    case 'a':
        return walk_array(m, db, t, v, len, write, depth);
    case 'c':
        return walk_record(m, db, v, len, write, depth);
    default:
        return 0;
    }
}

int replay_types_rewrite(const struct replay_types *m, int db, uint32_t oid, uint8_t *v, size_t len)
{
    int n = walk(m, db, oid, v, len, 0, 0); /* read through first: a bad value stays whole */
    if (n <= 0)
        return n;
    return walk(m, db, oid, v, len, 1, 0);
}

/* s as an element of a text[] literal: double quotes, a backslash before " and \. */
static void array_element(struct buf *b, const char *s)
{
    if (b->len > 1) /* (after its '{') */
        buf_putc(b, ',');
    buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            buf_putc(b, '\\');
        buf_putc(b, *s);
    }
    buf_putc(b, '"');
}

/* The OIDs of the types named by schema and name, exactly: no search_path in between. */
static const char TYPES_SQL[] =
    "SELECT n.nspname, t.typname, t.oid::text FROM pg_type t"
    " JOIN pg_namespace n ON n.oid = t.typnamespace"
    " WHERE (n.nspname::text, t.typname::text) IN (SELECT * FROM unnest($1::text[], $2::text[]))";

/* Database db's types of m mapped, from the rows of TYPES_SQL. */
static void map_rows(struct replay_types *m, int db, const struct pg_result *r)
{
    for (size_t i = 0; i < m->n; i++) {
        struct replay_type *t = &m->t[i];
        for (int row = 0; t->db == db && row < pg_result_rows(r); row++)
            if (strcmp(pg_result_value(r, row, 0), t->schema) == 0 &&
                strcmp(pg_result_value(r, row, 1), t->name) == 0)
                t->target = (uint32_t)strtoul(pg_result_value(r, row, 2), NULL, 10);
    }
}

void replay_types_learn(struct replay_state *s)
{
    struct replay_types *m = &s->types;
    for (size_t i = 0; i < m->n;) {
        int db = m->t[i].db;
        struct buf schemas, names;
        buf_init(&schemas);
        buf_init(&names);
        buf_putc(&schemas, '{');
        buf_putc(&names, '{');
        size_t j = i;
        for (; j < m->n && m->t[j].db == db; j++) {
            array_element(&schemas, m->t[j].schema);
            array_element(&names, m->t[j].name);
        }
        buf_putc(&schemas, '}');
        buf_putc(&names, '}');
        struct pg_conn *c = replay_catalog_connect(s, db >= 0 ? s->databases[db] : NULL);
        struct err e = {0};
        const char *values[2] = {schemas.data, names.data};
        struct pg_result *r = c ? pg_query(c, TYPES_SQL, 2, values, &e) : NULL;
        if (r)
            map_rows(m, db, r);
        pg_result_free(r);
        pg_finish(c);
        buf_free(&schemas);
        buf_free(&names);
        i = j;
    }
}
