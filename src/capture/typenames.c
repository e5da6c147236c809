/* replay record's names of user types, learnt beside the relay (capture/typenames.h). */
#include "capture/typenames.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/mem.h"
#include "pg/pg.h"

/* A statement's types and those they hold, walked at most this deep and this many. */
#define MAX_WALK 256

enum tstate { T_QUEUED, T_ASKED, T_KNOWN, T_NONE };

struct tentry {
    struct tentry *next; /* in its bucket */
    char *database;
    uint32_t oid;
    enum tstate state;
    struct typenames_row row; /* T_KNOWN */
    char *user;               /* T_QUEUED: who asks */
};

struct typenames {
    typenames_lookup_fn lookup;
    void *arg;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake, answered;
    int stop;
    struct tentry **buckets;
    size_t n_buckets, n_entries;
    size_t queued, open; /* entries T_QUEUED; T_QUEUED or T_ASKED */
    int said;            /* a failed lookup was said on stderr */
};

static size_t bucket_of(const struct typenames *t, const char *database, uint32_t oid)
{
    return (size_t)(hash_bytes(database, strlen(database)) ^ (oid * 2654435761u)) &
           (t->n_buckets - 1);
}

static struct tentry *find(const struct typenames *t, const char *database, uint32_t oid)
{
    struct tentry *x = t->buckets[bucket_of(t, database, oid)];
    while (x && (x->oid != oid || strcmp(x->database, database) != 0))
        x = x->next;
    return x;
}

static struct tentry *add(struct typenames *t, const char *database, uint32_t oid,
                          enum tstate state)
{
    if (t->n_entries >= 2 * t->n_buckets) { /* grow: rehash into twice the buckets */
        size_t old = t->n_buckets;
        struct tentry **b = t->buckets;
        t->n_buckets *= 2;
        t->buckets = xcalloc(t->n_buckets, sizeof *t->buckets);
        for (size_t i = 0; i < old; i++)
            for (struct tentry *x = b[i], *n; x; x = n) {
                n = x->next;
                size_t k = bucket_of(t, x->database, x->oid);
                x->next = t->buckets[k];
                t->buckets[k] = x;
            }
        free(b);
    }
    struct tentry *x = xcalloc(1, sizeof *x);
    x->database = xstrdup(database);
    x->oid = oid;
    x->state = state;
    size_t k = bucket_of(t, database, oid);
    x->next = t->buckets[k];
    t->buckets[k] = x;
    t->n_entries++;
    return x;
}

static void row_free(struct typenames_row *r)
{
    free(r->schema);
    free(r->name);
    free(r->children);
    memset(r, 0, sizeof *r);
}

/* The entry's question is over: state (T_KNOWN or T_NONE). */
static void settle(struct typenames *t, struct tentry *x, enum tstate state)
{
    if (x->state == T_QUEUED || x->state == T_ASKED)
        t->open--;
    free(x->user);
    x->user = NULL;
    x->state = state;
}

/* The questions queued for the database of the first one found, asked (T_ASKED): their OIDs,
 * database and user into the caller's; 0 when none is queued. */
static int take_batch(struct typenames *t, uint32_t **oids, char **database, char **user)
{
    int n = 0;
    *database = *user = NULL;
    for (size_t i = 0; i < t->n_buckets; i++)
        for (struct tentry *x = t->buckets[i]; x; x = x->next) {
            if (x->state != T_QUEUED || (*database && strcmp(*database, x->database) != 0))
                continue;
            if (!*database) {
                *database = xstrdup(x->database);
                *user = xstrdup(x->user);
            }
            *oids = xrealloc(*oids, (size_t)(n + 1) * sizeof **oids);
            (*oids)[n++] = x->oid;
            x->state = T_ASKED;
            t->queued--;
        }
    return n;
}

