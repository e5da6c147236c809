#include "workload/load/load_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/mem.h"
#include "os/os.h"

/*
 * The pool: one thread per connection, each taking the first ready task of the plan, while
 * the calling thread reports progress and watches for a stop request. Tasks are few (a
 * handful per table), so a scan of the list under one mutex is cheap enough.
 */

#define REPORT_EVERY_NS (100 * NS_PER_MS)

enum { TASK_WAITING, TASK_RUNNING, TASK_DONE };

void load_plan_init(struct load_plan *p)
{
    memset(p, 0, sizeof *p);
}

void load_plan_free(struct load_plan *p)
{
    for (int i = 0; i < p->n_tasks; i++) {
        struct load_task *t = &p->tasks[i];
        free(t->what);
        free(t->sql);
        free(t->copy_sql);
        free(t->after_sql);
        free(t->row_arg);
        free(t->deps);
    }
    free(p->tasks);
    free(p->setup_sql);
    memset(p, 0, sizeof *p);
}

static struct load_task *add_task(struct load_plan *p, const char *what, const char *sql)
{
    p->tasks = xrealloc(p->tasks, sizeof *p->tasks * (size_t)(p->n_tasks + 1));
    struct load_task *t = &p->tasks[p->n_tasks++];
    memset(t, 0, sizeof *t);
    t->what = xstrdup(what);
    t->sql = sql ? xstrdup(sql) : NULL;
    return t;
}

int load_plan_sql(struct load_plan *p, const char *what, const char *sql)
{
    add_task(p, what, sql);
    return p->n_tasks - 1;
}

int load_plan_copy(struct load_plan *p, const char *what, const char *before_sql,
                   const struct load_copy *cp, const char *after_sql, int64_t rows)
{
    struct load_task *t = add_task(p, what, before_sql);
    t->copy_sql = xstrdup(cp->sql);
    t->after_sql = after_sql ? xstrdup(after_sql) : NULL;
    t->row = cp->row;
    t->row_arg = cp->arg;
    t->first = cp->first;
    t->end = cp->end;
    p->rows_total += rows;
    return p->n_tasks - 1;
}

void load_task_after(struct load_plan *p, int task, int dep)
{
    struct load_task *t = &p->tasks[task];
    t->deps = xrealloc(t->deps, sizeof(int) * (size_t)(t->n_deps + 1));
    t->deps[t->n_deps++] = dep;
}

/* The run's shared state; mu guards the task states, the counters and the first error. */
struct pool {
    struct load_ctx x;
    const struct pg_connopts *conn;
    struct load_plan *plan;
    pthread_mutex_t mu;
    pthread_cond_t changed; /* a task finished, or the run must stop */
    int n_done, n_running;
    int n_copies, n_copies_done;
    int failed;
    struct err first;
};

static int task_ready(const struct load_plan *p, const struct load_task *t)
{
    if (t->state != TASK_WAITING)
        return 0;
    for (int i = 0; i < t->n_deps; i++)
        if (p->tasks[t->deps[i]].state != TASK_DONE)
            return 0;
    return 1;
}

/* The next task for a free connection, waiting while none is ready; NULL when the run is
 * over (all done, or stopping). Called and returns with mu held. */
static struct load_task *next_task(struct pool *pl)
{
    for (;;) {
        if (load_stopped(&pl->x) || pl->n_done == pl->plan->n_tasks)
            return NULL;
        for (int i = 0; i < pl->plan->n_tasks; i++) {
            struct load_task *t = &pl->plan->tasks[i];
            if (task_ready(pl->plan, t)) {
                t->state = TASK_RUNNING;
                pl->n_running++;
                return t;
            }
        }
        pthread_cond_wait(&pl->changed, &pl->mu);
    }
}

static int run_task(struct pool *pl, struct pg_conn *c, const struct load_task *t, struct err *e)
{
    if (t->sql && load_exec(&pl->x, c, t->what, t->sql, e) < 0)
        return -1;
    if (t->copy_sql) {
        struct load_copy cp = {t->copy_sql, t->row, t->row_arg, t->first, t->end};
        if (load_copy(&pl->x, c, &cp, e) < 0)
            return -1;
    }
    if (t->after_sql && load_exec(&pl->x, c, t->what, t->after_sql, e) < 0)
        return -1;
    return 0;
}

/* Record the first real failure (not the "interrupted" of the others it stops). */
static void pool_fail(struct pool *pl, const struct err *e)
{
    if (!pl->failed && !(pl->x.opt->stop_requested && *pl->x.opt->stop_requested)) {
        pl->failed = 1;
        pl->first = *e;
    }
    atomic_store(&pl->x.stopped, 1);
}

