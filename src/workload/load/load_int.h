#ifndef PGARENA_WORKLOAD_LOAD_INT_H
#define PGARENA_WORKLOAD_LOAD_INT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "pg/pg.h"
#include "workload/load/load.h"

/*
 * Machinery shared by the loaders: a plan of tasks with dependencies run by a pool of
 * connections (load_run.c), statements that can be cancelled and COPY streams fed from a row
 * generator (load.c), and the check that tables about to be replaced are the loader's own
 * (load_check.c). Ownership: a struct load_plan owns its tasks and everything they point to
 * (load_plan_free); a struct load_ctx borrows its options; a struct pg_conn * passed in stays the
 * caller's.
 */

/* What every connection of one loader run shares. Thread-safe. */
struct load_ctx {
    const struct load_options *opt;
    atomic_int stopped;        /* sticky: a stop request or another connection's failure */
    _Atomic int64_t rows_done; /* rows sent by every COPY so far */
};

/* Longest COPY text line a row generator may write, newline included. */
#define LOAD_ROW_MAX 1024

/* Writes row `row` (0-based) as one COPY text-format line, newline included, into out (room
 * for LOAD_ROW_MAX bytes) and returns its length; 0 skips the row (not this table's). May
 * keep state in arg: rows come in order, once each. */
typedef size_t (*load_row_fn)(void *arg, char *out, int64_t row);

/* A COPY of the rows [first, end) produced by row(). */
struct load_copy {
    const char *sql; /* "copy TABLE from stdin ..." */
    load_row_fn row;
    void *arg;
    int64_t first;
    int64_t end;
};

/* One task: statements, or statements around a COPY, all on one connection. */
struct load_task {
    char *what;      /* for messages: "could not load pgbench_accounts_2" */
    char *sql;       /* run first (may be NULL); e.g. "begin; truncate t" */
    char *copy_sql;  /* NULL: no COPY */
    char *after_sql; /* run after the COPY (may be NULL); e.g. "commit" */
    load_row_fn row;
    void *row_arg; /* freed with the plan */
    int64_t first, end;
    int n_deps;
    int *deps; /* indexes of tasks that must be done first */
    int state; /* runner's: 0 waiting, 1 running, 2 done */
};

/* Tasks in priority order: a free connection takes the first task whose dependencies are
 * done. setup_sql runs first, in one transaction, on a connection of its own. */
struct load_plan {
    char *setup_sql;
    int n_tasks;
    struct load_task *tasks;
    int64_t rows_total; /* rows the COPY tasks will send, for progress */
    int server_version; /* of the server loaded (170004), 0 unknown: DDL that differs by major */
};

void load_plan_init(struct load_plan *p);
void load_plan_free(struct load_plan *p);

/* Append a task running `sql` (copied); returns its index. Add dependencies with
 * load_task_after. */
int load_plan_sql(struct load_plan *p, const char *what, const char *sql);

/* Append a task running before_sql, a COPY of rows [first, end), then after_sql; the plan
 * takes row_arg (freed with free()). `rows` is what it adds to rows_total. */
int load_plan_copy(struct load_plan *p, const char *what, const char *before_sql,
                   const struct load_copy *cp, const char *after_sql, int64_t rows);

/* Task `task` waits for task `dep`. */
void load_task_after(struct load_plan *p, int task, int dep);

/* Run the plan: setup on one connection, then the tasks on min(jobs, tasks) connections,
 * reporting progress from the calling thread, then make the commits durable. The first
 * failure stops every connection and is returned; a stop request returns "interrupted". */
int load_run(const struct pg_connopts *conn, const struct load_options *opt, struct load_plan *plan,
             struct err *e);

/* Whether the run must stop (a stop request, or a failure elsewhere). */
int load_stopped(struct load_ctx *x);

/* Run one or more statements; on a stop, cancel them and fail with "interrupted". Otherwise
 * an error carries the server's message (and its DETAIL), prefixed by what. */
int load_exec(struct load_ctx *x, struct pg_conn *c, const char *what, const char *sql,
              struct err *e);

/* Stream cp on c in chunks, counting rows into x->rows_done; stops between chunks when
 * asked, making the server fail the COPY, and returns -1 with "interrupted". */
int load_copy(struct load_ctx *x, struct pg_conn *c, const struct load_copy *cp, struct err *e);

/* Decimal digits of v at p; returns the end. For row generators (faster than snprintf). */
char *load_put_int(char *p, int64_t v);

/* An existing relation the loader would replace, and what shape it must have to be the
 * loader's own: its columns as "name type, name type" (format_type's spelling); alt_shape is
 * a second accepted shape, or NULL. */
struct load_expect {
    const char *name;
    const char *shape;
    const char *alt_shape;
};

/* Check, before anything changes, the relations of these names that exist (as `drop table`
 * would find them): each must be a table in an expected shape, or a partition of one that is
 * dropped; else ERR_INPUT naming it and what differs, unless force. Appends the names that
 * exist, partitions included, to `existing` as "a, b, c" (for the notice). */
struct buf;
int load_check_tables(struct pg_conn *c, const struct load_expect *ex, int n, int force,
                      struct buf *existing, struct err *e);

/* load_check_tables on a connection of its own, then opt->notice of what is replaced; the
 * server's version into *server_version (NULL: not wanted). */
int load_check_and_notify(const struct pg_connopts *conn, const struct load_options *opt,
                          const struct load_expect *ex, int n, int *server_version, struct err *e);

/* The steps every loader ends with: check the tables it would replace (load_check_and_notify),
 * then build its plan with `build` and run it. */
int load_checked_run(const struct pg_connopts *conn, const struct load_options *opt,
                     const struct load_expect *ex, int n,
                     void (*build)(struct load_plan *p, const struct load_options *opt),
                     struct err *e);

/* PostgreSQL's hash partition of an int4 (bigint = 0) or int8 key: the remainder, in
 * [0, modulus), of `for values with (modulus M, remainder R)` that holds the key. */
int load_hash_partition(int64_t key, int bigint, int modulus);

/* sysbench 1.0's default ("special") distribution over [lo, hi], as sb_rand_special with
 * its defaults (12 iterations, 1 %, 75 %). */
struct rng;
int64_t load_sb_special(struct rng *r, int64_t lo, int64_t hi);

/* Random decimal digits at p in `groups` groups of 11 separated by '-', as sysbench's
 * templates "###########-###########..."; writes groups*12-1 characters, returns the end. */
char *load_sb_digits(struct rng *r, char *p, int groups);

#endif