/* A batch's answer: each row known, the OIDs asked that no row names have none. */
static void take_answer(struct typenames *t, const char *database, const uint32_t *oids, int n,
                        struct typenames_row *rows, int n_rows)
{
    for (int i = 0; i < n_rows; i++) {
        struct tentry *x = find(t, database, rows[i].oid);
        if (x && x->state == T_KNOWN) {
            row_free(&rows[i]);
            continue;
        }
        if (x)
            settle(t, x, T_KNOWN);
        else
            x = add(t, database, rows[i].oid, T_KNOWN);
        x->row = rows[i];
    }
    for (int i = 0; i < n; i++) {
        struct tentry *x = find(t, database, oids[i]);
        if (x && x->state == T_ASKED)
            settle(t, x, T_NONE);
    }
}

static void *lookup_thread(void *arg)
{
    struct typenames *t = arg;
    uint32_t *oids = NULL;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->stop && t->queued == 0)
            pthread_cond_wait(&t->wake, &t->mu);
        if (t->stop)
            break;
        char *database, *user;
        int n = take_batch(t, &oids, &database, &user);
        pthread_mutex_unlock(&t->mu);
        struct typenames_row *rows = NULL;
        int n_rows = 0;
        char why[400] = "";
        int rc = t->lookup(t->arg, database, user, oids, n, &rows, &n_rows, why, sizeof why);
        pthread_mutex_lock(&t->mu);
        if (rc < 0 && !t->said) {
            t->said = 1;
            fprintf(stderr,
                    "replay record: the names of user types cannot be learnt (%s); a replay "
                    "leaves those types for its server to infer\n",
                    why);
        }
        take_answer(t, database, oids, n, rc < 0 ? NULL : rows, rc < 0 ? 0 : n_rows);
        free(rows);
        free(database);
        free(user);
        pthread_cond_broadcast(&t->answered);
    }
    pthread_mutex_unlock(&t->mu);
    free(oids);
    return NULL;
}

struct typenames *typenames_new(typenames_lookup_fn lookup, void *arg)
{
    struct typenames *t = xcalloc(1, sizeof *t);
    t->lookup = lookup;
    t->arg = arg;
    t->n_buckets = 64;
    t->buckets = xcalloc(t->n_buckets, sizeof *t->buckets);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->wake, NULL);
    pthread_cond_init(&t->answered, NULL);
    if (pthread_create(&t->thread, NULL, lookup_thread, t) != 0) {
        fprintf(stderr, "replay record: no thread to learn the names of user types; a replay "
                        "leaves those types for its server to infer\n");
        t->stop = -1; /* no thread: every question has no name at once */
    }
    return t;
}

void typenames_want(struct typenames *t, const char *database, const char *user,
                    const uint32_t *oids, int n)
{
    int any = 0;
    for (int i = 0; i < n && !any; i++)
        any = oids[i] >= CAPTURE_FIRST_USER_OID;
    if (!any) /* (a Parse of builtin types, the most: no lock taken) */
        return;
    int woke = 0;
    pthread_mutex_lock(&t->mu);
    for (int i = 0; i < n; i++) {
        if (oids[i] < CAPTURE_FIRST_USER_OID || find(t, database, oids[i]))
            continue;
        struct tentry *x = add(t, database, oids[i], t->stop ? T_NONE : T_QUEUED);
        if (x->state == T_QUEUED) {
            x->user = xstrdup(user);
            t->queued++;
            t->open++;
            woke = 1;
        }
    }
    if (woke)
        pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->mu);
}

void typenames_names_free(struct capture_type_name *names, int n)
{
    for (int i = 0; i < n; i++) {
        free((char *)names[i].schema);
        free((char *)names[i].name);
    }
    free(names);
}

