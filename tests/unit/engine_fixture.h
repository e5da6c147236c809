#ifndef PGARENA_TESTS_ENGINE_FIXTURE_H
#define PGARENA_TESTS_ENGINE_FIXTURE_H

/*
 * One worker's clients driven by hand against the fake connection, in virtual time: the test
 * moves the clock (fx_at), fires the timers due and hands every client the event it waits
 * for, as the worker's wait loop would. Included by the test_engine_*.c files only.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "engine/client_script.h"
#include "engine/engine_int.h"
#include "fake_pg.h"

struct fx {
    struct script_set scripts;
    struct pg_connopts conn;
    struct engine_config cfg;
    struct engine_state run;
    struct worker *w;
    time_ns now;
};

/* Virtual time starts here: any positive origin does. */
#define FX_T0 (1000 * NS_PER_S)

/* Parse script and set the defaults of a one-client, one-thread -t run (cfg may be changed
 * before fx_start). */
static inline void fx_init(struct fx *f, const char *script)
{
    memset(f, 0, sizeof *f);
    script_set_init(&f->scripts);
    struct err e = {0};
    assert_int_equal(script_set_add(&f->scripts, "t.sql", script, 1, &e), 0);
    f->cfg.conn = &f->conn;
    f->cfg.scripts = &f->scripts;
    f->cfg.scale = 1;
    f->cfg.clients = 1;
    f->cfg.threads = 1;
    f->cfg.tx_per_client = 1;
    f->cfg.protocol = PROTO_SIMPLE;
    f->cfg.interval_us = 1000000;
    f->cfg.seed = 42;
    f->cfg.max_tries = 1;
    f->now = FX_T0;
    fake_install();
}

/* Every client gets what it waits for: the timers due at now fire, then every socket is
 * ready (the fake answers at once, unless told to hang). */
static inline void fx_events(struct fx *f)
{
    struct worker *w = f->w;
    struct client *c;
    while ((c = timers_pop_due(&w->timers, f->now)) != NULL)
        client_on_timer(c, f->now);
    for (int i = 0; i < w->n_clients; i++) {
        c = &w->clients[i];
        if (c->watch.fd >= 0 && c->state != CS_FINISHED)
            client_advance(c, f->now);
    }
}

/* Move the clock to t (ns after FX_T0) and deliver the events. */
static inline void fx_at(struct fx *f, time_ns t)
{
    if (FX_T0 + t > f->now)
        f->now = FX_T0 + t;
    fx_events(f);
}

/* Set up the run, connect the clients (setup), and start it at now: warmup_s before the
 * measured part, and -T's end after it. Returns the worker's setup result (0 or -1). */
static inline int fx_start(struct fx *f)
{
    engine_state_init(&f->run, &f->cfg);
    f->w = &f->run.workers[0];
    struct worker *w = f->w;
    for (int i = 0; i < w->n_clients; i++)
        client_connect(&w->clients[i], f->now);
    for (int k = 0; k < 8 && w->n_setup_pending > 0 && !w->setup_failed; k++)
        fx_events(f);
    if (w->setup_failed)
        return -1;
    f->run.go_ns = f->now;
    f->run.start_ns = f->now + f->cfg.warmup_s * NS_PER_S;
    if (f->cfg.duration_s > 0)
        f->run.end_ns = f->run.start_ns + f->cfg.duration_s * NS_PER_S;
    worker_begin(w, f->now);
    return 0;
}

/* Deliver events at now until every client has finished (at most n rounds). */
static inline void fx_run(struct fx *f, int n)
{
    for (int k = 0; k < n && f->w->n_live > 0; k++)
        fx_events(f);
}

static inline void fx_collect(struct fx *f, struct engine_result *out)
{
    engine_state_collect(&f->run, out);
}

static inline void fx_free(struct fx *f)
{
    if (f->w)
        engine_state_free(&f->run);
    script_set_free(&f->scripts);
    fake_uninstall();
}

static inline struct client *fx_client(struct fx *f, int i)
{
    return &f->w->clients[i];
}

#endif
