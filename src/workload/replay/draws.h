#ifndef PGARENA_WORKLOAD_REPLAY_DRAWS_H
#define PGARENA_WORKLOAD_REPLAY_DRAWS_H

/*
 * The capture's order of draws from each sequence (replay run --order capture): a statement
 * that takes from a sequence may not start before every statement taking from the same
 * sequence that certainly *started* before it in the capture has finished in the replay, so
 * the ids the replay's server hands out are the capture's, and the ids the application sent
 * back (a log shows those, not the ones returned) name the same rows.
 *
 * A draw happens when its statement runs, not when its transaction ends (sequences are not
 * transactional): unlike the order across sessions (order.h), statements inside transaction
 * blocks are waited for. With the capture's time resolution R (a log's milliseconds), A
 * certainly started before S only when start(A) + R <= start(S): draws within one R are not
 * ordered (the log cannot tell which came first). The start is what counts, not the end: a
 * slow INSERT drew early.
 *
 * The caller says which statements draw through keys: a key is whatever the statement's text
 * names (a table, a sequence), and links say which sequences a key draws from. Keys that share
 * a sequence form one group, whose statements are ordered together (a statement that draws
 * from two sequences orders both); a key linked to no sequence orders nothing. In a group,
 * ranked by start, the statements that certainly started before S are the first need(S): one
 * watermark per group (how many from the first have finished) makes each check one
 * comparison. Memory: 21 bytes per statement that draws; the others cost nothing (found by
 * binary search on their numbers).
 *
 * Waits of this kind, with the order's, run only forward in the capture's time, so they form
 * no cycle by themselves; one through the server's locks is broken by the give-way check
 * (source.c).
 *
 * Pure: the builder and the checks take no lock; the caller serialises
 * replay_draws_finished (the marks are read atomically by replay_draws_ready from any
 * thread). Ownership: the structure owns its arrays (replay_draws_free).
 */

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define REPLAY_DRAWS_NONE UINT32_MAX

struct replay_draws_link {
    uint32_t key, sequence;
};

struct replay_draws_build {
    size_t n, cap;
    uint64_t *seq;  /* the statement's number in the capture (order.h), ascending */
    int64_t *start; /* µs */
    uint32_t *key;  /* the caller's */
    int64_t resolution_us;
    size_t n_links, cap_links;
    struct replay_draws_link *links;
};

struct replay_draws {
    size_t n;               /* statements that draw from a known sequence */
    uint64_t *seq;          /* ascending */
    uint32_t *group, *need; /* by entry */
    uint32_t *slot;         /* by entry: its place in done */
    unsigned char *done;    /* by slot: each group's statements together, ranked by start */
    size_t n_groups;
    uint32_t *first, *count; /* by group: its slots */
    _Atomic uint32_t *mark;  /* by group: the first mark of its slots have finished */
};

/* resolution_us: the capture's time_resolution_us (0: exact times). */
void replay_draws_build_init(struct replay_draws_build *b, int64_t resolution_us);
/* Statement number seq (ascending from call to call) started at start_us and draws through
 * key. */
void replay_draws_build_statement(struct replay_draws_build *b, uint64_t seq, int64_t start_us,
                                  uint32_t key);
/* Statements of key draw from sequence (any number: the caller's own numbering). */
void replay_draws_build_link(struct replay_draws_build *b, uint32_t key, uint32_t sequence);
/* The structure, made from b (b is emptied). */
void replay_draws_build_finish(struct replay_draws_build *b, struct replay_draws *d);
void replay_draws_build_free(struct replay_draws_build *b);

/* Whether statement number seq may start: 1 when every statement of its group that certainly
 * started before it has finished (1 for a statement that draws from no known sequence). */
int replay_draws_ready(const struct replay_draws *d, uint64_t seq);
/* Statement number seq finished (or will never run); callers serialise. Whether its group's
 * mark moved. */
int replay_draws_finished(struct replay_draws *d, uint64_t seq);
/* The mark of seq's group (for the give-way check: whether what it waits for moves),
 * REPLAY_DRAWS_NONE when seq draws from no known sequence. */
uint32_t replay_draws_mark(const struct replay_draws *d, uint64_t seq);
void replay_draws_free(struct replay_draws *d);

#endif