int typenames_collect(struct typenames *t, const char *database, const uint32_t *oids, int n,
                      struct capture_type_name **names, int *n_names)
{
    uint32_t walk[MAX_WALK];
    int n_walk = 0, rc = 0;
    *names = NULL;
    *n_names = 0;
    for (int i = 0; i < n && n_walk < MAX_WALK; i++)
        walk[n_walk++] = oids[i];
    pthread_mutex_lock(&t->mu);
    for (int i = 0; i < n_walk && rc == 0; i++) {
        int seen = walk[i] < CAPTURE_FIRST_USER_OID;
        for (int k = 0; k < i && !seen; k++)
            seen = walk[k] == walk[i];
        struct tentry *x = seen ? NULL : find(t, database, walk[i]);
        if (!x || x->state == T_NONE)
            continue;
        if (x->state != T_KNOWN) {
            rc = -1;
            break;
        }
        *names = xrealloc(*names, (size_t)(*n_names + 1) * sizeof **names);
        (*names)[(*n_names)++] = (struct capture_type_name){
            x->oid, xstrdup(x->row.schema), xstrdup(x->row.name), x->row.kind, x->row.inner};
        for (int k = 0; k < x->row.n_children && n_walk < MAX_WALK; k++)
            walk[n_walk++] = x->row.children[k];
    }
    pthread_mutex_unlock(&t->mu);
    if (rc < 0) {
        typenames_names_free(*names, *n_names);
        *names = NULL;
        *n_names = 0;
    }
    return rc;
}

void typenames_settle(struct typenames *t, int timeout_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L)
        until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&t->mu);
    while (t->open > 0 && !t->stop && pthread_cond_timedwait(&t->answered, &t->mu, &until) == 0)
        ;
    for (size_t i = 0; t->open > 0 && i < t->n_buckets; i++)
        for (struct tentry *x = t->buckets[i]; x; x = x->next)
            if (x->state == T_QUEUED || x->state == T_ASKED) {
                t->queued -= x->state == T_QUEUED;
                settle(t, x, T_NONE); /* (an answer still coming finds it settled) */
            }
    pthread_mutex_unlock(&t->mu);
}

void typenames_free(struct typenames *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    int joinable = t->stop == 0;
    t->stop = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->mu);
    if (joinable)
        pthread_join(t->thread, NULL);
    for (size_t i = 0; i < t->n_buckets; i++)
        for (struct tentry *x = t->buckets[i], *n; x; x = n) {
            n = x->next;
            row_free(&x->row);
            free(x->database);
            free(x->user);
            free(x);
        }
    free(t->buckets);
    pthread_cond_destroy(&t->wake);
    pthread_cond_destroy(&t->answered);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

/* ---- the lookup through libpq ---- */

/* Each type asked and each user's type their values hold (recursively): an array's element,
 * a domain's base, a composite's fields; by schema and name, exactly as the catalog has them
 * (no search_path in between). */
#define TYPE_KIND                                                                                  \
    "CASE WHEN ty.typtype = 'd' THEN 'd' WHEN ty.typtype = 'c' THEN 'c'"                           \
    " WHEN ty.typcategory = 'A' AND ty.typelem <> 0 THEN 'a' ELSE 'o' END"
#define TYPE_FIELDS                                                                                \
    "SELECT a.atttypid FROM pg_attribute a WHERE ty.typtype = 'c' AND a.attrelid = ty.typrelid"    \
    " AND a.attnum > 0 AND NOT a.attisdropped"
static const char NAMES_SQL[] =
    "WITH RECURSIVE t(oid) AS ("
    " SELECT o FROM unnest($1::oid[]) AS o"
    " UNION"
    " SELECT c.child FROM t JOIN pg_type ty ON ty.oid = t.oid,"
    "  LATERAL (SELECT CASE " TYPE_KIND " WHEN 'a' THEN ty.typelem WHEN 'd' THEN ty.typbasetype"
    "   END UNION ALL " TYPE_FIELDS ") AS c(child)"
    " WHERE c.child >= 16384)"
    " SELECT ty.oid::text, n.nspname, ty.typname, " TYPE_KIND ","
    "  (CASE " TYPE_KIND " WHEN 'a' THEN ty.typelem WHEN 'd' THEN ty.typbasetype ELSE 0 END)::text,"
    "  coalesce((SELECT string_agg(f.atttypid::text, ' ') FROM (" TYPE_FIELDS ") AS f), '')"
    " FROM t JOIN pg_type ty ON ty.oid = t.oid JOIN pg_namespace n ON n.oid = ty.typnamespace"
    " WHERE ty.oid >= 16384";

