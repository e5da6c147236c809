#ifndef PGARENA_CLI_SESSION_H
#define PGARENA_CLI_SESSION_H

#include "base/err.h"
#include "local/local.h"
#include "pg/pg.h"

/* What init and run share: signal handling and the --local scratch server. Ownership: the
 * caller owns srv and conn; session_local_stop releases what session_local_start made. */

/* Set by the first SIGINT/SIGTERM (the loader polls it); a second one exits at once. */
extern volatile int session_interrupted;

/* Install SIGINT/SIGTERM handlers: the first asks the engine and loader to stop, the second
 * removes a scratch server and exits with status 1 at once. */
void session_signals_install(void);

/* Start a scratch server and point conn at it (replacing any -h/-p/-U/dbname). */
int session_local_start(struct local_server *srv, struct pg_connopts *conn, struct err *e);

/* The same for a run: with statements, pg_stat_statements preloaded and created (run --local
 * without --no-statements). */
int session_local_start_run(struct local_server *srv, struct pg_connopts *conn, int statements,
                            struct err *e);

/* Stop it if started; errors are reported on stderr only (the command's own result stands). */
void session_local_stop(struct local_server *srv);

#endif
