#ifndef PGARENA_WORKLOAD_REPLAY_SEQUENCES_H
#define PGARENA_WORKLOAD_REPLAY_SEQUENCES_H

/*
 * Which sequences the capture's statements take from, learnt from the target (a copy taken
 * at the capture's start): the tables a statement inserts into and the sequences it names
 * (capture/sqltext.h's sqltext_draws), matched against the catalog's columns fed by a
 * sequence (a default calling nextval, serial's; an identity column). Names are matched as
 * the server reads them: a qualified one in its schema, an unqualified one in any schema (a
 * table of that name in two schemas orders the draws of both: a wait too many, never one
 * too few). A table the catalog does not have at the start (created during the capture), or
 * a draw through a function, a trigger or a rule, orders nothing; a sequence named in
 * nextval('name') that the catalog lacks is ordered by its name. The same catalog names the
 * keys whose values a sequence gave: the unique indexes on such a column, or on a column
 * referring to one, and the foreign keys referring to one (generated.h).
 *
 * The statements' texts are reduced to keys in the first pass (one per distinct database and
 * names, few), the catalog read once per database after the targets are reset, or once from
 * --reset-from's template (the targets are its copies), in a session that
 * pg_stat_statements and the server's log do not see when it may be so (sequences.c).
 */

#include <stddef.h>
#include <stdint.h>

/* The distinct (database, names) of the capture's statements that draw. */
struct replay_draw_keys {
    size_t n, cap;
    char **text; /* by key: the database's index, '\n', then the names (sqltext_draws's) */
    size_t *len;
    uint32_t *slots; /* open addressing: key + 1, 0 empty */
    size_t n_slots;
};

void replay_draw_keys_init(struct replay_draw_keys *k);
/* The key of a statement of database db (an index in replay_state.databases, -1 for the run's
 * own) drawing through names (len bytes, as sqltext_draws appends them). */
uint32_t replay_draw_key(struct replay_draw_keys *k, int db, const char *names, size_t len);
void replay_draw_keys_free(struct replay_draw_keys *k);

struct replay_state;
/* Read each target database's catalog (after --reset-from): with --order capture, the draws
 * linked and made (replay_state.draws); in any case replay_state.generated_keys. A database
 * that cannot be read (a session's connection would fail too) orders and names nothing. */
void replay_sequences_learn(struct replay_state *s);

#endif