/* A row of NAMES_SQL: its children the inner type and the fields' types. */
static void read_row(const struct pg_result *r, int i, struct typenames_row *out)
{
    memset(out, 0, sizeof *out);
    out->oid = (uint32_t)strtoul(pg_result_value(r, i, 0), NULL, 10);
    out->schema = xstrdup(pg_result_value(r, i, 1));
    out->name = xstrdup(pg_result_value(r, i, 2));
    out->kind = pg_result_value(r, i, 3)[0];
    out->inner = (uint32_t)strtoul(pg_result_value(r, i, 4), NULL, 10);
    const char *f = pg_result_value(r, i, 5);
    out->children = xcalloc(strlen(f) / 2 + 2, sizeof *out->children);
    if (out->inner)
        out->children[out->n_children++] = out->inner;
    for (char *end; *f; f = end) {
        uint32_t oid = (uint32_t)strtoul(f, &end, 10);
        if (end == f)
            break;
        out->children[out->n_children++] = oid;
    }
}

struct pg_side {
    char *database, *user;
    struct pg_conn *conn;
};

struct typenames_pg {
    const struct pg_connopts *conn;
    struct pg_side *sides;
    size_t n_sides;
};

struct typenames_pg *typenames_pg_new(const struct pg_connopts *conn)
{
    struct typenames_pg *pg = xcalloc(1, sizeof *pg);
    pg->conn = conn;
    return pg;
}

void typenames_pg_free(struct typenames_pg *pg)
{
    if (!pg)
        return;
    for (size_t i = 0; i < pg->n_sides; i++) {
        pg_finish(pg->sides[i].conn);
        free(pg->sides[i].database);
        free(pg->sides[i].user);
    }
    free(pg->sides);
    free(pg);
}

/* The connection kept for database and user, made when there is none: NULL with e set when it
 * cannot be made. */
static struct pg_side *side_for(struct typenames_pg *pg, const char *database, const char *user,
                                struct err *e)
{
    struct pg_side *s = NULL;
    for (size_t i = 0; i < pg->n_sides && !s; i++)
        if (strcmp(pg->sides[i].database, database) == 0 && strcmp(pg->sides[i].user, user) == 0)
            s = &pg->sides[i];
    if (!s) {
        pg->sides = xrealloc(pg->sides, (pg->n_sides + 1) * sizeof *pg->sides);
        s = &pg->sides[pg->n_sides++];
        *s = (struct pg_side){xstrdup(database), xstrdup(user), NULL};
    }
    if (s->conn)
        return s;
    struct pg_connopts o;
    if (pg_connopts_with_database(pg->conn, database, user, &o, e) < 0)
        return NULL;
    s->conn = pg_connect_aux(&o, PG_AUX_TIMEOUT_MS, e);
    pg_connopts_free(&o);
    return s->conn ? s : NULL;
}

int typenames_lookup_pg(void *arg, const char *database, const char *user, const uint32_t *oids,
                        int n, struct typenames_row **rows, int *n_rows, char *why, size_t why_size)
{
    struct typenames_pg *pg = arg;
    struct buf list;
    buf_init(&list);
    buf_putc(&list, '{');
    for (int i = 0; i < n; i++)
        buf_printf(&list, "%s%u", i ? "," : "", (unsigned)oids[i]);
    buf_putc(&list, '}');
    const char *values[1] = {list.data};
    struct err e = {0};
    struct pg_result *r = NULL;
    for (int attempt = 0; attempt < 2 && !r; attempt++) { /* again on a new connection */
        struct pg_side *s = side_for(pg, database, user, &e);
        if (!s)
            break;
        r = pg_query(s->conn, NAMES_SQL, 1, values, &e);
        if (!r && !pg_conn_ok(s->conn)) {
            pg_finish(s->conn);
            s->conn = NULL;
        } else if (!r) {
            break; /* the server refused the question: it would again */
        }
    }
    buf_free(&list);
    if (!r) {
        snprintf(why, why_size, "database %s: %s", database, e.msg);
        return -1;
    }
    *n_rows = pg_result_rows(r);
    *rows = xcalloc((size_t)*n_rows + 1, sizeof **rows);
    for (int i = 0; i < *n_rows; i++)
        read_row(r, i, &(*rows)[i]);
    pg_result_free(r);
    return 0;
}
