#ifndef PGARENA_SERVER_SERVER_INT_H
#define PGARENA_SERVER_SERVER_INT_H

/* Shared inside server/: running a catalog query, reading its values, the client's
 * addresses. Ownership: the caller owns (and frees) every result, string and array returned. */

#include <stdint.h>

#include "server/server.h"

/* A query expecting rows; NULL with e set (the server's message) otherwise. The caller
 * frees the result (pg_result_free). */
struct pg_result *srv_query(struct pg_conn *c, const char *sql, struct err *e);

/* A value as an integer; -1 when NULL or not a number (sizes and counters are >= 0). */
int64_t srv_value_int(const struct pg_result *r, int row, int col);

/* A value as a new string, NULL when NULL. */
char *srv_value_dup(const struct pg_result *r, int row, int col);

/* Checkpoints from pg_stat_checkpointer (17+; its columns, unqualified), timed and requested,
 * done ones only: 18's num_done leaves out the timed checkpoints skipped on an idle server that
 * num_timed counts (17 has no num_done: there they count). A standby's restartpoints are its
 * checkpoints: they go to restartpoints_* alone (a primary's stay as they were when it was a
 * standby), and a requested one is skipped when no new checkpoint record came. */
#define SRV_RESTARTPOINTS_REQ "least(restartpoints_req, restartpoints_done)"
#define SRV_CKPT_REQ_17       "(num_requested + " SRV_RESTARTPOINTS_REQ ")"
#define SRV_CKPT_TIMED_17     "(num_timed + restartpoints_done - " SRV_RESTARTPOINTS_REQ ")"
#define SRV_CKPT_REQ_18       "(least(num_requested, num_done) + " SRV_RESTARTPOINTS_REQ ")"
#define SRV_CKPT_TIMED_18                                                                          \
    "(num_done - least(num_requested, num_done) + restartpoints_done - " SRV_RESTARTPOINTS_REQ ")"

#endif