static void *worker(void *arg)
{
    struct pool *pl = arg;
    struct err e = {0};
    struct pg_conn *c = pg_connect(pl->conn, &e);
    /* Commits need not wait for the disk one by one: load_run flushes once at the end. */
    if (c && load_exec(&pl->x, c, "could not set up a loading connection",
                       "set synchronous_commit = off", &e) < 0) {
        pg_finish(c);
        c = NULL;
    }
    pthread_mutex_lock(&pl->mu);
    if (!c)
        pool_fail(pl, &e);
    struct load_task *t;
    while (c && (t = next_task(pl)) != NULL) {
        pthread_mutex_unlock(&pl->mu);
        int rc = run_task(pl, c, t, &e);
        pthread_mutex_lock(&pl->mu);
        t->state = TASK_DONE;
        pl->n_running--;
        pl->n_done++;
        pl->n_copies_done += t->copy_sql != NULL;
        if (rc < 0)
            pool_fail(pl, &e);
        pthread_cond_broadcast(&pl->changed);
    }
    pthread_cond_broadcast(&pl->changed);
    pthread_mutex_unlock(&pl->mu);
    if (c)
        pg_finish(c);
    return NULL;
}

/* Progress as the callback sees it; "load" until every COPY is done, then "finish". */
static void report(struct pool *pl, int force, const char **last_phase)
{
    const struct load_options *opt = pl->x.opt;
    if (!opt->progress)
        return;
    struct load_progress p = {
        .phase = pl->n_copies_done < pl->n_copies ? "load" : "finish",
        .rows_done = atomic_load(&pl->x.rows_done),
        .rows_total = pl->plan->rows_total,
        .steps_done = pl->n_done - pl->n_copies_done,
        .steps_total = pl->plan->n_tasks - pl->n_copies,
    };
    /* The end of the load phase is always shown, with its final count. */
    if (*last_phase && strcmp(*last_phase, "load") == 0 && strcmp(p.phase, "finish") == 0) {
        struct load_progress end = p;
        end.phase = "load";
        opt->progress(&end, opt->progress_arg);
    }
    *last_phase = p.phase;
    if (force || p.rows_done > 0 || p.steps_done > 0)
        opt->progress(&p, opt->progress_arg);
}

static void wait_ns(pthread_cond_t *cv, pthread_mutex_t *mu, time_ns ns)
{
    os_cond_wait_until(cv, mu, clock_now_ns() + ns);
}

/* Run the tasks on n connections; returns when every thread has ended. */
static void run_pool(struct pool *pl, int n)
{
    os_cond_init(&pl->changed);
    pthread_mutex_init(&pl->mu, NULL);
    pthread_t *th = xcalloc((size_t)n, sizeof *th);
    for (int i = 0; i < n; i++)
        pthread_create(&th[i], NULL, worker, pl);
    const char *last_phase = NULL;
    pthread_mutex_lock(&pl->mu);
    report(pl, 1, &last_phase);
    while (pl->n_done < pl->plan->n_tasks && !(atomic_load(&pl->x.stopped) && !pl->n_running)) {
        wait_ns(&pl->changed, &pl->mu, REPORT_EVERY_NS);
        if (load_stopped(&pl->x))
            pthread_cond_broadcast(&pl->changed);
        report(pl, 0, &last_phase);
    }
    if (!atomic_load(&pl->x.stopped))
        report(pl, 1, &last_phase);
    pthread_mutex_unlock(&pl->mu);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    free(th);
    pthread_mutex_destroy(&pl->mu);
    pthread_cond_destroy(&pl->changed);
}

int load_run(const struct pg_connopts *conn, const struct load_options *opt, struct load_plan *plan,
             struct err *e)
{
    struct pool pl = {.conn = conn, .plan = plan};
    pl.x.opt = opt;
    for (int i = 0; i < plan->n_tasks; i++)
        pl.n_copies += plan->tasks[i].copy_sql != NULL;
    struct pg_conn *c = pg_connect(conn, e);
    if (!c)
        return -1;
    int rc = 0;
    if (plan->setup_sql) {
        char *sql = xasprintf("begin;\n%s;\ncommit", plan->setup_sql);
        rc = load_exec(&pl.x, c, "could not create the tables", sql, e);
        free(sql);
    }
    int n = opt->jobs < plan->n_tasks ? opt->jobs : plan->n_tasks;
    if (rc == 0 && n > 0) {
        run_pool(&pl, n < 1 ? 1 : n);
        if (pl.failed)
            rc = err_set(e, pl.first.code, "%s", pl.first.msg);
        else if (atomic_load(&pl.x.stopped))
            rc = err_set(e, ERR_RUNTIME, "interrupted");
    }
    /* The loading connections committed without waiting for the disk; one synchronous
     * commit here flushes the log up to it, so the whole load is durable when we return. */
    if (rc == 0)
        rc = load_exec(&pl.x, c, "could not commit", "select txid_current()", e);
    pg_finish(c);
    return rc;
}
