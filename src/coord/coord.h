#ifndef PGARENA_COORD_COORD_H
#define PGARENA_COORD_COORD_H

#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/err.h"
#include "pg/pg.h"

/*
 * One run split over N agent processes on any hosts,
 * coordinated through PostgreSQL itself: a `pgarena` schema on the coordination database,
 * created on first use, holds a row per run and a row per agent.
 *
 *   register      an agent inserts its row (a second agent of the same index is refused)
 *                 after checking the run's options against the first agent's;
 *   barrier       with every client connected, the agent marks itself ready and waits for
 *                 all N; agent 0 then sets the start at the server's time + 3 s;
 *   start         each agent starts then, by its own monotonic clock, from its measured
 *                 offset to the server's clock (best of several round trips);
 *   heartbeats    every second on a connection of their own (a thread); an agent silent for
 *                 5 s marks the run lost and every agent stops;
 *   results       each agent stores its result text; agent 0 waits for them all.
 *
 * Waiting agents LISTEN on the channel pgarena_coord and every change of a run (an agent
 * ready, the start set, a result stored, the run lost) sends a NOTIFY, so they wake at once;
 * they also look every 100 ms, which covers a pooler that does not pass notifications on.
 * Ownership: struct coord is opaque, made by coord_open and freed by coord_close; strings it
 * returns belong to the caller.
 */

/* ---- The split of one run over N agents (pure) ---- */

/* Clients of agent i of n over c in all: floor((i+1)c/n) - floor(ic/n) (they add up to c and
 * differ by at most one). */
int64_t coord_split_clients(int64_t clients, int n, int i);
/* Rate of an agent with clients_i of clients in all: rate * clients_i / clients (so the sum of
 * the agents' Poisson schedules is the whole run's). */
double coord_split_rate(double rate, int64_t clients, int64_t clients_i);
/* The seed of agent i from the run's seed: distinct per agent, the same on every host. */
uint64_t coord_split_seed(uint64_t seed, int i);

/* The agent index from the environment when --agent-index is not given:
 * JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs), else SLURM_PROCID. -1 when neither is set,
 * -2 when one is set but is not a non-negative integer. */
int coord_index_from_env(void);

/* ---- Coordination through the database ---- */

/* Seconds an agent may stay silent before the run is lost, and between heartbeats. */
#define COORD_SILENT_S    5
#define COORD_HEARTBEAT_S 1
/* The start is set this far after the barrier, on the server's clock. */
#define COORD_START_DELAY_S 3

struct coord;

struct coord_agent {
    int index, count;
    const char *run_id;
    const char *options; /* "name=value" lines: what must agree across the run's agents */
    const char *host;
    double wait_s; /* how long to wait for all agents at the barrier */
};

/* Connect to the coordination database, create the schema when missing, register this agent
 * and start its heartbeats. ERR_INPUT: the database is not writable, the run has finished
 * already, another agent holds this index, the run's agent count or an option differs (named);
 * ERR_RUNTIME: it cannot be reached. */
struct coord *coord_open(const struct pg_connopts *conn, const struct coord_agent *a,
                         struct err *e);

/* Measure the clock offset to the server (server minus own, us) and its uncertainty (half the
 * best round trip) from several round trips. */
int coord_measure_clock(struct coord *c, double *offset_us, double *uncertainty_us, struct err *e);

/* The barrier: mark this agent ready (every client connected), wait for all, agent 0 sets
 * the start. Gives the start on the own monotonic clock and on the server's (us since the
 * epoch). ERR_RUNTIME naming the agents missing after wait_s, or when the run was lost. */
int coord_barrier(struct coord *c, time_ns *go_ns, int64_t *start_server_us, struct err *e);

/* Whether the run was lost (an agent silent, or one that could not take part: named in why):
 * set by the heartbeat thread or the barrier, whichever sees it first, which then calls on_lost
 * once with the error of an agent whose run was lost before it started (the barrier's: "run:
 * run ID was lost before it started: WHY"), so that an agent stopped while connecting its
 * clients says the same as one waiting at the barrier. */
int coord_lost(struct coord *c, char *why, size_t why_size);
void coord_on_lost(struct coord *c, void (*fn)(const char *error, void *arg), void *arg);

/* Store this agent's result text (done: its part is over; heartbeats stop). */
int coord_store_result(struct coord *c, const char *text, int complete, struct err *e);

/* Agent 0: wait until every agent stored its result or was lost (at most wait_s), and give
 * the texts: texts[i] of agent i, NULL when it has none (caller frees each and the array). */
int coord_collect(struct coord *c, double wait_s, char ***texts, struct err *e);

/* This agent cannot go on (its clients cannot connect, ...): mark the run lost with why,
 * "agent I could not take part: WHY", so that the others say the real cause rather than
 * that it went silent. A run lost or finished already stays as it is. */
void coord_abandon(struct coord *c, const char *why);
/* Mark the run finished (or lost), stop the heartbeats, disconnect, free. */
void coord_close(struct coord *c, int finished);

#endif
